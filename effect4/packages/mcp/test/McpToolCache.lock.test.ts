/**
 * The shared cache with a discovery lock (what `McpToolCache.layerRedis` runs on Redis), over
 * a store and a lock of the test's own, in-process and on `TestClock`: who takes the lock and when, what the
 * holder does under it (re-reading the store, renewing, storing, releasing), how a waiter polls (backoff,
 * jitter, deadline), and the lines each case logs. packages/mcp-redis/test/RedisToolCache.test.ts runs the same on a real Redis.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpToolCache } from "@zett/mcp"
import * as CapturedLogs from "@zett/testing-core/CapturedLogs"
import * as ToolListCache from "@zett/testing-core/ToolListCache"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Persistence } from "effect/persistence"
import * as Random from "effect/Random"
import * as TestClock from "effect/testing/TestClock"
import { key, tools } from "./utils/catalog.js"

class FixtureError extends Data.TaggedError("FixtureError")<{ readonly message: string }> {}

/** A random source that gives `values` in turn, again and again (Effect 3's `Random.fixed`). */
const fixedRandom = (values: ReadonlyArray<number>): Random.Random => {
  let i = 0
  const next = () => values[i++ % values.length]!
  return { nextDoubleUnsafe: next, nextIntUnsafe: () => Math.floor(next()) }
}

/** What the store, the lock and the discoveries were asked, in order. */
type Journal = Array<string>

type StoreMode = "ok" | "fail"

/** A store of the test's own (the fleet's): its entries and a mode per operation. */
const fleetStore = (journal: Journal) => {
  const entries = new Map<string, unknown>()
  const modes: Record<"get" | "set" | "remove", StoreMode> = { get: "ok", set: "ok", remove: "ok" }
  const run = <A>(
    op: "get" | "set" | "remove",
    effect: Effect.Effect<A>
  ): Effect.Effect<A, Persistence.PersistenceError> =>
    Effect.suspend(() => {
      journal.push(op)
      return modes[op] === "fail"
        ? Effect.fail(new Persistence.PersistenceError({ message: "BackingError", cause: new Error(`${op} refused`) }))
        : effect
    })
  const backing = Persistence.BackingPersistence.of({
    make: () =>
      Effect.succeed({
        get: (k) => run("get", Effect.sync(() => entries.get(k) as object | undefined)),
        getMany: () => Effect.die("not used"),
        set: (k, value) => run("set", Effect.sync(() => void entries.set(k, value))),
        setMany: () => Effect.die("not used"),
        remove: (k) => run("remove", Effect.sync(() => void entries.delete(k))),
        clear: Effect.die("not used")
      })
  })
  return { entries, modes, layer: Layer.succeed(Persistence.BackingPersistence)(backing) }
}

/**
 * A discovery lock of the test's own, one per fleet: `held` are the keys taken (by a cache, or by the test for
 * "another process"), `acquires` when each attempt was made (by `Clock`). `beforeTake` runs when a free lock is
 * about to be taken: what the fleet did between the taker's read and its lock.
 */
const fleetLock = (journal: Journal) => {
  const held = new Set<string>()
  const acquires: Array<number> = []
  const modes = {
    acquire: "ok" as "ok" | "fail",
    keepAlive: "renew" as "renew" | "fail",
    release: "released" as "released" | "expired" | "fail"
  }
  const fleet = { beforeTake: (): void => {} }
  const lock: McpToolCache.DiscoveryLock = {
    acquire: (id) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.suspend(() => {
          acquires.push(now)
          journal.push("acquire")
          if (modes.acquire === "fail") return Effect.fail(new FixtureError({ message: "lock refused" }))
          if (held.has(id)) return Effect.succeed(Option.none())
          fleet.beforeTake()
          held.add(id)
          return Effect.succeed(Option.some<McpToolCache.HeldLock>({
            keepAlive: Effect.suspend(() => {
              journal.push("keepAlive")
              return modes.keepAlive === "fail"
                ? Effect.fail(new FixtureError({ message: "lock lost" }))
                : Effect.onInterrupt(Effect.never, () => Effect.sync(() => void journal.push("keepAlive stopped")))
            }),
            release: Effect.suspend(() => {
              journal.push("release")
              held.delete(id)
              return modes.release === "fail"
                ? Effect.fail(new FixtureError({ message: "release refused" }))
                : Effect.succeed(modes.release === "released")
            })
          }))
        }))
  }
  return { held, acquires, modes, fleet, lock }
}

/** A discovery that journals its runs and when each started. */
const counted = (journal: Journal) => {
  const stats = { runs: 0, at: [] as Array<number> }
  const discover = Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.sync(() => {
      journal.push("discover")
      stats.at.push(now)
      return tools(`t${++stats.runs}`)
    }))
  return { stats, discover }
}

