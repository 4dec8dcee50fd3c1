/**
 * What the client answers when a server asks (sampling, roots, elicitation), without a driver: the services' own
 * rules. How a driver routes a server's request to them is the driver's test.
 */
import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@zett/agent"
import { McpElicitation, McpRoots, McpSampling } from "@zett/mcp"
import * as Effect from "effect/Effect"
import * as Path from "effect/Path"
import * as PubSub from "effect/PubSub"

const ask = (params: Partial<McpSampling.Request["params"]> = {}): McpSampling.Request => ({
  server: "s",
  params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 100, ...params }
})

describe("McpSampling", () => {
  it.effect("none is not offered and refuses; a made service runs the model and answers with its text", () =>
    Effect.gen(function*() {
      assert.isFalse((yield* McpSampling.McpSampling).offered)
      const refused = yield* Effect.flip((yield* McpSampling.McpSampling).handle(ask()))
      assert.deepStrictEqual([refused.reason, refused.code], ["Unsupported", -32600])
      const sampling = McpSampling.make({ maxTokens: 500, maxCallsPerRequest: 2 })
      const result = yield* sampling.handle(ask()).pipe(Effect.provide(ScriptedModel.layer([{ text: "hello" }])))
      assert.deepStrictEqual([result.content, result.stopReason], [{ type: "text", text: "hello" }, "endTurn"])
    }))

  it.effect("refuses past maxTokens, past maxCallsPerRequest, when declined and without a model", () =>
    Effect.gen(function*() {
      const model = ScriptedModel.layer([{ text: "a" }], { loop: true })
      const sampling = McpSampling.make({ maxTokens: 50, maxCallsPerRequest: 1 })
      const tooMany = yield* Effect.flip(sampling.handle(ask()).pipe(Effect.provide(model)))
      assert.strictEqual(tooMany.reason, "TooManyTokens")
      const counter = McpSampling.counter()
      const once = sampling.handle(ask({ maxTokens: 10 })).pipe(
        Effect.provideService(McpSampling.RequestCounter, counter),
        Effect.provide(model)
      )
      yield* once
      const over = yield* Effect.flip(once)
      assert.deepStrictEqual([over.reason, over.code], ["OverLimit", -32600])
      const declining = McpSampling.make({ maxTokens: 50, maxCallsPerRequest: 5, approve: () => Effect.succeed(false) })
      const declined = yield* Effect.flip(declining.handle(ask({ maxTokens: 10 })).pipe(Effect.provide(model)))
      assert.deepStrictEqual([declined.reason, declined.code], ["Declined", -1])
      const noModel = yield* Effect.flip(
        McpSampling.make({ maxTokens: 50, maxCallsPerRequest: 5 }).handle(ask({ maxTokens: 10 }))
      )
      assert.strictEqual(noModel.reason, "NoModel")
    }))
})

describe("McpRoots", () => {
  it.effect("paths become file:// URIs, other schemes and empty roots are refused; set reaches a subscriber", () =>
    Effect.gen(function*() {
      const roots = yield* McpRoots.make(["/srv/a b", { uri: "file:///x", name: "x" }])
      assert.deepStrictEqual(yield* roots.get, [{ uri: "file:///srv/a%20b" }, { uri: "file:///x", name: "x" }])
      const changes = yield* roots.subscribe
      yield* roots.set([{ path: "/tmp", name: "tmp" }])
      assert.deepStrictEqual(yield* PubSub.take(changes), [{ uri: "file:///tmp", name: "tmp" }])
      const scheme = yield* Effect.flip(roots.set(["https://example.com"]))
      const empty = yield* Effect.flip(roots.set([""]))
      assert.deepStrictEqual([scheme.reason, empty.reason], ["UnsupportedScheme", "Empty"])
      assert.isFalse((yield* McpRoots.McpRoots).offered)
    }).pipe(Effect.provide(Path.layer)))
})

describe("McpElicitation", () => {
  it.effect("none declines and is not offered; a handler answers with the services it was made with", () =>
    Effect.gen(function*() {
      const none = yield* McpElicitation.McpElicitation
      const form: McpElicitation.Request = {
        _tag: "Form",
        server: "s",
        message: "name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } } }
      }
      assert.deepStrictEqual([none.offered, yield* none.handle(form)], [false, { action: "decline" }])
      const made = yield* McpElicitation.make(() =>
        Effect.succeed({ action: "accept", content: { name: "x" } } as const)
      )
      assert.deepStrictEqual([made.offered, yield* made.handle(form)], [true, {
        action: "accept",
        content: { name: "x" }
      }])
      assert.deepStrictEqual(McpElicitation.fields(form.requestedSchema).map((field) => field.name), ["name"])
    }))
})
