/**
 * Tool lists per server configuration, reused for a time-to-live, so that a warm request starts no process and
 * opens no socket; a server whose configuration changes is a new key, listed afresh.
 *
 * The memory cache is a map of entries with a `Deferred` single flight, as on the Effect 3 line, rather than Effect
 * 4's `Cache`: that one takes its lookup when it is made (a discovery is the request's, given with each `lookup`),
 * and keeps a lookup running, in the context of the request that started it, for as long as any caller waits
 * for it: a discovery that belongs to an interrupted request (its connection, its scope) would go on serving the
 * others, where here the next waiter discovers by itself, in its own context. The shared store is Effect 4's
 * `effect/persistence` `BackingPersistence`.
 *
 * @since 1.0.0
 */
import * as ToolListing from "@zett/common/McpToolListing"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Exit from "effect/Exit"
import * as Hash from "effect/Hash"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Persistence from "effect/persistence/Persistence"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Io from "./internal/io.js"
import * as McpClient from "./McpClient.js"
import * as McpServerConfig from "./McpServerConfig.js"
import type { McpTool } from "./McpTool.js"

/**
 * What a tool list is cached under: the whole server definition (`McpServerConfig.cacheKey`, so a changed server is
 * another entry, and secrets enter only as hashes) and the naming mode. `server` is the name, for metric tags
 * and logs; `id` is the key as one string, for a store. `prefix` is the `<prefix>__` of the server's exposed
 * tool names (`McpServerConfig.toolPrefix`; by default the server name, sanitized): a list read back from a store
 * must name its tools with it.
 *
 * @since 1.0.0
 * @category models
 */
export class Key extends Data.Class<{
  readonly server: string
  readonly definition: string
  readonly namespace: boolean
  readonly prefix?: string | undefined
  /**
   * Whether `definition` names the server's authorization context (`McpServerConfig.authorizedByDefinition`):
   * only then is a tool list the server marked private shared through a store.
   */
  readonly authorizedByDefinition?: boolean | undefined
}> {
  /**
   * @since 1.0.0
   */
  readonly id: string = `${this.definition}:${this.namespace ? "ns" : "flat"}`
  /**
   * Made on first use, once per key: a private field, so neither equality nor hashing see it.
   *
   * @since 1.0.0
   * @internal
   */
  #counters: { readonly hit: Effect.Effect<void>; readonly miss: Effect.Effect<void> } | undefined
  /**
   * The hit and miss counters of this key's server (`hits` and `misses` tagged with the server name; the
   * definition's hash is noise in a metric).
   *
   * @since 1.0.0
   * @internal
   */
  get counters(): { readonly hit: Effect.Effect<void>; readonly miss: Effect.Effect<void> } {
    return this.#counters ??= {
      hit: Metric.update(Metric.withAttributes(hits, { "mcp.server": this.server }), 1),
      miss: Metric.update(Metric.withAttributes(misses, { "mcp.server": this.server }), 1)
    }
  }
  /**
   * Equal by `id`: Effect 4's structural equality reads a class's getters too, and `counters` makes new effects.
   * The definition's key names all the rest (the server, its prefix, its credentials).
   *
   * @since 1.0.0
   */
  [Equal.symbol](that: unknown): boolean {
    return that instanceof Key && that.id === this.id
  }
  /**
   * @since 1.0.0
   */
  [Hash.symbol](): number {
    return Hash.string(this.id)
  }
}

/**
 * The key of `server`'s tool list in a naming mode.
 *
 * @since 1.0.0
 * @category constructors
 */
export const key = (server: McpServerConfig.McpServerConfig, options: { readonly namespace: boolean }): Key =>
  new Key({
    server: server.name,
    definition: McpServerConfig.cacheKey(server),
    namespace: options.namespace,
    prefix: McpServerConfig.toolPrefix(server),
    authorizedByDefinition: McpServerConfig.authorizedByDefinition(server)
  })

/**
 * What the cache keeps for a server: its tools as the model sees them, what the connection that listed them found
 * out about the server's revisions (so that a later connection, in any process that reads the entry, needs not
 * ask), and the server's caching hint of the listing.
 *
 * @since 1.0.0
 * @category models
 */
