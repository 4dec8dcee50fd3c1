/**
 * An `effect/ai` `LanguageModel` for Google's Gemini API, streamed (`streamGenerateContent`).
 *
 * Written here because Effect 4 has no Gemini provider: `@effect/ai-google` has releases for the Effect 3 line
 * only (0.x), none for Effect 4. Delete this package when an `@effect/ai-google` runs on `effect` 4.1.
 *
 * @since 1.0.0
 */
import * as AiProvider from "@zett/ai/AiProvider"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Stream from "effect/Stream"
import { type GenerateContentChunk, GoogleClient } from "./GoogleClient.js"

type Part =
  | { readonly text: string }
  | { readonly functionCall: { readonly id?: string; readonly name: string; readonly args: unknown } }
  | { readonly functionResponse: { readonly id?: string; readonly name: string; readonly response: unknown } }

interface Content {
  readonly role: "user" | "model"
  readonly parts: Array<Part>
}

/** The prompt as Gemini's `contents` (consecutive messages of one role are one turn) and its system instruction. */
const toContents = (prompt: Prompt.Prompt): { system: string; contents: Array<Content> } => {
  const { system, turns } = AiProvider.toTurns<Part>(prompt, {
    text: (text) => ({ text }),
    toolCall: (call) => ({ functionCall: { id: call.id, name: call.name, args: call.params ?? {} } }),
    toolResult: (result) => ({
      functionResponse: { id: result.id, name: result.name, response: { result: result.result ?? null } }
    })
  })
  return {
    system: system.join("\n\n"),
    contents: turns.map((turn) => ({ role: turn.role === "assistant" ? "model" : "user", parts: turn.parts }))
  }
}

const body = (options: LanguageModel.ProviderOptions) => {
  const { contents, system } = toContents(options.prompt)
  return {
    contents,
    ...(system !== "" ? { systemInstruction: { parts: [{ text: system }] } } : {}),
    ...(options.tools.length > 0
      ? {
        tools: [{
          // JSON Schema as the agent holds it (Gemini's `parameters` takes only an OpenAPI subset)
          functionDeclarations: AiProvider.toolDeclarations(options.tools).map(({ parameters, ...tool }) => ({
            ...tool,
            parametersJsonSchema: parameters
          }))
        }]
      }
      : {})
  }
}

const finishReasons: Record<string, Response.FinishReason> = {
  STOP: "stop",
  MAX_TOKENS: "length",
  SAFETY: "content-filter",
  RECITATION: "content-filter",
  BLOCKLIST: "content-filter",
  PROHIBITED_CONTENT: "content-filter",
  MALFORMED_FUNCTION_CALL: "error"
}

/**
 * Folds the chunks of one streamed answer into `effect/ai` parts: text (thoughts left out), each function call
 * whole as Gemini sends it (an id made up where Gemini gives none), the finish with the usage.
 */
const makeDecoder = (): AiProvider.Decoder<GenerateContentChunk> => {
  let textId: string | undefined
  let calls = 0
  let finish: Response.FinishReason | undefined
  let usage: GenerateContentChunk["usageMetadata"]
  const onChunk = (chunk: GenerateContentChunk): Array<Response.StreamPartEncoded> => {
    const parts: Array<Response.StreamPartEncoded> = []
    if (chunk.error !== undefined && chunk.error !== null) parts.push({ type: "error", error: chunk.error })
    if (chunk.usageMetadata !== undefined) usage = chunk.usageMetadata
    for (const candidate of chunk.candidates ?? []) {
      for (const part of candidate.content?.parts ?? []) {
        if (typeof part.text === "string" && part.text !== "" && part.thought !== true) {
          if (textId === undefined) {
            textId = "text_0"
            parts.push({ type: "text-start", id: textId })
          }
          parts.push({ type: "text-delta", id: textId, delta: part.text })
        } else if (typeof part.functionCall === "object" && part.functionCall !== null) {
          const call = part.functionCall as { id?: string; name?: string; args?: unknown }
          const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${calls}`
          calls++
          parts.push({ type: "tool-call", id, name: call.name ?? "", params: call.args ?? {} })
        }
      }
      if (typeof candidate.finishReason === "string") finish = finishReasons[candidate.finishReason] ?? "other"
    }
    return parts
  }
  const onEnd = () =>
    Stream.fromIterable([
      ...(textId !== undefined ? [{ type: "text-end" as const, id: textId }] : []),
      AiProvider.finishPart(calls > 0 ? "tool-calls" : finish ?? "stop", {
        input: usage?.promptTokenCount,
        output: usage?.candidatesTokenCount,
        cached: usage?.cachedContentTokenCount
      })
    ])
  return { onChunk, onEnd }
}

/**
 * `make` and `layer` build the `LanguageModel` of a model (`gemini-2.5-flash`) on the `GoogleClient`;
 * `model(name)` is it as `effect/ai`'s `Model`, like `OpenAiLanguageModel.model`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const { layer, make, model } = AiProvider.streamingModel("google", GoogleClient, {
  request: (client, model, options) => client.streamGenerateContent(model, body(options)),
  decoder: makeDecoder
})
