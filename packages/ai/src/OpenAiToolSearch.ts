/**
 * OpenAI's own tool search under MCP tool search, with the search run by Zett (the Responses API's client-executed
 * `tool_search`): the model is given a `tool_search` tool instead of the search function and none of the tools held
 * back; when it searches, it answers with a `tool_search_call`, Zett's search runs, and its result goes back as a
 * `tool_search_output` carrying the definitions of the held-back tools it found, which the model may call from then
 * on. Both items are replayed in every later request of the run, so what was loaded stays loaded.
 *
 * `@effect/ai-openai` can write neither item and skips both when they arrive, so this is a `transformClient` that
 * edits the JSON of each `POST /responses` request (the search function becomes `tool_search`, the held-back tools
 * leave `tools`, the search's calls and results become the two items) and the server-sent events of its answer (a
 * `tool_search_call` arrives as a call of the search function, which the agent runs as any). It acts only on a
 * request that `AiModel` (with `deferLoading`) sent deferred tools in (`AiModel.DeferredTools`); any other passes
 * untouched. `hosted` is the other way: the API runs the search, and its items of an answer are kept and sent back.
 *
 * @example
 * ```ts
 * import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
 * import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
 * import { AiModel, OpenAiToolSearch } from "@zett/ai"
 * import * as Config from "effect/Config"
 * import * as Layer from "effect/Layer"
 *
 * export const ModelLive = AiModel.layer({ provider: "openai", deferLoading: true }).pipe(
 *   Layer.provide(OpenAiLanguageModel.layer({ model: "gpt-5.4" })),
 *   Layer.provide(OpenAiClient.layerConfig({
 *     apiKey: Config.redacted("OPENAI_API_KEY"),
 *     transformClient: OpenAiToolSearch.transformClient
 *   }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HostedToolSearch from "@zett/common/HostedToolSearch"
import * as ToolSearch from "@zett/common/ToolSearch"
import { isObject, type Json, parse } from "./internal/json.js"
import * as Transform from "./internal/transform.js"

/**
 * What a request's deferred tools are, as `AiModel.DeferredTools` names them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Deferred {
  readonly names: ReadonlySet<string>
  readonly toolSearch: string | undefined
}

/**
 * The Responses API body with the search function written as a client-executed `tool_search` tool, the deferred
 * function tools taken out of `tools`, and each call of the search and its result written as a `tool_search_call`
 * and a `tool_search_output` holding the deferred tools the result names (none for a search that found nothing or
 * failed: the model searches again). Without a search function among the tools, only the deferred tools go.
 *
 * @since 0.1.0
 * @category tool search
 */
export const editBody = (body: Json, deferred: Deferred): Json => {
  const definitions = new Map<string, Json>()
  const tools: Array<unknown> = []
  let searchable = false
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isObject(tool) || tool.type !== "function" || typeof tool.name !== "string") {
      tools.push(tool)
    } else if (deferred.names.has(tool.name)) {
      definitions.set(tool.name, tool)
    } else if (tool.name === deferred.toolSearch) {
      searchable = true
      tools.push({
        type: "tool_search",
        execution: "client",
        ...(typeof tool.description === "string" ? { description: tool.description } : {}),
        ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {})
      })
    } else {
      tools.push(tool)
    }
  }
  if (!Array.isArray(body.tools)) return body
  if (!searchable || !Array.isArray(body.input)) return { ...body, tools }
  const searches = new Set<unknown>()
  const input = body.input.map((item: unknown) => {
    if (isObject(item) && item.type === "function_call" && item.name === deferred.toolSearch) {
      searches.add(item.call_id)
      const args = parse(item.arguments)
      return {
        type: "tool_search_call",
        ...(typeof item.id === "string" ? { id: item.id } : {}),
        call_id: item.call_id,
        execution: "client",
        status: "completed",
        arguments: isObject(args) ? args : {}
      }
    }
    if (isObject(item) && item.type === "function_call_output" && searches.has(item.call_id)) {
      const found = ToolSearch.loadedNames(parse(item.output)).flatMap((name) => {
        const definition = definitions.get(name)
        return definition === undefined ? [] : [{ ...definition, defer_loading: true }]
      })
      return {
        type: "tool_search_output",
        call_id: item.call_id,
        execution: "client",
        status: "completed",
        tools: found
      }
    }
    return item
  })
  return { ...body, tools, input }
}

const asFunctionCall = (item: unknown, toolSearch: string): unknown =>
  isObject(item) && item.type === "tool_search_call" && item.execution !== "server"
    ? {
      type: "function_call",
      ...(typeof item.id === "string" ? { id: item.id } : {}),
      call_id: item.call_id,
      name: toolSearch,
      // an item just added may have no arguments yet; the provider reads them from the item when it is done
      arguments: item.arguments === undefined ? "" : JSON.stringify(item.arguments),
      status: item.status
    }
    : item

