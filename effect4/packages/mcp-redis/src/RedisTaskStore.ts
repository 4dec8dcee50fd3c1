/**
 * The tasks of a fleet through Redis: a handle kept by the process whose tool call a server answered with a task
 * is found by every other process of the fleet, which can await the task or fetch its result by its id.
 *
 * @since 1.0.0
 */
import * as McpTaskStore from "@zett/mcp/McpTaskStore"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as RedisKeys from "./internal/redisKeys.js"
import * as RedisLock from "./internal/redisLock.js"
import * as McpRedis from "./McpRedis.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options extends McpTaskStore.Options {
  /** The part of the Redis key after the connection's prefix (default `"mcp-tasks"`): `<prefix><storeId>:<taskId>`. */
  readonly storeId?: string | undefined
  /** The longest wait for one Redis command (default: the `operationTimeout` of `McpRedis`). */
  readonly operationTimeout?: Duration.Input | undefined
}

const HandleJson = Schema.fromJsonString(McpTaskStore.TaskHandle)
const decodeHandle = Schema.decodeUnknownOption(HandleJson)
const encodeHandle = Schema.encodeSync(HandleJson)

/**
 * A store shared by the processes of a fleet through the Redis of `McpRedis`: each handle as JSON under
 * `<prefix><storeId>:<taskId>`, expiring when the server may forget its task (`McpTaskStore.expiresAt`: its
 * `createdAt` plus its `ttlMs`, or `retention` when it set none). `list` scans that prefix page by page.
 *
 * Every command is bounded by `operationTimeout` and fails at once while Redis is unreachable, with
 * `McpTaskStoreError` (the operation and the Redis failure, never a stored value). A value that is not a handle
 * is absent, with a warning that names the store, not the key (a key holds a task id).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<McpTaskStore.McpTaskStore["Service"], never, McpRedis.McpRedis> =>
  Effect.gen(function*() {
    const redis = yield* McpRedis.McpRedis
    const client = redis.client
    const operationTimeout = options?.operationTimeout ?? redis.operationTimeout
    const retention = options?.retention ?? Duration.days(1)
    const prefix = `${redis.prefix}${options?.storeId ?? "mcp-tasks"}:`
    // the reason only: ioredis attaches the command and its arguments (a stored value) to some of its errors
    const run = <A>(what: string, f: () => Promise<A>) =>
      RedisLock.command(prefix, operationTimeout, f).pipe(
        Effect.mapError((error) =>
          new McpTaskStore.McpTaskStoreError({
            reason: error.reason === "Timeout" ? "Timeout" : "Unavailable",
            description: `cannot ${what} in Redis: ${
              error.reason === "Timeout"
                ? "no answer in time"
                : error.cause instanceof Error
                ? `unavailable (${error.cause.message})`
                : "unavailable"
            }`
          })
        )
      )
    const decoded = (text: string | null): Effect.Effect<Option.Option<McpTaskStore.TaskHandle>> => {
      if (text === null) return Effect.succeedNone
      const handle = decodeHandle(text)
      return Option.isSome(handle)
        ? Effect.succeed(handle)
        : Effect.as(
          // a key holds a task id, which some servers take as a bearer token: the log names the store, not the key
          Effect.logWarning(`task store: ignoring a value under ${prefix} in Redis: not a task handle`),
          Option.none()
        )
    }

    const keys = Effect.gen(function*() {
      const match = RedisKeys.underPrefix(prefix)
      const found = new Set<string>()
      let cursor = "0"
      do {
        const [next, names] = yield* run("list", () => client.scan(cursor, "MATCH", match, "COUNT", 200))
        for (const name of names) found.add(name)
        cursor = next
      } while (cursor !== "0")
      return [...found]
    })

    return McpTaskStore.McpTaskStore.of({
      put: (handle) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const ttl = Math.ceil(McpTaskStore.expiresAt(handle, now, retention) - now)
          const key = prefix + handle.taskId
          return ttl > 0
            ? Effect.asVoid(run("write", () => client.set(key, encodeHandle(handle), "PX", ttl)))
            : Effect.asVoid(run("remove", () => client.del(key)))
        }),
      get: (taskId) => Effect.flatMap(run("read", () => client.get(prefix + taskId)), decoded),
      remove: (taskId) => Effect.asVoid(run("remove", () => client.del(prefix + taskId))),
      list: Effect.gen(function*() {
        const names = yield* keys
        if (names.length === 0) return []
        const texts = yield* run("list", () => client.mget(names))
        const handles = yield* Effect.forEach(names, (_, i) => decoded(texts[i] ?? null))
        return handles.flatMap((handle) => Option.isSome(handle) ? [handle.value] : []).sort((a, b) =>
          Date.parse(a.createdAt) - Date.parse(b.createdAt)
        )
      })
    })
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<McpTaskStore.McpTaskStore, never, McpRedis.McpRedis> =>
  Layer.effect(McpTaskStore.McpTaskStore, make(options))
