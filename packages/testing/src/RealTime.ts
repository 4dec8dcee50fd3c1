/**
 * Waits in real time while a test's clock is a `TestClock`: a server in another process answers in real time, and a
 * test moves its clock only once the fiber it drives is waiting.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

/** Waits until some fiber sleeps on the `TestClock` until `at` (ms): the wait is set before the clock moves. */
export const sleepingUntil = (at: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < 10_000; i++) {
      if (Chunk.some(yield* TestClock.sleeps(), (wake) => wake === at)) return
      yield* pause(2)
    }
    return yield* Effect.dieMessage(`nothing sleeps until ${at} ms`)
  })

/** Waits until `check` holds. */
export const until = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 10_000 && !check(); i++) yield* pause(2)
    if (!check()) return yield* Effect.dieMessage("the condition never held")
  })

/** Lets real time pass (a server's answers arrive) without moving a `TestClock`. */
export const settle: Effect.Effect<void> = pause(100)