/**
 * One event of a Responses API stream, or a whole response, with each client-executed `tool_search_call` item
 * written as a call of the search function (`toolSearch`), which `@effect/ai-openai` reads as a tool call.
 *
 * @since 0.1.0
 * @category tool search
 */
export const editAnswer = (data: unknown, toolSearch: string): unknown => {
  if (!isObject(data)) return data
  if (isObject(data.item)) return { ...data, item: asFunctionCall(data.item, toolSearch) }
  if (isObject(data.response) && Array.isArray(data.response.output)) {
    return { ...data, response: editAnswer(data.response, toolSearch) }
  }
  if (Array.isArray(data.output)) {
    return { ...data, output: data.output.map((item: unknown) => asFunctionCall(item, toolSearch)) }
  }
  return data
}

/**
 * The client transform that gives OpenAI's Responses API the deferred tools of a request `AiModel` sent with
 * `deferLoading`, through its client-executed tool search: pass it as `@effect/ai-openai`'s `transformClient`
 * (after `AiProvider.protectSecrets`, if you use that too).
 *
 * @since 0.1.0
 * @category tool search
 */
export const transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient = Transform.make({
  path: "/responses",
  body: editBody,
  answer: ({ toolSearch }) =>
    toolSearch === undefined ? undefined : {
      events: () => (data, event) =>
        data === undefined ? [event] : [{ ...event, data: JSON.stringify(editAnswer(data, toolSearch)) }],
      json: (data) => editAnswer(data, toolSearch)
    }
})

/**
 * The Responses API body for OpenAI's own search (`tool_search` run by the API): the search function becomes the
 * `tool_search` tool, the deferred function tools stay in `tools` with `defer_loading: true` (what the API searches),
 * the system text names the tool the model has, and what the API's searches answered earlier in the run goes back
 * before the call that followed it (`replay`). A body without the search function passes as it is.
 *
 * @since 0.1.0
 * @category hosted search
 */
export const editHostedBody = (
  body: Json,
  deferred: Deferred,
  replay: HostedToolSearch.Replay<ReadonlyArray<unknown>>
): Json => {
  if (!Array.isArray(body.tools) || deferred.toolSearch === undefined) return body
  const toolSearch = deferred.toolSearch
  let searchable = false
  const tools = body.tools.map((tool: unknown) => {
    if (!isObject(tool) || tool.type !== "function" || typeof tool.name !== "string") return tool
    if (tool.name === toolSearch) {
      searchable = true
      return { type: HostedToolSearch.openAiTool }
    }
    return deferred.names.has(tool.name) ? { ...tool, defer_loading: true } : tool
  })
  if (!searchable) return body
  const input = Array.isArray(body.input)
    ? body.input.flatMap((item: unknown) => {
      if (!isObject(item)) return [item]
      if (item.type === "function_call" && typeof item.call_id === "string") {
        return [...(replay.get(item.call_id) ?? []), item]
      }
      if ((item.role === "system" || item.role === "developer") && typeof item.content === "string") {
        return [{ ...item, content: HostedToolSearch.renamed(item.content, toolSearch, HostedToolSearch.openAiTool) }]
      }
      return [item]
    })
    : body.input
  return { ...body, tools, input }
}

/**
 * The client transform for OpenAI's own tool search, run by the Responses API (`tool_search` without `execution:
 * "client"`), for the deferred tools of a request `AiModel` sent with `deferLoading`: pass
 * `OpenAiToolSearch.hosted()` as `@effect/ai-openai`'s `transformClient`. The API searches the deferred tools and
 * loads what it finds in the same answer; `@effect/ai-openai` skips the search's items, and the transform sends them
 * back before the call that followed them in every later request of the run (the client keeps them, up to 1,000
 * answers). The agent sees the calls of the tools found, never a search.
 *
 * @since 0.1.0
 * @category hosted search
 */
export const hosted = (): (client: HttpClient.HttpClient) => HttpClient.HttpClient => (client) => {
  const replay = HostedToolSearch.makeReplay<ReadonlyArray<unknown>>()
  return Transform.make({
    path: "/responses",
    body: (body, deferred) => editHostedBody(body, deferred, replay),
    answer: (deferred) =>
      deferred.toolSearch === undefined ? undefined : {
        events: () => {
          const keep = HostedToolSearch.openAiKeeper(replay)
          return (data, event) => {
            if (isObject(data) && isObject(data.item)) keep(data.item, data.type === "response.output_item.done")
            return [event]
          }
        },
        json: (data) => {
          const keep = HostedToolSearch.openAiKeeper(replay)
          if (isObject(data) && Array.isArray(data.output)) {
            for (const item of data.output) keep(item, true)
          }
          return data
        }
      }
  })(client)
}
