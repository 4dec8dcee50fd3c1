/**
 * OAuth tokens shared by the processes of a fleet through Redis: an `McpTokenStore` whose `withLock` is a lock
 * in Redis, so that one process refreshes an expired token and the others find the new one.
 *
 * @since 0.1.0
 */
import { McpTokenStore, McpTokenStoreError, decodeEntry } from "@zett/mcp-node/McpTokenStore"
import type { Entry } from "@zett/mcp-node/McpTokenStore"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as RedisKeys from "./internal/redisKeys.js"
import * as RedisLock from "./internal/redisLock.js"
import * as McpRedis from "./McpRedis.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The part of the Redis key after the connection's prefix (default `"mcp-tokens"`): `<prefix><storeId>:<key>`. */
  readonly storeId?: string | undefined
  /** How long a refresh lock lives without renewal, i.e. how long a dead holder delays the others (default 10 seconds). */
  readonly lockTtl?: Duration.DurationInput | undefined
  /**
   * How long a process waits for another's refresh of the same server before its connect fails (default 30
   * seconds, the default `connectTimeout`; set it to yours).
   */
  readonly lockWait?: Duration.DurationInput | undefined
  /** The longest wait for one Redis command (default: the `operationTimeout` of `McpRedis`). */
  readonly operationTimeout?: Duration.DurationInput | undefined
}

/**
 * A store shared by the processes of a fleet through the Redis of `McpRedis`: each entry as JSON under
 * `<prefix><storeId>:<key>` (the key is the normalized server URL, which holds no secret), without expiry;
 * `keys` scans that prefix. `withLock` is a lock in Redis (`SET NX PX` with a token of its own, renewed while
 * held, released only by its holder, freed by expiry when the holder dies), so that one process of the fleet
 * refreshes an expired token and the others, waiting for the lock, find the new one: a refresh token is used
 * once.
 *
 * Every command is bounded by `operationTimeout`, and fails at once while Redis is unreachable: `get`, `set`,
 * `remove`, `keys` and `withLock` then fail with `McpTokenStoreError`, whose reason names the operation and the
 * Redis failure, never a stored value. Connecting to a server that needs its tokens then fails (the server
 * is unavailable, `failure: "Unauthorized"`, with that reason), it does not wait for Redis. An entry that
 * cannot be decoded (or nests deeper than anything Zett writes) is treated as absent, with a warning.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<McpTokenStore["Type"], never, McpRedis.McpRedis> =>
  Effect.map(McpRedis.McpRedis, (redis) => {
    const client = redis.client
    const operationTimeout = options?.operationTimeout ?? redis.operationTimeout
    const storeId = options?.storeId ?? "mcp-tokens"
    const prefix = `${redis.prefix}${storeId}:`
    const lockOptions = {
      ttl: options?.lockTtl ?? Duration.seconds(10),
      wait: options?.lockWait ?? Duration.seconds(30),
      operationTimeout
    }
    // the reason only: ioredis attaches the command and its arguments (a stored value) to some of its errors
    const failure = (key: string | undefined, what: string) => (error: RedisLock.RedisLockError) =>
      new McpTokenStoreError({
        ...(key !== undefined ? { key } : {}),
        reason: error.reason === "Busy" || error.reason === "Lost" ? "Lock" : error.reason,
        description: error.reason === "Busy"
          ? `cannot ${what}: another process held the lock too long`
          : `cannot ${what} in Redis: ${
            error.reason === "Timeout"
              ? "no answer in time"
              : error.reason === "Lost"
              ? "the lock was lost"
              : error.cause instanceof Error
              ? `unavailable (${error.cause.message})`
              : "unavailable"
          }`
      })
    const run = <A>(key: string | undefined, what: string, f: () => Promise<A>) =>
      RedisLock.command(prefix, operationTimeout, f).pipe(Effect.mapError(failure(key, what)))

    const get = (key: string) =>
      Effect.flatMap(run(key, "read", () => client.get(prefix + key)), (text): Effect.Effect<Option.Option<Entry>> => {
        if (text === null) return Effect.succeedNone
        const decoded = decodeEntry(text)
        return Option.isSome(decoded)
          ? Effect.succeed(decoded as Option.Option<Entry>)
          : Effect.as(Effect.logWarning(`token store: ignoring ${key} in Redis: not a valid entry`), Option.none())
      })

    const keys = Effect.gen(function*() {
      const match = RedisKeys.underPrefix(prefix)
      const found = new Set<string>()
      let cursor = "0"
      do {
        const [next, names] = yield* run(undefined, "list", () => client.scan(cursor, "MATCH", match, "COUNT", 200))
        for (const name of names) found.add(name.slice(prefix.length))
        cursor = next
      } while (cursor !== "0")
      return [...found].sort()
    })

    return McpTokenStore.of({
      get,
      set: (key, entry) => Effect.asVoid(run(key, "write", () => client.set(prefix + key, JSON.stringify(entry)))),
      remove: (key) => Effect.asVoid(run(key, "remove", () => client.del(prefix + key))),
      keys,
      withLock: (key, effect) =>
        // the effect's own failures go around the lock's, which alone become a store error
        RedisLock.withLock(client, `${redis.prefix}lock:${storeId}:${key}`, lockOptions, Effect.either(effect)).pipe(
          Effect.mapError(failure(key, "lock")),
          Effect.flatMap((result) => Either.isLeft(result) ? Effect.fail(result.left) : Effect.succeed(result.right))
        )
    })
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<McpTokenStore, never, McpRedis.McpRedis> =>
  Layer.effect(McpTokenStore, make(options))
