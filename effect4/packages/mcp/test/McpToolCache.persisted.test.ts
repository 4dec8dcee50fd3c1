/**
 * `McpToolCache.layerPersisted` over a store of the test's own (an `effect/persistence`
 * `BackingPersistence` that records what it is asked and can fail or hang), in-process and on `TestClock`: what
 * is stored, under which store and expiry, what a reader takes from the store, and what a failing or silent
 * store costs (a warning, never a failed lookup). The Redis-backed cache with its lock is in
 * packages/mcp-redis/test/RedisToolCache.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpToolCache } from "@zett/mcp"
import * as ToolListCache from "@zett/testing-core/ToolListCache"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { Persistence } from "effect/persistence"
import * as TestClock from "effect/testing/TestClock"
import { key, tools } from "./utils/catalog.js"

/** A discovery that counts its runs. */
const counted = () => {
  const stats = { runs: 0 }
  const discover = Effect.sync(() => tools(`t${++stats.runs}`))
  return { stats, discover }
}

type Mode = "ok" | "fail" | "failPlain" | "hang" | { readonly failWith: unknown }

/** A store of the test's own: its entries, the stores asked for, every operation, and a mode per operation. */
const recordingStore = () => {
  const entries = new Map<string, unknown>()
  const stores: Array<string> = []
  const calls: Array<{ readonly op: string; readonly key: string; readonly ttl?: Duration.Duration | undefined }> = []
  const modes: Record<string, Mode> = { get: "ok", set: "ok", remove: "ok" }
  const run = <A>(op: string, effect: Effect.Effect<A>): Effect.Effect<A, Persistence.PersistenceError> =>
    Effect.suspend((): Effect.Effect<A, Persistence.PersistenceError> => {
      const mode = modes[op]
      return typeof mode === "object"
        ? Effect.fail(mode.failWith as Persistence.PersistenceError)
        : mode === "fail"
        ? Effect.fail(new Persistence.PersistenceError({ message: "BackingError", cause: new Error(`${op} refused`) }))
        : mode === "failPlain"
        // a failure that is not an Error (the store's own types promise one; a store of one's own may not keep that)
        ? Effect.fail("connection reset" as unknown as Persistence.PersistenceError)
        : mode === "hang"
        ? Effect.never
        : effect
    })
  const backing = Persistence.BackingPersistence.of({
    make: (storeId) =>
      Effect.sync(() => {
        stores.push(storeId)
        return {
          get: (k) => (calls.push({ op: "get", key: k }),
            run(
              "get",
              Effect.sync(() => entries.get(k) as object | undefined)
            )),
          getMany: () => Effect.die("not used"),
          set: (k, value, ttl) => (calls.push({ op: "set", key: k, ttl }),
            run(
              "set",
              Effect.sync(() => void entries.set(k, value))
            )),
          setMany: () => Effect.die("not used"),
          remove: (
            k
          ) => (calls.push({ op: "remove", key: k }), run("remove", Effect.sync(() => void entries.delete(k)))),
          clear: Effect.die("not used")
        }
      })
  })
  return { entries, stores, calls, modes, layer: Layer.succeed(Persistence.BackingPersistence)(backing) }
}

/** Log lines, as text. */
const captureLogs = () => {
  const lines: Array<string> = []
  const layer = Logger.layer([Logger.map(Logger.formatLogFmt, (line) => void lines.push(line))])
  return { lines, layer }
}

/** A cache over `store`, as one process of a fleet would have it. */
const cacheOn = (store: ReturnType<typeof recordingStore>, options: Partial<McpToolCache.PersistedOptions> = {}) =>
  Effect.map(
    Effect.provide(McpToolCache.makePersisted({ ttl: "5 minutes", ...options }), store.layer),
    ToolListCache.of
  )

