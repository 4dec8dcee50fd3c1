/**
 * OAuth tokens shared by the processes of a fleet through Redis: an `McpTokenStore` whose `withLock` is a lock
 * in Redis, so that one process refreshes an expired token and the others find the new one. Entries are
 * encrypted with a key the application gives (AES-256-GCM), and expire when their tokens are worth nothing.
 *
 * @since 1.0.0
 */
import { decodeEntry, McpTokenStore, McpTokenStoreError } from "@zett/mcp-auth/McpTokenStore"
import type { Entry, Service } from "@zett/mcp-auth/McpTokenStore"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Crypto from "node:crypto"
import * as RedisKeys from "./internal/redisKeys.js"
import * as RedisLock from "./internal/redisLock.js"
import * as McpRedis from "./McpRedis.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** The part of the Redis key after the connection's prefix (default `"mcp-tokens"`): `<prefix><storeId>:<key>`. */
  readonly storeId?: string | undefined
  /** How long a refresh lock lives without renewal, i.e. how long a dead holder delays the others (default 10 seconds). */
  readonly lockTtl?: Duration.Input | undefined
  /**
   * How long a process waits for another's refresh of the same server before its connect fails (default 30
   * seconds, the default `connectTimeout`; set it to yours).
   */
  readonly lockWait?: Duration.Input | undefined
  /** The longest wait for one Redis command (default: the `operationTimeout` of `McpRedis`). */
  readonly operationTimeout?: Duration.Input | undefined
  /**
   * The key entries are encrypted with (AES-256-GCM, the key derived from this with HKDF-SHA-256): a random
   * secret of at least 32 bytes, the same for every process of the fleet (`openssl rand -base64 32`). Without
   * one, tokens are stored in plain text, and the store says so when it starts.
   */
  readonly encryptionKey?: Redacted.Redacted<string> | undefined
  /**
   * With an `encryptionKey`, what becomes of an entry found in plain text: `"never"` (the default) ignores it,
   * with a warning naming its key, since anyone who can write to Redis without the key could have planted it;
   * `"read-once"` reads it once, seals it in place and logs its key (the migration of a fleet that had no key;
   * `migrate` does the same for every entry at once).
   */
  readonly allowPlaintext?: "never" | "read-once" | undefined
  /**
   * How long an entry whose refresh token says no lifetime of its own lives in Redis after its last write
   * (default 30 days). An entry with no refresh token lives until its access token expires.
   */
  readonly refreshTokenLifetime?: Duration.Input | undefined
}

const ENCRYPTED = "zett:aes-256-gcm:"

// Replaced only while it still holds what was read: a concurrent write by another process is never undone.
const sealScript =
  `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("set", KEYS[1], ARGV[2], "KEEPTTL") else return 0 end`

/** AES-256-GCM with a fresh IV per write; the Redis key is the associated data, so an entry cannot be moved to another server's key. */
const cipherOf = (secret: Redacted.Redacted<string>, storeId: string) => {
  const key = Buffer.from(Crypto.hkdfSync("sha256", Redacted.value(secret), "zett/mcp-redis/tokens", storeId, 32))
  return {
    seal: (name: string, text: string): string => {
      const iv = Crypto.randomBytes(12)
      const cipher = Crypto.createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(name))
      const sealed = Buffer.concat([cipher.update(text, "utf8"), cipher.final()])
      return ENCRYPTED + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64")
    },
    open: (name: string, stored: string): string | undefined => {
      try {
        const bytes = Buffer.from(stored.slice(ENCRYPTED.length), "base64")
        const decipher = Crypto.createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12)).setAAD(Buffer.from(name))
        decipher.setAuthTag(bytes.subarray(12, 28))
        return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8")
      } catch {
        return undefined
      }
    }
  }
}

/**
 * How long an entry is worth keeping, from `now`: as long as its longest-lived refresh token (its own
 * `refresh_token_expires_in` when the authorization server said one, else `lifetime`), else until its last access
 * token expires; an entry with no tokens (a registration) lives `lifetime`.
 */