export interface Listing {
  readonly tools: ReadonlyArray<McpTool>
  readonly verdict?: McpClient.Verdict | undefined
  readonly hint?: McpClient.CacheHint | undefined
  /** What the server said of itself (`McpClient.instructions`): tool search reads it as its tools' context. */
  readonly instructions?: string | undefined
}

/**
 * A listing of `tools` alone (no verdict, no hint).
 *
 * @since 1.0.0
 * @category constructors
 */
export const listing = (tools: ReadonlyArray<McpTool>): Listing => ({ tools })

/**
 * How long a listing stays fresh under a cache's `ttl` (milliseconds): the `ttl`, or the server's `ttlMs` when
 * it gave a shorter one. The server's hint says how long the list may be taken as fresh; the `ttl` is the
 * longest the application accepts (a server of the 2025 revisions gives no hint: the `ttl` alone).
 *
 * @since 1.0.0
 * @category utils
 */
export const lifetime = (ttl: number, listing: Listing, hints: CacheHints = "follow"): number =>
  ToolListing.lifetime(ttl, listing.hint, hints)

/**
 * What a server's caching hint does to a cache's `ttl`: `follow` (the default) lets its `ttlMs` shorten the
 * `ttl`, as the specification asks (a server that says 0 is listed again by every request); `ignore` keeps the
 * `ttl` alone. Either way a list the server marked private is never shared through a store for an authorization
 * context its key does not name.
 *
 * @since 1.0.0
 * @category models
 */
export type CacheHints = "follow" | "ignore"

/**
 * How long the in-memory cache reuses a tool list when its options do not say: 5 minutes.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultTtl: Duration.Duration = Duration.minutes(5)

/**
 * The options of an in-memory cache.
 *
 * @since 1.0.0
 * @category models
 */
export interface MemoryOptions {
  /**
   * How long a tool list is reused (the longest; see `cacheHints`; default `defaultTtl`, 5 minutes). Zero disables
   * caching.
   */
  readonly ttl?: Duration.Input | undefined
  /** What a server's caching hint does to `ttl` (default `follow`). */
  readonly cacheHints?: CacheHints | undefined
}

/** Whether a listing may be shared through a store under `key`: a private one only if the key names its authorization context. */
const shareable = (key: Key, listing: Listing): boolean => ToolListing.shareable(key, listing.hint)

/**
 * The cache. `lookup` returns the listing for `key` while it is fresh (`lifetime`); otherwise it runs `discover`
 * and stores a successful result. Concurrent lookups of one missing key share a single `discover` (single flight), so
 * concurrent cold requests start one discovery per server, not one each.
 *
 * The key is `McpServerConfig.cacheKey` of the whole definition, so a changed server is a different entry. The
 * in-memory layer is the default; a shared store for several app instances plugs in here.
 *
 * @since 1.0.0
 * @category tags
 */
export class McpToolCache extends Context.Service<McpToolCache, {
  readonly lookup: <E, R>(
    key: Key,
    discover: Effect.Effect<Listing, E, R>
  ) => Effect.Effect<Listing, E, R>
  /** Whether `key` has a fresh entry, without discovering. */
  readonly has: (key: Key) => Effect.Effect<boolean>
  readonly invalidate: (key: Key) => Effect.Effect<void>
}>()("@zett/mcp/McpToolCache") {}

const hitsName = "mcp_tool_cache_hits"
const hitsDescription = "tool-list lookups answered from the cache"
const missesName = "mcp_tool_cache_misses"
const missesDescription = "tool-list lookups that discovered"

/**
 * Lookups answered from the cache, tagged with the server name.
 *
 * @since 1.0.0
 * @category metrics
 */
export const hits = Metric.counter(hitsName, { description: hitsDescription, incremental: true })

/**
 * Lookups that had to discover (or wait for a discovery in flight), tagged with the server name.
 *
 * @since 1.0.0
 * @category metrics
 */
export const misses = Metric.counter(missesName, { description: missesDescription, incremental: true })

interface Entry {
  readonly listing: Listing
  readonly expiresAt: number
}

