/**
 * Spans on hot paths, named and annotated after the OpenTelemetry semantic conventions for generative AI. Effect's built-in tracer exports nothing, yet a span costs about as much as an
 * in-memory round trip; `traced` makes the span only when a tracer is installed (OpenTelemetry, a test's).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import type * as Tracer from "effect/Tracer"

const builtinTracer = Effect.runSync(Effect.tracer)

/**
 * `Effect.withSpan(name, options())`, skipped under the built-in tracer. `options` (and `name`, when a function) is
 * called only when the span is made.
 *
 * @since 0.1.0
 * @category tracing
 */
export const traced = (name: string | (() => string), options?: () => Tracer.SpanOptions) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) =>
    tracer === builtinTracer ? self : Effect.withSpan(self, typeof name === "string" ? name : name(), options?.())
  )

/**
 * Whether a tracer other than Effect's built-in one is installed.
 *
 * @since 0.1.0
 * @category tracing
 */
export const isTracing: Effect.Effect<boolean> = Effect.map(Effect.tracer, (tracer) => tracer !== builtinTracer)

/**
 * `traced`, with attributes from the result added before the span ends (token usage, a tool's outcome).
 *
 * @since 0.1.0
 * @category tracing
 */
export const tracedWith = <A>(
  name: () => string,
  options: () => Tracer.SpanOptions,
  annotate: (a: A) => Record<string, unknown>
) =>
<E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) =>
    tracer === builtinTracer ? self : Effect.withSpan(
      Effect.tap(self, (a) => Effect.annotateCurrentSpan(annotate(a))),
      name(),
      options()
    )
  )

/**
 * `gen_ai.client.token.usage`: tokens per model call, tagged `gen_ai.token.type` (`input` or `output`),
 * `gen_ai.operation.name`, `gen_ai.provider.name` and `gen_ai.request.model`; buckets as the convention advises.
 *
 * @since 0.1.0
 * @category metrics
 */
export const tokenUsage = Metric.histogram(
  "gen_ai.client.token.usage",
  MetricBoundaries.fromIterable([1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]),
  "Number of input and output tokens used ({token})"
)

/**
 * `gen_ai.client.operation.duration`: seconds per model call (until its stream ends), with `error.type` when it
 * failed; buckets as the convention advises.
 *
 * @since 0.1.0
 * @category metrics
 */
export const operationDuration = Metric.histogram(
  "gen_ai.client.operation.duration",
  MetricBoundaries.fromIterable([0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]),
  "GenAI operation duration (s)"
)
