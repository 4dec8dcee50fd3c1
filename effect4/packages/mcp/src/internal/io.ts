/**
 * @internal
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

// Node's (and Bun's, Deno's): the package is compiled without Node's types
declare const setImmediate: (callback: () => void) => unknown
declare const clearImmediate: (handle: unknown) => void

/**
 * Fails with `onTimeout` when `effect` has not finished `duration` after it started and after one more turn of
 * the event loop's I/O. A process whose event loop was blocked past the deadline runs its expired timers
 * before it reads its sockets: a plain timeout would then fail a command whose reply has already arrived.
 */
export const timeoutAfterIo = <A, E, E2>(
  effect: Effect.Effect<A, E>,
  duration: Duration.Input,
  onTimeout: () => E2
): Effect.Effect<A, E | E2> =>
  Effect.raceFirst(
    effect,
    Effect.sleep(duration).pipe(
      Effect.andThen(Effect.callback<void>((resume) => {
        // setImmediate runs after the poll phase, i.e. after the replies waiting in the sockets were read
        const handle = setImmediate(() => resume(Effect.void))
        return Effect.sync(() => clearImmediate(handle))
      })),
      Effect.andThen(Effect.sync(onTimeout)),
      Effect.flip,
      // the timer may always be stopped, also when the command runs in an uninterruptible region
      Effect.interruptible
    )
  )
