/**
 * The result of an `effect/ai` toolkit handler: Effect 4's `Toolkit.handle` streams a call's results (preliminary ones
 * first); the last is the call's, what Effect 3's handler gave at once.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

export const last = <A, E, R, E2, R2>(handle: Effect.Effect<Stream.Stream<A, E, R>, E2, R2>) =>
  Effect.flatMap(handle, (stream) => Effect.map(Stream.runCollect(stream), (results) => results.at(-1)!))
