/**
 * What a listing carries besides its tools: the server's caching hint (`ttlMs`, `cacheScope` of the 2026-07-28
 * revision) and the verdict of the connection that listed it. In memory and over a store shared by two
 * processes, on `TestClock`.
 */
import { assert, describe, it } from "@effect/vitest"
import type { McpClient } from "@zett/mcp"
import { McpServerConfig, McpToolCache } from "@zett/mcp"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { Persistence } from "effect/persistence"
import * as TestClock from "effect/testing/TestClock"
import { key as catalogKey, tools } from "./utils/catalog.js"

const modern: McpClient.Verdict = {
  kind: "modern",
  discover: { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, resultType: "complete" }
}

/** A discovery that counts its runs, each run's tools named after it, with `hint`. */
const counted = (hint?: McpClient.CacheHint, verdict?: McpClient.Verdict) => {
  const stats = { runs: 0 }
  const discover = Effect.sync((): McpToolCache.Listing => ({
    tools: tools(`t${++stats.runs}`),
    ...(hint !== undefined ? { hint } : {}),
    ...(verdict !== undefined ? { verdict } : {})
  }))
  return { stats, discover }
}

const names = (listing: McpToolCache.Listing) => listing.tools.map((tool) => tool.name)

/** A store in memory shared by the "processes" of a test, and a look at what it holds under `key`. */
const sharedStore = Effect.gen(function*() {
  const context = yield* Layer.build(Persistence.layerBackingMemory)
  const store = yield* Context.get(context, Persistence.BackingPersistence).make("mcp-tools")
  return {
    cache: (options: Partial<McpToolCache.PersistedOptions> = {}) =>
      Effect.provide(McpToolCache.makePersisted({ ttl: "5 minutes", ...options }), context),
    read: (key: McpToolCache.Key) => store.get(key.id),
    plant: (key: McpToolCache.Key, value: unknown) => store.set(key.id, value as object, undefined)
  }
})