/**
 * An in-memory cache whose time is read from `Clock` (so `TestClock` drives it). A `ttl` of zero disables
 * caching and sharing: every lookup discovers.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeMemory = (options: MemoryOptions = {}): Effect.Effect<McpToolCache["Service"]> =>
  Effect.sync(() => makeMemoryUnsafe(Duration.toMillis(options.ttl ?? defaultTtl), options.cacheHints ?? "follow"))

const makeMemoryUnsafe = (ttl: number, hints: CacheHints, shared?: Shared): McpToolCache["Service"] => {
  const entries = new Map<string, Entry>()
  const inflight = new Map<string, Deferred.Deferred<Listing, unknown>>()

  const fresh = (id: string, now: number) => {
    const entry = entries.get(id)
    if (entry === undefined) return undefined
    if (now < entry.expiresAt) return entry
    entries.delete(id)
    return undefined
  }

  // the leader's work: discover, or (shared) read the store and discover once across the fleet
  const load = <E, R>(key: Key, discover: Effect.Effect<Listing, E, R>): Effect.Effect<Entry, E, R> =>
    shared === undefined
      ? Effect.flatMap(
        discover,
        (listing) =>
          Effect.map(Clock.currentTimeMillis, (now) => ({ listing, expiresAt: now + lifetime(ttl, listing, hints) }))
      )
      : shared.load(key, discover)

  const lookup = <E, R>(key: Key, discover: Effect.Effect<Listing, E, R>) => {
    if (ttl <= 0) return discover
    const id = key.id
    const run: Effect.Effect<Listing, E, R> = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const entry = fresh(id, now)
      if (entry !== undefined) {
        return Effect.as(key.counters.hit, entry.listing)
      }
      const count = key.counters.miss
      const pending = inflight.get(id)
      // A follower waits for the leader; if the leader was interrupted it tries again itself.
      if (pending !== undefined) {
        return Effect.flatMap(
          Effect.andThen(count, Effect.exit(Deferred.await(pending))),
          (exit) =>
            Exit.isSuccess(exit)
              ? Effect.succeed(exit.value)
              : Cause.hasInterruptsOnly(exit.cause)
              ? run
              : (Effect.failCause(exit.cause) as Effect.Effect<never, E>)
        )
      }
      return Effect.uninterruptibleMask((restore) => {
        // made and registered synchronously, so no other lookup can slip in between the check and the set
        const deferred = Deferred.makeUnsafe<Listing, unknown>()
        inflight.set(id, deferred)
        return restore(Effect.andThen(count, load(key, discover))).pipe(
          Effect.map((entry) => {
            entries.set(id, entry)
            return entry.listing
          }),
          Effect.onExit((exit) => {
            inflight.delete(id)
            return Deferred.done(deferred, exit)
          })
        )
      })
    })
    return run
  }

  const has = (key: Key) => Effect.map(Clock.currentTimeMillis, (now) => fresh(key.id, now) !== undefined)
  const invalidate = (key: Key) => Effect.sync(() => void entries.delete(key.id))

  return McpToolCache.of({
    lookup,
    has: shared === undefined || ttl <= 0 ?
      has :
      (key) =>
        Effect.flatMap(has(key), (found) =>
          found ? Effect.succeed(true) : Effect.map(shared.read(key), (entry) => {
            if (entry === undefined) return false
            entries.set(key.id, entry)
            return true
          })),
    invalidate: shared === undefined ? invalidate : (key) => Effect.andThen(invalidate(key), shared.remove(key))
  })
}

/**
 * @since 1.0.0
 * @category layers
 */
export const layerMemory = (options: MemoryOptions = {}): Layer.Layer<McpToolCache> =>
  Layer.effect(McpToolCache)(makeMemory(options))

// -----------------------------------------------------------------------------
// shared across processes
// -----------------------------------------------------------------------------

/**
 * The options of a cache shared through a store.
 *
 * @since 1.0.0
 * @category models
 */
export interface PersistedOptions {
  /** How long a tool list is reused, by every process (the store's expiry and each reader's `Clock`). */
  readonly ttl: Duration.Input
  /** What a server's caching hint does to `ttl` (default `follow`). */
  readonly cacheHints?: CacheHints | undefined
  /** The store's name (default `"mcp-tools"`): entries live under `<prefix><storeId>:<key>`. */
  readonly storeId?: string | undefined
  /**
   * The longest wait for one store operation before the process goes on by itself (default 500 milliseconds;
   * with `RedisToolCache`, the `operationTimeout` of `McpRedis`).
   */
  readonly operationTimeout?: Duration.Input | undefined
}

