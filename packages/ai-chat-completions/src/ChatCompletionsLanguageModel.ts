/**
 * An `@effect/ai` `LanguageModel` for OpenAI-compatible servers that speak only Chat Completions
 * (`POST {apiUrl}/chat/completions`, streamed): llama.cpp's server, LM Studio, vLLM, Ollama, most gateways.
 *
 * Written here because no `@effect/ai` provider on the Effect 3 line does it: `@effect/ai-openai` 0.41 calls the
 * Responses API only, and `@effect/ai-openrouter` (which speaks Chat Completions, with OpenRouter's own
 * extensions) has no release for `@effect/ai` 0.37 (its newest, 0.10.1, wants `^0.35.0`).
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as AiProvider from "@zett/ai/AiProvider"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { type ChatChunk, ChatCompletionsClient, type ChunkUsage } from "./ChatCompletionsClient.js"

const module = "ChatCompletionsLanguageModel"

// -----------------------------------------------------------------------------
// request
// -----------------------------------------------------------------------------

type ChatMessage =
  | { readonly role: "system" | "user"; readonly content: string }
  | {
    readonly role: "assistant"
    readonly content: string | null
    readonly tool_calls?: ReadonlyArray<{
      readonly id: string
      readonly type: "function"
      readonly function: { readonly name: string; readonly arguments: string }
    }>
  }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

const textOf = (parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>): string =>
  parts.flatMap((part) => part.type === "text" || part.type === "reasoning" ? [part.text ?? ""] : []).join("")

const resultText = (result: unknown): string => typeof result === "string" ? result : JSON.stringify(result ?? null)

/** @internal */
export const toMessages = (prompt: Prompt.Prompt): Array<ChatMessage> =>
  prompt.content.flatMap((message): Array<ChatMessage> => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }]
      case "user":
        return [{ role: "user", content: textOf(message.content) }]
      case "assistant": {
        const calls = message.content.flatMap((part) =>
          part.type === "tool-call" && !part.providerExecuted
            ? [{
              id: part.id,
              type: "function" as const,
              function: { name: part.name, arguments: JSON.stringify(part.params ?? {}) }
            }]
            : []
        )
        const text = textOf(message.content.filter((part) => part.type === "text"))
        return [{
          role: "assistant",
          content: text === "" ? null : text,
          ...(calls.length > 0 ? { tool_calls: calls } : {})
        }]
      }
      case "tool":
        return message.content.map((part) => ({
          role: "tool",
          tool_call_id: part.id,
          content: resultText(part.result)
        }))
    }
  })

const toolChoiceOf = (choice: LanguageModel.ProviderOptions["toolChoice"]): unknown => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { type: "function", function: { name: choice.tool } }
  return choice.mode ?? "auto"
}

const body = (model: string, options: LanguageModel.ProviderOptions) => ({
  model,
  messages: toMessages(options.prompt),
  ...(options.tools.length > 0
    ? {
      tools: AiProvider.toolDeclarations(options.tools).map((tool) => ({ type: "function", function: tool })),
      tool_choice: toolChoiceOf(options.toolChoice)
    }
    : {})
})

// -----------------------------------------------------------------------------
// response
// -----------------------------------------------------------------------------

const finishReasons: Record<string, Response.FinishReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  function_call: "tool-calls",
  content_filter: "content-filter"
}

interface OpenCall {
  id: string
  name: string
  text: string
}

/**
 * Folds the chunks of one streamed answer into `@effect/ai` parts. Tool calls arrive as deltas keyed by `index`
 * (the id and name in the first, the argument text in pieces, several calls interleaved); each becomes a
 * `tool-call` once the answer finishes. Argument text that is not JSON fails the stream as `@effect/ai-openai`
 * does (`MalformedOutput`, "Failed to securely parse tool call parameters ..."), after the calls that parse.
 */
const makeDecoder = (): AiProvider.Decoder<ChatChunk> => {
  const calls = new Map<number, OpenCall>()
  let textId: string | undefined
  let finish: Response.FinishReason | undefined
  let usage: ChunkUsage | undefined
  let sawFinish = false
  let nextText = 0

  const onChunk = (chunk: ChatChunk): Array<Response.StreamPartEncoded> => {
    const parts: Array<Response.StreamPartEncoded> = []
    if (chunk.error !== undefined && chunk.error !== null) parts.push({ type: "error", error: chunk.error })
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta
      const content = delta?.content
      if (typeof content === "string" && content !== "") {
        if (textId === undefined) {
          textId = `text_${nextText++}`
          parts.push({ type: "text-start", id: textId })
        }
        parts.push({ type: "text-delta", id: textId, delta: content })
      }
      for (const call of delta?.tool_calls ?? []) {
        const index = call.index ?? calls.size
        let open = calls.get(index)
        if (open === undefined) {
          open = { id: call.id ?? `call_${index}`, name: call.function?.name ?? "", text: "" }
          calls.set(index, open)
          parts.push({ type: "tool-params-start", id: open.id, name: open.name })
        } else if (typeof call.function?.name === "string" && open.name === "") {
          open.name = call.function.name
        }
        const piece = call.function?.arguments
        if (typeof piece === "string" && piece !== "") {
          open.text += piece
          parts.push({ type: "tool-params-delta", id: open.id, delta: piece })
        }
      }
      if (typeof choice.finish_reason === "string") {
        sawFinish = true
        finish = finishReasons[choice.finish_reason] ?? "other"
      }
    }
    return parts
  }

  const onEnd = (): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
    Stream.suspend(() => {
      const parts: Array<Response.StreamPartEncoded> = []
      if (textId !== undefined) parts.push({ type: "text-end", id: textId })
      let unparsed: AiError.AiError | undefined
      for (const call of calls.values()) {
        // a call that does not parse stays open: the id of the call repaired from the failure comes from it
        Either.match(AiProvider.toolCallParts(module, call), {
          onLeft: (error) => void (unparsed ??= error),
          onRight: (done) => done.forEach((part) => parts.push(part))
        })
      }
      if (unparsed !== undefined) return Stream.concat(Stream.fromIterable(parts), Stream.fail(unparsed))
      if (!sawFinish && calls.size === 0 && textId === undefined && usage === undefined) {
        return Stream.fail(AiProvider.malformedOutput(module, "the stream ended without an answer"))
      }
      parts.push(AiProvider.finishPart(finish ?? (calls.size > 0 ? "tool-calls" : "stop"), {
        input: usage?.prompt_tokens,
        output: usage?.completion_tokens,
        total: usage?.total_tokens,
        cached: usage?.prompt_tokens_details?.cached_tokens
      }))
      return Stream.fromIterable(parts)
    })

  return { onChunk, onEnd }
}

/**
 * `make` and `layer` build the `LanguageModel` of a model (the model as the server names it, e.g. `qwen2.5:7b`) on
 * the `ChatCompletionsClient`; `model(name)` is it as `@effect/ai`'s `Model`, like `OpenAiLanguageModel.model`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const { layer, make, model } = AiProvider.streamingModel("chat-completions", ChatCompletionsClient, {
  request: (client, model, options) => client.createChatCompletionStream(body(model, options)),
  decoder: makeDecoder
})
