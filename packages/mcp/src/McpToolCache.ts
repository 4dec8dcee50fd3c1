/**
 * Tool lists per server configuration, reused for a time-to-live (D3).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Metrics from "./internal/metrics.js"
import * as McpServer from "./McpServer.js"
import type { McpTool } from "./McpTool.js"

/**
 * What a tool list is cached under: the whole server definition (`McpServer.cacheKey`, so a changed server is
 * another entry, and secrets enter only as hashes) and the naming mode. `server` is the name, for metric tags
 * and logs; `id` is the key as one string, for a store.
 *
 * @since 0.1.0
 * @category models
 */
export class Key extends Data.Class<{
  readonly server: string
  readonly definition: string
  readonly namespace: boolean
}> {
  /**
   * @since 0.1.0
   */
  readonly id: string = `${this.definition}:${this.namespace ? "ns" : "flat"}`
}

/**
 * The key of `server`'s tool list in a naming mode.
 *
 * @since 0.1.0
 * @category constructors
 */
export const key = (server: McpServer.McpServer, options: { readonly namespace: boolean }): Key => {
  // definitions are immutable: their two keys are made once, not once per request
  let known = keys.get(server)
  if (known === undefined) {
    const definition = McpServer.cacheKey(server)
    known = [
      new Key({ server: server.name, definition, namespace: false }),
      new Key({ server: server.name, definition, namespace: true })
    ]
    keys.set(server, known)
  }
  return known[options.namespace ? 1 : 0]
}

const keys = new WeakMap<McpServer.McpServer, readonly [Key, Key]>()

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

// Tagged with the server name (the definition's hash is noise in a metric), keyed once per server.
const counters = new Map<string, { readonly hit: Effect.Effect<void>; readonly miss: Effect.Effect<void> }>()
const countersOf = (key: Key) => {
  const server = key.server
  let found = counters.get(server)
  // Stryker disable next-line ConditionalExpression: tagged counters of one name and tag are one metric, made anew or not
  if (found === undefined) {
    found = {
      hit: Metrics.taggedIncrement(hitsName, hitsDescription, [["mcp.server", server]]),
      miss: Metrics.taggedIncrement(missesName, missesDescription, [["mcp.server", server]])
    }
    counters.set(server, found)
  }
  return found
}

interface Entry {
  readonly tools: ReadonlyArray<McpTool>
  readonly expiresAt: number
}

/**
 * An in-memory cache whose time is read from `Clock` (so `TestClock` drives it). A `ttl` of zero disables
 * caching and sharing: every lookup discovers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: { readonly ttl: Duration.DurationInput }): Effect.Effect<McpToolCache["Type"]> =>
  Effect.sync(() => makeMemoryUnsafe(Duration.toMillis(options.ttl)))

const makeMemoryUnsafe = (ttl: number): McpToolCache["Type"] => {
  const entries = new Map<string, Entry>()
  const inflight = new Map<string, Deferred.Deferred<ReadonlyArray<McpTool>, unknown>>()

  const fresh = (id: string, now: number) => {
    const entry = entries.get(id)
    if (entry === undefined) return undefined
    if (now < entry.expiresAt) return entry
    entries.delete(id)
    return undefined
  }

  const lookup = <E, R>(key: Key, discover: Effect.Effect<ReadonlyArray<McpTool>, E, R>) => {
    if (ttl <= 0) return discover
    const id = key.id
    const run: Effect.Effect<ReadonlyArray<McpTool>, E, R> = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const entry = fresh(id, now)
      if (entry !== undefined) {
        return Effect.as(countersOf(key).hit, entry.tools)
      }
      const count = countersOf(key).miss
      const pending = inflight.get(id)
      // A follower waits for the leader; if the leader was interrupted it tries again itself.
      if (pending !== undefined) {
        return Effect.flatMap(Effect.zipRight(count, Effect.exit(Deferred.await(pending))), (exit) =>
          Exit.isSuccess(exit)
            ? Effect.succeed(exit.value)
            : Exit.isInterrupted(exit)
            ? run
            : (Effect.failCause(exit.cause) as Effect.Effect<never, E>))
      }
      return Effect.uninterruptibleMask((restore) => {
        // made and registered synchronously, so no other lookup can slip in between the check and the set
        const deferred = Deferred.unsafeMake<ReadonlyArray<McpTool>, unknown>(FiberId.none)
        inflight.set(id, deferred)
        return restore(Effect.zipRight(count, discover)).pipe(
          Effect.tap((tools) =>
            Effect.map(Clock.currentTimeMillis, (now) => void entries.set(id, { tools, expiresAt: now + ttl }))
          ),
          Effect.onExit((exit) => {
            inflight.delete(id)
            return Deferred.done(deferred, exit)
          })
        )
      })
    })
    return run
  }

  return McpToolCache.of({
    lookup,
    has: (key) => Effect.map(Clock.currentTimeMillis, (now) => fresh(key.id, now) !== undefined),
    invalidate: (key) => Effect.sync(() => void entries.delete(key.id))
  })
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options: { readonly ttl: Duration.DurationInput }): Layer.Layer<McpToolCache> =>
  Layer.effect(McpToolCache, makeMemory(options))