// What a store holds: the tool data of `McpTool`, when it expires, the key it was stored under (`Key.id`:
// hashes, no definition, no secret), which binds the list to its server, and the verdict and hint of the listing.
const StoredTool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  parameters: Schema.Record(Schema.String, Schema.Unknown),
  guidelines: Schema.Literal(false),
  server: Schema.String,
  remoteName: Schema.String,
  // left out by entries stored before it: such a tool runs as no task
  taskSupport: Schema.optional(Schema.Literals(["required", "optional"]))
})
const StoredEntry = Schema.Struct({
  key: Schema.String,
  expiresAt: Schema.Number,
  tools: Schema.Array(StoredTool),
  verdict: Schema.optional(McpClient.Verdict),
  hint: Schema.optional(McpClient.CacheHint),
  instructions: Schema.optional(Schema.String)
})
// checked, not decoded: the entry is used as it is, without a copy (which would also lose a `__proto__` key)
const isStoredEntry = Schema.is(StoredEntry)

/**
 * Why a stored entry cannot stand for `key`'s tool list, or the list: not of the shape this process stores, or
 * refused by `@zett/common`'s `McpToolListing.refusal` (the key, the server, the names, the schemas).
 */
const checkStored = (key: Key, stored: unknown): typeof StoredEntry.Type | string => {
  if (!isStoredEntry(stored)) return "not a tool list"
  return ToolListing.refusal(key, stored) ?? stored
}

/** The leader's work in a shared cache, and what `has`/`invalidate` add to the in-process cache. */
interface Shared {
  readonly load: <E, R>(key: Key, discover: Effect.Effect<Listing, E, R>) => Effect.Effect<Entry, E, R>
  readonly read: (key: Key) => Effect.Effect<Entry | undefined>
  readonly remove: (key: Key) => Effect.Effect<void>
}

/**
 * A lock per key held in the fleet while one process discovers (`RedisToolCache` of `@zett/mcp-redis` holds it
 * in Redis).
 *
 * @since 1.0.0
 * @category models
 */
export interface DiscoveryLock {
  /** Takes the lock if it is free. */
  readonly acquire: (id: string) => Effect.Effect<Option.Option<HeldLock>, unknown>
}

/**
 * A `DiscoveryLock` this process holds.
 *
 * @since 1.0.0
 * @category models
 */
export interface HeldLock {
  /** Renews the lock until interrupted; fails when it cannot. */
  readonly keepAlive: Effect.Effect<never, unknown>
  /** Frees the lock; false when it had already expired (and may have been taken by another). */
  readonly release: Effect.Effect<boolean, unknown>
}

class SharedUnavailable
  extends Data.TaggedError("SharedUnavailable")<{ readonly operation: string; readonly cause: unknown }>
{}

const describeCause = (cause: unknown): string =>
  // another copy of effect (Effect 3's TimeoutException, too) is known by its tag
  Cause.isTimeoutError(cause) ||
    (Predicate.hasProperty(cause, "_tag") && (cause._tag === "TimeoutError" || cause._tag === "TimeoutException"))
    ? "no answer in time"
    : Predicate.hasProperty(cause, "message") && typeof cause.message === "string" && cause.message !== ""
    ? cause.message
    : String(cause)

const storedEntry = (key: Key, entry: Entry): typeof StoredEntry.Type => ({
  key: key.id,
  tools: entry.listing.tools,
  expiresAt: entry.expiresAt,
  ...(entry.listing.verdict !== undefined ? { verdict: entry.listing.verdict } : {}),
  ...(entry.listing.hint !== undefined ? { hint: entry.listing.hint } : {}),
  ...(entry.listing.instructions !== undefined ? { instructions: entry.listing.instructions } : {})
})

/** What a shared cache's functions work with: the store, the scope its writes finish in, and its settings. */
interface SharedEnv {
  readonly store: Persistence.BackingPersistenceStore
  /** The cache's scope: a write and a release outlive the request that made them. */
  readonly scope: Scope.Scope
  readonly ttl: number
  readonly hints: CacheHints
  readonly operationTimeout: Duration.Input
  readonly waitTimeout: number
  readonly lock: DiscoveryLock | undefined
}

