/**
 * Tool lists shared by the processes of a fleet through Redis, with one discovery per server across the fleet.
 *
 * @since 1.0.0
 */
import * as McpToolCache from "@zett/mcp/McpToolCache"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as RedisLock from "./internal/redisLock.js"
import * as McpRedis from "./McpRedis.js"

/**
 * The options of a cache shared through Redis, with one discovery per server across the fleet.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options extends McpToolCache.PersistedOptions {
  /** How long a discovery lock lives without renewal, i.e. how long a dead holder delays the others (default 10 seconds). */
  readonly lockTtl?: Duration.Input | undefined
  /**
   * How long a process waits for another's discovery before it discovers by itself (default 30 seconds, the
   * default `connectTimeout`; set it to yours).
   */
  readonly waitTimeout?: Duration.Input | undefined
}

/**
 * `makePersisted` on the Redis of `McpRedis`, with one discovery per server across the fleet: the process
 * that misses first takes a lock in Redis (`SET NX PX` with a token of its own, renewed while it discovers,
 * released only by the holder that still owns it), the others poll the store with backoff until the list
 * appears or the lock is free. A holder that dies frees its lock when it expires (`lockTtl`); a waiter that
 * waited `waitTimeout` discovers by itself. When Redis is down or slow every process falls back to its
 * in-process cache, with a warning. The keys are the 3 line's: one Redis serves a fleet of both lines.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  options: Options
): Effect.Effect<McpToolCache.McpToolCache["Service"], never, McpRedis.McpRedis | Scope.Scope> =>
  Effect.gen(function*() {
    const redis = yield* McpRedis.McpRedis
    const operationTimeout = options.operationTimeout ?? redis.operationTimeout
    const lockOptions = { ttl: options.lockTtl ?? Duration.seconds(10), operationTimeout }
    const storeId = options.storeId ?? "mcp-tools"
    const lock: McpToolCache.DiscoveryLock = {
      acquire: (id) =>
        Effect.map(
          RedisLock.acquire(redis.client, `${redis.prefix}lock:${storeId}:${id}`, lockOptions),
          Option.map((held) => ({
            keepAlive: RedisLock.keepAlive(redis.client, held, lockOptions),
            release: RedisLock.release(redis.client, held, lockOptions)
          }))
        )
    }
    return yield* McpToolCache.makeLocked({ ...options, operationTimeout }, lock).pipe(
      Effect.provide(McpRedis.layerPersistence)
    )
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<McpToolCache.McpToolCache, never, McpRedis.McpRedis> =>
  Layer.effect(McpToolCache.McpToolCache, make(options))
