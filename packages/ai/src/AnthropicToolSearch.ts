/**
 * Anthropic's own deferred tool loading under MCP tool search: the tools the search holds back are sent with
 * `defer_loading: true` (Claude does not read them until a search loads them, and the tools of the request stay the
 * same through a run, so its prompt cache holds), and each result of the search tool goes back as `tool_reference`
 * blocks, which the Messages API expands into the found tools' definitions. The search is Zett's own
 * (`search_tools`), as Anthropic's documentation of a client-side tool search describes: the answers carry nothing
 * new, so `@effect/ai-anthropic` reads them as it reads any.
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
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { ToolSearch } from "@zett/common"
import * as Effect from "effect/Effect"
import * as AiModel from "./AiModel.js"
import { bodyOf, isObject, type Json, parse } from "./internal/json.js"

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
export const transformClient = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.mapRequestEffect(client, (request) =>
    Effect.map(AiModel.DeferredTools, (deferred) => {
      const body = deferred === undefined || !request.url.endsWith("/messages") ? undefined : bodyOf(request)
      return deferred === undefined || body === undefined
        ? request
        : withBeta(HttpClientRequest.bodyUnsafeJson(request, editBody(body, deferred)))
    }))