/** The writes run after the lookup returned (forked): let them finish. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("McpToolCache.layerPersisted", () => {
  it.effect("a second process reuses the stored list: tool data and its expiry, under mcp-tools with the TTL", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      const { discover, stats } = counted()
      const first = yield* cacheOn(store)
      const seen = yield* first.lookup(key, discover)
      yield* settle
      assert.deepStrictEqual(store.stores, ["mcp-tools"])
      const sets = store.calls.filter((call) => call.op === "set")
      assert.strictEqual(sets.length, 1)
      assert.strictEqual(sets[0]!.key, key.id)
      assert.deepStrictEqual(sets[0]!.ttl, Duration.minutes(5))
      assert.deepStrictEqual(store.entries.get(key.id), { key: key.id, tools: seen, expiresAt: 5 * 60_000 })

      const second = yield* cacheOn(store)
      assert.isTrue(yield* second.has(key))
      assert.deepStrictEqual(yield* second.lookup(key, discover), seen)
      assert.strictEqual(stats.runs, 1)
      // has() took the entry into the process: the lookup asked the store nothing more
      assert.strictEqual(store.calls.filter((call) => call.op === "get").length, 2)
    }))

  it.effect("a lookup that finds the list in the store neither discovers nor writes it again", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      const { discover, stats } = counted()
      yield* (yield* cacheOn(store)).lookup(key, discover)
      yield* settle
      const second = yield* cacheOn(store)
      assert.strictEqual((yield* second.lookup(key, discover))[0]!.name, "catalog__t1")
      yield* settle
      assert.strictEqual(stats.runs, 1)
      assert.strictEqual(store.calls.filter((call) => call.op === "set").length, 1)
      // and keeps it in the process for the TTL
      assert.strictEqual((yield* second.lookup(key, discover))[0]!.name, "catalog__t1")
      assert.strictEqual(store.calls.filter((call) => call.op === "get").length, 2)
    }))

  it.effect("a discovery runs with the services of the lookup that discovers, after the store's miss", () =>
    Effect.gen(function*() {
      class Tenant extends Context.Service<Tenant, string>()("Tenant") {}
      const store = recordingStore()
      const cache = yield* cacheOn(store)
      const seen = yield* cache.lookup(key, Effect.map(Tenant, (tenant) => tools(tenant))).pipe(
        Effect.provideService(Tenant, "first")
      )
      yield* settle
      assert.strictEqual(seen[0]!.name, "catalog__first")
      assert.deepStrictEqual(store.calls.map((call) => call.op), ["get", "set"])
    }))

  it.effect("storeId names the store", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      yield* cacheOn(store, { storeId: "fleet-tools" })
      assert.deepStrictEqual(store.stores, ["fleet-tools"])
    }))

  it.effect("a stored entry is stale by the reader's Clock even while the store holds it", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      const { discover, stats } = counted()
      yield* (yield* cacheOn(store, { ttl: "1 minute" })).lookup(key, discover)
      yield* settle
      yield* TestClock.adjust("59 seconds")
      assert.isTrue(yield* (yield* cacheOn(store, { ttl: "1 minute" })).has(key))
      yield* TestClock.adjust("1 second")
      const reader = yield* cacheOn(store, { ttl: "1 minute" })
      assert.isFalse(yield* reader.has(key))
      assert.strictEqual((yield* reader.lookup(key, discover))[0]!.name, "catalog__t2")
      assert.strictEqual(stats.runs, 2)
    }))

  it.effect("a stored value that is not a tool list is discovered again and overwritten", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      store.entries.set(key.id, { key: key.id, expiresAt: 10 * 60_000, tools: [{ name: "x" }] })
      const { discover, stats } = counted()
      const cache = yield* cacheOn(store)
      assert.isFalse(yield* cache.has(key))
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "catalog__t1")
      yield* settle
      assert.strictEqual(stats.runs, 1)
      assert.deepStrictEqual(store.entries.get(key.id), { key: key.id, tools: tools("t1"), expiresAt: 5 * 60_000 })
    }))

  it.effect("invalidate forgets the list in the store too: another process discovers again", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      const { discover, stats } = counted()
      const first = yield* cacheOn(store)
      yield* first.lookup(key, discover)
      yield* settle
      yield* first.invalidate(key)
      assert.isFalse(store.entries.has(key.id))
      assert.isFalse(yield* first.has(key))
      assert.strictEqual((yield* (yield* cacheOn(store)).lookup(key, discover))[0]!.name, "catalog__t2")
      assert.strictEqual(stats.runs, 2)
    }))

  it.effect("a failed discovery is not stored", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      const cache = yield* cacheOn(store)
      const exit = yield* Effect.exit(cache.lookup(key, Effect.fail("refused")))
      yield* settle
      assert.isTrue(exit._tag === "Failure")
      assert.strictEqual(store.calls.filter((call) => call.op === "set").length, 0)
      assert.strictEqual(store.entries.size, 0)
    }))

  it.effect("a store that fails to read: the lookup discovers in the process, with a warning naming the server", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      store.modes.get = "fail"
      const logs = captureLogs()
      const { discover, stats } = counted()
      const cache = yield* cacheOn(store)
      assert.strictEqual((yield* cache.lookup(key, discover).pipe(Effect.provide(logs.layer)))[0]!.name, "catalog__t1")
      assert.strictEqual(stats.runs, 1)
      const warning = logs.lines.find((line) => line.includes("level=WARN"))!
      assert.include(
        warning,
        "shared tool cache: read for catalog failed (BackingError); discovering it in this process"
      )
      assert.include(warning, "mcp.server=catalog")
      // what it discovered is still offered to the others
      yield* settle
      assert.strictEqual(store.calls.filter((call) => call.op === "set").length, 1)
    }))

  it.effect("a failure without a message is shown as it is", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      store.modes.get = "failPlain"
      const logs = captureLogs()
      const { discover } = counted()
      yield* (yield* cacheOn(store)).lookup(key, discover).pipe(Effect.provide(logs.layer))
      assert.include(
        logs.lines.join("\n"),
        "read for catalog failed (connection reset); discovering it in this process"
      )
    }))

  it.effect("has() of a store that fails is false, with a warning", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      store.modes.get = "fail"
      const logs = captureLogs()
      assert.isFalse(yield* (yield* cacheOn(store)).has(key).pipe(Effect.provide(logs.layer)))
      assert.include(
        logs.lines.join("\n"),
        "shared tool cache: read for catalog failed (BackingError); answering from this process"
      )
    }))

  it.effect("a store that fails to write or remove costs a warning, not the lookup", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      store.modes.set = "fail"
      store.modes.remove = "fail"
      const logs = captureLogs()
      const { discover } = counted()
      const cache = yield* cacheOn(store)
      assert.strictEqual((yield* cache.lookup(key, discover).pipe(Effect.provide(logs.layer)))[0]!.name, "catalog__t1")
      yield* settle.pipe(Effect.provide(logs.layer))
      yield* cache.invalidate(key).pipe(Effect.provide(logs.layer))
      const text = logs.lines.join("\n")
      assert.include(
        text,
        "shared tool cache: write for catalog failed (BackingError); the other processes discover it by themselves"
      )
      assert.include(text, "shared tool cache: remove for catalog failed (BackingError); only this process forgot it")
      // this process forgot it all the same
      assert.isFalse(yield* cache.has(key).pipe(Effect.provide(logs.layer)))
    }))

  it.effect("a store that does not answer costs the operation timeout (500 ms by default), then the process discovers", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      store.modes.get = "hang"
      const logs = captureLogs()
      const { discover, stats } = counted()
      const cache = yield* cacheOn(store)
      const lookup = yield* Effect.forkChild(cache.lookup(key, discover).pipe(Effect.provide(logs.layer)))
      yield* TestClock.adjust("499 millis")
      assert.strictEqual(stats.runs, 0)
      yield* TestClock.adjust("1 millis")
      // the timeout waits for the event loop's I/O (setImmediate) before it gives up
      const seen = yield* Fiber.join(lookup)
      assert.strictEqual(seen[0]!.name, "catalog__t1")
      assert.include(
        logs.lines.join("\n"),
        "shared tool cache: read for catalog failed (no answer in time); discovering it in this process"
      )
    }))

  it.effect("operationTimeout bounds each store operation", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      store.modes.get = "hang"
      const { discover, stats } = counted()
      const cache = yield* cacheOn(store, { operationTimeout: "2 seconds" })
      const lookup = yield* Effect.forkChild(cache.lookup(key, discover))
      yield* TestClock.adjust("1999 millis")
      assert.strictEqual(stats.runs, 0)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(lookup))[0]!.name, "catalog__t1")
    }))

  it.effect("layerPersisted provides the cache over the BackingPersistence in context", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      const { discover } = counted()
      const context = yield* Layer.build(
        McpToolCache.layerPersisted({ ttl: "1 minute", storeId: "tools" }).pipe(Layer.provide(store.layer))
      )
      const cache = ToolListCache.of(yield* Effect.provide(McpToolCache.McpToolCache, context))
      yield* cache.lookup(key, discover)
      yield* settle
      assert.deepStrictEqual(store.stores, ["tools"])
      assert.deepStrictEqual(store.entries.get(key.id), { key: key.id, tools: tools("t1"), expiresAt: 60_000 })
    }))

  it.effect("a TTL of zero neither reads nor writes the store: every lookup discovers", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      store.entries.set(key.id, { key: key.id, tools: tools("stored"), expiresAt: 10 * 60_000 })
      const { discover, stats } = counted()
      const cache = yield* cacheOn(store, { ttl: 0 })
      assert.isFalse(yield* cache.has(key))
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "catalog__t1")
      assert.strictEqual((yield* cache.lookup(key, discover))[0]!.name, "catalog__t2")
      yield* settle
      assert.strictEqual(stats.runs, 2)
      assert.deepStrictEqual(store.calls.map((call) => call.op), [])
    }))

  it.effect("has() answers from the process while its entry is fresh, whatever the store holds since", () =>
    Effect.gen(function*() {
      const store = recordingStore()
      const { discover } = counted()
      const cache = yield* cacheOn(store)
      yield* cache.lookup(key, discover)
      yield* settle
      // another process forgot it in the store
      yield* (yield* cacheOn(store)).invalidate(key)
      const asked = store.calls.length
      assert.isTrue(yield* cache.has(key))
      assert.strictEqual(store.calls.length, asked)
    }))

  it.effect("how a store's failure is told: a timeout of another copy of effect, an empty or odd message", () =>
    Effect.gen(function*() {
      const told = (cause: unknown) =>
        Effect.gen(function*() {
          const store = recordingStore()
          store.modes.get = { failWith: cause }
          const logs = captureLogs()
          const { discover } = counted()
          yield* (yield* cacheOn(store)).lookup(key, discover).pipe(Effect.provide(logs.layer))
          return /read for catalog failed \((.*)\); discovering/.exec(logs.lines.join("\n"))?.[1]
        })
      assert.strictEqual(yield* told({ _tag: "TimeoutException" }), "no answer in time")
      assert.strictEqual(yield* told(new Error("")), "Error")
      assert.strictEqual(yield* told({ message: 42 }), "[object Object]")
    }))
})
