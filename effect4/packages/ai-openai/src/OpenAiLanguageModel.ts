/**
 * An `effect/ai` `LanguageModel` for OpenAI's Responses API, streamed. Under MCP tool search (with `AiModel`'s
 * `deferLoading`), the model gets the Responses API's own `tool_search` tool in place of `search_tools`:
 *
 * - by default run by Zett (`execution: "client"`): the tools the search holds back are not sent; the model's
 *   `tool_search_call` reaches the agent as a call of `search_tools`, and its result goes back as a
 *   `tool_search_output` holding the definitions of the held-back tools it found, both replayed in every later
 *   request, so what was loaded stays loaded;
 * - with `hostedSearch`, run by the API: the held-back tools go with `defer_loading: true`, the API searches them and
 *   loads what it finds in the same answer, and its `tool_search_call` and `tool_search_output` items are kept by the
 *   model (one store per layer, up to 1,000 answers) and sent back before the call that followed them.
 *
 * Written here because Effect 4 has no OpenAI provider that runs on `effect` 4.1: the `@effect/ai-openai` betas
 * (4.0.0-beta.106) import modules 4.1 does not have. Delete this package when one runs.
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
import { OpenAiClient, type OutputItem, type ResponseStreamEvent, type Usage } from "./OpenAiClient.js"

const module = "OpenAiLanguageModel"

interface Deferred {
  readonly names: ReadonlySet<string>
  readonly toolSearch: string | undefined
}

type Json = Record<string, unknown>

/** How a request searches: Zett's search behind the client-executed tool, or the API's own. */
type Search =
  | { readonly _tag: "Client"; readonly name: string; readonly definitions: ReadonlyMap<string, Json> }
  | { readonly _tag: "Hosted"; readonly name: string; readonly replay: HostedToolSearch.Replay<ReadonlyArray<unknown>> }

const resultText = (result: unknown): string => typeof result === "string" ? result : JSON.stringify(result ?? null)

const toInput = (prompt: Prompt.Prompt, search: Search | undefined): Array<unknown> =>
  prompt.content.flatMap((message): Array<unknown> => {
    switch (message.role) {
      case "system":
        return [{
          role: "system",
          content: search?._tag === "Hosted"
            ? HostedToolSearch.renamed(message.content, search.name, HostedToolSearch.openAiTool)
            : message.content
        }]
      case "user":
        return [{ role: "user", content: AiProvider.textOf(message.content) }]
      case "assistant": {
        const text = AiProvider.textOf(message.content.filter((part) => part.type === "text"))
        const items: Array<unknown> = text === "" ? [] : [{ role: "assistant", content: text }]
        for (const part of message.content) {
          if (part.type !== "tool-call" || part.providerExecuted) continue
          if (search?._tag === "Client" && part.name === search.name) {
            items.push({
              type: "tool_search_call",
              call_id: part.id,
              execution: "client",
              status: "completed",
              arguments: part.params ?? {}
            })
            continue
          }
          if (search?._tag === "Hosted") {
            for (const kept of search.replay.get(part.id) ?? []) items.push(kept)
          }
          items.push({
            type: "function_call",
            call_id: part.id,
            name: part.name,
            arguments: JSON.stringify(part.params ?? {})
          })
        }
        return items
      }
      case "tool":
        return message.content.flatMap((part): Array<unknown> => {
          if (part.type !== "tool-result") return []
          if (search?._tag === "Client" && part.name === search.name) {
            // a search that found nothing, or failed, loads nothing: the model searches again
            const found = part.isFailure ? [] : ToolSearch.loadedNames(part.result).flatMap((name) => {
              const definition = search.definitions.get(name)
              return definition === undefined ? [] : [{ ...definition, defer_loading: true }]
            })
            return [{
              type: "tool_search_output",
              call_id: part.id,
              execution: "client",
              status: "completed",
              tools: found
            }]
          }
          return [{ type: "function_call_output", call_id: part.id, output: resultText(part.result) }]
        })
    }
  })

const toolChoiceOf = (choice: LanguageModel.ProviderOptions["toolChoice"]): unknown => {
  if (typeof choice === "string") return choice
  if ("tool" in choice) return { type: "function", name: choice.tool }
  return choice.mode ?? "auto"
}

