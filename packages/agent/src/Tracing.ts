/**
 * Spans on hot paths. Effect's built-in tracer exports nothing, yet a span costs about as much as an
 * in-memory round trip; `traced` makes the span only when a tracer is installed (OpenTelemetry, a test's).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"

const builtinTracer = Effect.runSync(Effect.tracer)

/**
 * `Effect.withSpan(name, options())`, skipped under the built-in tracer. `options` is called only when the span
 * is made.
 *
 * @since 0.1.0
 * @category tracing
 */
export const traced = (name: string, options?: () => Tracer.SpanOptions) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) => tracer === builtinTracer ? self : Effect.withSpan(self, name, options?.()))
