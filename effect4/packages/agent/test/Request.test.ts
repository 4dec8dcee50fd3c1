import { assert, describe, it } from "@effect/vitest"
import { Agent, AgentError, type Extension, MessageAccumulator, Model, ScriptedModel, Tool } from "@zett/agent"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

class Refused extends Data.TaggedError("Refused")<{ readonly reason: string }> {}

/** Per-request hooks: each request gets its own counter and a resource released with the request scope. */
const counting = (log: Array<string>): Extension.Extension<Refused> => {
  let requests = 0
  return {
    name: "counting",
    onTool: () => Effect.sync(() => void log.push("static onTool")),
    request: (context) =>
      Effect.gen(function*() {
        const id = ++requests
        let calls = 0
        yield* Effect.acquireRelease(
          Effect.sync(() => void log.push(`acquire ${id} (${context.kind})`)),
          (_, exit) => Effect.sync(() => void log.push(`release ${id} ${Exit.isSuccess(exit) ? "success" : "failure"}`))
        )
        return {
          onTool: (ctx) =>
            ctx.tools.register(Tool.make("count", {
              description: "counts this request's calls",
              parameters: Schema.Struct({}),
              handler: () => Effect.sync(() => ++calls)
            })),
          afterRun: () => Effect.sync(() => void log.push(`request ${id} made ${calls} calls`))
        }
      })
  }
}

class RequestId extends Context.Service<RequestId, number>()("test/RequestId") {}

describe("Extension.request: request state lives in the request", () => {
  it.effect("the services a request returns are in the context of its hooks and tool calls, with the agent's model", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      let requests = 0
      // one tool object for every request: it reads its request from the context it runs in
      const shared = Tool.make("which", {
        description: "names its request",
        parameters: Schema.Struct({}),
        handler: () =>
          Effect.map(
            Effect.serviceOption(RequestId),
            (id) => void seen.push(`call in ${Option.getOrElse(id, () => 0)}`)
          )
      })
      const extension: Extension.Extension = {
        name: "services",
        request: () =>
          Effect.sync(() => {
            const id = ++requests
            return {
              services: Context.make(RequestId, id),
              onTool: (ctx) =>
                Effect.andThen(
                  Effect.map(
                    Effect.serviceOption(RequestId),
                    (found) => void seen.push(`onTool in ${Option.getOrElse(found, () => 0)}`)
                  ),
                  Effect.asVoid(ctx.tools.register(shared))
                ),
              afterRun: () =>
                Effect.flatMap(Effect.serviceOption(Model.Model), (model) =>
                  Option.isNone(model)
                    ? Effect.sync(() => void seen.push("no model"))
                    : Effect.map(
                      Effect.orDie(Stream.runCollect(model.value.stream({ messages: [], tools: [], serverTools: [] }))),
                      (events) => void seen.push(`model answered ${events.length > 0}`)
                    ))
            }
          })
      }
      const call = { toolCalls: [{ name: "which", arguments: {} }] }
      const agent = yield* Agent.make({ extensions: [extension] }).pipe(
        Effect.provide(
          ScriptedModel.layer([call, { text: "one" }, { text: "from afterRun" }, call, { text: "two" }, {
            text: "again"
          }])
        )
      )
      yield* agent.run("first")
      yield* agent.run("second")
      assert.deepStrictEqual(seen, [
        "onTool in 1",
        "call in 1",
        "model answered true",
        "onTool in 2",
        "call in 2",
        "model answered true"
      ])
    }))

  it.effect("request builds hooks per request, their state is the request's own, and the request scope releases what it acquired (A5)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const call = { toolCalls: [{ name: "count", arguments: {} }] }
      const agent = yield* Agent.make({ extensions: [counting(log)] }).pipe(
        Effect.provide(ScriptedModel.layer([call, call, { text: "two" }, call, { text: "one" }]))
      )
      yield* agent.run("first")
      yield* agent.run("second")
      // the static onTool is replaced by the request's; each request counts from zero
      assert.deepStrictEqual(log, [
        "acquire 1 (run)",
        "request 1 made 2 calls",
        "release 1 success",
        "acquire 2 (run)",
        "request 2 made 1 calls",
        "release 2 success"
      ])
    }))

  it.effect("what request acquired is released when the run fails or is interrupted (A2)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const failing = yield* Agent.make({ extensions: [counting(log)], maxTurns: 1 }).pipe(
        Effect.provide(ScriptedModel.layer([{ toolCalls: [{ name: "count", arguments: {} }] }]))
      )
      const failure = yield* Effect.flip(failing.run("loop"))
      assert.strictEqual(failure._tag, "MaxTurnsExceeded")
      assert.deepStrictEqual(log, ["acquire 1 (run)", "release 1 failure"])

      const started = yield* Deferred.make<void>()
      const hanging = yield* Agent.make({ extensions: [counting(log)] }).pipe(
        Effect.provide(ScriptedModel.layer([() => Effect.andThen(Deferred.succeed(started, void 0), Effect.never)]))
      )
      const fiber = yield* Effect.forkChild(hanging.run("wait"))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(log.slice(2), ["acquire 1 (run)", "release 1 failure"])
    }))

  it.effect("a failing request fails the run with an ExtensionError naming request, carrying the typed cause (A5)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const refusing: Extension.Extension<Refused> = {
        name: "refusing",
        request: () => new Refused({ reason: "no quota" }),
        onError: (_context, error) =>
          Effect.sync(() => void log.push(`onError ${(error as AgentError.ExtensionError).hook}`))
      }
      const agent = yield* Agent.make({ extensions: [refusing] }).pipe(
        Effect.provide(ScriptedModel.layer([{ text: "never" }]))
      )
      const error = yield* Effect.flip(agent.run("hi"))
      assert.instanceOf(error, AgentError.ExtensionError)
      assert.strictEqual(error.hook, "request")
      assert.strictEqual(error.extension, "refusing")
      assert.deepStrictEqual(error.cause, new Refused({ reason: "no quota" }))
      // the terminal hooks still run, with the extension's own hooks
      assert.deepStrictEqual(log, ["onError request"])
    }))

  it.effect("a compaction pass builds its own request hooks (kind compact) (A3)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const agent = yield* Agent.make({ extensions: [counting(log)] }).pipe(Effect.provide(ScriptedModel.layer([])))
      yield* agent.compact
      assert.deepStrictEqual(log, ["acquire 1 (compact)", "release 1 success"])
    }))

  it.effect("the message accumulator restores the conversation its request started from (A12)", () =>
    Effect.gen(function*() {
      const memory = MessageAccumulator.make()
      const agent = yield* Agent.make({ extensions: [memory] }).pipe(
        Effect.provide(ScriptedModel.layer([{ text: "one" }, { text: "two" }]))
      )
      yield* agent.run("first")
      yield* agent.run("second")
      assert.deepStrictEqual((yield* memory.messages).map((m) => m.content), ["first", "one", "second", "two"])
    }))

  it("hook failures are typed: a hook may fail only with what its extension declares", () => {
    const typed: Extension.Extension<Refused> = { name: "typed", onTool: () => new Refused({ reason: "x" }) }
    // the compiler's error is what this line shows; the language service reports the same, expectedly
    // @effect-diagnostics missingEffectError:off
    // @ts-expect-error an extension without an error type cannot fail
    const untyped: Extension.Extension = { name: "untyped", onTool: () => new Refused({ reason: "x" }) }
    // @effect-diagnostics missingEffectError:error
    assert.deepStrictEqual([typed.name, untyped.name], ["typed", "untyped"])
  })
})
