/**
 * The in-memory tool cache: the Effect 3 line's packages/mcp/test/McpToolCache.test.ts on Effect 4, every assertion
 * kept (its last test, an agent's cold requests, on the fake servers).
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import { McpServerConfig, McpToolCache } from "@zett/mcp"
import type { McpTool } from "@zett/mcp"
import { agentWith } from "@zett/testing-core/FakeAgent"
import { fakeFactory, tool } from "@zett/testing-core/FakeMcp"
import * as ToolListCache from "@zett/testing-core/ToolListCache"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as TestClock from "effect/testing/TestClock"

const key = new McpToolCache.Key({ server: "s", definition: "s:0123abcd", namespace: true })

const tools = (name: string): ReadonlyArray<McpTool.McpTool> => [
  { name, description: "", parameters: { type: "object" }, guidelines: false, server: "s", remoteName: name }
]

/** A discovery that counts its runs and takes `delay` (TestClock time). */
const counted = (delay: Duration.Input = "0 millis") => {
  const stats = { runs: 0 }
  const discover = Effect.sync(() => ++stats.runs).pipe(
    Effect.tap(() => Effect.sleep(delay)),
    Effect.map((n) => tools(`t${n}`))
  )
  return { stats, discover }
}

describe("McpToolCache", () => {
  it.effect("an entry is fresh for the TTL read from Clock, then discovered again (D3)", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      const { discover, stats } = counted()
      yield* cache.lookup(key, discover)
      yield* TestClock.adjust("299 seconds")
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "t1")
      assert.isTrue(yield* cache.has(key))
      yield* TestClock.adjust("1 second")
      assert.isFalse(yield* cache.has(key))
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "t2")
      assert.strictEqual(stats.runs, 2)
    }))

  it.effect("a TTL of zero disables the cache: every lookup discovers (D3)", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: 0 })
      const { discover, stats } = counted()
      yield* cache.lookup(key, discover)
      yield* cache.lookup(key, discover)
      assert.strictEqual(stats.runs, 2)
    }))

  it.effect("concurrent lookups of a missing key share one discovery (single flight)", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      const { discover, stats } = counted("1 second")
      const fibers = yield* Effect.forEach(Array.from({ length: 10 }), () =>
        Effect.forkChild(cache.lookup(key, discover)))
      yield* TestClock.adjust("1 second")
      const results = yield* Effect.forEach(fibers, Fiber.join)
      assert.strictEqual(stats.runs, 1)
      assert.isTrue(results.every((r) =>
        r === results[0]
      ))
    }))

  it.effect("a failed discovery is not cached, and its waiters see the failure", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      let runs = 0
      const failing = Effect.suspend(
        () => (++runs, Effect.andThen(Effect.sleep("1 second"), Effect.fail("down" as const)))
      )
      const a = yield* Effect.forkChild(Effect.flip(cache.lookup(key, failing)))
      const b = yield* Effect.forkChild(Effect.flip(cache.lookup(key, failing)))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual([yield* Fiber.join(a), yield* Fiber.join(b)], ["down", "down"])
      assert.strictEqual(runs, 1)
      const { discover } = counted()
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "t1")
    }))

  it.effect("when the discovering request is interrupted, a waiting one discovers itself", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      const started = yield* Deferred.make<void>()
      const leader = yield* Effect.forkChild(
        cache.lookup(key, Effect.andThen(Deferred.succeed(started, undefined), Effect.never))
      )
      yield* Deferred.await(started)
      const { discover, stats } = counted()
      const follower = yield* Effect.forkChild(cache.lookup(key, discover))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(leader)
      assert.strictEqual((yield* Fiber.join(follower))[0]!.name, "t1")
      assert.strictEqual(stats.runs, 1)
    }))

  it.effect("a TTL of zero shares nothing either: concurrent lookups each discover (D3)", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: 0 })
      const { discover, stats } = counted("1 second")
      const fibers = yield* Effect.forEach(
        Array.from({ length: 3 }),
        () => Effect.forkChild(cache.lookup(key, discover))
      )
      yield* TestClock.adjust("1 second")
      const names = (yield* Effect.forEach(fibers, Fiber.join)).map((list) => list[0]!.name)
      assert.deepStrictEqual(names.sort(), ["t1", "t2", "t3"])
      assert.strictEqual(stats.runs, 3)
      assert.isFalse(yield* cache.has(key))
    }))

  it.effect("invalidate drops an entry: the next lookup discovers again (D3)", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      const { discover, stats } = counted()
      yield* cache.lookup(key, discover)
      yield* cache.invalidate(key)
      assert.isFalse(yield* cache.has(key))
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "t2")
      assert.strictEqual(stats.runs, 2)
    }))

  it.effect("an invalidate while a discovery is in flight leaves the discovery shared, and its list is kept", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      const started = yield* Deferred.make<void>()
      const { discover, stats } = counted("1 second")
      const first = yield* Effect.forkChild(
        cache.lookup(key, Effect.andThen(Deferred.succeed(started, undefined), discover))
      )
      yield* Deferred.await(started)
      yield* cache.invalidate(key)
      const second = yield* Effect.forkChild(cache.lookup(key, discover))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual([(yield* Fiber.join(first))[0]!.name, (yield* Fiber.join(second))[0]!.name], ["t1", "t1"])
      assert.strictEqual(stats.runs, 1)
      assert.isTrue(yield* cache.has(key))
    }))

  it.effect("a discovery runs with the services of the lookup that discovers", () =>
    Effect.gen(function*() {
      class Tenant extends Context.Service<Tenant, string>()("Tenant") {}
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      const discover = Effect.map(Tenant, (tenant) => tools(tenant))
      const seen = yield* cache.lookup(key, discover).pipe(Effect.provideService(Tenant, "first"))
      assert.strictEqual(seen[0]!.name, "first")
      // the entry, not the second lookup's services, answers while it is fresh
      assert.strictEqual(
        (yield* cache.lookup(key, discover).pipe(Effect.provideService(Tenant, "second")))[0]!.name,
        "first"
      )
    }))

  it.effect("the lookups that discover or wait for a discovery count as misses, those of a fresh entry as hits", () =>
    Effect.gen(function*() {
      const server = `counted${Date.now()}`
      const counting = new McpToolCache.Key({ server, definition: `${server}:0123abcd`, namespace: true })
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      const { discover } = counted("1 second")
      const fibers = yield* Effect.forEach(
        Array.from({ length: 3 }),
        () => Effect.forkChild(cache.lookup(counting, discover))
      )
      yield* TestClock.adjust("1 second")
      yield* Effect.forEach(fibers, Fiber.join)
      yield* cache.lookup(counting, discover)
      yield* cache.lookup(counting, discover)
      const hits = yield* Metric.value(Metric.withAttributes(McpToolCache.hits, { "mcp.server": server }))
      const misses = yield* Metric.value(Metric.withAttributes(McpToolCache.misses, { "mcp.server": server }))
      assert.deepStrictEqual([hits.count, misses.count], [2, 3])
    }))

  it.effect("a cache that has loaded thousands of times keeps its fresh entries, its invalidations and its discoveries in flight", () =>
    Effect.gen(function*() {
      const cache = yield* ToolListCache.makeMemory({ ttl: "5 minutes" })
      const other = new McpToolCache.Key({ server: "o", definition: "o:0123abcd", namespace: true })
      const slow = new McpToolCache.Key({ server: "w", definition: "w:0123abcd", namespace: true })
      // failed discoveries are loads too, and are never kept
      const loadMany = Effect.repeat(Effect.flip(cache.lookup(other, Effect.fail("down"))), { times: 3000 })
      const { discover, stats } = counted()
      yield* cache.lookup(key, discover)
      yield* loadMany
      assert.isTrue(yield* cache.has(key))
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "t1")
      yield* cache.invalidate(key)
      assert.isFalse(yield* cache.has(key))
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "t2")
      // a discovery in flight meanwhile is still the one that later lookups join
      const started = yield* Deferred.make<void>()
      const inFlight = counted("1 second")
      const first = yield* Effect.forkChild(
        cache.lookup(slow, Effect.andThen(Deferred.succeed(started, undefined), inFlight.discover))
      )
      yield* Deferred.await(started)
      yield* loadMany
      const second = yield* Effect.forkChild(cache.lookup(slow, inFlight.discover))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual([(yield* Fiber.join(first))[0]!.name, (yield* Fiber.join(second))[0]!.name], ["t1", "t1"])
      assert.strictEqual(inFlight.stats.runs, 1)
      yield* loadMany
      assert.isTrue(yield* cache.has(slow))
      assert.strictEqual(stats.runs, 2)
    }))

  it("a server's keys: one per naming mode, equal each time they are made, with their ids (D3)", () => {
    const server = McpServerConfig.http({ name: "a", url: "http://127.0.0.1:1/a" })
    const definition = McpServerConfig.cacheKey(server)
    const flat = McpToolCache.key(server, { namespace: false })
    const namespaced = McpToolCache.key(server, { namespace: true })
    assert.deepStrictEqual(
      [flat.server, flat.definition, flat.namespace, flat.id],
      ["a", definition, false, `${definition}:flat`]
    )
    assert.deepStrictEqual(
      [namespaced.server, namespaced.definition, namespaced.namespace, namespaced.id],
      ["a", definition, true, `${definition}:ns`]
    )
    assert.isTrue(Equal.equals(McpToolCache.key(server, { namespace: false }), flat))
    assert.isTrue(Equal.equals(McpToolCache.key(server, { namespace: true }), namespaced))
    assert.isFalse(Equal.equals(flat, namespaced))
  })
})

describe("the tool cache in the agent", () => {
  it.effect("concurrent cold requests of one agent connect once per server for discovery", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({
        a: { tools: [tool("t")], listDelay: "1 second" },
        b: { tools: [tool("t")], listDelay: "1 second" }
      })
      const { layer } = agentWith(
        {
          servers: [
            McpServerConfig.http({ name: "a", url: "http://127.0.0.1:1/a" }),
            McpServerConfig.http({ name: "b", url: "http://127.0.0.1:1/b" })
          ],
          clientFactory: factory
        },
        Array.from({ length: 10 }, () => ({ text: "ok" }))
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        const runs = yield* Effect.forEach(Array.from({ length: 10 }), () => Effect.forkChild(agent.run("hi")))
        yield* TestClock.adjust("1 second")
        yield* Effect.forEach(runs, Fiber.join)
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(stats.connects, { a: 1, b: 1 })
    }))
})
