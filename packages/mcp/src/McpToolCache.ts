/**
 * Tool lists per server configuration, reused for a time-to-live (D3).
 *
 * @since 0.1.0
 */
import * as Persistence from "@effect/experimental/Persistence"
import * as Cache from "effect/Cache"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Equal from "effect/Equal"
import * as Exit from "effect/Exit"
import * as Hash from "effect/Hash"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Naming from "./internal/naming.js"
import * as Io from "./internal/io.js"
import * as JsonSchema from "./internal/schema.js"
import * as Metrics from "./internal/metrics.js"
import * as McpServer from "./McpServer.js"
import type { McpTool } from "./McpTool.js"

interface Counters {
  readonly hit: Effect.Effect<void>
  readonly miss: Effect.Effect<void>
}

// What this module alone reads of a key (set by Key's static block, the one place outside its instances that
// sees their private fields): its counters, and the hash of its id.
let countersOf: (key: Key) => Counters
let hashOf: (key: Key) => number

/**
 * What a tool list is cached under: the whole server definition (`McpServer.cacheKey`, so a changed server is
 * another entry, and secrets enter only as hashes) and the naming mode. `server` is the name, for metric tags
 * and logs; `id` is the key as one string, for a store. `prefix` is the `<prefix>__` of the server's exposed
 * tool names (`McpServer.toolPrefix`; by default the server name, sanitized): a list read back from a store
 * must name its tools with it.
 *
 * @since 0.1.0
 * @category models
 */
export class Key extends Data.Class<{
  readonly server: string
  readonly definition: string
  readonly namespace: boolean
  readonly prefix?: string | undefined
}> {
  /**
   * @since 0.1.0
   */
  readonly id: string = `${this.definition}:${this.namespace ? "ns" : "flat"}`
  // Made on first use, once per key, in private fields, so that neither equality nor hashing see them: the hit
  // and miss counters of this key's server (`hits` and `misses` tagged with the server name; the definition's
  // hash is noise in a metric), and the hash of `id`, which the in-process cache takes three times a lookup.
  #counters: Counters | undefined
  #hash: number | undefined
  static {
    countersOf = (key) =>
      key.#counters ??= {
        hit: Metrics.taggedIncrement(hitsName, hitsDescription, [["mcp.server", key.server]]),
        miss: Metrics.taggedIncrement(missesName, missesDescription, [["mcp.server", key.server]])
      }
    hashOf = (key) => key.#hash ??= Hash.string(key.id)
  }
}

/**
 * The key of `server`'s tool list in a naming mode.
 *
 * @since 0.1.0
 * @category constructors
 */
export const key = (server: McpServer.McpServer, options: { readonly namespace: boolean }): Key =>
  new Key({
    server: server.name,
    definition: McpServer.cacheKey(server),
    namespace: options.namespace,
    prefix: McpServer.toolPrefix(server)
  })

/**
 * The cache. `lookup` returns the entry for `key` while it is fresh; otherwise it runs `discover` and stores
 * a successful result. Concurrent lookups of one missing key share a single `discover` (single flight), so
 * concurrent cold requests start one discovery per server, not one each.
 *
 * The key is `McpServer.cacheKey` of the whole definition, so a changed server is a different entry. The
 * in-memory layer is the default; a shared store for several app instances plugs in here.
 *
 * @since 0.1.0
 * @category tags
 */
export class McpToolCache extends Context.Tag("@zett/mcp/McpToolCache")<McpToolCache, {
  readonly lookup: <E, R>(
    key: Key,
    discover: Effect.Effect<ReadonlyArray<McpTool>, E, R>
  ) => Effect.Effect<ReadonlyArray<McpTool>, E, R>
  /** Whether `key` has a fresh entry, without discovering. */
  readonly has: (key: Key) => Effect.Effect<boolean>
  readonly invalidate: (key: Key) => Effect.Effect<void>
}>() {}

const hitsName = "mcp_tool_cache_hits"
const hitsDescription = "tool-list lookups answered from the cache"
const missesName = "mcp_tool_cache_misses"
const missesDescription = "tool-list lookups that discovered"

