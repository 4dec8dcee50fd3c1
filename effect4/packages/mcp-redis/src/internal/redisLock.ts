/**
 * A lock held in Redis by one process of a fleet: `SET key token NX PX ttl` takes it, a Lua script renews or
 * releases it only while it still holds the caller's token (fencing: a holder whose lock expired and was
 * taken by another cannot renew or delete the other's), and expiry frees it when its holder dies.
 *
 * The tool cache runs one discovery per server across a fleet under it; a token store refreshes a token once
 * across a fleet under it (`withLock`).
 *
 * Hand-written rather than a Redlock package: one Redis, three commands and two scripts, with every command
 * bounded by an Effect timeout so that a slow Redis cannot hold a request.
 *
 * @internal
 */
import { timeoutAfterIo } from "@zett/mcp/McpToolCache"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { Redis } from "ioredis"
import * as Crypto from "node:crypto"
import * as Os from "node:os"

/**
 * Why a Redis operation of the lock did not happen: Redis unreachable or failing (`Unavailable`), no answer
 * within the operation timeout (`Timeout`), the lock taken by another before the wait ended (`Busy`), or the
 * lock lost while held (`Lost`: it expired, a renewal came too late).
 */
export class RedisLockError extends Data.TaggedError("RedisLockError")<{
  readonly reason: "Unavailable" | "Timeout" | "Busy" | "Lost"
  readonly key: string
  readonly cause?: unknown
}> {
  override get message(): string {
    const what = this.reason === "Unavailable"
      ? `Redis is unavailable${this.cause instanceof Error ? ` (${this.cause.message})` : ""}`
      : this.reason === "Timeout"
      ? "Redis did not answer in time"
      : this.reason === "Busy"
      ? "the lock stayed held by another process"
      : "the lock was lost"
    return `lock ${this.key}: ${what}`
  }
}

/** A lock this process holds: its key and the token that proves it. */
export interface Lock {
  readonly key: string
  readonly token: string
}

export interface Options {
  /** How long the lock lives without renewal: how long a dead holder blocks the others. */
  readonly ttl: Duration.Input
  /** The longest wait for one Redis command. */
  readonly operationTimeout: Duration.Input
}

const renewScript =
  `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`
const releaseScript =
  `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`

/** One Redis command, its failure and its timeout as a `RedisLockError`. */
export const command = <A>(
  key: string,
  operationTimeout: Duration.Input,
  run: () => Promise<A>
): Effect.Effect<A, RedisLockError> =>
  timeoutAfterIo(
    // interruptible also in an uninterruptible region (the acquire of `withLock`): otherwise the timeout would
    // wait for the abandoned command until ioredis gives up on it (its `commandTimeout`, far longer)
    Effect.interruptible(
      Effect.tryPromise({ try: run, catch: (cause) => new RedisLockError({ reason: "Unavailable", key, cause }) })
    ),
    operationTimeout,
    () => new RedisLockError({ reason: "Timeout", key })
  )

/** Takes the lock if it is free. */
export const acquire = (
  redis: Redis,
  key: string,
  options: Options
): Effect.Effect<Option.Option<Lock>, RedisLockError> =>
  Effect.suspend(() => {
    // who holds it, for an operator (and a test) reading Redis; unique by the random part
    const token = `${Os.hostname()}/${process.pid}/${Crypto.randomUUID()}`
    return Effect.map(
      command(key, options.operationTimeout, () => redis.set(key, token, "PX", Duration.toMillis(options.ttl), "NX")),
      (reply) => (reply === "OK" ? Option.some({ key, token }) : Option.none())
    )
  })

/** Extends the lock's life to a whole `ttl` again; false when it is no longer this holder's. */
export const renew = (redis: Redis, lock: Lock, options: Options): Effect.Effect<boolean, RedisLockError> =>
  Effect.map(
    command(lock.key, options.operationTimeout, () =>
      redis.eval(renewScript, 1, lock.key, lock.token, String(Duration.toMillis(options.ttl)))),
    (reply) =>
      reply === 1
  )

/** Frees the lock if it is still this holder's; false when it expired (and may be another's). */
export const release = (redis: Redis, lock: Lock, options: Options): Effect.Effect<boolean, RedisLockError> =>
  Effect.map(
    command(lock.key, options.operationTimeout, () => redis.eval(releaseScript, 1, lock.key, lock.token)),
    (reply) => reply === 1
  )

/**
 * Renews the lock every third of its `ttl`, forever; fails with `Lost` when a renewal finds it gone or
 * another's, and with `Unavailable`/`Timeout` when Redis does not answer (the lock may then expire).
 */
export const keepAlive = (redis: Redis, lock: Lock, options: Options): Effect.Effect<never, RedisLockError> =>
  Effect.flatMap(
    renew(redis, lock, options),
    (held) => held ? Effect.void : Effect.fail(new RedisLockError({ reason: "Lost", key: lock.key }))
  ).pipe(
    Effect.delay(Duration.times(Duration.fromInputUnsafe(options.ttl), 1 / 3)),
    Effect.forever
  )

/** The delays between attempts to take a held lock: from 10 ms, growing, at most 250 ms, jittered. */
export const backoff: Schedule.Schedule<unknown> = Schedule.min([
  Schedule.exponential("10 millis", 1.5),
  Schedule.spaced("250 millis")
]).pipe(Schedule.jittered)

/**
 * Runs `effect` while holding the lock `key`: waits for it (retrying with `backoff`) at most `wait`, then
 * fails with `Busy`; renews it while `effect` runs, and interrupts `effect` with `Lost` if it is lost, so that
 * what runs under it never overlaps another holder's run by more than a renewal's delay; releases it
 * afterwards (fenced) whatever the outcome.
 */
export const withLock = <A, E, R>(
  redis: Redis,
  key: string,
  options: Options & { readonly wait: Duration.Input },
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | RedisLockError, R> =>
  Effect.scoped(Effect.gen(function*() {
    // each attempt is released with the scope if it took the lock; the waits between attempts stay interruptible
    const lock = yield* Effect.acquireRelease(
      acquire(redis, key, options),
      Option.match({ onNone: () => Effect.void, onSome: (lock) => Effect.ignore(release(redis, lock, options)) })
    ).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new RedisLockError({ reason: "Busy", key })),
        onSome: Effect.succeed
      })),
      Effect.retry({ schedule: backoff, while: (error) => error.reason === "Busy" }),
      Effect.timeoutOrElse({
        duration: options.wait,
        orElse: () => Effect.fail(new RedisLockError({ reason: "Busy", key }))
      })
    )
    return yield* Effect.raceFirst(effect, keepAlive(redis, lock, options))
  }))
