/**
 * An `effect/ai` `LanguageModel` for Anthropic's Messages API, streamed. Under MCP tool search (with `AiModel`'s
 * `deferLoading`), the tools the search holds back are sent with `defer_loading: true` and each result of the
 * search tool goes back as `tool_reference` blocks, which the API expands into the found tools' definitions
 * (Anthropic's deferred loading, with Zett's `search_tools` as the client-side search). With `hostedSearch`, the
 * API runs its own search instead (the `tool_search_tool_bm25` or `_regex` server tool): its blocks of an answer are
 * kept by the model (one per layer, up to 1,000 answers) and sent back before the call that followed them in every
 * later request of the run.
 *
 * Written here because Effect 4 has no Anthropic provider that runs on `effect` 4.1: the `@effect/ai-anthropic`
 * betas (4.0.0-beta.106) import modules 4.1 does not have. Delete this package when one runs.
 *
 * @since 1.0.0
 */
import * as AiModel from "@zett/ai/AiModel"
import * as AiProvider from "@zett/ai/AiProvider"
import * as HostedToolSearch from "@zett/common/HostedToolSearch"
import * as ToolSearch from "@zett/common/ToolSearch"
import type * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
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

interface Hosted {
  readonly variant: HostedToolSearch.AnthropicVariant
  readonly replay: HostedToolSearch.Replay<HostedToolSearch.AnthropicKept>
}

const body = (
  model: string,
  options: LanguageModel.ProviderOptions,
  deferred: Deferred | undefined,
  hosted: Hosted | undefined
) => {
  const { system, turns } = AiProvider.toTurns<Block>(options.prompt, {
    text: (text) => ({ type: "text", text }),
    toolCall: (call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.params ?? {} }),
    toolResult: (result) => toolResult(result, deferred)
  })
  const declared = AiProvider.toolDeclarations(options.tools)
  // the API's own search replaces the search tool, when the request has one
  const search = hosted !== undefined && declared.some((tool) => tool.name === deferred?.toolSearch)
    ? { ...hosted, from: deferred!.toolSearch!, tool: HostedToolSearch.anthropicTool(hosted.variant) }
    : undefined
  const text = system.join("\n\n")
  return {
    model,
    max_tokens: maxTokens,
    ...(system.length > 0
      ? { system: search === undefined ? text : HostedToolSearch.renamed(text, search.from, search.tool.name) }
      : {}),
    messages: turns.map((turn) => ({
      role: turn.role,
      content: search !== undefined && turn.role === "assistant"
        ? HostedToolSearch.withAnthropicKept(turn.parts, search.replay)
        : turn.parts
    })),
    ...(options.tools.length > 0
      ? {
        tools: declared.map(({ parameters, ...tool }) =>
          search !== undefined && tool.name === search.from ? search.tool : {
            ...tool,
            input_schema: parameters,
            ...(deferred?.names.has(tool.name) === true ? { defer_loading: true } : {})
          }
        )
      }
      : {})
  }
}

const finishReasons: Record<string, Response.FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool-calls",
  refusal: "content-filter",
  // the API's own tools ran long and it stopped to be sent the answer again
  pause_turn: "pause"
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
  const state: DecoderState = {
    calls: new Map(),
    texts: new Map(),
    done: [],
    usage: {},
    finish: undefined,
    unparsed: undefined,
    started: false
  }
  return { onChunk: (event) => decode(state, event), onEnd: () => end(state) }
}

/** One streamed answer while it is folded: the blocks open, the calls done, and the usage and finish so far. */
interface DecoderState {
  readonly calls: Map<number, OpenCall>
  readonly texts: Map<number, string>
  readonly done: Array<OpenCall>
  usage: Usage
  finish: Response.FinishReason | undefined
  /** The first call whose argument text did not parse: the stream fails with it at its end. */
  unparsed: AiError.AiError | undefined
  started: boolean
}

const decode = (state: DecoderState, event: MessageStreamEvent): ReadonlyArray<Response.StreamPartEncoded> => {
  const index = event.index ?? 0
  switch (event.type) {
    case "message_start":
      state.started = true
      state.usage = { ...state.usage, ...event.message?.usage }
      return []
    case "content_block_start":
      return blockStart(state, index, event.content_block)
    case "content_block_delta":
      return blockDelta(state, index, event.delta)
    case "content_block_stop":
      return blockStop(state, index)
    case "message_delta":
      if (typeof event.delta?.stop_reason === "string") {
        state.finish = finishReasons[event.delta.stop_reason] ?? "other"
      }
      state.usage = { ...state.usage, ...event.usage }
      return []
    case "error":
      return [{ type: "error", error: event.error }]
    default:
      return []
  }
}

