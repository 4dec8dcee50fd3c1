/**
 * The in-process lock per key of the memory and file token stores (`internal/keyedLock.ts`): one holder per
 * key at a time, none across keys, and nothing kept for a key that no one holds or waits for.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpTokenStore } from "@zett/mcp-auth"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as KeyedLock from "../src/internal/keyedLock.js"

/** Runs two holders at once, the first entering first; the order of what they did. */
const race = (
  withLock: <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, unknown, R>,
  first: string,
  second: string
) =>
  Effect.gen(function*() {
    const events: Array<string> = []
    const inside = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const holder = yield* withLock(
      first,
      Effect.gen(function*() {
        events.push("first in")
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(release)
        events.push("first out")
      })
    ).pipe(Effect.forkChild)
    yield* Deferred.await(inside)
    const waiter = yield* withLock(second, Effect.sync(() => events.push("second in"))).pipe(Effect.forkChild)
    // the second runs now unless the first excludes it
    yield* Effect.yieldNowWith(1_000)
    yield* Deferred.succeed(release, undefined)
    yield* Fiber.join(holder)
    yield* Fiber.join(waiter)
    return events
  })

describe("internal/keyedLock", () => {
  it.effect("keeps nothing for a key once no one holds or waits for it: after many keys, locked, failed and interrupted", () =>
    Effect.gen(function*() {
      const lock = yield* KeyedLock.make
      yield* Effect.forEach(
        Array.from({ length: 1_000 }, (_, i) => `https://server-${i}.example`),
        (key) => lock(key, Effect.void),
        { concurrency: 16, discard: true }
      )
      assert.strictEqual(lock.size(), 0)
      yield* Effect.exit(lock("failing", Effect.fail("boom")))
      yield* Effect.exit(lock("dying", Effect.die("defect")))
      assert.strictEqual(lock.size(), 0)
      // a holder interrupted while it holds, and a waiter interrupted while it waits
      const inside = yield* Deferred.make<void>()
      const holder = yield* lock("busy", Effect.andThen(Deferred.succeed(inside, undefined), Effect.never)).pipe(
        Effect.forkChild
      )
      yield* Deferred.await(inside)
      const waiter = yield* lock("busy", Effect.void).pipe(Effect.forkChild)
      yield* Effect.yieldNow
      assert.strictEqual(lock.size(), 1)
      yield* Fiber.interrupt(waiter)
      assert.strictEqual(lock.size(), 1)
      yield* Fiber.interrupt(holder)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(holder)))
      assert.strictEqual(lock.size(), 0)
    }))

  it.effect("one holder per key at a time, also after the key's entry was released; none across keys", () =>
    Effect.gen(function*() {
      const lock = yield* KeyedLock.make
      assert.deepStrictEqual(yield* race(lock, "k", "k"), ["first in", "first out", "second in"])
      assert.strictEqual(lock.size(), 0)
      assert.deepStrictEqual(yield* race(lock, "k", "k"), ["first in", "first out", "second in"])
      assert.deepStrictEqual(yield* race(lock, "k", "other"), ["first in", "second in", "first out"])
      assert.strictEqual(lock.size(), 0)
    }))

  it.effect("the memory store's withLock: one holder per key, none across keys", () =>
    Effect.gen(function*() {
      const store = yield* McpTokenStore.makeMemory
      assert.deepStrictEqual(yield* race(store.withLock, "k", "k"), ["first in", "first out", "second in"])
      assert.deepStrictEqual(yield* race(store.withLock, "k", "other"), ["first in", "second in", "first out"])
    }))
})
