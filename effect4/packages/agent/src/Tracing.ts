/**
 * Spans on hot paths, named and annotated after the OpenTelemetry semantic conventions for generative AI. Effect's
 * native tracer exports nothing, yet a span costs about as much as an in-memory round trip; `traced` makes the span
 * only when another tracer is installed (OpenTelemetry, a test's).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Tracer from "effect/Tracer"

/**
 * `Effect.withSpan(name, options())`, skipped under the native tracer. `options` (and `name`, when a function) is
 * called only when the span is made.
 *
 * @since 1.0.0
 * @category tracing
 */
export const traced =
  (name: string | (() => string), options?: () => Tracer.SpanOptions) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Tracer.Tracer.use((tracer) =>
      tracer === Tracer.nativeTracer
        ? self
        : Effect.withSpan(self, typeof name === "string" ? name : name(), options?.())
    )

const hex32 = /^[0-9a-f]{32}$/
const hex16 = /^[0-9a-f]{16}$/

/**
 * The W3C `traceparent` of a span (`00-<trace id>-<span id>-<flags>`), or `undefined` when its ids are not of
 * the W3C shape (an external span of another kind of tracer).
 *
 * @since 1.0.0
 * @category tracing
 */
export const traceparent = (span: Tracer.AnySpan): string | undefined =>
  hex32.test(span.traceId) && hex16.test(span.spanId) && !/^0+$/.test(span.traceId) && !/^0+$/.test(span.spanId)
    ? `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`
    : undefined

/**
 * Runs `f` with the current span's `traceparent` when a tracer is installed and a span is current, so that a
 * request can carry it to the process it goes to; with Effect's native tracer, which exports nothing, `f` gets
 * `undefined` at the cost of one check.
 *
 * @since 1.0.0
 * @category tracing
 */
export const withTraceparent = <A, E, R>(
  f: (traceparent: string | undefined) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Tracer.Tracer.use((tracer) =>
    tracer === Tracer.nativeTracer
      ? f(undefined)
      : Effect.flatMap(
        Effect.option(Effect.currentSpan),
        (span) => f(span._tag === "Some" ? traceparent(span.value) : undefined)
      )
  )

/**
 * `traced`, with attributes from the result added before the span ends (token usage, a tool's outcome).
 *
 * @since 1.0.0
 * @category tracing
 */
export const tracedWith = <A>(
  name: () => string,
  options: () => Tracer.SpanOptions,
  annotate: (a: A) => Record<string, unknown>
) =>
<E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Tracer.Tracer.use((tracer) =>
    tracer === Tracer.nativeTracer ? self : Effect.withSpan(
      Effect.tap(self, (a) => Effect.annotateCurrentSpan(annotate(a))),
      name(),
      options()
    )
  )

/**
 * `gen_ai.client.token.usage`: tokens per model call, with the attributes `gen_ai.token.type` (`input` or
 * `output`), `gen_ai.operation.name`, `gen_ai.provider.name` and `gen_ai.request.model`; buckets as the
 * convention advises.
 *
 * @since 1.0.0
 * @category metrics
 */
export const tokenUsage: Metric.Histogram<number> = Metric.histogram("gen_ai.client.token.usage", {
  description: "Number of input and output tokens used ({token})",
  boundaries: Metric.boundariesFromIterable([
    1,
    4,
    16,
    64,
    256,
    1024,
    4096,
    16384,
    65536,
    262144,
    1048576,
    4194304,
    16777216,
    67108864
  ])
})

/**
 * `gen_ai.client.operation.duration`: seconds per model call (until its stream ends), with `error.type` when it
 * failed; buckets as the convention advises.
 *
 * @since 1.0.0
 * @category metrics
 */
export const operationDuration: Metric.Histogram<number> = Metric.histogram("gen_ai.client.operation.duration", {
  description: "GenAI operation duration (s)",
  boundaries: Metric.boundariesFromIterable([
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92
  ])
})