const blockStart = (
  state: DecoderState,
  index: number,
  block: MessageStreamEvent["content_block"]
): ReadonlyArray<Response.StreamPartEncoded> => {
  if (block?.type === "text") {
    const id = `text_${index}`
    state.texts.set(index, id)
    return block.text !== undefined && block.text !== ""
      ? [{ type: "text-start", id }, { type: "text-delta", id, delta: block.text }]
      : [{ type: "text-start", id }]
  }
  if (block?.type === "tool_use") {
    const call = { id: block.id ?? `call_${index}`, name: block.name ?? "", text: "" }
    state.calls.set(index, call)
    return [{ type: "tool-params-start", id: call.id, name: call.name }]
  }
  return []
}

const blockDelta = (
  state: DecoderState,
  index: number,
  delta: MessageStreamEvent["delta"]
): ReadonlyArray<Response.StreamPartEncoded> => {
  const text = state.texts.get(index)
  if (delta?.type === "text_delta" && text !== undefined && typeof delta.text === "string" && delta.text !== "") {
    return [{ type: "text-delta", id: text, delta: delta.text }]
  }
  const call = state.calls.get(index)
  if (delta?.type === "input_json_delta" && call !== undefined && typeof delta.partial_json === "string") {
    call.text += delta.partial_json
    return delta.partial_json === ""
      ? []
      : [{ type: "tool-params-delta", id: call.id, delta: delta.partial_json }]
  }
  return []
}

const blockStop = (state: DecoderState, index: number): ReadonlyArray<Response.StreamPartEncoded> => {
  const text = state.texts.get(index)
  if (text !== undefined) {
    state.texts.delete(index)
    return [{ type: "text-end", id: text }]
  }
  const call = state.calls.get(index)
  if (call === undefined) return []
  state.calls.delete(index)
  state.done.push(call)
  // a call that does not parse stays open: the id of the call repaired from the failure comes from it
  return Result.match(AiProvider.toolCallParts(module, call), {
    onFailure: (error) => (state.unparsed ??= error, []),
    onSuccess: (parts) => parts
  })
}

const end = (state: DecoderState): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
  Stream.suspend(() => {
    if (state.unparsed !== undefined) return Stream.fail(state.unparsed)
    if (!state.started) return Stream.fail(AiProvider.malformedOutput(module, "the stream ended without an answer"))
    return Stream.make(
      AiProvider.finishPart(state.finish ?? (state.done.length > 0 ? "tool-calls" : "stop"), {
        input: state.usage.input_tokens ?? undefined,
        output: state.usage.output_tokens ?? undefined,
        cached: state.usage.cache_read_input_tokens ?? undefined
      })
    )
  })

const models = (hosted: Hosted | undefined) =>
  AiProvider.streamingModel("anthropic", AnthropicClient, {
    request: (client, model, options) =>
      Stream.unwrap(Effect.gen(function*() {
        const deferred = yield* AiModel.DeferredTools
        const sent = body(model, options, deferred, hosted)
        const defers = sent.tools?.some((tool) => "defer_loading" in tool) === true
        const events = client.createMessageStream(sent, defers ? [toolSearchBeta] : [])
        if (hosted === undefined || deferred?.toolSearch === undefined) return events
        // the search's blocks are kept for the requests after, and are not the agent's to read
        return Stream.suspend(() => {
          const isSearch = HostedToolSearch.anthropicEvents(hosted.replay)
          return Stream.filter(events, (event) => !isSearch(event))
        })
      })),
    decoder: makeDecoder
  })

/**
 * The options of `make` and `layer`: the model (`claude-sonnet-4-5`), and `hostedSearch` for Anthropic's own tool
 * search under MCP tool search (with `AiModel`'s `deferLoading`): `"bm25"` or `"regex"`.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options {
  readonly model: string
  readonly hostedSearch?: HostedToolSearch.AnthropicVariant | undefined
}

/**
 * The `LanguageModel` of a model on the `AnthropicClient`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.LanguageModel, never, AnthropicClient> =>
  Effect.suspend(() =>
    models(
      options.hostedSearch === undefined
        ? undefined
        : { variant: options.hostedSearch, replay: HostedToolSearch.makeReplay() }
    ).make({ model: options.model })
  )

/**
 * `make` as a layer.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, AnthropicClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The model of a name as `effect/ai`'s `Model`, like `OpenAiLanguageModel.model` (without the API's own search).
 *
 * @since 1.0.0
 * @category constructors
 */
export const { model } = models(undefined)
