/** @internal */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** `Effect.timeoutFail` when a limit is set; a disabled (`null`) limit leaves the effect as it is. */
export const within = <A, E, R, E2>(
  effect: Effect.Effect<A, E, R>,
  limit: Option.Option<Duration.Duration>,
  onTimeout: (limit: Duration.Duration) => E2
): Effect.Effect<A, E | E2, R> =>
  Option.isNone(limit)
    ? effect
    : Effect.timeoutFail(effect, { duration: limit.value, onTimeout: () => onTimeout(limit.value) })