const lifetimeOf = (entry: Entry, now: number, lifetime: number): number => {
  const all = Object.values(entry.credentials ?? {}).flatMap((credentials) =>
    credentials.tokens === undefined ? [] : [credentials.tokens]
  )
  if (all.length === 0) return lifetime
  return Math.max(
    1,
    ...all.map((tokens) => {
      if (tokens.refresh_token !== undefined) {
        const own = (tokens as { readonly refresh_token_expires_in?: unknown }).refresh_token_expires_in
        return typeof own === "number" && own > 0 ? own * 1000 : lifetime
      }
      return tokens.expires_at !== undefined ? tokens.expires_at - now : lifetime
    })
  )
}

/**
 * What the store's functions share, made once by `makeStore` from the options and the `McpRedis` in context: the
 * client, the prefix of the store's keys, the bound on one command, the cipher (none without an `encryptionKey`) and
 * the lifetime of an entry whose refresh token says none of its own.
 */
interface Env {
  readonly client: McpRedis.McpRedis["Service"]["client"]
  readonly prefix: string
  readonly operationTimeout: Duration.Input
  readonly cipher: ReturnType<typeof cipherOf> | undefined
  readonly lifetime: number
  readonly allowPlaintext: Options["allowPlaintext"]
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

const run = <A>(env: Env, key: string | undefined, what: string, f: () => Promise<A>) =>
  RedisLock.command(env.prefix, env.operationTimeout, f).pipe(Effect.mapError(failure(key, what)))

const ignoring = (key: string, why: string) =>
  Effect.as(Effect.logWarning(`token store: ignoring ${key} in Redis: ${why}`), Option.none())

const decoded = (key: string, text: string): Effect.Effect<Option.Option<Entry>> => {
  const entry = decodeEntry(text)
  return Option.isSome(entry) ? Effect.succeed(entry) : ignoring(key, "not a valid entry")
}

/** Seals a plain-text entry in place, unless another process wrote it since it was read. */
const seal = (env: Env, key: string, stored: string) =>
  Effect.map(
    run(
      env,
      key,
      "seal",
      () => env.client.eval(sealScript, 1, env.prefix + key, stored, env.cipher!.seal(env.prefix + key, stored))
    ),
    (reply) => reply === "OK"
  )

const get = (env: Env, key: string) =>
  Effect.flatMap(
    run(env, key, "read", () => env.client.get(env.prefix + key)),
    (stored): Effect.Effect<Option.Option<Entry>, McpTokenStoreError> => {
      if (stored === null) return Effect.succeedNone
      const sealed = stored.startsWith(ENCRYPTED)
      if (sealed && env.cipher === undefined) {
        return ignoring(key, "it is encrypted, and this store has no encryptionKey")
      }
      if (!sealed && env.cipher !== undefined) {
        // anyone who can write to Redis without the key could have put it there
        if (env.allowPlaintext !== "read-once") {
          return ignoring(
            key,
            `it is in plain text, and this store has an encryptionKey (allowPlaintext: "read-once" or RedisTokenStore.migrate seal such entries)`
          )
        }
        return Effect.gen(function*() {
          const entry = yield* decoded(key, stored)
          if (Option.isSome(entry) && (yield* seal(env, key, stored))) {
            yield* Effect.logWarning(
              `token store: sealed ${key} in Redis, which was in plain text (allowPlaintext: "read-once")`
            )
          }
          return entry
        })
      }
      const text = sealed ? env.cipher!.open(env.prefix + key, stored) : stored
      return text === undefined
        ? ignoring(key, "it cannot be decrypted with this encryptionKey")
        : decoded(key, text)
    }
  )

const set = (env: Env, key: string, entry: Entry) =>
  Effect.flatMap(
    Clock.currentTimeMillis,
    (now) => {
      const text = JSON.stringify(entry)
      const value = env.cipher === undefined ? text : env.cipher.seal(env.prefix + key, text)
      const ttl = Math.ceil(lifetimeOf(entry, now, env.lifetime))
      return Effect.asVoid(run(env, key, "write", () => env.client.set(env.prefix + key, value, "PX", ttl)))
    }
  )

const migrateAll = (env: Env) =>
  Effect.gen(function*() {
    const sealed: Array<string> = []
    for (const key of yield* keys(env)) {
      const stored = yield* run(env, key, "read", () => env.client.get(env.prefix + key))
      if (stored === null || stored.startsWith(ENCRYPTED)) continue
      if (Option.isNone(decodeEntry(stored))) {
        yield* Effect.logWarning(`token store: not sealing ${key} in Redis: not a valid entry`)
      } else if (yield* seal(env, key, stored)) {
        yield* Effect.logInfo(`token store: sealed ${key} in Redis, which was in plain text`)
        sealed.push(key)
      }
    }
    return sealed
  })

const keys = (env: Env) =>
  Effect.gen(function*() {
    const match = RedisKeys.underPrefix(env.prefix)
    const found = new Set<string>()
    let cursor = "0"
    do {
      const [next, names] = yield* run(
        env,
        undefined,
        "list",
        () => env.client.scan(cursor, "MATCH", match, "COUNT", 200)
      )
      for (const name of names) found.add(name.slice(env.prefix.length))
      cursor = next
    } while (cursor !== "0")
    return [...found].sort()
  })

const makeStore = (options?: Options) =>
  Effect.gen(function*() {
    const redis = yield* McpRedis.McpRedis
    const client = redis.client
    const storeId = options?.storeId ?? "mcp-tokens"
    const env: Env = {
      client,
      prefix: `${redis.prefix}${storeId}:`,
      operationTimeout: options?.operationTimeout ?? redis.operationTimeout,
      cipher: options?.encryptionKey === undefined ? undefined : cipherOf(options.encryptionKey, storeId),
      lifetime: Duration.toMillis(options?.refreshTokenLifetime ?? Duration.days(30)),
      allowPlaintext: options?.allowPlaintext
    }
    if (env.cipher === undefined) {
      yield* Effect.logWarning(
        `token store: OAuth tokens are stored in Redis (${env.prefix}*) in plain text; give RedisTokenStore an encryptionKey to encrypt them`
      )
    }
    const lockOptions = {
      ttl: options?.lockTtl ?? Duration.seconds(10),
      wait: options?.lockWait ?? Duration.seconds(30),
      operationTimeout: env.operationTimeout
    }
    return {
      store: identity<Service>({
        get: (key) => get(env, key),
        set: (key, entry) => set(env, key, entry),
        remove: (key) => Effect.asVoid(run(env, key, "remove", () => client.del(env.prefix + key))),
        keys: keys(env),
        withLock: (key, effect) =>
          // the effect's own failures go around the lock's, which alone become a store error
          RedisLock.withLock(client, `${redis.prefix}lock:${storeId}:${key}`, lockOptions, Effect.result(effect)).pipe(
            Effect.mapError(failure(key, "lock")),
            Effect.flatMap((result) =>
              Result.isFailure(result) ? Effect.fail(result.failure) : Effect.succeed(result.success)
            )
          )
      }),
      migrate: migrateAll(env)
    }
  })

/**
 * A store shared by the processes of a fleet through the Redis of `McpRedis`: each entry as JSON under
 * `<prefix><storeId>:<key>` (the key is the normalized server URL, which holds no secret), encrypted with
 * `encryptionKey` when one is given (an entry in plain text is then absent, with a warning, unless
 * `allowPlaintext: "read-once"` seals it; one that does not decrypt is absent, with a warning), and expiring with its refresh token's lifetime
 * (`refreshTokenLifetime`, or the access token's when there is no refresh token); `keys` scans that prefix. `withLock` is a lock in Redis (`SET NX PX` with a token of its own, renewed while
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
 * @since 1.0.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<Service, never, McpRedis.McpRedis> =>
  Effect.map(makeStore(options), ({ store }) => store)

/**
 * Seals every entry of the store that is in plain text with `encryptionKey` (an entry another process writes
 * meanwhile is left as that process wrote it), logging each key it seals; returns the keys it sealed. The one-time
 * migration of a fleet that stored its tokens without a key: run it once, after every process has the key.
 *
 * @since 1.0.0
 * @category migrations
 */
export const migrate = (
  options: Options & { readonly encryptionKey: Redacted.Redacted<string> }
): Effect.Effect<ReadonlyArray<string>, McpTokenStoreError, McpRedis.McpRedis> =>
  Effect.flatMap(makeStore(options), ({ migrate }) => migrate)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<never, never, McpRedis.McpRedis> =>
  Layer.effect(McpTokenStore)(make(options))
