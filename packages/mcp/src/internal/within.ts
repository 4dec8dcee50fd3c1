/** @internal */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"

// The clock every runtime gets unless a test (TestClock) or the application provides another one.
const defaultClock = Effect.runSync(Effect.clock)

// setTimeout's limit; a longer limit takes the general path.
const maxTimerMillis = 2_147_483_647

/**
 * `Effect.timeoutFail` forks two fibers per use (the effect and a sleeping timer) and races them: on a warm
 * tool call that is about as much CPU as the rest of Zett's call path together. Under the default clock
 * the timer can be a plain `setTimeout`, so only the effect is forked. Same outcome: the effect's result,
 * or, once `millis` have passed, the effect is interrupted (and awaited) and `onTimeout` fails.
 */
const withTimer = <A, E, R, E2>(
  effect: Effect.Effect<A, E, R>,
  millis: number,
  onTimeout: () => E2
): Effect.Effect<A, E | E2, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.fork(restore(effect)), (fiber) =>
      Effect.flatMap(
        restore(Effect.async<boolean>((resume) => {
          const timer = setTimeout(() => {
            fiber.removeObserver(finished)
            resume(Effect.succeed(false))
          }, millis)
          const finished = () => {
            clearTimeout(timer)
            resume(Effect.succeed(true))
          }
          fiber.addObserver(finished)
          return Effect.sync(() => {
            clearTimeout(timer)
            fiber.removeObserver(finished)
          })
        })).pipe(Effect.onInterrupt(() => Fiber.interrupt(fiber))),
        (done): Effect.Effect<A, E | E2> =>
          done ? Fiber.join(fiber) : Effect.zipRight(Fiber.interrupt(fiber), Effect.fail(onTimeout()))
      ))
  )

/** `Effect.timeoutFail` when a limit is set; a disabled (`null`) limit leaves the effect as it is. */
export const within = <A, E, R, E2>(
  effect: Effect.Effect<A, E, R>,
  limit: Option.Option<Duration.Duration>,
  onTimeout: (limit: Duration.Duration) => E2
): Effect.Effect<A, E | E2, R> => {
  if (Option.isNone(limit)) return effect
  const duration = limit.value
  const millis = Duration.toMillis(duration)
  const general = () => Effect.timeoutFail(effect, { duration, onTimeout: () => onTimeout(duration) })
  if (!(millis >= 0 && millis <= maxTimerMillis)) return general()
  return Effect.clockWith((clock) =>
    clock === defaultClock ? withTimer(effect, millis, () => onTimeout(duration)) : general()
  )
}