/**
 * Lookups answered from the cache, tagged with the server name.
 *
 * @since 0.1.0
 * @category metrics
 */
export const hits = Metric.counter(hitsName, { description: hitsDescription })

/**
 * Lookups that had to discover (or wait for a discovery in flight), tagged with the server name.
 *
 * @since 0.1.0
 * @category metrics
 */
export const misses = Metric.counter(missesName, { description: missesDescription })

// -----------------------------------------------------------------------------
// in process
// -----------------------------------------------------------------------------

/** A tool list and when it stops being fresh (by `Clock`). */
interface Entry {
  readonly tools: ReadonlyArray<McpTool>
  readonly expiresAt: number
}

/** How a cache gets the entry of a key it misses: discovers it, or (shared) reads the store first. */
type Load = (key: Key, discover: Effect.Effect<ReadonlyArray<McpTool>, unknown>) => Effect.Effect<Entry, unknown>

/**
 * A lookup as the key of the `Cache`: equal to every other lookup of the same key id, so the lookups of a server
 * share an entry, and carrying its discovery and context for the cache's lookup function, which takes them
 * when this lookup is the one that loads (the cache runs that function in its own context, and keeps the
 * request of the load as the key of the entry: neither the discovery nor a request's context stays with it).
 */
class Request implements Equal.Equal {
  constructor(
    readonly key: Key,
    public discover?: Effect.Effect<ReadonlyArray<McpTool>, unknown> | undefined,
    public context?: Context.Context<never> | undefined
  ) {}
  [Hash.symbol](): number {
    return hashOf(this.key)
  }
  [Equal.symbol](that: Equal.Equal): boolean {
    return that instanceof Request && that.key.id === this.key.id
  }
}

/** A finished load, as the `Cache` holds it. */
interface Loaded {
  /** The tool list; a failure is for the lookups that waited for it only. */
  readonly exit: Exit.Exit<ReadonlyArray<McpTool>, unknown>
  readonly expiresAt: number
  /**
   * From when it is handed to the cache: `Cache` keeps an entry until the clock is past its time, this module
   * until the clock reaches `expiresAt`, a millisecond less (clock times are whole milliseconds).
   */
  readonly lifetime: Duration.Duration
  /** Its place among the cache's loads: a lookup that began before it waited for it. */
  readonly sequence: number
}

const yes = Effect.succeed(true)
const no = Effect.succeed(false)

// Far more servers than a configuration has: what it bounds is the keys of definitions since changed.
const capacity = 1024

/**
 * The in-process cache over `load`: an `effect/Cache` (single flight per key, expiry by the `Clock` of the
 * lookups, so that `TestClock` drives it, least recently used keys dropped past `capacity`). A lookup's
 * discovery differs per call, so it travels in the key (`Request`).
 */
