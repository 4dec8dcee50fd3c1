/**
 * A deterministic model for tests and offline examples, so they run without a provider: a list of steps, each answering
 * one request.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { ToolCall, Usage } from "./Message.js"
import { Model, ModelError } from "./Model.js"
import type { ModelEvent, ModelRequest } from "./Model.js"

/**
 * What one step answers: text, tool calls, or both.
 *
 * @since 1.0.0
 * @category models
 */
export interface Reply {
  readonly text?: string | undefined
  readonly toolCalls?: ReadonlyArray<{
    readonly id?: string
    readonly name: string
    readonly arguments?: unknown
    /** A call whose argument text could not be read, as a provider reports it: why. */
    readonly invalidArguments?: string
  }>
  readonly usage?: {
    readonly inputTokens: number
    readonly outputTokens: number
    readonly cachedInputTokens?: number
  } | undefined
}

/**
 * A fixed reply, or a function of the request the step receives.
 *
 * @since 1.0.0
 * @category models
 */
export type Step = Reply | ((request: ModelRequest) => Reply | Effect.Effect<Reply, ModelError>)

// the script is typed: checking each call's fields again would cost a Schema parse per call
const trusted = { disableChecks: true } as const

const events = (reply: Reply, request: number): ReadonlyArray<ModelEvent> => {
  const out: Array<ModelEvent> = []
  if (reply.text !== undefined && reply.text !== "") out.push({ _tag: "TextDelta", text: reply.text })
  reply.toolCalls?.forEach((call, i) =>
    out.push({
      _tag: "ToolCall",
      call: new ToolCall({
        id: call.id ?? `call_${request}_${i}`,
        name: call.name,
        arguments: call.arguments ?? {},
        ...(call.invalidArguments !== undefined ? { invalidArguments: call.invalidArguments } : {})
      }, trusted)
    })
  )
  out.push({
    _tag: "Finish",
    reason: reply.toolCalls?.length ? "tool_calls" : "stop",
    usage: new Usage(reply.usage ?? { inputTokens: 0, outputTokens: 0 }, trusted)
  })
  return out
}

/**
 * Answers the n-th request with the n-th step. With `loop`, steps repeat; otherwise a request past the last
 * step fails with a `ModelError`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (
  steps: ReadonlyArray<Step>,
  options?: { readonly loop?: boolean | undefined }
): Model["Service"] => {
  let index = 0
  return Model.of({
    // the step is taken when the stream runs, and its events are one array: Effect 4's `fromArrayEffect`, where the
    // Effect 3 line pulled a chunk through `repeatEffectChunkOption` by hand
    stream: (request) =>
      Stream.fromArrayEffect(Effect.suspend(() => {
        const n = index++
        if (steps.length === 0 || (n >= steps.length && options?.loop !== true)) {
          const description = `the script has no step for request ${n + 1}`
          return Effect.fail(new ModelError({ reason: "ScriptEnded", description }))
        }
        const step = steps[n % steps.length]!
        const reply = typeof step === "function" ? step(request) : step
        return Effect.map(Effect.isEffect(reply) ? reply : Effect.succeed(reply), (reply) => events(reply, n + 1))
      }))
  })
}

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  steps: ReadonlyArray<Step>,
  options?: { readonly loop?: boolean | undefined }
): Layer.Layer<Model> => Layer.sync(Model, () => make(steps, options))
