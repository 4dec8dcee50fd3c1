/**
 * Anthropic's own deferred tool loading under MCP tool search: the tools the search holds back are sent with
 * `defer_loading: true` (Claude does not read them until a search loads them, and the tools of the request stay the
 * same through a run, so its prompt cache holds), and each result of the search tool goes back as `tool_reference`
 * blocks, which the Messages API expands into the found tools' definitions. The search is Zett's own
 * (`search_tools`), as Anthropic's documentation of a client-side tool search describes: the answers carry nothing
 * new, so `@effect/ai-anthropic` reads them as it reads any. `hosted` is the other way: the API's own search tool
 * searches the deferred tools, and its blocks of an answer are kept and sent back.
 *
 * `@effect/ai-anthropic` writes neither part (it has no per-tool option and writes a tool result as a JSON string),
 * so this is a `transformClient` that edits the JSON of each `POST /v1/messages` request. It acts only on a request
 * that `AiModel` (with `deferLoading`) sent deferred tools in (`AiModel.DeferredTools`); any other passes untouched.
 *
 * @example
 * ```ts
 * import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
 * import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
 * import { AiModel, AnthropicToolSearch } from "@zett/ai"
 * import * as Config from "effect/Config"
 * import * as Layer from "effect/Layer"
 *
 * export const ModelLive = AiModel.layer({ provider: "anthropic", deferLoading: true }).pipe(
 *   Layer.provide(AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" })),
 *   Layer.provide(AnthropicClient.layerConfig({
 *     apiKey: Config.redacted("ANTHROPIC_API_KEY"),
 *     transformClient: AnthropicToolSearch.transformClient
 *   }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HostedToolSearch from "@zett/common/HostedToolSearch"
import * as ToolSearch from "@zett/common/ToolSearch"
import { isObject, type Json, parse } from "./internal/json.js"
import * as Transform from "./internal/transform.js"

/**
 * The beta of the Messages API that deferred loading and `tool_reference` blocks are part of, added to the
 * request's `anthropic-beta` header.
 *
 * @since 0.1.0
 * @category deferred loading
 */
export const beta = "advanced-tool-use-2025-11-20"

const blocksOf = (message: unknown): ReadonlyArray<unknown> =>
  isObject(message) && Array.isArray(message.content) ? message.content : []

/** The names a search result lists, from the JSON text @effect/ai-anthropic wrote (twice encoded if it was text). */
const namesOf = (content: unknown): ReadonlyArray<string> => {
  let value = content
  for (let i = 0; i < 2 && typeof value === "string"; i++) value = parse(value)
  return ToolSearch.loadedNames(value)
}

/**
 * The Messages API body with the deferred tools marked `defer_loading` and the search tool's results as
 * `tool_reference` blocks of the deferred tools they name (a result that names none stays as it is).
 *
 * @since 0.1.0
 * @category deferred loading
 */
export const editBody = (
  body: Json,
  deferred: { readonly names: ReadonlySet<string>; readonly toolSearch: string | undefined }
): Json => {
  const tools = Array.isArray(body.tools)
    ? body.tools.map((tool: unknown) =>
      isObject(tool) && typeof tool.name === "string" && deferred.names.has(tool.name)
        ? { ...tool, defer_loading: true }
        : tool
    )
    : body.tools
  if (deferred.toolSearch === undefined || !Array.isArray(body.messages)) return { ...body, tools }
  const searches = new Set<unknown>()
  for (const message of body.messages) {
    for (const block of blocksOf(message)) {
      if (isObject(block) && block.type === "tool_use" && block.name === deferred.toolSearch) searches.add(block.id)
    }
  }
  const messages = searches.size === 0 ? body.messages : body.messages.map((message: unknown) => {
    const blocks = blocksOf(message)
    if (!blocks.some((block) => isObject(block) && block.type === "tool_result" && searches.has(block.tool_use_id))) {
      return message
    }
    return {
      ...(message as Json),
      content: blocks.map((block) => {
        if (!isObject(block) || block.type !== "tool_result" || !searches.has(block.tool_use_id)) return block
        if (block.is_error === true) return block
        const found = namesOf(block.content).filter((name) => deferred.names.has(name))
        return found.length === 0
          ? block
          : { ...block, content: found.map((name) => ({ type: "tool_reference", tool_name: name })) }
      })
    }
  })
  return { ...body, tools, messages }
}

const withBeta = (request: HttpClientRequest.HttpClientRequest): HttpClientRequest.HttpClientRequest => {
  const betas = (request.headers["anthropic-beta"] ?? "").split(",").map((part) => part.trim()).filter((part) =>
    part !== ""
  )
  return betas.includes(beta)
    ? request
    : HttpClientRequest.setHeader(request, "anthropic-beta", [...betas, beta].join(","))
}

