/**
 * Waits in real time while a test's clock is a `TestClock`: a server in another process answers in real time, and a
 * test moves its clock only once the fiber it drives is waiting (the 3 line's `@zett/testing/RealTime` on Effect 4).
 */
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

// Effect 4's `TestClock` has no `sleeps()`: its implementation keeps the pending sleeps in a field of that name
const sleepsOf = (clock: TestClock.TestClock): ReadonlyArray<{ readonly timestamp: number }> =>
  (clock as unknown as { readonly sleeps: ReadonlyArray<{ readonly timestamp: number }> }).sleeps

/** Waits until some fiber sleeps on the `TestClock` until `at` (ms): the wait is set before the clock moves. */
export const sleepingUntil = (at: number) =>
  TestClock.testClockWith((clock) =>
    Effect.gen(function*() {
      for (let i = 0; i < 10_000; i++) {
        if (sleepsOf(clock).some((sleep) => sleep.timestamp === at)) return
        yield* pause(2)
      }
      return yield* Effect.die(new Error(`nothing sleeps until ${at} ms`))
    })
  )

/** Waits until `check` holds. */
export const until = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 10_000 && !check(); i++) yield* pause(2)
    if (!check()) return yield* Effect.die(new Error("the condition never held"))
  })

/** Lets real time pass (a server's answers arrive) without moving a `TestClock`. */
export const settle: Effect.Effect<void> = pause(100)
