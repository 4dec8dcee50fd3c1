import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig, McpToolCache } from "@zett/mcp"
import type { McpTool } from "@zett/mcp"
import { McpRedis, RedisToolCache } from "@zett/mcp-redis"
import * as ToolListCache from "@zett/testing-core/ToolListCache"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as TestClock from "effect/testing/TestClock"
import { Redis } from "ioredis"
import { captureLogs } from "./utils/logs.js"
import * as RedisServer from "./utils/redisServer.js"

const headerSecret = "hdr-5ecret-0f-the-header"
const envSecret = "env-5ecret-0f-the-process"

const httpServer = McpServerConfig.http({
  name: "catalog",
  url: "https://catalog.example/mcp",
  headers: { authorization: `Bearer ${headerSecret}` }
})
const stdioServer = McpServerConfig.stdio({
  name: "local",
  command: "node",
  args: ["server.js"],
  env: { API_KEY: envSecret }
})

const tools = (server: string, name: string): ReadonlyArray<McpTool.McpTool> => [{
  name: `${server}__${name}`,
  description: `the ${name} tool`,
  parameters: { type: "object", properties: { q: { type: "string" } } },
  guidelines: false,
  server,
  remoteName: name
}]

/** A discovery that counts its runs (across every cache given it) and takes `delay` of the live clock. */
const counted = (server: string, delay: Duration.Input = 0) => {
  const stats = { runs: 0 }
  const discover = Effect.suspend(() => {
    const n = ++stats.runs
    return Effect.as(Effect.sleep(delay), tools(server, `t${n}`))
  })
  return { stats, discover }
}

/** A cache of its own connection, as another process would have. */
const cacheOn = (
  url: string,
  options: Partial<RedisToolCache.Options> = {},
  connection: Partial<McpRedis.Options> = {}
) =>
  Effect.flatMap(
    Layer.build(McpRedis.layer({ url, ...connection })),
    (context) =>
      Effect.map(
        Effect.provideContext(RedisToolCache.make({ ttl: "5 minutes", ...options }), context),
        ToolListCache.of
      )
  )

const rawClient = (url: string) =>
  Effect.acquireRelease(Effect.sync(() => new Redis(url)), (client) => Effect.sync(() => client.disconnect()))