/** Every log line from debug up (@zett/testing/CapturedLogs): level, text and the `mcp.server` annotation. */
const captureLogs = () => {
  const logs = CapturedLogs.captureLogs("Debug")
  return {
    layer: logs.layer,
    get lines() {
      return logs.lines.map(({ annotations, level, message }) => ({
        level,
        message,
        server: annotations["mcp.server"] as string | undefined
      }))
    }
  }
}

/** One process of the fleet: its cache over the fleet's store and lock. */
const cacheOn = (
  store: ReturnType<typeof fleetStore>,
  lock: ReturnType<typeof fleetLock>,
  options: Partial<Parameters<typeof McpToolCache.makeLocked>[0]> = {}
) =>
  Effect.map(
    Effect.provide(McpToolCache.makeLocked({ ttl: "5 minutes", ...options }, lock.lock), store.layer),
    ToolListCache.of
  )

/** The write and the release run after the lookup returned (forked): let them finish. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

/** A fleet of one store and one lock, the journal of both, and the log lines of the test. */
const fleet = () => {
  const journal: Journal = []
  return { journal, store: fleetStore(journal), lock: fleetLock(journal), logs: captureLogs() }
}

describe("McpToolCache with a discovery lock", () => {
  it.effect("a list found in the store takes no lock; a debug line says so", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      store.entries.set(key.id, { key: key.id, tools: tools("stored"), expiresAt: 60_000 })
      const { discover, stats } = counted(journal)
      const seen = yield* (yield* cacheOn(store, lock)).lookup(key, discover)
      yield* settle
      assert.deepStrictEqual(seen, tools("stored"))
      assert.strictEqual(stats.runs, 0)
      assert.deepStrictEqual(journal, ["get"])
      assert.deepStrictEqual(logs.lines, [
        { level: "DEBUG", message: "shared tool cache: catalog found in the store", server: undefined }
      ])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("the first process discovers under the lock, renewed meanwhile, then stores the list and releases the lock", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()
      const { discover, stats } = counted(journal)
      const slow = Effect.andThen(Effect.andThen(Deferred.succeed(started, void 0), Deferred.await(finish)), discover)
      const cache = yield* cacheOn(store, lock)
      const lookup = yield* Effect.forkChild(cache.lookup(key, slow))
      yield* Deferred.await(started)
      yield* settle
      // read, lock, read again under the lock, and the renewal runs while the discovery does
      assert.deepStrictEqual(journal, ["get", "acquire", "get", "keepAlive"])
      assert.isTrue(lock.held.has(key.id))
      yield* Deferred.succeed(finish, void 0)
      assert.deepStrictEqual(yield* Fiber.join(lookup), tools("t1"))
      yield* settle
      assert.strictEqual(stats.runs, 1)
      assert.deepStrictEqual(journal, [
        "get",
        "acquire",
        "get",
        "keepAlive",
        "discover",
        "keepAlive stopped",
        "set",
        "release"
      ])
      assert.isFalse(lock.held.has(key.id))
      assert.deepStrictEqual(store.entries.get(key.id), { key: key.id, tools: tools("t1"), expiresAt: 5 * 60_000 })
      // a release that freed the lock is no news: one debug line, no warning
      assert.deepStrictEqual(logs.lines, [
        { level: "DEBUG", message: "shared tool cache: discovering catalog for the fleet", server: undefined }
      ])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a holder re-reads the store after taking the lock: a list stored in between is taken, not discovered, and the lock released", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      // another process stored the list and released the lock between this one's read and its lock
      lock.fleet.beforeTake = () =>
        void store.entries.set(key.id, { key: key.id, tools: tools("stored"), expiresAt: 60_000 })
      const { discover, stats } = counted(journal)
      const seen = yield* (yield* cacheOn(store, lock)).lookup(key, discover)
      yield* settle
      assert.deepStrictEqual(seen, tools("stored"))
      assert.strictEqual(stats.runs, 0)
      assert.deepStrictEqual(journal, ["get", "acquire", "get", "release"])
      assert.isFalse(lock.held.has(key.id))
      assert.deepStrictEqual(logs.lines, [])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a stored list that is stale by then is discovered again under the lock", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      yield* TestClock.adjust("2 minutes")
      lock.fleet.beforeTake = () =>
        void store.entries.set(key.id, { key: key.id, tools: tools("stored"), expiresAt: 60_000 })
      const { discover } = counted(journal)
      assert.deepStrictEqual(yield* (yield* cacheOn(store, lock)).lookup(key, discover), tools("t1"))
      yield* settle
      assert.deepStrictEqual(journal, [
        "get",
        "acquire",
        "get",
        "discover",
        // Effect 4 starts no renewal for a discovery that finishes at once (raceFirst starts its other side lazily)
        "set",
        "release"
      ])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a store that fails the read under the lock: the holder discovers for the fleet, with a warning", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      lock.fleet.beforeTake = () => void (store.modes.get = "fail")
      const { discover } = counted(journal)
      assert.deepStrictEqual(yield* (yield* cacheOn(store, lock)).lookup(key, discover), tools("t1"))
      yield* settle
      assert.deepStrictEqual(journal, [
        "get",
        "acquire",
        "get",
        "discover",
        // Effect 4 starts no renewal for a discovery that finishes at once (raceFirst starts its other side lazily)
        "set",
        "release"
      ])
      assert.deepStrictEqual(logs.lines, [{
        level: "WARN",
        message:
          "shared tool cache: read for catalog failed (BackingError); discovering it for the fleet under the lock",
        server: "catalog"
      }])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a renewal that fails lets the lock go with a warning; the discovery goes on and is stored", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      lock.modes.keepAlive = "fail"
      const finish = yield* Deferred.make<void>()
      const { discover } = counted(journal)
      const cache = yield* cacheOn(store, lock)
      const lookup = yield* Effect.forkChild(cache.lookup(key, Effect.andThen(Deferred.await(finish), discover)))
      yield* settle
      assert.deepStrictEqual(logs.lines.slice(1), [{
        level: "WARN",
        message:
          "shared tool cache: the discovery lock of catalog could not be renewed (lock lost); another process may discover it too",
        server: "catalog"
      }])
      yield* Deferred.succeed(finish, void 0)
      assert.deepStrictEqual(yield* Fiber.join(lookup), tools("t1"))
      yield* settle
      assert.deepStrictEqual(journal, ["get", "acquire", "get", "keepAlive", "discover", "set", "release"])
      assert.deepStrictEqual(store.entries.get(key.id), { key: key.id, tools: tools("t1"), expiresAt: 5 * 60_000 })
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a lock that had expired before its release: a warning that another process may have discovered too", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      lock.modes.release = "expired"
      const { discover } = counted(journal)
      yield* (yield* cacheOn(store, lock)).lookup(key, discover)
      yield* settle
      assert.deepStrictEqual(logs.lines.slice(1), [{
        level: "WARN",
        message:
          "shared tool cache: the discovery lock of catalog had expired before its release; another process may have discovered it too",
        server: "catalog"
      }])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a release that fails is a debug line: the lock frees itself when it expires", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      lock.modes.release = "fail"
      const { discover } = counted(journal)
      assert.deepStrictEqual(yield* (yield* cacheOn(store, lock)).lookup(key, discover), tools("t1"))
      yield* settle
      assert.deepStrictEqual(journal.slice(-2), ["set", "release"])
      assert.deepStrictEqual(logs.lines.slice(1), [{
        level: "DEBUG",
        message:
          "shared tool cache: release for catalog failed (release refused); the lock frees itself when it expires",
        server: "catalog"
      }])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a lock that cannot be taken: the process discovers by itself, with a warning, and stores the list", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      lock.modes.acquire = "fail"
      const { discover } = counted(journal)
      assert.deepStrictEqual(yield* (yield* cacheOn(store, lock)).lookup(key, discover), tools("t1"))
      yield* settle
      // no renewal, no release: it holds no lock
      assert.deepStrictEqual(journal, ["get", "acquire", "discover", "set"])
      assert.deepStrictEqual(logs.lines, [{
        level: "WARN",
        message: "shared tool cache: lock for catalog failed (lock refused); discovering it in this process",
        server: "catalog"
      }])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a discovery that fails under the lock fails the lookup once, stores nothing and frees the lock", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      const runs = { n: 0 }
      const failing = Effect.suspend(() => {
        runs.n++
        return Effect.fail("unreachable" as const)
      })
      const failed = yield* Effect.flip((yield* cacheOn(store, lock)).lookup(key, failing))
      yield* settle
      assert.strictEqual(failed, "unreachable")
      assert.strictEqual(runs.n, 1)
      // Effect 4 starts no renewal for a discovery that finishes at once (raceFirst starts its other side lazily)
      assert.deepStrictEqual(journal, ["get", "acquire", "get", "release"])
      assert.isFalse(lock.held.has(key.id))
      assert.strictEqual(store.entries.size, 0)
      assert.deepStrictEqual(logs.lines.map((line) => line.level), ["DEBUG"])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a waiter polls from 10 ms, growing by half up to 250 ms, each wait jittered between half and all of it, until the list appears", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      // another process holds the lock and discovers
      lock.held.add(key.id)
      const { discover, stats } = counted(journal)
      const cache = yield* cacheOn(store, lock)
      // the jitter draws 0 (half the wait), 1 (all of it), 0, ...
      const lookup = yield* Effect.forkChild(
        cache.lookup(key, discover).pipe(Effect.provideService(Random.Random, fixedRandom([0, 1])))
      )
      yield* TestClock.adjust("1 second")
      const gaps = lock.acquires.slice(1).map((at, i) => at - lock.acquires[i]!)
      assert.deepStrictEqual(gaps, [
        10 / 2,
        15,
        22.5 / 2,
        33.75,
        50.625 / 2,
        75.9375,
        113.90625 / 2,
        170.859375,
        250 / 2, // 256.2890625 capped
        250,
        250 / 2
      ])
      assert.strictEqual(lock.acquires[0], 0)
      // the holder stores the list: the next poll (at 1144.0625 ms) reads it and takes no lock
      store.entries.set(key.id, { key: key.id, tools: tools("stored"), expiresAt: 5 * 60_000 })
      const polls = lock.acquires.length
      yield* TestClock.adjust("144 millis")
      assert.isUndefined(lookup.pollUnsafe())
      yield* TestClock.adjust("0.0625 millis")
      assert.deepStrictEqual(yield* Fiber.join(lookup), tools("stored"))
      assert.strictEqual(lock.acquires.length, polls)
      assert.strictEqual(stats.runs, 0)
      assert.isTrue(lock.held.has(key.id))
      assert.deepStrictEqual(logs.lines, [])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a waiter takes the lock once it is free, and discovers for the fleet", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      lock.held.add(key.id)
      const { discover, stats } = counted(journal)
      const cache = yield* cacheOn(store, lock)
      const lookup = yield* Effect.forkChild(
        cache.lookup(key, discover).pipe(Effect.provideService(Random.Random, fixedRandom([1])))
      )
      yield* TestClock.adjust("20 millis")
      // the holder died: its lock expired
      lock.held.delete(key.id)
      yield* TestClock.adjust("5 millis")
      assert.deepStrictEqual(yield* Fiber.join(lookup), tools("t1"))
      assert.deepStrictEqual(lock.acquires, [0, 10, 25])
      assert.deepStrictEqual(stats.at, [25])
      yield* settle
      assert.isFalse(lock.held.has(key.id))
      assert.deepStrictEqual(logs.lines.map((line) => line.message), [
        "shared tool cache: discovering catalog for the fleet"
      ])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("a waiter discovers by itself exactly waitTimeout after its first poll, with a warning; its last wait is cut to the deadline", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      lock.held.add(key.id)
      const { discover, stats } = counted(journal)
      const cache = yield* cacheOn(store, lock, { waitTimeout: "100 millis" })
      const lookup = yield* Effect.forkChild(
        cache.lookup(key, discover).pipe(Effect.provideService(Random.Random, fixedRandom([1])))
      )
      yield* TestClock.adjust("99 millis")
      assert.strictEqual(stats.runs, 0)
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.join(lookup), tools("t1"))
      // waits of 10, 15, 22.5 and 33.75 ms, then 18.75 (not 50.625) to the deadline
      assert.deepStrictEqual(lock.acquires, [0, 10, 25, 47.5, 81.25, 100])
      assert.deepStrictEqual(stats.at, [100])
      assert.deepStrictEqual(logs.lines, [{
        level: "WARN",
        message:
          "shared tool cache: another process is still discovering catalog after 100ms; discovering it in this process",
        server: "catalog"
      }])
      // it holds no lock, so it releases none; what it found is stored for the others
      yield* settle
      assert.deepStrictEqual(journal.slice(-2), ["discover", "set"])
    }).pipe(Effect.provide(logs.layer))
  })

  it.effect("the default waitTimeout is 30 seconds", () => {
    const { journal, lock, logs, store } = fleet()
    return Effect.gen(function*() {
      lock.held.add(key.id)
      const { discover, stats } = counted(journal)
      const cache = yield* cacheOn(store, lock)
      const lookup = yield* Effect.forkChild(
        cache.lookup(key, discover).pipe(Effect.provideService(Random.Random, fixedRandom([1])))
      )
      yield* TestClock.adjust("29999 millis")
      assert.strictEqual(stats.runs, 0)
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.join(lookup), tools("t1"))
      assert.deepStrictEqual(stats.at, [30_000])
      assert.include(logs.lines[0]!.message, "still discovering catalog after 30s")
    }).pipe(Effect.provide(logs.layer))
  })
})
