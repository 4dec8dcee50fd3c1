/**
 * One Redis connection shared by the stores of a fleet: the tool cache (`RedisToolCache`) with the lock that
 * makes a discovery run once across processes, the task handles (`RedisTaskStore`) and the OAuth tokens
 * (`RedisTokenStore`).
 *
 * The connection never makes a request wait or fail: commands fail at once while Redis is unreachable (no
 * offline queue), every command is bounded by `operationTimeout`, and the client reconnects in the background.
 * Losing and regaining Redis is logged once each, without the URL (it may hold a password).
 *
 * @since 1.0.0
 */
import * as Scrubber from "@zett/agent/Scrubber"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Persistence from "effect/persistence/Persistence"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { Redis } from "ioredis"
import * as RedisKeys from "./internal/redisKeys.js"
import * as RedisLock from "./internal/redisLock.js"

/**
 * The connection, its key prefix and the bound on one command.
 *
 * @since 1.0.0
 * @category tags
 */
export class McpRedis extends Context.Service<McpRedis, {
  /** The ioredis client; commands fail at once while it is not connected. */
  readonly client: Redis
  /** Prepended to every key (default `"zett:"`), so that one Redis can serve several fleets. */
  readonly prefix: string
  readonly operationTimeout: Duration.Duration
}>()("@zett/mcp-redis/McpRedis") {}

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://`); kept `Redacted` because it may hold a password. */
  readonly url: Redacted.Redacted<string> | string
  /** Prepended to every key (default `"zett:"`). */
  readonly prefix?: string | undefined
  /** The longest wait for one command before the caller works without Redis (default 500 milliseconds). */
  readonly operationTimeout?: Duration.Input | undefined
  /** How long building the layer waits for the first connection (default 2 seconds); it never fails. */
  readonly connectTimeout?: Duration.Input | undefined
}

