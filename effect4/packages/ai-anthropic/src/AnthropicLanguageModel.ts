/**
 * An `effect/ai` `LanguageModel` for Anthropic's Messages API, streamed. Under MCP tool search (with `AiModel`'s
 * `deferLoading`), the tools the search holds back are sent with `defer_loading: true` and each result of the
 * search tool goes back as `tool_reference` blocks, which the API expands into the found tools' definitions
 * (Anthropic's deferred loading, with Zett's `search_tools` as the client-side search).
 *
 * Written here because Effect 4 has no Anthropic provider that runs on `effect` 4.1: the `@effect/ai-anthropic`
 * betas (4.0.0-beta.106) import modules 4.1 does not have. Delete this package when one runs.
 *
 * @since 1.0.0
 */
import { AiModel, AiProvider } from "@zett/ai"
import { ToolSearch } from "@zett/common"
import type * as AiError from "effect/ai/AiError"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { AnthropicClient, type MessageStreamEvent, type Usage } from "./AnthropicClient.js"

const module = "AnthropicLanguageModel"

/**
 * The beta of the Messages API that deferred loading and `tool_reference` blocks are part of, sent with a request
 * that defers tools.
 *
 * @since 1.0.0
 * @category deferred loading
 */
export const toolSearchBeta = "advanced-tool-use-2025-11-20"

/**
 * The answer's length limit (`max_tokens`, which the Messages API requires).
 *
 * @since 1.0.0
 * @category constants
 */
export const maxTokens = 8192

interface Deferred {
  readonly names: ReadonlySet<string>
  readonly toolSearch: string | undefined
}

type Block =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  | {
    readonly type: "tool_result"
    readonly tool_use_id: string
    readonly content: string | ReadonlyArray<{ readonly type: "tool_reference"; readonly tool_name: string }>
    readonly is_error?: boolean
  }

const toolResult = (result: Prompt.ToolResultPart, deferred: Deferred | undefined): Block => {
  const found = deferred !== undefined && !result.isFailure && result.name === deferred.toolSearch
    ? ToolSearch.loadedNames(result.result).filter((name) => deferred.names.has(name))
    : []
  return {
    type: "tool_result",
    tool_use_id: result.id,
    content: found.length > 0
      ? found.map((name) => ({ type: "tool_reference" as const, tool_name: name }))
      : typeof result.result === "string"
      ? result.result
      : JSON.stringify(result.result ?? null),
    ...(result.isFailure ? { is_error: true } : {})
  }
}

const body = (model: string, options: LanguageModel.ProviderOptions, deferred: Deferred | undefined) => {
  const { system, turns } = AiProvider.toTurns<Block>(options.prompt, {
    text: (text) => ({ type: "text", text }),
    toolCall: (call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.params ?? {} }),
    toolResult: (result) => toolResult(result, deferred)
  })
  return {
    model,
    max_tokens: maxTokens,
    ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
    messages: turns.map((turn) => ({ role: turn.role, content: turn.parts })),
    ...(options.tools.length > 0
      ? {
        tools: AiProvider.toolDeclarations(options.tools).map(({ parameters, ...tool }) => ({
          ...tool,
          input_schema: parameters,
          ...(deferred?.names.has(tool.name) === true ? { defer_loading: true } : {})
        }))
      }
      : {})
  }
}

const finishReasons: Record<string, Response.FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool-calls",
  refusal: "content-filter"
}

interface OpenCall {
  readonly id: string
  readonly name: string
  text: string
}

/**
 * Folds the events of one streamed answer into `effect/ai` parts: text blocks as they stream, each `tool_use` block
 * a `tool-call` once its argument text is whole, the finish with the usage of `message_start` and `message_delta`.
 * Argument text that is not JSON fails the stream (`InvalidOutputError`, "Failed to securely parse tool call
 * parameters ..."), after the calls that parse.
 */
