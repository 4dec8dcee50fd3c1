import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Redis } from "ioredis"
import * as RedisLock from "../src/internal/redisLock.js"
import * as RedisServer from "./utils/redisServer.js"

const client = (url: string) =>
  Effect.acquireRelease(Effect.sync(() => new Redis(url)), (redis) => Effect.sync(() => redis.disconnect()))

const options = { ttl: "600 millis", operationTimeout: "1 second" } as const

describe("internal/redisLock", () => {
  it.live("SET NX PX with a token; renew and release are fenced by the token", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const a = yield* client(redis.url)
      const b = yield* client(redis.url)
      const first = yield* RedisLock.acquire(a, "lock:k", options)
      assert.isTrue(Option.isSome(first))
      const held = Option.getOrThrow(first)
      assert.include(held.token, `/${process.pid}/`)
      assert.isTrue(Option.isNone(yield* RedisLock.acquire(b, "lock:k", options)))
      assert.isTrue(yield* RedisLock.renew(a, held, options))
      const pttl = yield* Effect.promise(() => a.pttl("lock:k"))
      assert.isAbove(pttl, 0)
      assert.isAtMost(pttl, 600)
      // the holder stalls past its expiry: another takes the lock
      while ((yield* Effect.promise(() => a.exists("lock:k"))) === 1) yield* Effect.sleep("20 millis")
      const second = Option.getOrThrow(yield* RedisLock.acquire(b, "lock:k", { ...options, ttl: "1 minute" }))
      // the first holder can neither renew nor release the second's lock
      assert.isFalse(yield* RedisLock.renew(a, held, options))
      assert.isFalse(yield* RedisLock.release(a, held, options))
      assert.strictEqual(yield* Effect.promise(() => a.get("lock:k")), second.token)
      assert.isTrue(yield* RedisLock.release(b, second, options))
      assert.strictEqual(yield* Effect.promise(() => a.exists("lock:k")), 0)
    }))

  it.live(
    "withLock runs one holder at a time across connections, renewing past the ttl",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const clients = yield* Effect.all([1, 2, 3].map(() => client(redis.url)))
        let active = 0
        let most = 0
        let runs = 0
        const work = Effect.gen(function*() {
          active++
          most = Math.max(most, active)
          runs++
          // longer than the lock's ttl: only renewal keeps the others out
          yield* Effect.sleep("1 second")
          active--
        })
        yield* Effect.forEach(
          clients,
          (redisClient) => RedisLock.withLock(redisClient, "lock:w", { ...options, wait: "30 seconds" }, work),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(runs, 3)
        assert.strictEqual(most, 1)
        assert.strictEqual(yield* Effect.promise(() => clients[0]!.exists("lock:w")), 0)
      })
  )

  it.live(
    "withLock fails with Busy after waiting `wait`, and with Lost when the lock is taken away",
    () =>
      Effect.gen(function*() {
        const redis = yield* RedisServer.make
        const a = yield* client(redis.url)
        yield* Effect.promise(() => a.set("lock:b", "someone-else", "PX", 60_000))
        const busy = yield* Effect.flip(
          RedisLock.withLock(a, "lock:b", { ...options, wait: "200 millis" }, Effect.void)
        )
        assert.strictEqual(busy._tag === "RedisLockError" && busy.reason, "Busy")
        const lost = yield* Effect.flip(
          RedisLock.withLock(
            a,
            "lock:l",
            { ...options, wait: "1 second" },
            // the lock is deleted under the holder: the next renewal finds it gone and interrupts the work
            Effect.andThen(Effect.promise(() => a.del("lock:l")), Effect.never)
          )
        )
        assert.strictEqual(lost.reason, "Lost")
      })
  )
})
