import { Agent, type Extension, ScriptedModel } from "@zett/agent"
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"

/** A tracer that keeps every span it makes (the built-in tracer's spans, so their attributes are recorded). */
export const recordingTracer: Effect.Effect<{ readonly spans: Array<Tracer.Span>; readonly tracer: Tracer.Tracer }> =
  Effect.sync(() => {
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

/** An extension that records every hook it sees, in order, into `log`. */
export const recorder = (name: string, log: Array<string>): Extension.Extension => {
  const note = (entry: string) => Effect.sync(() => void log.push(entry))
  return {
    name,
    onMessage: () => note("onMessage"),
    beforeRun: () => note("beforeRun"),
    beforeTurn: () => note("beforeTurn"),
    onTool: () => note("onTool"),
    onState: () => note("onState"),
    beforeModel: () => note("beforeModel"),
    onModelRequest: (_context, request, next): Stream.Stream<any, any> => {
      log.push("onModelRequest")
      return next(request)
    },
    afterModel: () => note("afterModel"),
    beforeTool: (_context, call) => note(`beforeTool:${call.name}`),
    onToolCall: (_context, call, next) => Effect.andThen(note(`onToolCall:${call.name}`), next(call)),
    afterTool: (_context, call, result) => note(`afterTool:${call.name}:${result.status}`),
    afterTurn: () => note("afterTurn"),
    afterRun: () => note("afterRun"),
    onSuccess: () => note("onSuccess"),
    onError: () => note("onError"),
    onEvent: (_context, event) => note(`onEvent:${event._tag}`),
    onCompact: () => note("onCompact"),
    afterCompact: () => note("afterCompact")
  }
}

/** Builds an agent over a scripted model. */
export const agentWith = (steps: ReadonlyArray<ScriptedModel.Step>, options: Agent.Options = {}) =>
  Agent.make(options).pipe(Effect.provide(ScriptedModel.layer(steps)))