/**
 * The client transform that gives Anthropic's Messages API the deferred tools of a request `AiModel` sent with
 * `deferLoading`: pass it as `@effect/ai-anthropic`'s `transformClient` (after `AiProvider.protectSecrets`, if you
 * use that too).
 *
 * @since 0.1.0
 * @category deferred loading
 */
export const transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient = Transform.make({
  path: "/messages",
  body: editBody,
  request: withBeta
})

/**
 * The two variants of Anthropic's own search tool: words ranked by BM25, or regular expressions Claude writes.
 *
 * @since 0.1.0
 * @category hosted search
 */
export type HostedVariant = HostedToolSearch.AnthropicVariant

const systemRenamed = (system: unknown, from: string, to: string): unknown =>
  typeof system === "string"
    ? HostedToolSearch.renamed(system, from, to)
    : Array.isArray(system)
    ? system.map((block: unknown) =>
      isObject(block) && block.type === "text" && typeof block.text === "string"
        ? { ...block, text: HostedToolSearch.renamed(block.text, from, to) }
        : block
    )
    : system

/**
 * The Messages API body for Anthropic's own search (a server tool the API runs): the search tool becomes the
 * variant's tool, the deferred tools are marked `defer_loading` (what the API searches), the system text names the
 * tool Claude has, and what the API's searches answered earlier in the run (`server_tool_use` and
 * `tool_search_tool_result` blocks) goes back before the call that followed it (`replay`). A body without the search
 * tool passes as it is.
 *
 * @since 0.1.0
 * @category hosted search
 */
export const editHostedBody = (
  body: Json,
  deferred: { readonly names: ReadonlySet<string>; readonly toolSearch: string | undefined },
  variant: HostedVariant,
  replay: HostedToolSearch.Replay<HostedToolSearch.AnthropicKept>
): Json => {
  const toolSearch = deferred.toolSearch
  if (toolSearch === undefined || !Array.isArray(body.tools)) return body
  const hosted = HostedToolSearch.anthropicTool(variant)
  let searchable = false
  const tools = body.tools.map((tool: unknown) => {
    if (!isObject(tool) || typeof tool.name !== "string") return tool
    if (tool.name === toolSearch) {
      searchable = true
      return hosted
    }
    return deferred.names.has(tool.name) ? { ...tool, defer_loading: true } : tool
  })
  if (!searchable) return body
  const messages = Array.isArray(body.messages)
    ? body.messages.map((message: unknown) =>
      isObject(message) && message.role === "assistant" && Array.isArray(message.content)
        ? { ...message, content: HostedToolSearch.withAnthropicKept(message.content, replay) }
        : message
    )
    : body.messages
  return {
    ...body,
    tools,
    messages,
    ...(body.system === undefined ? {} : { system: systemRenamed(body.system, toolSearch, hosted.name) })
  }
}

/**
 * The client transform for Anthropic's own tool search, run by the Messages API (the `tool_search_tool_bm25` or
 * `_regex` server tool), for the deferred tools of a request `AiModel` sent with `deferLoading`: pass
 * `AnthropicToolSearch.hosted("bm25")` as `@effect/ai-anthropic`'s `transformClient`. The API searches the deferred
 * tools and loads what it finds in the same answer. `@effect/ai-anthropic` cannot read the search's blocks, so they
 * are taken out of the answer and sent back before the call that followed them in every later request of the run
 * (the client keeps them, up to 1,000 answers). The agent sees the calls of the tools found, never a search.
 *
 * @since 0.1.0
 * @category hosted search
 */
export const hosted = (
  variant: HostedVariant = "bm25"
): (client: HttpClient.HttpClient) => HttpClient.HttpClient =>
(client) => {
  const replay = HostedToolSearch.makeReplay<HostedToolSearch.AnthropicKept>()
  return Transform.make({
    path: "/messages",
    body: (body, deferred) => editHostedBody(body, deferred, variant, replay),
    request: withBeta,
    answer: (deferred) =>
      deferred.toolSearch === undefined ? undefined : {
        // the search's blocks leave the stream: @effect/ai-anthropic cannot read them
        events: () => {
          const isSearch = HostedToolSearch.anthropicEvents(replay)
          return (data, event) => isSearch(data) ? [] : [event]
        },
        json: (data) => {
          if (!isObject(data) || !Array.isArray(data.content)) return data
          const keep = HostedToolSearch.anthropicKeeper(replay)
          const content = data.content.filter((block: unknown) => {
            if (HostedToolSearch.isAnthropicBlock(block)) {
              keep.search(block)
              return false
            }
            keep.client(block)
            return true
          })
          return { ...data, content }
        }
      }
  })(client)
}
