/**
 * The run loop's edges (found by mutation testing of internal/run.ts): the tool registry seen by
 * extensions, what a failed tool call tells the model, the model request's system message and server tools,
 * usage, compaction, which hook an error names, and the run's logs and spans.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, type Extension, Message, Model, ScriptedModel, Tool } from "@zett/agent"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Stream from "effect/Stream"
import { recordingTracer } from "./utils.js"

const echo = (name: string) =>
  Tool.dynamic(name, { description: name, parameters: { type: "object" }, handler: Effect.succeed })

const failing = (name: string, error: unknown) =>
  Tool.dynamic(name, { description: name, parameters: { type: "object" }, handler: () => Effect.fail(error) })

/** Every log line's level, message and annotations. */
const recordingLogger = () => {
  const lines: Array<
    { readonly level: string; readonly message: unknown; readonly annotations: Record<string, unknown> }
  > = []
  const logger = Logger.make(({ fiber, logLevel, message }) =>
    void lines.push({
      level: logLevel,
      message: Array.isArray(message) && message.length === 1 ? message[0] : message,
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    })
  )
  return { lines, layer: Logger.layer([logger]) }
}

class Custom extends Data.TaggedError("Custom")<{ readonly message: string }> {}

describe("run (observed)", () => {
  it.effect("register answers whether the tool was added; the first of one name stays, the second is logged", () =>
    Effect.gen(function*() {
      const answers: Array<boolean> = []
      const registrar: Extension.Extension = {
        name: "registrar",
        onTool: (context) =>
          Effect.gen(function*() {
            answers.push(yield* context.tools.register(echo("a")))
            answers.push(
              yield* context.tools.register(
                Tool.dynamic("a", { description: "second", parameters: { type: "object" }, handler: Effect.succeed })
              )
            )
            yield* context.tools.registerAll([echo("b"), echo("b")])
            yield* context.tools.remove("gone")
          })
      }
      const seen: Array<ReadonlyArray<string>> = []
      const logs = recordingLogger()
      const agent = yield* Agent.make({ tools: [echo("gone")], extensions: [registrar] }).pipe(
        Effect.provide(
          ScriptedModel.layer([
            (request) => (seen.push(request.tools.map((t) => `${t.name}:${t.description}`)), { text: "ok" })
          ])
        )
      )
      yield* agent.run("hi").pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(answers, [true, false])
      assert.deepStrictEqual(seen[0], ["a:a", "b:b"])
      const warnings = logs.lines.filter((line) => line.level === "Warn")
      assert.deepStrictEqual(warnings.map((line) => [line.message, line.annotations["tool"]]), [
        ["tool a is already registered; the later one is skipped", "a"],
        ["tool b is already registered; the later one is skipped", "b"]
      ])
    }))

  it.effect("a failed call tells the model the error's tag, name or 'Error', and its message or text", () =>
    Effect.gen(function*() {
      const tools = [
        failing("tagged", new Custom({ message: "custom failure" })),
        failing("plain", new TypeError("bad type")),
        failing("text", "just text"),
        failing("nothing", null),
        failing("toolError", new Tool.ToolError({ reason: "ToolFailed", message: "mine" }))
      ]
      const contents: Array<unknown> = []
      const agent = yield* Agent.make({ tools }).pipe(Effect.provide(ScriptedModel.layer([
        { toolCalls: [...tools.map((tool) => ({ name: tool.name })), { name: "missing" }] },
        (
          request
        ) => (request.messages.forEach((m) => m._tag === "ToolMessage" && contents.push(m.content)), { text: "ok" })
      ])))
      yield* agent.run("hi")
      assert.deepStrictEqual(contents, [
        { error: { type: "Custom", message: "custom failure" } },
        { error: { type: "TypeError", message: "bad type" } },
        { error: { type: "Error", message: "just text" } },
        { error: { type: "Error", message: "null" } },
        { error: { type: "ToolFailed", message: "mine" } },
        {
          error: {
            type: "UnknownTool",
            message: "there is no tool named \"missing\"; the closest names are nothing, plain, tagged"
          }
        }
      ])
    }))

  it.effect("a tool's defect is logged as an error naming the tool", () =>
    Effect.gen(function*() {
      const logs = recordingLogger()
      const boom = Tool.dynamic("boom", {
        description: "boom",
        parameters: { type: "object" },
        handler: () => Effect.die("kaput")
      })
      const agent = yield* Agent.make({ tools: [boom] }).pipe(
        Effect.provide(ScriptedModel.layer([{ toolCalls: [{ name: "boom" }] }, { text: "ok" }]))
      )
      yield* agent.run("hi").pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(logs.lines.filter((line) => line.level === "Error").map((line) => line.message), [
        "tool boom failed unexpectedly"
      ])
    }))

  it.effect("the system message leaves out empty state; server tools reach the model as added, each request its own list", () =>
    Effect.gen(function*() {
      let turn = 0
      const extension: Extension.Extension = {
        name: "state",
        onState: (context) => Effect.andThen(context.addState(""), context.addState("state")),
        beforeTurn: (context) => context.serverTools.add({ name: `web${++turn}`, spec: { type: "web_search" } })
      }
      const requests: Array<Model.ModelRequest> = []
      const agent = yield* Agent.make({ systemPrompt: "Be brief.", tools: [echo("t")], extensions: [extension] }).pipe(
        Effect.provide(ScriptedModel.layer([
          (request) => (requests.push(request), { toolCalls: [{ name: "t" }] }),
          (request) => (requests.push(request), { text: "ok" })
        ]))
      )
      yield* agent.run("hi")
      assert.deepStrictEqual(requests.map((r) => r.messages[0]!.content), ["Be brief.\n\nstate", "Be brief.\n\nstate"])
      assert.deepStrictEqual(requests.map((r) => r.serverTools.map((t) => t.name)), [["web1"], ["web1", "web2"]])
      const plain = yield* Agent.make({}).pipe(
        Effect.provide(ScriptedModel.layer([(request) => (requests.push(request), { text: "ok" })]))
      )
      yield* plain.run("hi")
      assert.deepStrictEqual(requests[2]!.serverTools, [])
    }))

  it.effect("the reply carries the usage of the model's finish event, and none without one", () =>
    Effect.gen(function*() {
      const scripted = yield* Agent.make({}).pipe(
        Effect.provide(ScriptedModel.layer([{ text: "ok", usage: { inputTokens: 3, outputTokens: 4 } }]))
      )
      const reply = yield* scripted.run("hi")
      assert.deepStrictEqual([reply.usage?.inputTokens, reply.usage?.outputTokens], [3, 4])
      const bare = yield* Agent.make({}).pipe(
        Effect.provideService(Model.Model, Model.Model.of({ stream: () => Stream.make(Model.textDelta("no finish")) }))
      )
      const unfinished = yield* bare.run("hi")
      assert.strictEqual(unfinished.content, "no finish")
      assert.isFalse("usage" in unfinished && unfinished.usage !== undefined)
    }))

  it.effect("with hooks of some extensions built per request, the others' own hooks run too, each only where it has one", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const plain: Extension.Extension = {
        name: "plain",
        afterTurn: () => Effect.sync(() => void log.push("plain afterTurn"))
      }
      const built: Extension.Extension = {
        name: "built",
        request: () => Effect.succeed({ beforeRun: () => Effect.sync(() => void log.push("built beforeRun")) })
      }
      const agent = yield* Agent.make({ tools: [echo("t")], extensions: [plain, built] }).pipe(
        Effect.provide(ScriptedModel.layer([{ toolCalls: [{ name: "t" }] }, { text: "ok" }]))
      )
      yield* agent.run("hi")
      assert.deepStrictEqual(log, ["built beforeRun", "plain afterTurn", "plain afterTurn"])
    }))

  it.effect("a failing hook or compaction names where it failed", () =>
    Effect.gen(function*() {
      const failingBeforeModel: Extension.Extension<string> = { name: "x", beforeModel: () => Effect.fail("no") }
      const error = yield* Agent.make({ extensions: [failingBeforeModel] }).pipe(
        Effect.provide(ScriptedModel.layer([{ text: "ok" }])),
        Effect.flatMap((agent) => Effect.flip(agent.run("hi")))
      )
      assert.deepStrictEqual([error._tag, "hook" in error && error.hook, "extension" in error && error.extension], [
        "ExtensionError",
        "beforeModel",
        "x"
      ])
      const compaction = { shouldCompact: () => true, compact: () => Effect.fail("cannot") }
      const agent = yield* Agent.make({ compaction }).pipe(Effect.provide(ScriptedModel.layer([{ text: "ok" }])))
      for (const failed of [yield* Effect.flip(agent.run("hi")), yield* Effect.flip(agent.compact)]) {
        assert.deepStrictEqual([
          failed._tag,
          "hook" in failed && failed.hook,
          "extension" in failed && failed.extension
        ], ["ExtensionError", "compact", "compaction"])
      }
    }))

  it.effect("a compaction pass starts from an empty input, hands its result to afterCompact, and leaves nothing pending", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const watcher: Extension.Extension = {
        name: "watcher",
        onCompact: (context) => Effect.map(context.inputMessage, (input) => void seen.push(input.content)),
        afterCompact: (context) =>
          Effect.map(context.messages, (messages) => void seen.push(messages.map((m) => m.content)))
      }
      const other: Extension.Extension = { name: "other", afterCompact: () => Effect.void }
      const compaction = { shouldCompact: () => false, compact: () => Effect.succeed([Message.user("summary")]) }
      const agent = yield* Agent.make({ compaction, extensions: [other, watcher] }).pipe(
        Effect.provide(ScriptedModel.layer([]))
      )
      yield* agent.compact
      assert.deepStrictEqual(seen, ["", ["summary"]])
      assert.isFalse(yield* agent.pending(watcher))
    }))

  it.effect("a failing onError hook is logged and the run's own failure stands", () =>
    Effect.gen(function*() {
      const logs = recordingLogger()
      const sour: Extension.Extension<string> = { name: "sour", onError: () => Effect.fail("nope") }
      const agent = yield* Agent.make({ extensions: [sour] }).pipe(Effect.provide(ScriptedModel.layer([])))
      const error = yield* Effect.flip(agent.run("hi").pipe(Effect.provide(logs.layer)))
      assert.strictEqual(error._tag, "ModelError")
      assert.deepStrictEqual(logs.lines.filter((line) => line.level === "Error").map((line) => line.message), [
        "a terminal hook failed"
      ])
    }))

  it.effect("runs are numbered upwards, and traced with their number and each tool call's name and id", () =>
    Effect.gen(function*() {
      const ids: Array<number> = []
      const numbered: Extension.Extension = {
        name: "numbered",
        beforeRun: (context) => Effect.sync(() => void ids.push(context.runId))
      }
      const { spans, tracer } = yield* recordingTracer
      const agent = yield* Agent.make({ tools: [echo("t")], extensions: [numbered] }).pipe(
        Effect.provide(
          ScriptedModel.layer([{ toolCalls: [{ id: "c1", name: "t" }] }, { text: "ok" }, { text: "again" }])
        )
      )
      yield* agent.run("hi").pipe(Effect.withTracer(tracer))
      yield* agent.run("again")
      assert.isTrue(ids[1]! > ids[0]!, String(ids))
      const run = spans.find((span) => span.name === "invoke_agent")!
      assert.strictEqual(run.attributes.get("zett.agent.run_id"), ids[0])
      const tool = spans.find((span) => span.name === "execute_tool t")!
      assert.deepStrictEqual([tool.attributes.get("gen_ai.tool.name"), tool.attributes.get("gen_ai.tool.call.id")], [
        "t",
        "c1"
      ])
    }))

  it.effect("extensions read the registry's tools by name, the server tools added, and whether any extension observes events", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const reader: Extension.Extension = {
        name: "reader",
        onTool: (context) =>
          Effect.gen(function*() {
            yield* context.serverTools.add({ name: "web", spec: { type: "web_search" } })
            seen.push(
              context.tools.get("t")?.name,
              context.tools.get("none"),
              (yield* context.serverTools.list).map((tool) => tool.name),
              context.observed
            )
          })
      }
      const plain: Extension.Extension = { name: "plain", afterRun: () => Effect.void }
      const eventful: Extension.Extension = { name: "eventful", onEvent: () => Effect.void }
      for (const extensions of [[plain, reader], [plain, reader, eventful]]) {
        const agent = yield* Agent.make({ tools: [echo("t")], extensions }).pipe(
          Effect.provide(ScriptedModel.layer([{ text: "ok" }]))
        )
        yield* agent.run("hi")
      }
      assert.deepStrictEqual(seen, ["t", undefined, ["web"], false, "t", undefined, ["web"], true])
    }))

  it.effect("an event a tool publishes reaches the extensions that observe events, past those that do not", () =>
    Effect.gen(function*() {
      const logs = recordingLogger()
      const events: Array<unknown> = []
      const reporting = Tool.dynamic("reporting", {
        description: "reports progress",
        parameters: { type: "object" },
        // publishing is typed void: a handler that returns it gives the model no result
        handler: (_args, call, context) =>
          context.publish({
            _tag: "ToolProgress",
            runId: context.runId,
            toolCallId: call.id,
            tool: call.name,
            progress: 1
          })
      })
      const plain: Extension.Extension = { name: "plain", afterRun: () => Effect.void }
      const watcher: Extension.Extension = {
        name: "watcher",
        onEvent: (_context, event) => Effect.sync(() => void events.push(event._tag))
      }
      const contents: Array<unknown> = []
      const agent = yield* Agent.make({ tools: [reporting], extensions: [plain, watcher] }).pipe(
        Effect.provide(ScriptedModel.layer([
          { toolCalls: [{ name: "reporting" }] },
          (
            request
          ) => (request.messages.forEach((m) => m._tag === "ToolMessage" && contents.push(m.content)), { text: "ok" })
        ]))
      )
      yield* agent.run("hi").pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(events, ["ToolProgress"])
      assert.deepStrictEqual(contents, [null])
      assert.deepStrictEqual(logs.lines.filter((line) => line.level === "Error"), [])
    }))

  it.effect("an unknown tool's name is quoted to at most 100 characters", () =>
    Effect.gen(function*() {
      const contents: Array<unknown> = []
      const long = "x".repeat(150)
      const agent = yield* Agent.make({}).pipe(Effect.provide(ScriptedModel.layer([
        { toolCalls: [{ name: long }] },
        (request) => (request.messages.forEach((m) =>
          m._tag === "ToolMessage" && contents.push(m.content)
        ),
          { text: "ok" })
      ])))
      yield* agent.run("hi")
      assert.deepStrictEqual(contents, [{
        error: { type: "UnknownTool", message: `there is no tool named "${"x".repeat(100)}"; no tools are available` }
      }])
    }))

  it.effect("maxTurns allows exactly that many model calls", () =>
    Effect.gen(function*() {
      const agent = yield* Agent.make({ tools: [echo("t")], maxTurns: 2 }).pipe(
        Effect.provide(ScriptedModel.layer([{ toolCalls: [{ name: "t" }] }, { text: "ok" }]))
      )
      assert.strictEqual((yield* agent.run("hi")).content, "ok")
    }))

  it.effect("a turn without usage adds nothing to the run's usage, and the reply has only the usage it was given", () =>
    Effect.gen(function*() {
      let request = 0
      const model = Model.Model.of({
        stream: () =>
          ++request === 1
            ? Stream.make(
              Model.toolCall(new Message.ToolCall({ id: "c1", name: "t", arguments: {} })),
              Model.finish("tool_calls", new Message.Usage({ inputTokens: 3, outputTokens: 4 }))
            )
            : Stream.make(Model.textDelta("ok"))
      })
      const agent = yield* Agent.make({ tools: [echo("t")] }).pipe(Effect.provideService(Model.Model, model))
      const reply = yield* agent.run("hi")
      assert.deepStrictEqual([reply.content, reply.runUsage?.inputTokens, reply.runUsage?.outputTokens], ["ok", 3, 4])
      assert.deepStrictEqual(Object.keys(reply).sort(), ["_tag", "content", "runUsage", "toolCalls"])
      const bare = yield* Agent.make({}).pipe(
        Effect.provideService(Model.Model, Model.Model.of({ stream: () => Stream.make(Model.textDelta("bare")) }))
      )
      assert.deepStrictEqual(Object.keys(yield* bare.run("hi")).sort(), ["_tag", "content", "toolCalls"])
    }))

  it.effect("a message steered while the model gives its answer opens another turn", () =>
    Effect.gen(function*() {
      const steer: { current: (text: string) => Effect.Effect<boolean> } = { current: () => Effect.succeed(false) }
      const requests: Array<ReadonlyArray<unknown>> = []
      const agent = yield* Agent.make({}).pipe(Effect.provide(ScriptedModel.layer([
        () => Effect.as(steer.current("and one more thing"), { text: "first answer" }),
        (request) => (requests.push(request.messages.map((m) => m.content)), { text: "second answer" })
      ])))
      steer.current = (text) => agent.steer(text)
      const reply = yield* agent.run("hi")
      assert.strictEqual(reply.content, "second answer")
      assert.deepStrictEqual(requests, [["hi", "first answer", "and one more thing"]])
    }))

  it.effect("toolConcurrency runs that many calls of one turn at once", () =>
    Effect.gen(function*() {
      let running = 0
      let most = 0
      const busy = Tool.dynamic("busy", {
        description: "busy",
        parameters: { type: "object" },
        handler: () =>
          Effect.gen(function*() {
            most = Math.max(most, ++running)
            for (let i = 0; i < 5; i++) yield* Effect.yieldNow
            running--
            return "done"
          })
      })
      const counts: Array<number> = []
      for (const toolConcurrency of [1, 2]) {
        most = 0
        const agent = yield* Agent.make({ tools: [busy], toolConcurrency }).pipe(
          Effect.provide(
            ScriptedModel.layer([{ toolCalls: [{ name: "busy" }, { name: "busy" }, { name: "busy" }] }, { text: "ok" }])
          )
        )
        yield* agent.run("hi")
        counts.push(most)
      }
      assert.deepStrictEqual(counts, [1, 2])
    }))
})
