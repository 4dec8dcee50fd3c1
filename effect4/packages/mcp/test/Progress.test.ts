/**
 * Every call asks for progress (`progressToken`); `notifications/progress`
 * becomes a `ToolProgress` event for `onEvent`; a progress report starts `callTimeout` afresh, never past
 * `maxCallTimeout`; a call cut short is cancelled on the server. Timeouts are driven by `TestClock`.
 * Here the extension's timing on fake servers; over the Node driver and real servers (the progress token and the
 * cancellation the server receives), the 3 line's packages/mcp-node/test/Progress.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import { McpServerConfig } from "@zett/mcp"
import { agentWith, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, tool } from "@zett/testing-core/FakeMcp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

describe("progress", () => {
  /** A fake call that reports at each of `at` (seconds since its start), then runs until cut; records when it was cut. */
  const reporting = (at: ReadonlyArray<number>) => {
    const cut: Array<number> = []
    const call = (
      _name: string,
      _args: unknown,
      options?: { readonly onProgress?: ((p: { progress: number }) => void) | undefined }
    ) =>
      Effect.gen(function*() {
        let elapsed = 0
        for (const [i, second] of at.entries()) {
          yield* Effect.sleep(`${second - elapsed} seconds`)
          elapsed = second
          options?.onProgress?.({ progress: i + 1 })
        }
        return yield* Effect.never
      }).pipe(
        Effect.onInterrupt(() =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => void cut.push(now)))
        )
      )
    return { call, cut }
  }

  it.effect("when the reports stop, the call is cut callTimeout after the last one, and the model is told so", () =>
    Effect.gen(function*() {
      const { call, cut } = reporting([20, 40])
      const { factory } = fakeFactory({ s: { tools: [tool("job")], call } })
      const { layer, requests } = agentWith(
        { servers: [http("s")], clientFactory: factory, callTimeout: "30 seconds" },
        [
          { toolCalls: [{ name: "s__job" }] },
          { text: "ok" }
        ]
      )
      const fiber = yield* Effect.forkChild(Agent.run("go").pipe(Effect.provide(layer)))
      yield* TestClock.adjust("10 minutes")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(cut, [70_000])
      assert.deepStrictEqual(toolMessages(requests[1]!)[0]!.content, {
        error: { type: "Timeout", message: "s__job reported no progress for 30s" }
      })
    }))

  it.effect("resetTimeoutOnProgress false cuts the call at callTimeout however often it reports", () =>
    Effect.gen(function*() {
      const { call, cut } = reporting([10, 20, 29])
      const { factory } = fakeFactory({ s: { tools: [tool("job")], call } })
      const { layer, requests } = agentWith({
        servers: [http("s")],
        clientFactory: factory,
        callTimeout: "30 seconds",
        resetTimeoutOnProgress: false
      }, [{ toolCalls: [{ name: "s__job" }] }, { text: "ok" }])
      const fiber = yield* Effect.forkChild(Agent.run("go").pipe(Effect.provide(layer)))
      yield* TestClock.adjust("10 minutes")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(cut, [30_000])
      assert.deepStrictEqual(toolMessages(requests[1]!)[0]!.content, {
        error: { type: "Timeout", message: "s__job did not finish within 30s" }
      })
    }))

  it.effect("a maxCallTimeout below callTimeout is the limit; null lifts the cap", () =>
    Effect.gen(function*() {
      const short = reporting([])
      const endless = reporting(Array.from({ length: 100 }, (_, i) => (i + 1) * 20))
      const { factory } = fakeFactory({
        a: { tools: [tool("job")], call: short.call },
        b: { tools: [tool("job")], call: endless.call }
      })
      const first = agentWith({
        servers: [http("a")],
        clientFactory: factory,
        callTimeout: "30 seconds",
        maxCallTimeout: "5 seconds"
      }, [
        { toolCalls: [{ name: "a__job" }] },
        { text: "ok" }
      ])
      const fiber = yield* Effect.forkChild(Agent.run("go").pipe(Effect.provide(first.layer)))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(short.cut, [5_000])
      // 100 reports 20 s apart: uncapped, the call runs until they stop, and 30 s more
      const second = agentWith({
        servers: [http("b")],
        clientFactory: factory,
        callTimeout: "30 seconds",
        maxCallTimeout: null
      }, [
        { toolCalls: [{ name: "b__job" }] },
        { text: "ok" }
      ])
      const start = yield* Clock.currentTimeMillis
      const fiber2 = yield* Effect.forkChild(Agent.run("go").pipe(Effect.provide(second.layer)))
      yield* TestClock.adjust("3 hours")
      yield* Fiber.join(fiber2)
      assert.deepStrictEqual(endless.cut, [start + 2_030_000])
    }))
})