/**
 * Connects (in the background if Redis does not answer within `connectTimeout`) and disconnects with the scope.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = Effect.fnUntraced(
  function*(options: Options): Effect.fn.Return<McpRedis["Service"], never, Scope.Scope> {
    // loaded on first use: applications without a fleet do not pay for the client at start. ioredis is CommonJS:
    // take the class from the default export (its `module.exports`), which Node and a bundle both provide; a
    // bundled dynamic import has no named exports
    const Redis = yield* Effect.promise(() => import("ioredis").then((module) => module.default.Redis))
    const operationTimeout = Duration.fromInputUnsafe(options.operationTimeout ?? Duration.millis(500))
    const log = Effect.runForkWith(yield* Effect.context<never>())
    const url = typeof options.url === "string" ? options.url : Redacted.value(options.url)
    // a password in the URL is a credential of the process: no text that quotes it leaves unscrubbed
    const held = yield* Scrubber.HeldSecrets
    held.add(Scrubber.urlSecrets(url))
    const client = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Redis(url, {
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          // the Effect timeout of each command decides; this only bounds what a frozen Redis leaves pending
          commandTimeout: Duration.toMillis(operationTimeout) * 20,
          connectTimeout: Duration.toMillis(operationTimeout) * 4,
          retryStrategy: (times) => Math.min(50 * times, 1_000)
        })
      ),
      (client) =>
        Effect.promise(() => client.quit().catch(() => undefined)).pipe(
          Effect.timeoutOption(operationTimeout),
          Effect.ensuring(Effect.sync(() => client.disconnect()))
        )
    )
    // logged on the transitions only, not on every reconnection attempt
    let connected: boolean | undefined
    client.on("ready", () => {
      if (connected === false) log(Effect.logInfo("Redis is reachable again: the tool cache is shared again"))
      connected = true
    })
    client.on("error", (error: Error) => {
      if (connected === false) return
      connected = false
      log(
        Effect.logWarning(`Redis is unreachable (${error.message}): each process discovers by itself until it is back`)
      )
    })
    yield* Effect.callback<void>((resume) => {
      if (client.status === "ready") return resume(Effect.void)
      const ready = () => resume(Effect.void)
      client.once("ready", ready)
      return Effect.sync(() => void client.off("ready", ready))
    }).pipe(Effect.timeoutOption(options.connectTimeout ?? Duration.seconds(2)))
    return McpRedis.of({ client, prefix: options.prefix ?? "zett:", operationTimeout })
  }
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<McpRedis> => Layer.effect(McpRedis, make(options))

/**
 * The connection from configuration: `REDIS_URL` by default.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig = (
  options: Config.Wrap<Options> = { url: Config.Redacted("REDIS_URL") }
): Layer.Layer<McpRedis, Config.ConfigError> => Layer.effect(McpRedis, Effect.flatMap(Config.unwrap(options), make))

/**
 * An `effect/persistence` `BackingPersistence` on the shared connection: values as JSON under
 * `<prefix><store>:<key>` (the 3 line's keys, so that one Redis serves a fleet of both lines), time-to-live set by
 * Redis (`PX`); `clear` deletes the keys of its store only, found page by page with `SCAN` (never `KEYS`, which
 * blocks Redis while it walks every key). Written here rather than taken from Effect 4's
 * `Persistence.layerBackingRedis` on `@effect/platform-node`'s `NodeRedis`: that one stores under a namespace of its
 * own (`<storeId>:<key>`, no fleet prefix), its layer fails to build while Redis is down, and its commands carry no
 * timeout of their own; here a command fails at once without Redis and waits at most `operationTimeout`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerPersistence: Layer.Layer<Persistence.BackingPersistence, never, McpRedis> = Layer.effect(
  Persistence.BackingPersistence,
  Effect.map(McpRedis, (redis) =>
    Persistence.BackingPersistence.of({
      make: (store) => Effect.sync(() => makeStore(redis, `${redis.prefix}${store}:`))
    }))
)

const makeStore = (redis: McpRedis["Service"], prefix: string): Persistence.BackingPersistenceStore => {
  const client = redis.client
  const run = <A>(method: string, f: () => Promise<A>) =>
    RedisLock.command(prefix, redis.operationTimeout, f).pipe(
      Effect.mapError((error) => new Persistence.PersistenceError({ message: `Redis ${method} failed`, cause: error }))
    )
  const parse =
    (method: string) => (text: string | null): Effect.Effect<object | undefined, Persistence.PersistenceError> =>
      text === null ? Effect.undefined : Effect.try({
        try: () => JSON.parse(text) as object,
        catch: (error) => new Persistence.PersistenceError({ message: `Redis ${method}: not JSON`, cause: error })
      })
  const ttlArgs = (ttl: Duration.Duration | undefined) =>
    ttl !== undefined && Duration.isFinite(ttl)
      ? ["PX", Math.max(1, Math.ceil(Duration.toMillis(ttl)))] as const
      : undefined
  return {
    get: (key) => Effect.flatMap(run("get", () => client.get(prefix + key)), parse("get")),
    getMany: (keys) =>
      Effect.flatMap(
        run("getMany", () => client.mget(keys.map((key) => prefix + key))),
        (texts) =>
          Effect.forEach(texts, parse("getMany")) as Effect.Effect<
            [object | undefined, ...Array<object | undefined>],
            Persistence.PersistenceError
          >
      ),
    set: (key, value, ttl) =>
      Effect.asVoid(run("set", () => {
        const px = ttlArgs(ttl)
        const text = JSON.stringify(value)
        return px === undefined ? client.set(prefix + key, text) : client.set(prefix + key, text, px[0], px[1])
      })),
    setMany: (entries) =>
      Effect.asVoid(run("setMany", () => {
        const multi = client.multi()
        for (const [key, value, ttl] of entries) {
          const px = ttlArgs(ttl)
          const text = JSON.stringify(value)
          if (px === undefined) multi.set(prefix + key, text)
          else multi.set(prefix + key, text, px[0], px[1])
        }
        return multi.exec()
      })),
    remove: (key) => Effect.asVoid(run("remove", () => client.del(prefix + key))),
    // each page deleted as it comes: no command carries more than a page of keys, and each has its own timeout
    clear: Effect.gen(function*() {
      const match = RedisKeys.underPrefix(prefix)
      let cursor = "0"
      do {
        const [next, names] = yield* run("clear", () => client.scan(cursor, "MATCH", match, "COUNT", 500))
        if (names.length > 0) yield* run("clear", () => client.del(names))
        cursor = next
      } while (cursor !== "0")
    })
  }
}