const makeInProcess = Effect.fnUntraced(function*(load: Load) {
  let loads = 0
  // nodes the cache may keep in its recency list, and changes of entries that a renewal must not miss
  let nodes = 0
  let changes = 0

  const loaded = (exit: Exit.Exit<ReadonlyArray<McpTool>, unknown>, expiresAt: number, now: number): Loaded => ({
    exit,
    expiresAt,
    lifetime: Duration.millis(expiresAt - 1 - now),
    sequence: ++loads
  })

  // Run by the lookup that finds no entry and no load in flight, in its own fiber.
  const lookupFunction = (request: Request): Effect.Effect<Loaded> => {
    const discover = request.discover!
    const context = request.context!
    request.discover = undefined
    request.context = undefined
    changes++
    nodes += 2
    return Effect.zipRight(countersOf(request.key).miss, load(request.key, discover)).pipe(
      Effect.provide(context),
      Effect.exit,
      Effect.flatMap((exit) =>
        Effect.map(Clock.currentTimeMillis, (now) =>
          Exit.isSuccess(exit)
            ? loaded(Exit.succeed(exit.value.tools), exit.value.expiresAt, now)
            : loaded(Exit.failCause(exit.cause), now, now))
      )
    )
  }

  // in no context: a renewal made in a request would keep the request's context
  const makeCache = Effect.provide(
    Cache.makeWith({
      capacity,
      lookup: lookupFunction,
      timeToLive: (exit) => Exit.isSuccess(exit) ? exit.value.lifetime : Duration.zero
    }),
    Context.empty()
  )
  let cache = yield* makeCache

  /** Drops `found` if it is still the entry: a failure is no entry (the cache would keep it within its millisecond). */
  const forget = (request: Request, found: Loaded) => cache.invalidateWhen(request, (entry) => entry === found)

  // Effect 3's Cache puts a node in its recency list for each load and each lookup of a missing key, and drops
  // nodes only when it runs over its capacity, which a cache of a few servers never does. A new cache with the
  // fresh entries, made now and then, bounds them. It waits while a load is in flight (its waiters wait in this
  // one) and gives way to an entry changed meanwhile.
  const renew = Effect.suspend(() => {
    const old = cache
    const before = changes
    return Effect.flatMap(Effect.zip(old.size, old.entries), ([size, entries]) =>
      entries.length !== size ? Effect.void : Effect.flatMap(Effect.zip(Clock.currentTimeMillis, makeCache), ([now, renewed]) => {
        const fresh = entries.filter(([, found]) => Exit.isSuccess(found.exit) && now < found.expiresAt)
        return Effect.zipRight(
          Effect.forEach(
            fresh,
            ([request, found]) => renewed.set(request, { ...found, lifetime: Duration.millis(found.expiresAt - 1 - now) }),
            { discard: true }
          ),
          Effect.sync(() => {
            if (cache !== old || changes !== before) return
            cache = renewed
            nodes = fresh.length
          })
        )
      }))
  })

  const lookup = <E, R>(
    key: Key,
    discover: Effect.Effect<ReadonlyArray<McpTool>, E, R>
  ): Effect.Effect<ReadonlyArray<McpTool>, E, R> =>
    Effect.contextWithEffect((context: Context.Context<R>) => {
      const began = loads
      // what the discovery needs is the context it travels with
      const request = new Request(key, discover as Effect.Effect<ReadonlyArray<McpTool>, E>, context as Context.Context<never>)
      return Effect.matchCauseEffect(cache.getEither(request), {
        // the lookup that loaded was interrupted: this one tries again, and loads itself
        onFailure: (cause) => Cause.isInterruptedOnly(cause) ? lookup(key, discover) : Effect.failCause(cause),
        onSuccess: (got): Effect.Effect<ReadonlyArray<McpTool>, E, R> => {
          if (Either.isRight(got)) {
            // loaded by this lookup (the lookup function counted the miss)
            const exit = got.right.exit as Exit.Exit<ReadonlyArray<McpTool>, E>
            const settled = Exit.isSuccess(exit) ? exit : Effect.zipRight(forget(request, got.right), exit)
            return nodes >= capacity ? Effect.zipRight(renew, settled) : settled
          }
          const found = got.left
          const exit = found.exit as Exit.Exit<ReadonlyArray<McpTool>, E>
          if (found.sequence <= began) {
            // in the cache when this lookup began: a hit, or a failure whose waiters have it already
            return Exit.isSuccess(exit)
              ? Effect.as(countersOf(key).hit, exit.value)
              : Effect.zipRight(forget(request, found), lookup(key, discover))
          }
          // loaded by another lookup while this one waited
          return Effect.zipRight(
            countersOf(key).miss,
            Exit.isSuccess(exit)
              ? exit
              : Effect.zipRight(forget(request, found), Cause.isInterrupted(exit.cause) ? lookup(key, discover) : exit)
          )
        }
      })
    })

  const has = (key: Key): Effect.Effect<boolean> =>
    Effect.suspend(() =>
      Effect.flatMap(cache.getOptionComplete(new Request(key)), (found) => {
        if (Option.isSome(found)) return Exit.isSuccess(found.value.exit) ? yes : no
        nodes++
        return no
      })
    )

  // An entry only: a load in flight goes on, its lookups share it and its list is kept.
  const invalidate = (key: Key): Effect.Effect<void> =>
    Effect.suspend(() => {
      changes++
      return cache.invalidateWhen(new Request(key), () => true)
    })

  /** Takes `entry` (read from a store) as `key`'s. */
  const put = (key: Key, entry: Entry): Effect.Effect<void> =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.suspend(() => {
        changes++
        nodes++
        return cache.set(new Request(key), loaded(Exit.succeed(entry.tools), entry.expiresAt, now))
      }))

  return { lookup, has, invalidate, put }
})