const makeShared = (
  store: Persistence.BackingPersistenceStore,
  scope: Scope.Scope,
  options: {
    readonly ttl: number
    readonly hints: CacheHints
    readonly operationTimeout: Duration.Input
    readonly waitTimeout: number
  },
  lock: DiscoveryLock | undefined
): Shared => {
  const env: SharedEnv = { store, scope, ...options, lock }
  return {
    load: (key, discover) => load(env, key, discover),
    read: (key) =>
      Effect.catch(get(env, key), (error) => Effect.as(warn(key, error, "answering from this process"), undefined)),
    remove: (key) =>
      Effect.catch(
        bounded(env, "remove", store.remove(key.id)),
        (error) => warn(key, error, "only this process forgot it")
      )
  }
}

const bounded = <A>(env: SharedEnv, operation: string, effect: Effect.Effect<A, unknown>) =>
  Io.timeoutAfterIo(effect, env.operationTimeout, () => new Cause.TimeoutError()).pipe(
    Effect.mapError((cause) => new SharedUnavailable({ operation, cause }))
  )

const warn = (key: Key, error: SharedUnavailable, then: string) =>
  Effect.logWarning(
    `shared tool cache: ${error.operation} for ${key.server} failed (${describeCause(error.cause)}); ${then}`
  ).pipe(Effect.annotateLogs("mcp.server", key.server))

/**
 * The stored entry, if it is valid for `key` and the reader's clock says it is still fresh; an invalid one is a
 * miss, with a warning when `tell` (once per lookup: not again under the lock or while polling).
 */
const get = (env: SharedEnv, key: Key, tell = false): Effect.Effect<Entry | undefined, SharedUnavailable> =>
  bounded(env, "read", env.store.get(key.id)).pipe(
    Effect.map((stored) => stored === undefined ? undefined : checkStored(key, stored)),
    // a store that keeps JSON (Redis, a KeyValueStore) fails to parse what another writer put there: the entry is
    // invalid, the store is working
    Effect.catchIf(
      (error) => Predicate.hasProperty(error.cause, "cause") && error.cause.cause instanceof SyntaxError,
      () => Effect.succeed("the stored value is not JSON")
    ),
    Effect.flatMap((entry) => {
      if (entry === undefined) return Effect.succeed(undefined)
      if (typeof entry === "string") {
        return tell
          ? Effect.as(
            Effect.logWarning(
              `shared tool cache: the stored tool list of ${key.server} is refused (${entry}); discovering it again`
            )
              .pipe(Effect.annotateLogs("mcp.server", key.server)),
            undefined
          )
          : Effect.succeed(undefined)
      }
      return Effect.map(Clock.currentTimeMillis, (now) => {
        if (now >= entry.expiresAt) return undefined
        const listing: Listing = {
          tools: entry.tools,
          ...(entry.verdict !== undefined ? { verdict: entry.verdict } : {}),
          ...(entry.hint !== undefined ? { hint: entry.hint } : {}),
          ...(entry.instructions !== undefined ? { instructions: entry.instructions } : {})
        }
        // never fresh for longer than this process would keep it from now, whatever expiry another writer set
        return { listing, expiresAt: Math.min(entry.expiresAt, now + lifetime(env.ttl, listing, env.hints)) }
      })
    })
  )

// Written and released after the lookup returned, so a slow store delays the others, never this request.
// Uninterruptible from its start (Effect 4 forks interruptible by default, and a fiber interrupted before its first
// step never runs): a closing scope waits for it (at most two operation timeouts) rather than leaving a lock.
const publish = (env: SharedEnv, key: Key, entry: Entry | undefined, held: HeldLock | undefined) =>
  Effect.forkIn(
    Effect.uninterruptible(Effect.andThen(
      entry === undefined || !shareable(key, entry.listing) ? Effect.void : write(env, key, entry),
      held === undefined ? Effect.void : release(env, key, held)
    )),
    env.scope,
    { uninterruptible: true }
  )

const write = (env: SharedEnv, key: Key, entry: Entry) =>
  bounded(
    env,
    "write",
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      // a listing the server said is stale at once is not worth a write
      entry.expiresAt <= now
        ? Effect.void
        : env.store.set(key.id, storedEntry(key, entry), Duration.millis(entry.expiresAt - now)))
  ).pipe(
    Effect.catch((error) => warn(key, error, "the other processes discover it by themselves"))
  )

