/**
 * The extension's opt-in connection pool (`connectionPool`): the 3 line's tests, every assertion kept, on the fake
 * servers and the test clock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import { McpError, McpServerConfig } from "@zett/mcp"
import { agentWith, servers, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, text, tool } from "@zett/testing-core/FakeMcp"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })
const callOnce = { toolCalls: [{ name: "s__t" }] }

describe("connection pool", () => {
  it.effect("by default every request opens and closes its own connection (D1)", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith({ servers: [http("s")], clientFactory: factory }, [
        callOnce,
        { text: "1" },
        callOnce,
        { text: "2" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        assert.strictEqual(stats.open(), 0)
        yield* agent.run("b")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(stats.connects, { s: 2 })
    }))

  it.effect("connectionPool keeps a server's connection across requests until it is idle for the TTL", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith(
        { servers: [http("s")], clientFactory: factory, connectionPool: { idleTimeToLive: "1 minute" } },
        [callOnce, { text: "1" }, callOnce, { text: "2" }, callOnce, { text: "3" }]
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
        assert.deepStrictEqual([stats.connects, stats.open()], [{ s: 1 }, 1])
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual(stats.open(), 0)
        yield* agent.run("c")
        assert.deepStrictEqual(stats.connects, { s: 2 })
      }).pipe(Effect.provide(layer))
      assert.strictEqual(stats.calls.length, 3)
    }))

  it.effect("closing the layer closes the pool", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith(
        { servers: [http("s")], clientFactory: factory, connectionPool: { idleTimeToLive: "1 hour" } },
        [callOnce, { text: "1" }]
      )
      yield* Agent.run("a").pipe(Effect.provide(layer))
      assert.deepStrictEqual([stats.connects, stats.open()], [{ s: 1 }, 0])
    }))

  it.effect("a pooled connection that closed is not reused", () =>
    Effect.gen(function*() {
      let calls = 0
      const { factory, stats } = fakeFactory({
        s: {
          tools: [tool("t")],
          call: () =>
            ++calls === 1
              ? Effect.fail(
                new McpError.McpRequestError({
                  server: "s",
                  method: "tools/call",
                  code: -32000,
                  reason: "Transport",
                  description: "Connection closed"
                })
              )
              : Effect.succeed(text("fine"))
        }
      })
      const { layer, requests } = agentWith(
        { servers: [http("s")], clientFactory: factory, connectionPool: { idleTimeToLive: "1 hour" } },
        [callOnce, { text: "1" }, callOnce, { text: "2" }]
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
      }).pipe(Effect.provide(layer))
      assert.strictEqual(toolMessages(requests[1]!)[0]!.status, "TOOL_FAILED")
      assert.strictEqual(toolMessages(requests[3]!).at(-1)!.status, "ok")
      assert.deepStrictEqual(stats.connects, { s: 2 })
    }))

  it.effect("pooled connections are keyed by the whole definition: an edited server gets a new connection (C10)", () =>
    Effect.gen(function*() {
      const configured = servers([McpServerConfig.http({ name: "s", url: "http://127.0.0.1:1/a" })])
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith(
        {
          servers: configured.layer,
          clientFactory: factory,
          connectionPool: { idleTimeToLive: "1 hour" },
          cache: { ttl: 0 }
        },
        [callOnce, { text: "1" }, callOnce, { text: "2" }, callOnce, { text: "3" }]
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
        assert.deepStrictEqual(stats.connects, { s: 1 })
        configured.set([McpServerConfig.http({ name: "s", url: "http://127.0.0.1:1/a-changed" })])
        yield* agent.run("c")
        assert.deepStrictEqual(stats.connects, { s: 2 })
      }).pipe(Effect.provide(layer))
    }))
})
