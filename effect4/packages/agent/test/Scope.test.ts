import { assert, describe, it } from "@effect/vitest"
import { Agent, type Extension, ScriptedModel, Tool } from "@zett/agent"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import { recorder } from "./utils.js"

/** An extension that acquires a resource in `onTool` (in the request scope) and counts its releases. */
const resourceful = (log: Array<string>) => {
  const counts = { acquired: 0, released: 0 }
  const extension: Extension.Extension = {
    name: "resource",
    onTool: (context) =>
      Effect.acquireRelease(
        Effect.sync(() => void counts.acquired++),
        () => Effect.sync(() => (counts.released++, void log.push("released")))
      ).pipe(Scope.provide(context.scope)),
    onCompact: (context) =>
      Effect.acquireRelease(
        Effect.sync(() => void counts.acquired++),
        () => Effect.sync(() => (counts.released++, void log.push("released")))
      ).pipe(Scope.provide(context.scope))
  }
  return { extension, counts }
}

const gate = Effect.gen(function*() {
  const started = yield* Deferred.make<void>()
  return { started, hang: Effect.andThen(Deferred.succeed(started, undefined), Effect.never) }
})

describe("request scope", () => {
  it.effect("a resource acquired in onTool is released after success, after onSuccess (A2)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { counts, extension } = resourceful(log)
      const agent = yield* Agent.make({ extensions: [extension, recorder("rec", log)] })
      yield* agent.run("hi")
      assert.deepStrictEqual(counts, { acquired: 1, released: 1 })
      assert.deepStrictEqual(log.slice(-3), ["afterRun", "onSuccess", "released"])
    }).pipe(Effect.provide(ScriptedModel.layer([{ text: "hello" }]))))

  it.effect("a resource acquired in onTool is released after failure; onError fires, onSuccess does not (A2)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { counts, extension } = resourceful(log)
      const agent = yield* Agent.make({ extensions: [extension, recorder("rec", log)] })
      yield* Effect.flip(agent.run("hi"))
      assert.deepStrictEqual(counts, { acquired: 1, released: 1 })
      assert.deepStrictEqual(log.slice(-2), ["onError", "released"])
      assert.notInclude(log, "onSuccess")
    }).pipe(Effect.provide(ScriptedModel.layer([]))))

  it.effect("interruption during the model stream releases the resource and fires onEvent(RunCancelled) only (A2)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { counts, extension } = resourceful(log)
      const { hang, started } = yield* gate
      const agent = yield* Agent.make({ extensions: [extension, recorder("rec", log)] }).pipe(
        Effect.provide(ScriptedModel.layer([() => hang]))
      )
      const fiber = yield* Effect.forkChild(agent.run("hi"))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(counts, { acquired: 1, released: 1 })
      assert.deepStrictEqual(log.slice(-2), ["onEvent:RunCancelled", "released"])
      assert.notInclude(log, "onError")
      assert.notInclude(log, "onSuccess")
      assert.isFalse(yield* agent.pending(extension))
    }))

  it.effect("interruption during a tool call releases the resource and fires onEvent(RunCancelled) (A2)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { counts, extension } = resourceful(log)
      const { hang, started } = yield* gate
      const stuck = Tool.dynamic("stuck", { description: "hangs", parameters: { type: "object" }, handler: () => hang })
      const agent = yield* Agent.make({ extensions: [extension, recorder("rec", log)], tools: [stuck] }).pipe(
        Effect.provide(ScriptedModel.layer([{ toolCalls: [{ name: "stuck" }] }]))
      )
      const fiber = yield* Effect.forkChild(agent.run("hi"))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(counts, { acquired: 1, released: 1 })
      assert.deepStrictEqual(log.slice(-3), ["onToolCall:stuck", "onEvent:RunCancelled", "released"])
    }))

  it.effect("compact() is a maintenance pass with its own scope; it never reaches the success hooks (A3)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { counts, extension } = resourceful(log)
      let compactedFrom = -1
      const agent = yield* Agent.make({
        extensions: [extension, recorder("rec", log)],
        compaction: {
          shouldCompact: () => false,
          compact: (messages) => Effect.sync(() => (compactedFrom = messages.length, messages))
        }
      })
      yield* agent.compact
      assert.deepStrictEqual(counts, { acquired: 1, released: 1 })
      assert.deepStrictEqual(log, ["onCompact", "afterCompact", "released"])
      assert.strictEqual(compactedFrom, 0)
    }).pipe(Effect.provide(ScriptedModel.layer([]))))

  it.effect("a compaction pass that fails still closes its scope (A3)", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { counts, extension } = resourceful(log)
      const agent = yield* Agent.make({
        extensions: [extension],
        compaction: { shouldCompact: () => false, compact: () => Effect.fail("summariser down") }
      })
      const error = yield* Effect.flip(agent.compact)
      assert.strictEqual(error.hook, "compact")
      assert.deepStrictEqual(counts, { acquired: 1, released: 1 })
    }).pipe(Effect.provide(ScriptedModel.layer([]))))

  it.effect("in-run compaction replaces the conversation at the start of a turn (A3)", () =>
    Effect.gen(function*() {
      let seen = 0
      const agent = yield* Agent.make({
        compaction: {
          shouldCompact: (messages) => messages.length > 2,
          compact: (messages) => Effect.succeed(messages.slice(-1))
        }
      }).pipe(Effect.provide(ScriptedModel.layer([
        { toolCalls: [{ name: "nothing" }] },
        (request) => (seen = request.messages.length, { text: "ok" })
      ])))
      yield* agent.run("hi")
      assert.strictEqual(seen, 1)
    }))
})