const body = (
  model: string,
  options: LanguageModel.ProviderOptions,
  deferred: Deferred | undefined,
  replay: HostedToolSearch.Replay<ReadonlyArray<unknown>> | undefined
) => {
  const declared = AiProvider.toolDeclarations(options.tools).map((tool) => ({
    type: "function",
    ...tool,
    // the agent's JSON Schema as it is: strict mode would require every property
    strict: false
  }))
  const name = deferred?.toolSearch
  const search: Search | undefined = name === undefined || !declared.some((tool) => tool.name === name)
    ? undefined
    : replay !== undefined
    ? { _tag: "Hosted", name, replay }
    : {
      _tag: "Client",
      name,
      definitions: new Map(declared.filter((tool) => deferred!.names.has(tool.name)).map((tool) => [tool.name, tool]))
    }
  const tools = declared.flatMap((tool): Array<unknown> => {
    if (search === undefined) return [tool]
    if (tool.name === search.name) {
      return search._tag === "Hosted"
        ? [{ type: HostedToolSearch.openAiTool }]
        : [{
          type: HostedToolSearch.openAiTool,
          execution: "client",
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          parameters: tool.parameters
        }]
    }
    if (!deferred!.names.has(tool.name)) return [tool]
    // Zett's search sends a held-back tool when it is found; the API's searches the ones sent deferred
    return search._tag === "Hosted" ? [{ ...tool, defer_loading: true }] : []
  })
  return {
    model,
    input: toInput(options.prompt, search),
    ...(tools.length > 0 ? { tools, tool_choice: toolChoiceOf(options.toolChoice) } : {})
  }
}

/** A client-executed `tool_search_call` item as a `function_call` of the search tool, which the decoder reads. */
const asSearchCall = (item: OutputItem, toolSearch: string): OutputItem =>
  item.type === "tool_search_call" && item.execution === "client"
    ? {
      type: "function_call",
      ...(item.id !== undefined ? { id: item.id } : {}),
      call_id: item.call_id ?? item.id ?? "",
      name: toolSearch,
      arguments: item.arguments === undefined ? "" : JSON.stringify(item.arguments)
    }
    : item

interface OpenCall {
  readonly id: string
  readonly name: string
  text: string
}

const incomplete: Record<string, Response.FinishReason> = {
  max_output_tokens: "length",
  content_filter: "content-filter"
}

/**
 * Folds the events of one streamed response into `effect/ai` parts: text as it streams, each `function_call` item
 * a `tool-call` once it is done (its argument text from the deltas, or the item's own), the finish with the usage of
 * `response.completed` (`response.incomplete`: the reason it stopped). Argument text that is not JSON fails the
 * stream (`InvalidOutputError`, "Failed to securely parse tool call parameters ..."), after the calls that parse.
 */
const makeDecoder = (): AiProvider.Decoder<ResponseStreamEvent> => {
  const state: DecoderState = {
    calls: new Map(),
    texts: new Map(),
    done: 0,
    usage: undefined,
    finish: undefined,
    unparsed: undefined,
    started: false
  }
  return { onChunk: (event) => decode(state, event), onEnd: () => end(state) }
}

/** One streamed response while it is folded: the items open, the calls done, and the usage and finish so far. */
interface DecoderState {
  readonly calls: Map<number, OpenCall>
  readonly texts: Map<string, string>
  done: number
  usage: Usage | null | undefined
  finish: Response.FinishReason | undefined
  /** The first call whose argument text did not parse: the stream fails with it at its end. */
  unparsed: AiError.AiError | undefined
  started: boolean
}

