/** @internal */
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"

// Effect's built-in tracer exports nothing, yet a span costs about as much as an in-memory round trip; on
// per-call paths the span is made only when a tracer is installed (OpenTelemetry, a test's).
const builtinTracer = Effect.runSync(Effect.tracer)

/** `Effect.withSpan`, skipped under the built-in tracer. */
export const traced = (name: string, options?: () => Tracer.SpanOptions) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.tracerWith((tracer) => tracer === builtinTracer ? self : Effect.withSpan(self, name, options?.()))