const makeDecoder = (): AiProvider.Decoder<MessageStreamEvent> => {
  const calls = new Map<number, OpenCall>()
  const texts = new Map<number, string>()
  const done: Array<OpenCall> = []
  let usage: Usage = {}
  let finish: Response.FinishReason | undefined
  let unparsed: AiError.AiError | undefined
  let started = false

  const onChunk = (event: MessageStreamEvent): ReadonlyArray<Response.StreamPartEncoded> => {
    const index = event.index ?? 0
    switch (event.type) {
      case "message_start":
        started = true
        usage = { ...usage, ...event.message?.usage }
        return []
      case "content_block_start": {
        const block = event.content_block
        if (block?.type === "text") {
          const id = `text_${index}`
          texts.set(index, id)
          return block.text !== undefined && block.text !== ""
            ? [{ type: "text-start", id }, { type: "text-delta", id, delta: block.text }]
            : [{ type: "text-start", id }]
        }
        if (block?.type === "tool_use") {
          const call = { id: block.id ?? `call_${index}`, name: block.name ?? "", text: "" }
          calls.set(index, call)
          return [{ type: "tool-params-start", id: call.id, name: call.name }]
        }
        return []
      }
      case "content_block_delta": {
        const delta = event.delta
        const text = texts.get(index)
        if (delta?.type === "text_delta" && text !== undefined && typeof delta.text === "string" && delta.text !== "") {
          return [{ type: "text-delta", id: text, delta: delta.text }]
        }
        const call = calls.get(index)
        if (delta?.type === "input_json_delta" && call !== undefined && typeof delta.partial_json === "string") {
          call.text += delta.partial_json
          return delta.partial_json === ""
            ? []
            : [{ type: "tool-params-delta", id: call.id, delta: delta.partial_json }]
        }
        return []
      }
      case "content_block_stop": {
        const text = texts.get(index)
        if (text !== undefined) {
          texts.delete(index)
          return [{ type: "text-end", id: text }]
        }
        const call = calls.get(index)
        if (call === undefined) return []
        calls.delete(index)
        done.push(call)
        // a call that does not parse stays open: the id of the call repaired from the failure comes from it
        return Result.match(AiProvider.toolCallParts(module, call), {
          onFailure: (error) => (unparsed ??= error, []),
          onSuccess: (parts) => parts
        })
      }
      case "message_delta":
        if (typeof event.delta?.stop_reason === "string") finish = finishReasons[event.delta.stop_reason] ?? "other"
        usage = { ...usage, ...event.usage }
        return []
      case "error":
        return [{ type: "error", error: event.error }]
      default:
        return []
    }
  }

  const onEnd = (): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
    Stream.suspend(() => {
      if (unparsed !== undefined) return Stream.fail(unparsed)
      if (!started) return Stream.fail(AiProvider.malformedOutput(module, "the stream ended without an answer"))
      return Stream.make(
        AiProvider.finishPart(finish ?? (done.length > 0 ? "tool-calls" : "stop"), {
          input: usage.input_tokens ?? undefined,
          output: usage.output_tokens ?? undefined,
          cached: usage.cache_read_input_tokens ?? undefined
        })
      )
    })

  return { onChunk, onEnd }
}

/**
 * `make` and `layer` build the `LanguageModel` of a model (`claude-sonnet-4-5`) on the `AnthropicClient`;
 * `model(name)` is it as `effect/ai`'s `Model`, like `OpenAiLanguageModel.model`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const { layer, make, model } = AiProvider.streamingModel("anthropic", AnthropicClient, {
  request: (client, model, options) =>
    Stream.unwrap(Effect.gen(function*() {
      const deferred = yield* AiModel.DeferredTools
      const sent = body(model, options, deferred)
      const defers = sent.tools?.some((tool) => "defer_loading" in tool) === true
      return client.createMessageStream(sent, defers ? [toolSearchBeta] : [])
    })),
  decoder: makeDecoder
})