const release = (env: SharedEnv, key: Key, held: HeldLock) =>
  bounded(env, "release", held.release).pipe(
    Effect.flatMap((released) =>
      released
        ? Effect.void
        // the lock outlived its ttl without a renewal (a starved event loop): another may have discovered too
        : Effect.logWarning(
          `shared tool cache: the discovery lock of ${key.server} had expired before its release; another process may have discovered it too`
        ).pipe(Effect.annotateLogs("mcp.server", key.server))
    ),
    Effect.catch((error) =>
      Effect.logDebug(
        `shared tool cache: ${error.operation} for ${key.server} failed (${
          describeCause(error.cause)
        }); the lock frees itself when it expires`
      ).pipe(Effect.annotateLogs("mcp.server", key.server))
    )
  )

const discoverHere = <E, R>(env: SharedEnv, key: Key, discover: Effect.Effect<Listing, E, R>, held?: HeldLock) =>
  (held === undefined
    ? discover
    // a renewal that fails lets the lock expire; the discovery goes on regardless
    : Effect.raceFirst(
      discover,
      Effect.catch(held.keepAlive, (cause) =>
        Effect.andThen(
          Effect.logWarning(
            `shared tool cache: the discovery lock of ${key.server} could not be renewed (${
              describeCause(cause)
            }); another process may discover it too`
          ).pipe(Effect.annotateLogs("mcp.server", key.server)),
          Effect.never
        ))
    )).pipe(
      Effect.flatMap((listing) =>
        Effect.map(
          Clock.currentTimeMillis,
          (now): Entry => ({ listing, expiresAt: now + lifetime(env.ttl, listing, env.hints) })
        )
      ),
      Effect.onExit((exit) => publish(env, key, Exit.isSuccess(exit) ? exit.value : undefined, held))
    )

const load = <E, R>(env: SharedEnv, key: Key, discover: Effect.Effect<Listing, E, R>): Effect.Effect<Entry, E, R> => {
  const byItself = (error: SharedUnavailable) =>
    Effect.andThen(warn(key, error, "discovering it in this process"), discoverHere(env, key, discover))
  const lock = env.lock
  if (lock === undefined) {
    return Effect.flatMap(
      Effect.result(get(env, key, true)),
      (found) =>
        found._tag === "Failure"
          ? byItself(found.failure)
          : found.success !== undefined
          ? Effect.succeed(found.success)
          : discoverHere(env, key, discover)
    )
  }
  return Effect.flatMap(get(env, key, true), (found) =>
    found !== undefined
      ? Effect.as(Effect.logDebug(`shared tool cache: ${key.server} found in the store`), found)
      : Effect.flatMap(Clock.currentTimeMillis, (now) => underLock(env, lock, key, discover, now + env.waitTimeout, 0)))
    .pipe(
      Effect.catchIf(
        (error): error is SharedUnavailable => error instanceof SharedUnavailable,
        byItself
      )
    )
}

/**
 * One try for the fleet's lock of `key`: held, this process discovers unless the list was stored meanwhile; taken by
 * another, it waits for the list to be stored, polling, until `deadline`, and then discovers by itself.
 */
const underLock = <E, R>(
  env: SharedEnv,
  lock: DiscoveryLock,
  key: Key,
  discover: Effect.Effect<Listing, E, R>,
  deadline: number,
  round: number
): Effect.Effect<Entry, E | SharedUnavailable, R> =>
  Effect.flatMap(bounded(env, "lock", lock.acquire(key.id)), (held) => {
    if (Option.isSome(held)) {
      // the holder before this one may have stored the list between the last read and the lock
      return Effect.flatMap(
        Effect.result(get(env, key)),
        (found) =>
          found._tag === "Failure"
            ? Effect.andThen(
              warn(key, found.failure, "discovering it for the fleet under the lock"),
              discoverHere(env, key, discover, held.value)
            )
            : found.success !== undefined
            ? Effect.as(publish(env, key, undefined, held.value), found.success)
            : Effect.andThen(
              Effect.logDebug(`shared tool cache: discovering ${key.server} for the fleet`),
              discoverHere(env, key, discover, held.value)
            )
      )
    }
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      if (now >= deadline) {
        return Effect.andThen(
          Effect.logWarning(
            `shared tool cache: another process is still discovering ${key.server} after ${
              Duration.format(Duration.millis(env.waitTimeout))
            }; discovering it in this process`
          ).pipe(Effect.annotateLogs("mcp.server", key.server)),
          discoverHere(env, key, discover)
        )
      }
      // from 10 ms, growing by half, at most 250 ms, jittered so that waiters do not poll in step
      const delay = Math.min(250, 10 * 1.5 ** round)
      return Effect.flatMap(Random.nextBetween(delay / 2, delay), (ms) =>
        Effect.andThen(
          Effect.sleep(Duration.millis(Math.min(ms, deadline - now))),
          Effect.flatMap(get(env, key), (found) =>
            found !== undefined ? Effect.succeed(found) : underLock(env, lock, key, discover, deadline, round + 1))
        ))
    })
  })