/** A cache with a TTL of zero: every lookup discovers, nothing is shared. */
const uncached = (invalidate: (key: Key) => Effect.Effect<void>): McpToolCache["Type"] =>
  McpToolCache.of({ lookup: (_, discover) => discover, has: () => no, invalidate })

/**
 * An in-memory cache (an `effect/Cache`) whose time is read from the `Clock` of its lookups (so `TestClock`
 * drives it). A `ttl` of zero disables caching and sharing: every lookup discovers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: { readonly ttl: Duration.DurationInput }): Effect.Effect<McpToolCache["Type"]> =>
  Effect.suspend(() => {
    const ttl = Duration.toMillis(options.ttl)
    if (ttl <= 0) return Effect.succeed(uncached(() => Effect.void))
    return Effect.map(
      makeInProcess((_, discover) =>
        Effect.flatMap(discover, (tools) => Effect.map(Clock.currentTimeMillis, (now) => ({ tools, expiresAt: now + ttl })))
      ),
      ({ has, invalidate, lookup }) => McpToolCache.of({ lookup, has, invalidate })
    )
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options: { readonly ttl: Duration.DurationInput }): Layer.Layer<McpToolCache> =>
  Layer.effect(McpToolCache, makeMemory(options))

// -----------------------------------------------------------------------------
// shared across processes
// -----------------------------------------------------------------------------

/**
 * The options of a cache shared through a store.
 *
 * @since 0.1.0
 * @category models
 */
export interface PersistedOptions {
  /** How long a tool list is reused, by every process (the store's expiry and each reader's `Clock`). */
  readonly ttl: Duration.DurationInput
  /** The store's name (default `"mcp-tools"`): entries live under `<prefix><storeId>:<key>`. */
  readonly storeId?: string | undefined
  /**
   * The longest wait for one store operation before the process goes on by itself (default 500 milliseconds;
   * with `RedisToolCache`, the `operationTimeout` of `McpRedis`).
   */
  readonly operationTimeout?: Duration.DurationInput | undefined
}

// What a store holds: the tool data of `McpTool`, when it expires, and the key it was stored under (`Key.id`:
// hashes, no definition, no secret), which binds the list to its server.
const StoredTool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  parameters: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  guidelines: Schema.Literal(false),
  server: Schema.String,
  remoteName: Schema.String
})
const StoredEntry = Schema.Struct({ key: Schema.String, expiresAt: Schema.Number, tools: Schema.Array(StoredTool) })
// checked, not decoded: the entry is used as it is, without a copy (which would also lose a `__proto__` key)
const isStoredEntry = Schema.is(StoredEntry)

const quoted = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)

/**
 * Why a stored entry cannot stand for `key`'s tool list, or the list. Another writer may have put anything
 * there: it passes what a server's own answer passes (each input schema within `McpTool.schemaLimits`,
 * measured before anything walks it; an object schema) and must be what this process would have stored for
 * `key` (the key itself, the server, each tool's exposed name made from its remote name).
 */
const checkStored = (key: Key, stored: unknown): { readonly tools: ReadonlyArray<McpTool>; readonly expiresAt: number } | string => {
  if (!isStoredEntry(stored)) return "not a tool list"
  const entry = stored
  if (entry.key !== key.id) return "stored for another server definition or naming mode"
  const prefix = key.prefix ?? Naming.sanitize(key.server)
  for (const tool of entry.tools) {
    if (tool.server !== key.server) return `its tool ${quoted(tool.name)} is of the server ${quoted(tool.server)}`
    if (tool.name !== Naming.sanitize(key.namespace ? `${prefix}__${tool.remoteName}` : tool.remoteName)) {
      return `its tool ${quoted(tool.name)} is not named after its remote name ${quoted(tool.remoteName)}`
    }
    const refusal = JsonSchema.refusal(tool.parameters)
    if (refusal !== undefined) return `its tool ${quoted(tool.name)}: ${refusal}`
    if (tool.parameters.type !== "object") return `its tool ${quoted(tool.name)}: its input schema is not of type object`
  }
  return entry
}

