/**
 * A tracer that keeps every span it makes: Effect's built-in spans (so their names, kinds and attributes are
 * recorded), for tests that check what an exporter would see.
 */
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"

export const make: Effect.Effect<{ readonly spans: Array<Tracer.Span>; readonly tracer: Tracer.Tracer }> = Effect.map(
  Effect.tracer,
  (native) => {
    const spans: Array<Tracer.Span> = []
    const tracer = Tracer.make({
      span: (...args) => {
        const span = native.span(...args)
        spans.push(span)
        return span
      },
      context: (f, fiber) => native.context(f, fiber)
    })
    return { spans, tracer }
  }
)