/** The writes run after the lookup returned (forked): let them finish. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("a server's caching hint and the cache's ttl", () => {
  it.effect("a ttlMs shorter than the ttl ends the entry sooner; a longer one does not make it last longer", () =>
    Effect.gen(function*() {
      const short = yield* McpToolCache.makeMemory({ ttl: "5 minutes" })
      const { discover, stats } = counted({ ttlMs: 60_000, scope: "public" })
      yield* short.lookup(catalogKey, discover)
      yield* TestClock.adjust("59 seconds")
      assert.deepStrictEqual(names(yield* short.lookup(catalogKey, discover)), ["catalog__t1"])
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(names(yield* short.lookup(catalogKey, discover)), ["catalog__t2"])
      assert.strictEqual(stats.runs, 2)

      const long = yield* McpToolCache.makeMemory({ ttl: "5 minutes" })
      const longer = counted({ ttlMs: 3_600_000, scope: "public" })
      yield* long.lookup(catalogKey, longer.discover)
      yield* TestClock.adjust("299 seconds")
      assert.isTrue(yield* long.has(catalogKey))
      yield* TestClock.adjust("1 second")
      assert.isFalse(yield* long.has(catalogKey))
    }))

  it.effect("a list the server says is stale at once (ttlMs 0) is listed again by the next lookup, unless the cache ignores hints", () =>
    Effect.gen(function*() {
      const following = yield* McpToolCache.makeMemory({ ttl: "5 minutes" })
      const { discover, stats } = counted({ ttlMs: 0, scope: "private" })
      yield* following.lookup(catalogKey, discover)
      yield* following.lookup(catalogKey, discover)
      assert.strictEqual(stats.runs, 2)

      const ignoring = yield* McpToolCache.makeMemory({ ttl: "5 minutes", cacheHints: "ignore" })
      const second = counted({ ttlMs: 0, scope: "private" })
      yield* ignoring.lookup(catalogKey, second.discover)
      yield* TestClock.adjust("299 seconds")
      yield* ignoring.lookup(catalogKey, second.discover)
      assert.strictEqual(second.stats.runs, 1)
    }))

  it.effect("a list without a hint (a server of the 2025 revisions) lives for the ttl", () =>
    Effect.gen(function*() {
      const cache = yield* McpToolCache.makeMemory({ ttl: "5 minutes" })
      const { discover, stats } = counted()
      yield* cache.lookup(catalogKey, discover)
      yield* TestClock.adjust("299 seconds")
      yield* cache.lookup(catalogKey, discover)
      assert.strictEqual(stats.runs, 1)
    }))
})

describe("a listing in a store shared by processes", () => {
  const stdioKey = McpToolCache.key(McpServerConfig.stdio({ name: "catalog", command: "catalog-server" }), {
    namespace: true
  })
  const bearerKey = McpToolCache.key(
    McpServerConfig.http({
      name: "catalog",
      url: "https://catalog.example/mcp",
      headers: { Authorization: "Bearer abc" }
    }),
    { namespace: true }
  )

  it.effect("another process reads the tools with their verdict and hint, fresh for the hint's time from when they were listed", () =>
    Effect.gen(function*() {
      const store = yield* sharedStore
      const { discover, stats } = counted({ ttlMs: 60_000, scope: "public" }, modern)
      const listed = yield* (yield* store.cache()).lookup(catalogKey, discover)
      yield* settle
      yield* TestClock.adjust("30 seconds")
      const second = yield* store.cache()
      const read = yield* second.lookup(catalogKey, discover)
      assert.deepStrictEqual(read, listed)
      assert.deepStrictEqual(read.verdict, modern)
      assert.strictEqual(stats.runs, 1)
      yield* TestClock.adjust("30 seconds")
      assert.isFalse(yield* second.has(catalogKey))
    }))

  it.effect("a private list is shared only for a definition whose credentials are all in it", () =>
    Effect.gen(function*() {
      const store = yield* sharedStore
      const hint: McpClient.CacheHint = { ttlMs: 60_000, scope: "private" }
      // catalog (HTTP, no credentials of its own) may be given a login's tokens: its list stays in the process
      const first = yield* store.cache()
      yield* first.lookup(catalogKey, counted(hint).discover)
      yield* first.lookup(stdioKey, counted(hint).discover)
      yield* first.lookup(bearerKey, counted(hint).discover)
      yield* settle
      assert.isTrue(undefined === (yield* store.read(catalogKey)))
      assert.isTrue(undefined !== (yield* store.read(stdioKey)))
      assert.isTrue(undefined !== (yield* store.read(bearerKey)))
      const { discover, stats } = counted(hint)
      yield* (yield* store.cache()).lookup(catalogKey, discover)
      assert.strictEqual(stats.runs, 1)
    }))

  it.effect("a list the server says is stale at once is not written", () =>
    Effect.gen(function*() {
      const store = yield* sharedStore
      yield* (yield* store.cache()).lookup(catalogKey, counted({ ttlMs: 0, scope: "public" }).discover)
      yield* settle
      assert.isTrue(undefined === (yield* store.read(catalogKey)))
    }))

  it.effect("a stored verdict of the wrong shape makes the entry a miss, with a warning", () =>
    Effect.gen(function*() {
      const store = yield* sharedStore
      yield* store.plant(catalogKey, {
        key: catalogKey.id,
        expiresAt: 60_000,
        tools: tools("planted"),
        verdict: { kind: "modern" }
      })
      const lines: Array<string> = []
      const logs = Logger.layer([
        Logger.map(Logger.formatLogFmt, (line) => void lines.push(line))
      ])
      const { discover, stats } = counted()
      const listing = yield* (yield* store.cache()).lookup(catalogKey, discover).pipe(Effect.provide(logs))
      assert.deepStrictEqual(names(listing), ["catalog__t1"])
      assert.strictEqual(stats.runs, 1)
      assert.include(lines.join("\n"), "the stored tool list of catalog is refused (not a tool list)")
    }))
})