/**
 * A lock per key held in the fleet while one process discovers (`RedisToolCache` of `@zett/mcp-redis` holds it
 * in Redis).
 *
 * @since 0.1.0
 * @category models
 */
export interface DiscoveryLock {
  /** Takes the lock if it is free. */
  readonly acquire: (id: string) => Effect.Effect<Option.Option<HeldLock>, unknown>
}

/**
 * A `DiscoveryLock` this process holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface HeldLock {
  /** Renews the lock until interrupted; fails when it cannot. */
  readonly keepAlive: Effect.Effect<never, unknown>
  /** Frees the lock; false when it had already expired (and may have been taken by another). */
  readonly release: Effect.Effect<boolean, unknown>
}

class SharedUnavailable extends Data.TaggedError("SharedUnavailable")<{ readonly operation: string; readonly cause: unknown }> {}

const describeCause = (cause: unknown): string =>
  cause instanceof Cause.TimeoutException || (Predicate.hasProperty(cause, "_tag") && cause._tag === "TimeoutException")
    ? "no answer in time"
    : Predicate.hasProperty(cause, "message") && typeof cause.message === "string" && cause.message !== ""
    ? cause.message
    : String(cause)

const makeSharedCache = (
  options: PersistedOptions & { readonly waitTimeout?: Duration.DurationInput | undefined },
  lock: DiscoveryLock | undefined
): Effect.Effect<McpToolCache["Type"], never, Persistence.BackingPersistence | Scope.Scope> =>
  Effect.gen(function*() {
    const backing = yield* Persistence.BackingPersistence
    const store = yield* backing.make(options.storeId ?? "mcp-tools")
    const scope = yield* Effect.scope
    const operationTimeout = options.operationTimeout ?? Duration.millis(500)
    const waitTimeout = Duration.toMillis(options.waitTimeout ?? Duration.seconds(30))
    const bounded = <A>(operation: string, effect: Effect.Effect<A, unknown>) =>
      Io.timeoutAfterIo(effect, operationTimeout, () => new Cause.TimeoutException()).pipe(
        Effect.mapError((cause) => new SharedUnavailable({ operation, cause }))
      )
    const warn = (key: Key, error: SharedUnavailable, then: string) =>
      Effect.logWarning(
        `shared tool cache: ${error.operation} for ${key.server} failed (${describeCause(error.cause)}); ${then}`
      ).pipe(Effect.annotateLogs("mcp.server", key.server))
    const remove = (key: Key) =>
      Effect.catchAll(bounded("remove", store.remove(key.id)), (error) => warn(key, error, "only this process forgot it"))
    const ttl = Duration.toMillis(options.ttl)
    if (ttl <= 0) return uncached(remove)
    /**
     * The stored entry, if it is valid for `key` and the reader's clock says it is still fresh; an invalid one is a
     * miss, with a warning when `tell` (once per lookup: not again under the lock or while polling).
     */
    const get = (key: Key, tell = false): Effect.Effect<Entry | undefined, SharedUnavailable> =>
      bounded("read", store.get(key.id)).pipe(
        Effect.map((stored) => Option.isNone(stored) ? undefined : checkStored(key, stored.value)),
        // a store that keeps JSON (Redis, a KeyValueStore) fails to parse what another writer put there: the
        // entry is invalid, the store is working
        Effect.catchIf(
          (error) => Predicate.hasProperty(error.cause, "cause") && error.cause.cause instanceof SyntaxError,
          () => Effect.succeed("the stored value is not JSON")
        ),
        Effect.flatMap((entry) => {
          if (entry === undefined) return Effect.succeed(undefined)
          if (typeof entry === "string") {
            return tell
              ? Effect.as(
                Effect.logWarning(`shared tool cache: the stored tool list of ${key.server} is refused (${entry}); discovering it again`)
                  .pipe(Effect.annotateLogs("mcp.server", key.server)),
                undefined
              )
              : Effect.succeed(undefined)
          }
          return Effect.map(Clock.currentTimeMillis, (now) =>
            now < entry.expiresAt
              // never fresh for longer than the TTL from now, whatever expiry another writer set
              ? { tools: entry.tools, expiresAt: Math.min(entry.expiresAt, now + ttl) }
              : undefined)
        })
      )

    // Written and released after the lookup returned, so a slow store delays the others, never this request.
    // Uninterruptible: a closing scope waits for it (at most two operation timeouts) rather than leaving a lock.
    const publish = (key: Key, entry: Entry | undefined, held: HeldLock | undefined) =>
      Effect.forkIn(
        Effect.uninterruptible(Effect.zipRight(
          entry === undefined ? Effect.void : bounded(
            "write",
            store.set(key.id, { key: key.id, tools: entry.tools, expiresAt: entry.expiresAt }, Option.some(Duration.millis(ttl)))
          ).pipe(
            Effect.catchAll((error) => warn(key, error, "the other processes discover it by themselves"))
          ),
          held === undefined ? Effect.void : bounded("release", held.release).pipe(
            Effect.flatMap((released) =>
              released
                ? Effect.void
                // the lock outlived its ttl without a renewal (a starved event loop): another may have discovered too
                : Effect.logWarning(
                  `shared tool cache: the discovery lock of ${key.server} had expired before its release; another process may have discovered it too`
                ).pipe(Effect.annotateLogs("mcp.server", key.server))
            ),
            Effect.catchAll((error) => Effect.logDebug(
              `shared tool cache: ${error.operation} for ${key.server} failed (${describeCause(error.cause)}); the lock frees itself when it expires`
            ).pipe(Effect.annotateLogs("mcp.server", key.server)))
          )
        )),
        scope
      )

    const discoverHere = <E, R>(key: Key, discover: Effect.Effect<ReadonlyArray<McpTool>, E, R>, held?: HeldLock) =>
      (held === undefined
        ? discover
        // a renewal that fails lets the lock expire; the discovery goes on regardless
        : Effect.raceFirst(
          discover,
          Effect.catchAll(held.keepAlive, (cause) =>
            Effect.zipRight(
              Effect.logWarning(
                `shared tool cache: the discovery lock of ${key.server} could not be renewed (${
                  describeCause(cause)
                }); another process may discover it too`
              ).pipe(Effect.annotateLogs("mcp.server", key.server)),
              Effect.never
            ))
        )).pipe(
          Effect.flatMap((tools) => Effect.map(Clock.currentTimeMillis, (now): Entry => ({ tools, expiresAt: now + ttl }))),
          Effect.onExit((exit) => publish(key, Exit.isSuccess(exit) ? exit.value : undefined, held))
        )

    const load = <E, R>(key: Key, discover: Effect.Effect<ReadonlyArray<McpTool>, E, R>): Effect.Effect<Entry, E, R> => {
      const byItself = (error: SharedUnavailable) =>
        Effect.zipRight(warn(key, error, "discovering it in this process"), discoverHere(key, discover))
      if (lock === undefined) {
        return Effect.flatMap(
          Effect.either(get(key, true)),
          (found) =>
            found._tag === "Left"
              ? byItself(found.left)
              : found.right !== undefined
              ? Effect.succeed(found.right)
              : discoverHere(key, discover)
        )
      }
      const attempt = (deadline: number, round: number): Effect.Effect<Entry, E | SharedUnavailable, R> =>
        Effect.flatMap(bounded("lock", lock.acquire(key.id)), (held) => {
          if (Option.isSome(held)) {
            // the holder before this one may have stored the list between the last read and the lock
            return Effect.flatMap(
              Effect.either(get(key)),
              (found) =>
                found._tag === "Left"
                  ? Effect.zipRight(
                    warn(key, found.left, "discovering it for the fleet under the lock"),
                    discoverHere(key, discover, held.value)
                  )
                  : found.right !== undefined
                  ? Effect.as(publish(key, undefined, held.value), found.right)
                  : Effect.zipRight(
                    Effect.logDebug(`shared tool cache: discovering ${key.server} for the fleet`),
                    discoverHere(key, discover, held.value)
                  )
            )
          }
          return Effect.flatMap(Clock.currentTimeMillis, (now) => {
            if (now >= deadline) {
              return Effect.zipRight(
                Effect.logWarning(
                  `shared tool cache: another process is still discovering ${key.server} after ${
                    Duration.format(Duration.millis(waitTimeout))
                  }; discovering it in this process`
                ).pipe(Effect.annotateLogs("mcp.server", key.server)),
                discoverHere(key, discover)
              )
            }
            // from 10 ms, growing by half, at most 250 ms, jittered so that waiters do not poll in step
            const delay = Math.min(250, 10 * 1.5 ** round)
            return Effect.flatMap(Random.nextRange(delay / 2, delay), (ms) =>
              Effect.zipRight(
                Effect.sleep(Duration.millis(Math.min(ms, deadline - now))),
                Effect.flatMap(get(key), (found) => found !== undefined ? Effect.succeed(found) : attempt(deadline, round + 1))
              ))
          })
        })
      return Effect.flatMap(get(key, true), (found) =>
        found !== undefined
          ? Effect.as(Effect.logDebug(`shared tool cache: ${key.server} found in the store`), found)
          : Effect.flatMap(Clock.currentTimeMillis, (now) => attempt(now + waitTimeout, 0))).pipe(
          Effect.catchIf(
            (error): error is SharedUnavailable => error instanceof SharedUnavailable,
            byItself
          )
        )
    }
    const local = yield* makeInProcess(load)
    return McpToolCache.of({
      lookup: local.lookup,
      // the process's entry, or the store's, which the process takes
      has: (key) =>
        Effect.flatMap(local.has(key), (found) =>
          found ? Effect.succeed(true) : Effect.flatMap(
            Effect.catchAll(get(key), (error) => Effect.as(warn(key, error, "answering from this process"), undefined)),
            (entry) => entry === undefined ? Effect.succeed(false) : Effect.as(local.put(key, entry), true)
          )),
      invalidate: (key) => Effect.zipRight(local.invalidate(key), remove(key))
    })
  })

