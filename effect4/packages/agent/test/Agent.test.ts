import { assert, describe, it } from "@effect/vitest"
import { Agent, AgentError, Message, type Model, ScriptedModel, Tool } from "@zett/agent"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { agentWith, recorder } from "./utils.js"

const add = Tool.make("add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  handler: ({ a, b }) => Effect.succeed({ sum: a + b })
})

class Forbidden extends Data.TaggedError("Forbidden")<{ readonly message: string }> {}
class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

describe("Agent", () => {
  it.effect("run loops model -> tools -> model and returns the final assistant message (A1)", () =>
    Effect.gen(function*() {
      const seen: Array<ReadonlyArray<Message.Message>> = []
      const agent = yield* agentWith([
        (
          request
        ) => (seen.push(request.messages), { toolCalls: [{ id: "c1", name: "add", arguments: { a: 2, b: 40 } }] }),
        (request) => (seen.push(request.messages), { text: "The sum is 42." })
      ], { tools: [add] })
      const reply = yield* agent.run("What is 2 + 40?")
      assert.strictEqual(reply.content, "The sum is 42.")
      assert.deepStrictEqual(seen[0]!.map((m) => m._tag), ["UserMessage"])
      assert.deepStrictEqual(seen[1]!.map((m) => m._tag), ["UserMessage", "AssistantMessage", "ToolMessage"])
      const toolMessage = seen[1]![2] as Message.ToolMessage
      assert.strictEqual(toolMessage.status, "ok")
      assert.deepStrictEqual(toolMessage.content, { sum: 42 })
    }))

  it.effect("extensions need unique names; two instances of one kind may register under different names (A4)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const error = yield* Effect.flip(agentWith([], { extensions: [recorder("same", log), recorder("same", log)] }))
      assert.instanceOf(error, AgentError.DuplicateExtension)
      assert.include(error.message, "same")
      const agent = yield* agentWith([], { extensions: [recorder("first", log), recorder("second", log)] })
      assert.deepStrictEqual(agent.extensions.map((e) => e.name), ["first", "second"])
    }))

  it.effect("hooks run in the documented order for a two-turn run with two tool calls (A5)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const agent = yield* agentWith([
        { toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }, { name: "add", arguments: { a: 3, b: 4 } }] },
        { text: "done" }
      ], {
        tools: [add],
        extensions: [recorder("rec", log)],
        compaction: {
          shouldCompact: () => (log.push("compaction"), false),
          compact: Effect.succeed
        }
      })
      yield* agent.run("go")
      assert.deepStrictEqual(log, [
        "onMessage",
        "beforeRun",
        "beforeTurn",
        "compaction",
        "onTool",
        "onState",
        "beforeModel",
        "onModelRequest",
        "afterModel",
        "beforeTool:add",
        "onToolCall:add",
        "afterTool:add:ok",
        "beforeTool:add",
        "onToolCall:add",
        "afterTool:add:ok",
        "afterTurn",
        "beforeTurn",
        "compaction",
        "onState",
        "beforeModel",
        "onModelRequest",
        "afterModel",
        "afterTurn",
        "afterRun",
        "onSuccess"
      ])
    }))

  it.effect("onMessage replaces the pending user message before it is appended (A5)", () =>
    Effect.gen(function*() {
      let seen: ReadonlyArray<Message.Message> = []
      const agent = yield* agentWith([(request) => (seen = request.messages, { text: "ok" })], {
        extensions: [{
          name: "mode",
          onMessage: (context) =>
            Effect.flatMap(context.inputMessage, (m) => context.setInputMessage(Message.user(`[plan] ${m.content}`)))
        }]
      })
      yield* agent.run("hello")
      assert.deepStrictEqual(seen, [Message.user("[plan] hello")])
    }))

  it.effect("beforeModel edits go through the context; onModelRequest wraps the provider stream (A5)", () =>
    Effect.gen(function*() {
      let seen: ReadonlyArray<Message.Message> = []
      const agent = yield* agentWith([(request) => (seen = request.messages, { text: "raw" })], {
        systemPrompt: "You are terse.",
        extensions: [{
          name: "edits",
          onState: (context) => context.addState("State: sunny"),
          beforeModel: (context, request) =>
            request.tools.length === 0 ? context.addMessage(Message.system("No tools today.")) : Effect.void,
          onModelRequest: (_context, request, next) =>
            Stream.map(
              next(request),
              (event) => event._tag === "TextDelta" ? { ...event, text: event.text.toUpperCase() } : event
            )
        }]
      })
      const reply = yield* agent.run("hi")
      assert.strictEqual(reply.content, "RAW")
      assert.deepStrictEqual(seen, [
        Message.system("You are terse.\n\nState: sunny"),
        Message.user("hi"),
        Message.system("No tools today.")
      ])
    }))

  it.effect("onToolCall may change arguments, short-circuit, or fail into tool-failure handling; afterTool may replace the result (A5)", () =>
    Effect.gen(function*() {
      let last: ReadonlyArray<Message.Message> = []
      const agent = yield* agentWith([
        {
          toolCalls: [
            { id: "1", name: "add", arguments: { a: 1, b: 1 } },
            { id: "2", name: "add", arguments: { a: 0, b: 0 } },
            { id: "3", name: "add", arguments: { a: 5, b: 5 } },
            { id: "4", name: "add", arguments: { a: 7, b: 7 } }
          ]
        },
        (request) => (last = request.messages, { text: "ok" })
      ], {
        tools: [add],
        extensions: [{
          name: "wrap",
          onToolCall: (_context, call, next) => {
            switch (call.id) {
              case "1":
                return next(new Message.ToolCall({ ...call, arguments: { a: 100, b: 1 } }))
              case "2":
                return Effect.succeed({ cached: true })
              case "3":
                // a kind of its own: a tagged error's tag is the type the model reads
                return new Forbidden({ message: "policy says no" })
              default:
                return next(call)
            }
          },
          afterTool: (_context, call, result) =>
            Effect.succeed(
              call.id === "4" ? new Message.ToolMessage({ ...result, content: { redacted: true } }) : undefined
            )
        }]
      })
      yield* agent.run("go")
      const tools = last.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
      assert.deepStrictEqual(tools.map((m) => [m.toolCallId, m.status, m.content]), [
        ["1", "ok", { sum: 101 }],
        ["2", "ok", { cached: true }],
        ["3", "TOOL_FAILED", { error: { type: "Forbidden", message: "policy says no" } }],
        ["4", "ok", { redacted: true }]
      ])
    }))

  it.effect("a failing afterTool prevents the append and fails the run (A5)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const agent = yield* agentWith([{ toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] }, { text: "never" }], {
        tools: [add],
        extensions: [recorder("rec", log), { name: "veto", afterTool: () => Effect.fail("vetoed") }]
      })
      const error = yield* Effect.flip(agent.run("go"))
      assert.instanceOf(error, AgentError.ExtensionError)
      assert.strictEqual((error as AgentError.ExtensionError).hook, "afterTool")
      assert.notInclude(log, "afterTurn")
      assert.strictEqual(log.at(-1), "onError")
    }))

  it.effect("afterTurn runs once per completed turn after every call settled, failed ones included (A6)", () =>
    Effect.gen(function*() {
      const turns: Array<ReadonlyArray<string>> = []
      const agent = yield* agentWith([
        { toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }, { name: "missing", arguments: {} }] },
        { text: "done" }
      ], {
        tools: [add],
        extensions: [{
          name: "turns",
          afterTurn: (context) =>
            Effect.map(
              context.messages,
              (ms) => void turns.push(ms.map((m) => m._tag === "ToolMessage" ? m.status : m._tag))
            )
        }]
      })
      yield* agent.run("go")
      assert.deepStrictEqual(turns, [
        ["UserMessage", "AssistantMessage", "ok", "TOOL_FAILED"],
        ["UserMessage", "AssistantMessage", "ok", "TOOL_FAILED", "AssistantMessage"]
      ])
    }))

  it.effect("a turn that never completed has no afterTurn (A6)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const agent = yield* agentWith([], { extensions: [recorder("rec", log)] })
      const error = yield* Effect.flip(agent.run("go"))
      assert.strictEqual(error._tag, "ModelError")
      assert.notInclude(log, "afterTurn")
      assert.deepStrictEqual(log.slice(-2), ["onModelRequest", "onError"])
    }))

  it.effect("accept broadcasts to every extension and lists those that took the event (A8)", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const agent = yield* agentWith([], {
        extensions: [
          { name: "a", accept: (_c, e) => (seen.push("a"), e === "approve") },
          { name: "b", accept: () => (seen.push("b"), false) },
          { name: "c", accept: (config, e) => (seen.push("c"), config !== null && e === "approve") },
          { name: "d" }
        ]
      })
      assert.deepStrictEqual(yield* agent.accept({ id: 1 }, "approve"), ["a", "c"])
      assert.deepStrictEqual(yield* agent.accept(null, "approve"), ["a"])
      assert.deepStrictEqual(yield* agent.accept(null, "other"), [])
      assert.deepStrictEqual(seen, ["a", "b", "c", "a", "b", "c", "a", "b", "c"])
    }))

  it.effect("pending is true while any run of the agents sharing an ActiveRuns uses the extension instance (A9)", () =>
    Effect.gen(function*() {
      const shared = { name: "shared" }
      const gates = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
      const started = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
      const gated = (i: number) =>
        Tool.dynamic("wait", {
          description: "waits",
          parameters: { type: "object" },
          handler: () => Effect.andThen(Deferred.succeed(started[i]!, undefined), Deferred.await(gates[i]!))
        })
      const script = [{ toolCalls: [{ name: "wait" }] }, { text: "done" }]
      const runs = yield* Agent.makeActiveRuns
      const first = yield* agentWith(script, { extensions: [shared], tools: [gated(0)] }).pipe(
        Effect.provideService(Agent.ActiveRuns, runs)
      )
      const second = yield* agentWith(script, { extensions: [shared], tools: [gated(1)] }).pipe(
        Effect.provideService(Agent.ActiveRuns, runs)
      )
      assert.isFalse(yield* first.pending(shared))
      const a = yield* Effect.forkChild(first.run("one"))
      const b = yield* Effect.forkChild(second.run("two"))
      yield* Deferred.await(started[0]!)
      yield* Deferred.await(started[1]!)
      assert.isTrue(yield* first.pending(shared))
      yield* Deferred.succeed(gates[0]!, undefined)
      yield* Fiber.join(a)
      assert.isTrue(yield* first.pending(shared))
      assert.isTrue(yield* second.pending(shared))
      yield* Deferred.succeed(gates[1]!, undefined)
      yield* Fiber.join(b)
      assert.isFalse(yield* second.pending(shared))
    }))

  it.effect("an agent built without an ActiveRuns in its context counts only its own runs (A9)", () =>
    Effect.gen(function*() {
      const shared = { name: "shared" }
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const wait = Tool.dynamic("wait", {
        description: "waits",
        parameters: { type: "object" },
        handler: () => Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(gate))
      })
      const script = [{ toolCalls: [{ name: "wait" }] }, { text: "done" }]
      const busy = yield* agentWith(script, { extensions: [shared], tools: [wait] })
      const idle = yield* agentWith(script, { extensions: [shared], tools: [wait] })
      const fiber = yield* Effect.forkChild(busy.run("one"))
      yield* Deferred.await(started)
      assert.isTrue(yield* busy.pending(shared))
      assert.isFalse(yield* idle.pending(shared))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(fiber)
      assert.isFalse(yield* busy.pending(shared))
    }))

  it.effect("agents built on one layerActiveRuns share the count of an extension instance (A9)", () =>
    Effect.gen(function*() {
      const shared = { name: "shared" }
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const wait = Tool.dynamic("wait", {
        description: "waits",
        parameters: { type: "object" },
        handler: () => Effect.andThen(Deferred.succeed(started, undefined), Deferred.await(gate))
      })
      const script = [{ toolCalls: [{ name: "wait" }] }, { text: "done" }]
      const [busy, idle] = yield* Effect.all([
        agentWith(script, { extensions: [shared], tools: [wait] }),
        agentWith(script, { extensions: [shared], tools: [wait] })
      ]).pipe(Effect.provide(Agent.layerActiveRuns))
      const fiber = yield* Effect.forkChild(busy.run("one"))
      yield* Deferred.await(started)
      assert.isTrue(yield* idle.pending(shared))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(fiber)
      assert.isFalse(yield* idle.pending(shared))
    }))

  it.effect("pending is false again after a run that fails, and after one that is interrupted (A9)", () =>
    Effect.gen(function*() {
      const shared = { name: "shared" }
      const started = yield* Deferred.make<void>()
      const blocks = Tool.dynamic("blocks", {
        description: "blocks",
        parameters: { type: "object" },
        handler: () => Effect.andThen(Deferred.succeed(started, undefined), Effect.never)
      })
      // the script has no step for the second model call: the run fails there
      const failing = yield* agentWith([{ toolCalls: [{ name: "noop" }] }], {
        extensions: [shared],
        tools: [
          Tool.dynamic("noop", {
            description: "noop",
            parameters: { type: "object" },
            handler: () => Effect.succeed("ok")
          })
        ]
      })
      const exit = yield* Effect.exit(failing.run("fails"))
      assert.isTrue(Exit.isFailure(exit))
      assert.isFalse(yield* failing.pending(shared))
      const blocking = yield* agentWith([{ toolCalls: [{ name: "blocks" }] }], {
        extensions: [shared],
        tools: [blocks]
      })
      const fiber = yield* Effect.forkChild(blocking.run("blocks"))
      yield* Deferred.await(started)
      assert.isTrue(yield* blocking.pending(shared))
      yield* Fiber.interrupt(fiber)
      assert.isFalse(yield* blocking.pending(shared))
    }))

  it.effect("a failing handler, a defect and a timeout each become TOOL_FAILED and the run continues (A10)", () =>
    Effect.gen(function*() {
      let next: ReadonlyArray<Message.Message> = []
      const fails = Tool.dynamic("fails", {
        description: "fails",
        parameters: { type: "object" },
        handler: () => new NotFound({ message: "no such record" })
      })
      const dies = Tool.dynamic("dies", {
        description: "dies",
        parameters: { type: "object" },
        handler: () => Effect.die(new Error("secret internal detail"))
      })
      const slow = Tool.dynamic("slow", {
        description: "slow",
        parameters: { type: "object" },
        timeout: "1 second",
        handler: () => Effect.as(Effect.sleep("1 hour"), "late")
      })
      const agent = yield* agentWith([
        { toolCalls: [{ id: "f", name: "fails" }, { id: "d", name: "dies" }, { id: "s", name: "slow" }] },
        (request) => (next = request.messages, { text: "recovered" })
      ], { tools: [fails, dies, slow] })
      const fiber = yield* Effect.forkChild(agent.run("go"))
      yield* TestClock.adjust("2 seconds")
      const reply = yield* Fiber.join(fiber)
      assert.strictEqual(reply.content, "recovered")
      const results = next.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
      assert.deepStrictEqual(results.map((m) => [m.toolCallId, m.status]), [
        ["f", "TOOL_FAILED"],
        ["d", "TOOL_FAILED"],
        ["s", "TOOL_FAILED"]
      ])
      assert.deepStrictEqual(results[0]!.content, { error: { type: "NotFound", message: "no such record" } })
      assert.deepStrictEqual(results[1]!.content, {
        error: { type: "ToolDefect", message: "the tool dies failed unexpectedly" }
      })
      assert.notInclude(JSON.stringify(results[1]!.content), "secret internal detail")
      assert.deepStrictEqual(results[2]!.content, {
        error: { type: "Timeout", message: "the tool slow did not finish within 1s" }
      })
    }))

  it.effect("an agent-wide toolTimeout applies to tools that set none (A10)", () =>
    Effect.gen(function*() {
      let next: ReadonlyArray<Message.Message> = []
      const slow = Tool.dynamic("slow", {
        description: "slow",
        parameters: { type: "object" },
        handler: () => Effect.as(Effect.sleep("1 hour"), "late")
      })
      const agent = yield* agentWith([{ toolCalls: [{ name: "slow" }] }, (r) => (next = r.messages, { text: "ok" })], {
        tools: [slow],
        toolTimeout: "5 seconds"
      })
      const fiber = yield* Effect.forkChild(agent.run("go"))
      yield* TestClock.adjust("6 seconds")
      yield* Fiber.join(fiber)
      const result = next.at(-1) as Message.ToolMessage
      assert.strictEqual(result.status, "TOOL_FAILED")
      assert.deepStrictEqual((result.content as any).error.type, "Timeout")
    }))

  it.effect("a tool that keeps its own time is not raced by the agent: it reads the agent's toolTimeout and applies it itself", () =>
    Effect.gen(function*() {
      let next: ReadonlyArray<Message.Message> = []
      const seen: Array<string> = []
      const own = Tool.dynamic("own", {
        description: "times itself",
        parameters: { type: "object" },
        timesItself: true,
        handler: (_args, _call, context) =>
          Effect.sync(() =>
            seen.push(context.toolTimeout === undefined ? "none" : Duration.format(context.toolTimeout))
          ).pipe(
            // an hour, past the agent's 5 seconds: only a race of the agent's would cut it short
            Effect.andThen(Effect.as(Effect.sleep("1 hour"), "finished in its own time"))
          )
      })
      const agent = yield* agentWith([{ toolCalls: [{ name: "own" }] }, (r) => (next = r.messages, { text: "ok" })], {
        tools: [own],
        toolTimeout: "5 seconds"
      })
      const fiber = yield* Effect.forkChild(agent.run("go"))
      yield* TestClock.adjust("6 seconds")
      // Effect 4 has no Fiber.poll: the fiber's own pollUnsafe, undefined while it runs
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 hour")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen, ["5s"])
      const result = next.at(-1) as Message.ToolMessage
      assert.strictEqual(result.status, "ok")
      assert.strictEqual(result.content, "finished in its own time")
    }))

  it.effect("Schema-declared parameters are validated before the handler; invalid arguments are readable TOOL_FAILED (A11)", () =>
    Effect.gen(function*() {
      let calls = 0
      let next: ReadonlyArray<Message.Message> = []
      const strict = Tool.make("strict", {
        description: "needs a positive count",
        parameters: Schema.Struct({ count: Schema.Finite.check(Schema.isGreaterThan(0)) }),
        handler: ({ count }) => Effect.sync(() => (calls++, count))
      })
      // Schema 4's document: the check's bound, and closed as the decoder is (no generated title or description)
      assert.deepStrictEqual(strict.parameters, {
        type: "object",
        required: ["count"],
        properties: {
          count: { type: "number", exclusiveMinimum: 0 }
        },
        additionalProperties: false
      })
      const agent = yield* agentWith([
        {
          toolCalls: [{ id: "bad", name: "strict", arguments: { count: "three" } }, {
            id: "good",
            name: "strict",
            arguments: { count: 3 }
          }]
        },
        (request) => (next = request.messages, { text: "ok" })
      ], { tools: [strict] })
      yield* agent.run("go")
      assert.strictEqual(calls, 1)
      const [bad, good] = next.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
      assert.strictEqual(bad!.status, "TOOL_FAILED")
      const error = (bad!.content as { error: { type: string; message: string } }).error
      assert.strictEqual(error.type, "InvalidArguments")
      assert.include(error.message, "count")
      assert.include(error.message, "Expected number")
      assert.deepStrictEqual([good!.status, good!.content], ["ok", 3])
    }))

  it.effect("a tool whose name is already registered is skipped with a warning log (A5)", () =>
    Effect.gen(function*() {
      const logs: Array<string> = []
      let offered: ReadonlyArray<string> = []
      const first = Tool.dynamic("lookup", {
        description: "first",
        parameters: { type: "object" },
        handler: Effect.succeed
      })
      const second = Tool.dynamic("lookup", {
        description: "second",
        parameters: { type: "object" },
        handler: Effect.succeed
      })
      const agent = yield* agentWith(
        [(request) => (offered = request.tools.map((t) => t.description), { text: "ok" })],
        {
          tools: [first],
          extensions: [{ name: "late", onTool: (context) => context.tools.registerAll([second]) }]
        }
      )
      yield* agent.run("hi").pipe(
        Effect.provide(Logger.layer([Logger.make(({ message }) => void logs.push(String(message)))]))
      )
      assert.deepStrictEqual(offered, ["first"])
      assert.deepStrictEqual(logs, ["tool lookup is already registered; the later one is skipped"])
    }))

  it.effect("the scripted model answers step by step and fails past its last step (A13)", () =>
    Effect.gen(function*() {
      const agent = yield* agentWith([{ text: "one" }, (request) => ({ text: `saw ${request.messages.length}` })])
      assert.strictEqual((yield* agent.run("a")).content, "one")
      assert.strictEqual((yield* agent.run("b")).content, "saw 1")
      const error = yield* Effect.flip(agent.run("c"))
      assert.strictEqual(error._tag, "ModelError")
      assert.include((error as Model.ModelError).message, "no step for request 3")
      assert.strictEqual((error as Model.ModelError).reason, "ScriptEnded")
      const looping = yield* Agent.make().pipe(Effect.provide(ScriptedModel.layer([{ text: "again" }], { loop: true })))
      assert.strictEqual((yield* looping.run("x")).content, "again")
      assert.strictEqual((yield* looping.run("x")).content, "again")
    }))

  it.effect("Model is a service: Agent.layer composes with any Model layer (A13)", () =>
    Effect.gen(function*() {
      const reply = yield* Agent.run("hi")
      assert.strictEqual(reply.content, "layered")
    }).pipe(Effect.provide(Agent.layer({}).pipe(Layer.provide(ScriptedModel.layer([{ text: "layered" }]))))))

  it.effect("maxTurns fails the run with a typed error (A1)", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make({ tools: [add], maxTurns: 3 }).pipe(
        Effect.provide(
          ScriptedModel.layer([{ toolCalls: [{ name: "add", arguments: { a: 1, b: 1 } }] }], { loop: true })
        )
      )
      const error = yield* Effect.flip(agent.run("loop forever"))
      assert.instanceOf(error, AgentError.MaxTurnsExceeded)
    }))
})