describe("McpToolCache.layerRedis", () => {
  it.live(
    "a second process reuses the stored list; Redis holds tool data only, no header or env value",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const first = yield* cacheOn(redis.url)
        const second = yield* cacheOn(redis.url)
        for (const server of [httpServer, stdioServer]) {
          const key = McpToolCache.key(server, { namespace: true })
          const { discover, stats } = counted(server.name)
          const seen = yield* first.lookup(key, discover)
          // the first process stores in the background: the second polls the store until it is there
          const raw = yield* rawClient(redis.url)
          while ((yield* Effect.promise(() => raw.keys("zett:mcp-tools:*"))).length < (server === httpServer ? 1 : 2)) {
            yield* Effect.sleep("10 millis")
          }
          assert.deepStrictEqual(yield* second.lookup(key, discover), seen)
          assert.strictEqual(stats.runs, 1)
        }
        const raw = yield* rawClient(redis.url)
        // the locks are released after the lists are stored
        while ((yield* Effect.promise(() => raw.keys("zett:lock:*"))).length > 0) yield* Effect.sleep("10 millis")
        const keys = yield* Effect.promise(() => raw.keys("*"))
        assert.strictEqual(keys.length, 2)
        for (const key of keys) {
          const value = (yield* Effect.promise(() => raw.get(key)))!
          for (const text of [key, value]) {
            assert.notInclude(text, headerSecret)
            assert.notInclude(text, envSecret)
            assert.notInclude(text, "Bearer")
            assert.notInclude(text, "catalog.example")
            assert.notInclude(text, "server.js")
          }
          const stored = JSON.parse(value) as { key: string; tools: ReadonlyArray<McpTool.McpTool>; expiresAt: number }
          assert.deepStrictEqual(Object.keys(stored).sort(), ["expiresAt", "key", "tools"])
          // the key it was stored under (hashes only), which a reader checks
          assert.strictEqual(`zett:mcp-tools:${stored.key}`, key)
          assert.deepStrictEqual(Object.keys(stored.tools[0]!).sort(), [
            "description",
            "guidelines",
            "name",
            "parameters",
            "remoteName",
            "server"
          ])
          // the expiry is Redis's too (PX), at most the TTL
          const pttl = yield* Effect.promise(() => raw.pttl(key))
          assert.isAbove(pttl, 0)
          assert.isAtMost(pttl, 5 * 60_000)
        }
      })
  )

  it.effect(
    "a stored entry is stale by the reader's Clock even while Redis still holds it",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const key = McpToolCache.key(httpServer, { namespace: true })
        const { discover, stats } = counted("catalog")
        const first = yield* cacheOn(redis.url, { ttl: "1 minute" })
        yield* first.lookup(key, discover)
        const raw = yield* rawClient(redis.url)
        while ((yield* Effect.promise(() => raw.keys("zett:mcp-tools:*"))).length === 0) {
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
        }
        const second = yield* cacheOn(redis.url, { ttl: "1 minute" })
        assert.isTrue(yield* second.has(key))
        yield* TestClock.adjust("61 seconds")
        // still in Redis (its expiry runs on the real clock), but stale for this reader
        assert.strictEqual((yield* Effect.promise(() => raw.keys("zett:mcp-tools:*"))).length, 1)
        const third = yield* cacheOn(redis.url, { ttl: "1 minute" })
        assert.isFalse(yield* third.has(key))
        assert.strictEqual((yield* third.lookup(key, discover))[0]!.name, "catalog__t2")
        assert.strictEqual(stats.runs, 2)
      })
  )

  it.live("concurrent cold lookups from four processes' caches run one discovery", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const key = McpToolCache.key(httpServer, { namespace: true })
      const { discover, stats } = counted("catalog", "300 millis")
      const caches = yield* Effect.all([1, 2, 3, 4].map(() => cacheOn(redis.url)))
      const seen = yield* Effect.forEach(caches, (cache) => cache.lookup(key, discover), { concurrency: "unbounded" })
      assert.strictEqual(stats.runs, 1)
      for (const list of seen) assert.deepStrictEqual(list, seen[0])
      // the lock is released once the list is stored
      const raw = yield* rawClient(redis.url)
      while ((yield* Effect.promise(() => raw.keys("zett:lock:*"))).length > 0) yield* Effect.sleep("10 millis")
    }))

  it.live(
    "a lock whose holder died frees itself by expiry, then one waiter discovers",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const key = McpToolCache.key(httpServer, { namespace: true })
        const raw = yield* rawClient(redis.url)
        // a holder that took the lock and died: nobody renews or releases it
        yield* Effect.promise(() => raw.set(`zett:lock:mcp-tools:${key.id}`, "elsewhere/1/dead", "PX", 400, "NX"))
        const { discover, stats } = counted("catalog", "100 millis")
        const caches = yield* Effect.all([1, 2, 3].map(() => cacheOn(redis.url)))
        const seen = yield* Effect.forEach(caches, (cache) => cache.lookup(key, discover), { concurrency: "unbounded" })
        assert.strictEqual(stats.runs, 1)
        for (const list of seen) assert.deepStrictEqual(list, seen[0])
      })
  )

  it.live(
    "a holder whose lock expired before its release warns that another process may have discovered too",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const logs = captureLogs()
        const key = McpToolCache.key(httpServer, { namespace: true })
        const raw = yield* rawClient(redis.url)
        const lockKey = `zett:lock:mcp-tools:${key.id}`
        // the lock vanishes during the discovery, as it does when a starved holder misses its renewals
        const discover = Effect.andThen(
          Effect.promise(() => raw.del(lockKey)),
          Effect.succeed(tools("catalog", "t1"))
        )
        // the scope's close waits for the write and the release that follow the lookup
        const seen = yield* Effect.scoped(
          Effect.flatMap(cacheOn(redis.url), (cache) => cache.lookup(key, discover))
        ).pipe(Effect.provide(logs.layer))
        assert.strictEqual(seen[0]!.name, "catalog__t1")
        assert.isTrue(
          logs.lines.some((line) =>
            line.includes("level=WARN") && line.includes("lock of catalog had expired before its release")
          ),
          logs.lines.join("\n")
        )
      })
  )

  it.live(
    "Redis stopped mid-run: lookups discover in the process, with a warning, and never fail",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const logs = captureLogs()
        const key = McpToolCache.key(httpServer, { namespace: true })
        const { discover, stats } = counted("catalog")
        const first = yield* cacheOn(redis.url)
        const second = yield* cacheOn(redis.url)
        yield* first.lookup(key, discover)
        yield* redis.stop
        // a cold process (its own cache, its connection now broken)
        const seen = yield* second.lookup(key, discover).pipe(Effect.provide(logs.layer))
        assert.strictEqual(seen[0]!.name, "catalog__t2")
        assert.strictEqual(stats.runs, 2)
        assert.isTrue(
          logs.lines.some((line) => line.includes("level=WARN") && line.includes("shared tool cache")),
          logs.lines.join("\n")
        )
        // its own in-process cache still answers
        yield* second.lookup(key, discover)
        assert.strictEqual(stats.runs, 2)
        // a process started while Redis is down starts (no failure) and discovers by itself
        const third = yield* cacheOn(redis.url, {}, { connectTimeout: "100 millis" })
        assert.strictEqual(
          (yield* third.lookup(key, discover).pipe(Effect.provide(logs.layer)))[0]!.name,
          "catalog__t3"
        )
        // Redis back: the processes share again
        yield* redis.start
        const fourth = yield* cacheOn(redis.url)
        const fifth = yield* cacheOn(redis.url)
        yield* fourth.lookup(key, discover)
        const raw = yield* rawClient(redis.url)
        while ((yield* Effect.promise(() => raw.keys("zett:mcp-tools:*"))).length === 0) {
          yield* Effect.sleep("10 millis")
        }
        assert.strictEqual((yield* fifth.lookup(key, discover))[0]!.name, "catalog__t4")
        assert.strictEqual(stats.runs, 4)
        for (const line of logs.lines) assert.notInclude(line, headerSecret)
      })
  )

  it.live(
    "a frozen Redis (no answers) costs a lookup the operation timeout, not a failure",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const logs = captureLogs()
        const key = McpToolCache.key(httpServer, { namespace: true })
        const { discover, stats } = counted("catalog")
        const cache = yield* cacheOn(redis.url, { operationTimeout: "200 millis" })
        yield* redis.freeze
        const lookup = yield* Effect.forkChild(cache.lookup(key, discover).pipe(Effect.provide(logs.layer)))
        const seen = yield* Fiber.join(lookup)
        yield* redis.thaw
        assert.strictEqual(seen[0]!.name, "catalog__t1")
        assert.strictEqual(stats.runs, 1)
        assert.isTrue(
          logs.lines.some((line) => line.includes("level=WARN") && line.includes("no answer in time")),
          logs.lines.join("\n")
        )
      })
  )

  it.live(
    "a failed discovery is not stored and frees the lock for the next process",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const key = McpToolCache.key(httpServer, { namespace: true })
        const first = yield* cacheOn(redis.url)
        const second = yield* cacheOn(redis.url)
        const failed = yield* Effect.flip(first.lookup(key, Effect.fail("unreachable" as const)))
        assert.strictEqual(failed, "unreachable")
        const { discover, stats } = counted("catalog")
        assert.strictEqual((yield* second.lookup(key, discover))[0]!.name, "catalog__t1")
        assert.strictEqual(stats.runs, 1)
      })
  )

  it.live(
    "a waiter that waited waitTimeout for a live holder discovers by itself, with a warning",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const logs = captureLogs()
        const key = McpToolCache.key(httpServer, { namespace: true })
        const holder = yield* cacheOn(redis.url)
        const waiter = yield* cacheOn(redis.url, { waitTimeout: "300 millis" })
        const started = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const slow = Effect.andThen(
          Deferred.succeed(started, void 0),
          Effect.as(Deferred.await(release), tools("catalog", "slow"))
        )
        const holding = yield* Effect.forkChild(holder.lookup(key, slow))
        yield* Deferred.await(started)
        const { discover, stats } = counted("catalog")
        assert.strictEqual(
          (yield* waiter.lookup(key, discover).pipe(Effect.provide(logs.layer)))[0]!.name,
          "catalog__t1"
        )
        assert.strictEqual(stats.runs, 1)
        assert.isTrue(logs.lines.some((line) => line.includes("still discovering catalog")), logs.lines.join("\n"))
        yield* Deferred.succeed(release, void 0)
        yield* Fiber.join(holding)
      })
  )
})

