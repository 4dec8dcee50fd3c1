/**
 * The search index is built once per version of the tool lists: a warm request builds none. Alone in its file:
 * the count is a process-wide metric.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import { McpServerConfig, McpToolSearch } from "@zett/mcp"
import { agentWith, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, tool } from "@zett/testing-core/FakeMcp"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as TestClock from "effect/testing/TestClock"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

const builds = Effect.map(Metric.value(McpToolSearch.indexBuilds), (state) => state.count)

describe("the tool search index", () => {
  it.effect("is built by the first search of a tool-list version, not by a request that does not search nor by a warm one", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({
        s: { tools: Array.from({ length: 50 }, (_, i) => tool(`op_${i}`, { type: "object" }, `operation number ${i}`)) }
      })
      const search = { toolCalls: [{ name: "search_tools", arguments: { query: "operation 7" } }] }
      const { layer, requests } = agentWith({
        servers: [http("s")],
        clientFactory: factory,
        cache: { ttl: "1 minute" }
      }, [
        { text: "no search" },
        search,
        { text: "one" },
        search,
        { text: "two" },
        search,
        { text: "three" }
      ])
      const before = yield* builds
      yield* Effect.gen(function*() {
        yield* Agent.run("a request that does not search")
        assert.strictEqual((yield* builds) - before, 0)
        yield* Agent.run("search")
        assert.strictEqual((yield* builds) - before, 1)
        // warm: the cache hands out the same list, the index is reused
        yield* Agent.run("search again")
        assert.strictEqual((yield* builds) - before, 1)
        assert.strictEqual(stats.connects.s, 1)
        // the list expires and is listed again: a new version, a new index
        yield* TestClock.adjust("2 minutes")
        yield* Agent.run("search after the list expired")
        assert.strictEqual((yield* builds) - before, 2)
      }).pipe(Effect.provide(layer))
      const found = toolMessages(requests[requests.length - 1]!)[0]!.content as { tools: Array<{ name: string }> }
      assert.strictEqual(found.tools[0]!.name, "s__op_7")
    }))
})