/**
 * An in-process cache in front of an `@effect/experimental` `BackingPersistence` (Redis, LMDB, a
 * `KeyValueStore`, memory): a process that misses asks the store before it discovers, and stores what it
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
 * @since 0.1.0
 * @category constructors
 */
export const makePersisted = (
  options: PersistedOptions
): Effect.Effect<McpToolCache["Type"], never, Persistence.BackingPersistence | Scope.Scope> =>
  makeSharedCache(options, undefined)

/**
 * @since 0.1.0
 * @category layers
 */
export const layerPersisted = (
  options: PersistedOptions
): Layer.Layer<McpToolCache, never, Persistence.BackingPersistence> => Layer.scoped(McpToolCache, makePersisted(options))

/**
 * `makePersisted` with one discovery per server across the fleet under `lock`: what `RedisToolCache` runs with
 * its lock in Redis, and the tests with a lock of their own (to drive the lock path on `TestClock`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeLocked = (
  options: PersistedOptions & { readonly waitTimeout?: Duration.DurationInput | undefined },
  lock: DiscoveryLock
): Effect.Effect<McpToolCache["Type"], never, Persistence.BackingPersistence | Scope.Scope> => makeSharedCache(options, lock)

/**
 * `effect` failed with `onTimeout()` when it has not finished `duration` after it started, counted once the
 * event loop has read the replies that arrived by then: the timeout of one operation of a store, for store
 * drivers (`@zett/mcp-redis`).
 *
 * @since 0.1.0
 * @category utils
 */
export const timeoutAfterIo: <A, E, E2>(
  effect: Effect.Effect<A, E>,
  duration: Duration.DurationInput,
  onTimeout: () => E2
) => Effect.Effect<A, E | E2> = Io.timeoutAfterIo