describe("McpRedis.layerPersistence", () => {
  it.live("McpToolCache.layerPersisted over it stores with a Redis expiry (PX)", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const key = McpToolCache.key(stdioServer, { namespace: true })
      const { discover, stats } = counted("local")
      const layer = McpToolCache.layerPersisted({ ttl: "2 minutes", storeId: "tools" }).pipe(
        Layer.provide(McpRedis.layerPersistence),
        Layer.provide(McpRedis.layer({ url: Redacted.make(redis.url), prefix: "fleet-a:" }))
      )
      const cache = ToolListCache.of(
        yield* Effect.provideContext(Effect.service(McpToolCache.McpToolCache), yield* Layer.build(layer))
      )
      yield* cache.lookup(key, discover)
      const raw = yield* rawClient(redis.url)
      while ((yield* Effect.promise(() => raw.keys("fleet-a:tools:*"))).length === 0) yield* Effect.sleep("10 millis")
      const [stored] = yield* Effect.promise(() => raw.keys("fleet-a:tools:*"))
      const pttl = yield* Effect.promise(() => raw.pttl(stored!))
      assert.isAbove(pttl, 60_000)
      assert.isAtMost(pttl, 120_000)
      const other = ToolListCache.of(
        yield* Effect.provideContext(Effect.service(McpToolCache.McpToolCache), yield* Layer.build(layer))
      )
      yield* other.lookup(key, discover)
      assert.strictEqual(stats.runs, 1)
      // invalidation reaches the store
      yield* other.invalidate(key)
      assert.strictEqual((yield* Effect.promise(() => raw.keys("fleet-a:tools:*"))).length, 0)
    }))
})
