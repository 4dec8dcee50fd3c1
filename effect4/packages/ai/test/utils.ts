/**
 * A language model made by `effect/ai`'s own `LanguageModel.make` that answers each request with the next step of a
 * script (stream parts as a provider module emits them, then an optional failure) and records what the provider
 * would be sent; `AiModel` on it.
 */
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { AiError, LanguageModel, type Prompt, type Response, Tool } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

export interface Step {
  readonly parts?: ReadonlyArray<Response.StreamPartEncoded> | undefined
  /** What the stream fails with after its parts. */
  readonly fail?: AiError.AiError | undefined
}

export interface Seen {
  readonly prompt: Prompt.Prompt
  readonly tools: ReadonlyArray<
    { readonly name: string; readonly description: string | undefined; readonly parameters: unknown }
  >
}

export const usage = (input: number, output: number, cached?: number) => ({
  inputTokens: { total: input, ...(cached !== undefined ? { cacheRead: cached } : {}) },
  outputTokens: { total: output }
})

export const text = (...pieces: ReadonlyArray<string>): Step => ({
  parts: [
    ...pieces.map((delta): Response.StreamPartEncoded => ({ type: "text-delta", id: "t1", delta })),
    { type: "finish", reason: "stop", usage: usage(10, pieces.length) }
  ]
})

export const calls = (
  ...list: ReadonlyArray<{ readonly id: string; readonly name: string; readonly params: unknown }>
): Step => ({
  parts: [
    ...list.flatMap((call): Array<Response.StreamPartEncoded> => [
      { type: "tool-params-start", id: call.id, name: call.name },
      { type: "tool-params-end", id: call.id },
      { type: "tool-call", id: call.id, name: call.name, params: call.params }
    ]),
    { type: "finish", reason: "tool-calls", usage: usage(10, 1) }
  ]
})

/** An HTTP answer that is not 2xx, as a provider module reports it. */
export const httpFailure = (status: number, body: string, headers: Record<string, string> = {}): AiError.AiError =>
  AiError.make({
    module: "FakeProvider",
    method: "streamText",
    reason: AiError.reasonFromHttpStatus({ status, http: { response: { status, headers }, body } })
  })

export const networkFailure = (url: string, description: string): AiError.AiError =>
  AiError.make({
    module: "FakeProvider",
    method: "streamText",
    reason: new AiError.NetworkError({ reason: "TransportError", method: "POST", url, description })
  })

/** The scripted language model, and what each request would have sent. */
export const scripted = (steps: ReadonlyArray<Step>) => {
  const seen: Array<Seen> = []
  const stream = (options: LanguageModel.ProviderOptions): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
    Stream.suspend(() => {
      seen.push({
        prompt: options.prompt,
        tools: options.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parameters: Tool.getJsonSchema(tool)
        }))
      })
      const step = steps[Math.min(seen.length - 1, steps.length - 1)]!
      const parts = Stream.fromIterable(step.parts ?? [])
      return step.fail === undefined ? parts : Stream.concat(parts, Stream.fail(step.fail))
    })
  const languageModel = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      streamText: stream,
      generateText: () => Effect.die("not generated")
    })
  )
  return { seen, languageModel }
}

/** `AiModel.layer` on the scripted language model. */
export const modelOn = (
  steps: ReadonlyArray<Step>,
  options: AiModel.Options = {}
): { readonly seen: Array<Seen>; readonly layer: Layer.Layer<Model.Model> } => {
  const { languageModel, seen } = scripted(steps)
  return { seen, layer: AiModel.layer(options).pipe(Layer.provide(languageModel)) }
}