const decode = (state: DecoderState, event: ResponseStreamEvent): ReadonlyArray<Response.StreamPartEncoded> => {
  const index = event.output_index ?? 0
  switch (event.type) {
    case "response.created":
      state.started = true
      return []
    case "response.output_item.added": {
      const item = event.item
      if (item?.type !== "function_call") return []
      const call = { id: item.call_id ?? item.id ?? `call_${index}`, name: item.name ?? "", text: "" }
      state.calls.set(index, call)
      return [{ type: "tool-params-start", id: call.id, name: call.name }]
    }
    case "response.function_call_arguments.delta": {
      const call = state.calls.get(index)
      if (call === undefined || typeof event.delta !== "string" || event.delta === "") return []
      call.text += event.delta
      return [{ type: "tool-params-delta", id: call.id, delta: event.delta }]
    }
    case "response.output_text.delta": {
      if (typeof event.delta !== "string" || event.delta === "") return []
      const key = event.item_id ?? `text_${index}`
      const id = state.texts.get(key)
      if (id !== undefined) return [{ type: "text-delta", id, delta: event.delta }]
      state.texts.set(key, key)
      return [{ type: "text-start", id: key }, { type: "text-delta", id: key, delta: event.delta }]
    }
    case "response.output_item.done":
      return itemDone(state, index, event.item)
    case "response.completed":
      state.usage = event.response?.usage
      state.finish = state.done > 0 ? "tool-calls" : "stop"
      return []
    case "response.incomplete":
      state.usage = event.response?.usage
      state.finish = incomplete[event.response?.incomplete_details?.reason ?? ""] ?? "other"
      return []
    case "response.failed":
      return [{ type: "error", error: event.response?.error ?? event }]
    case "error":
      return [{ type: "error", error: { code: event.code, message: event.message } }]
    default:
      return []
  }
}

const itemDone = (
  state: DecoderState,
  index: number,
  item: OutputItem | undefined
): ReadonlyArray<Response.StreamPartEncoded> => {
  if (item?.type === "message" && item.id !== undefined && state.texts.has(item.id)) {
    state.texts.delete(item.id)
    return [{ type: "text-end", id: item.id }]
  }
  const call = state.calls.get(index)
  if (item?.type !== "function_call" || call === undefined) return []
  state.calls.delete(index)
  state.done++
  if (call.text === "" && typeof item.arguments === "string") call.text = item.arguments
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
    const ends = Array.from(state.texts.values(), (id): Response.StreamPartEncoded => ({ type: "text-end", id }))
    return Stream.fromIterable([
      ...ends,
      AiProvider.finishPart(state.finish ?? (state.done > 0 ? "tool-calls" : "stop"), {
        input: state.usage?.input_tokens ?? undefined,
        output: state.usage?.output_tokens ?? undefined,
        cached: state.usage?.input_tokens_details?.cached_tokens ?? undefined
      })
    ])
  })

const models = (replay: HostedToolSearch.Replay<ReadonlyArray<unknown>> | undefined) =>
  AiProvider.streamingModel("openai", OpenAiClient, {
    request: (client, model, options) =>
      Stream.unwrap(Effect.gen(function*() {
        const deferred = yield* AiModel.DeferredTools
        const events = client.createResponseStream(body(model, options, deferred, replay))
        const toolSearch = deferred?.toolSearch
        if (toolSearch === undefined) return events
        if (replay === undefined) {
          return Stream.map(events, (event) =>
            event.item === undefined ? event : { ...event, item: asSearchCall(event.item, toolSearch) })
        }
        // the API's search items are kept for the requests after; the decoder reads past them
        return Stream.suspend(() => {
          const keep = HostedToolSearch.openAiKeeper(replay)
          return Stream.tap(events, (event) =>
            Effect.sync(() => {
              if (event.item !== undefined) {
                keep(event.item, event.type === "response.output_item.done")
              }
            }))
        })
      })),
    decoder: makeDecoder
  })

/**
 * The options of `make` and `layer`: the model (`gpt-5.4`), and `hostedSearch: true` for the API's own tool search
 * under MCP tool search (with `AiModel`'s `deferLoading`) instead of Zett's behind the client-executed tool.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options {
  readonly model: string
  readonly hostedSearch?: boolean | undefined
}

/**
 * The `LanguageModel` of a model on the `OpenAiClient`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<LanguageModel.LanguageModel, never, OpenAiClient> =>
  Effect.suspend(() =>
    models(options.hostedSearch === true ? HostedToolSearch.makeReplay() : undefined).make({ model: options.model })
  )

/**
 * `make` as a layer.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, OpenAiClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The model of a name as `effect/ai`'s `Model`, like `@effect/ai-openai`'s `OpenAiLanguageModel.model` (Zett's
 * search behind the client-executed tool).
 *
 * @since 1.0.0
 * @category constructors
 */
export const { model } = models(undefined)
