/**
 * A tracer that keeps every span it makes: Effect's built-in spans (so their names, kinds and attributes are
 * recorded), for tests that check what an exporter would see (the 3 line's `@zett/testing/RecordingTracer` on
 * Effect 4, as `@zett/agent`'s tests have it).
 */
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

export const make: Effect.Effect<{ readonly spans: Array<Tracer.Span>; readonly tracer: Tracer.Tracer }> = Effect
  .sync(() => {
    const spans: Array<Tracer.Span> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = Tracer.nativeTracer.span(options)
        spans.push(span)
        return span
      }
    })
    return { spans, tracer }
  })