const makeSharedCache = (
  options: PersistedOptions & { readonly waitTimeout?: Duration.Input | undefined },
  lock: DiscoveryLock | undefined
): Effect.Effect<McpToolCache["Service"], never, Persistence.BackingPersistence | Scope.Scope> =>
  Effect.gen(function*() {
    const backing = yield* Persistence.BackingPersistence
    const store = yield* backing.make(options.storeId ?? "mcp-tools")
    const scope = yield* Effect.scope
    const ttl = Duration.toMillis(options.ttl)
    const hints = options.cacheHints ?? "follow"
    return makeMemoryUnsafe(
      ttl,
      hints,
      makeShared(store, scope, {
        ttl,
        hints,
        operationTimeout: options.operationTimeout ?? Duration.millis(500),
        waitTimeout: Duration.toMillis(options.waitTimeout ?? Duration.seconds(30))
      }, lock)
    )
  })

/**
 * An in-process cache in front of an `effect/persistence` `BackingPersistence` (Redis, SQL, a `KeyValueStore`,
 * memory): a process that misses asks the store before it discovers, and stores what it
 * discovered, so that every process of a fleet reuses one discovery while it is fresh. Entries are the tool
 * data only (names, descriptions, input schemas), keyed by the hash of the server definition, never a
 * header or environment value; they expire in the store (`ttl`) and by the reader's `Clock`.
 *
 * A store may be written by others: an entry is used only if it is what this process would have stored for the
 * key (it names the key, its tools are the server's, each exposed name is made from its remote name) and
 * passes what a server's answer passes (`McpTool.checkSchema`, an object schema). Any other entry, or one that
 * is not JSON, is a miss: a warning names the server and the reason, and the server is asked again.
 *
 * Concurrent misses in one process share one discovery; across processes they may each discover (use
 * `RedisToolCache` of `@zett/mcp-redis` for one discovery across the fleet). A store that fails or does not answer within
 * `operationTimeout` is logged as a warning and the process discovers by itself: a lookup never fails
 * because of the store.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makePersisted = (
  options: PersistedOptions
): Effect.Effect<McpToolCache["Service"], never, Persistence.BackingPersistence | Scope.Scope> =>
  makeSharedCache(options, undefined)

/**
 * @since 1.0.0
 * @category layers
 */
export const layerPersisted = (
  options: PersistedOptions
): Layer.Layer<McpToolCache, never, Persistence.BackingPersistence> =>
  Layer.effect(McpToolCache)(makePersisted(options))

/**
 * `makePersisted` with one discovery per server across the fleet under `lock`: what `RedisToolCache` runs with
 * its lock in Redis, and the tests with a lock of their own (to drive the lock path on `TestClock`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeLocked = (
  options: PersistedOptions & { readonly waitTimeout?: Duration.Input | undefined },
  lock: DiscoveryLock
): Effect.Effect<McpToolCache["Service"], never, Persistence.BackingPersistence | Scope.Scope> =>
  makeSharedCache(options, lock)

/**
 * `effect` failed with `onTimeout()` when it has not finished `duration` after it started, counted once the
 * event loop has read the replies that arrived by then: the timeout of one operation of a store, for store
 * drivers (`@zett/mcp-redis`).
 *
 * @since 1.0.0
 * @category utils
 */
export const timeoutAfterIo: <A, E, E2>(
  effect: Effect.Effect<A, E>,
  duration: Duration.Input,
  onTimeout: () => E2
) => Effect.Effect<A, E | E2> = Io.timeoutAfterIo
