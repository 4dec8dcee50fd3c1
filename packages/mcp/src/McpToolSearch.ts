/**
 * Tool search: when a request's MCP tools pass a threshold, the model is given one tool, `search_tools`, and the
 * tools marked always-loaded (`alwaysLoad` of a server), instead of every definition. A search returns the names and
 * one-line descriptions of the tools that match and loads them for the rest of the run; a call to a tool that exists
 * but was not loaded loads it and runs it.
 *
 * The ranking is lexical (BM25F over each tool's name split into words, its description, its parameters, and its
 * server's name and instructions) and needs nothing but the definitions. The index is built when a request first
 * searches, once per version of the tool lists (the cache hands out one list while it is fresh), so a warm request
 * builds none; it is never sent to the model.
 *
 * With an embedding model (`layerEmbeddings`, e.g. an `@effect/ai` `EmbeddingModel`), a search also ranks every
 * tool by the similarity of its embedding to the query's, and the two rankings are fused: a request that shares no
 * word with the tool it needs is found by meaning. The tools are embedded once per version of the tool lists, the
 * query on each search; when the model fails, the search ranks by words alone and says so in a warning log.
 *
 * @since 0.1.0
 */
import * as Search from "@zett/common/ToolSearch"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"

/**
 * `auto` (the default): search when the MCP tools of a request pass the `threshold`; `always`: search whatever the
 * count; `off`: every tool is offered to the model.
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = "off" | "always" | "auto"

/**
 * When `auto` searches: when the MCP tools number more than `tools`, or their definitions weigh more than `tokens`
 * (estimated, `estimateTokens`). A field left out does not count.
 *
 * @since 0.1.0
 * @category models
 */
export interface Threshold {
  readonly tools?: number | undefined
  readonly tokens?: number | undefined
}

/**
 * The options of tool search (`McpExtension.Options.toolSearch`, `McpToolkit.Options.toolSearch`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Default `auto`. */
  readonly mode?: Mode | undefined
  /** Default `defaultThreshold`: more than 40 tools or about 20,000 tokens of definitions. */
  readonly threshold?: Threshold | undefined
  /** How many tools a search returns when the model does not say (default 5); the model may ask for up to 20. */
  readonly limit?: number | undefined
}

/**
 * More than 40 tools, or about 20,000 tokens of definitions: past a few dozen tools models choose worse, and a
 * large server's definitions alone cost tens of thousands of tokens a request.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultThreshold: { readonly tools: number; readonly tokens: number } = { tools: 40, tokens: 20_000 }

/**
 * The name of the search tool the model is given.
 *
 * @since 0.1.0
 * @category constants
 */
export const toolName = "search_tools"

/**
 * The most tools one search returns, whatever the model asks.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxLimit = 20

/**
 * Index builds: one per version of the tool lists that a request searched (a warm request builds none).
 *
 * @since 0.1.0
 * @category metrics
 */
export const indexBuilds = Metric.counter("mcp_tool_search_index_builds", {
  description: "tool search indexes built (one per version of the tool lists searched)",
  incremental: true
})

/**
 * About how many tokens the model reads for some tool definitions: a quarter of the characters of their JSON, the
 * usual estimate for English and JSON (`zett tools` counts exactly, in o200k_base).
 *
 * @since 0.1.0
 * @category utils
 */
export const estimateTokens = (
  definitions: ReadonlyArray<{ readonly name: string; readonly description: string; readonly parameters: unknown }>
): number => {
  let chars = 0
  for (const definition of definitions) {
    chars += definition.name.length + definition.description.length + JSON.stringify(definition.parameters).length + 40
  }
  return Math.ceil(chars / 4)
}

/**
 * Whether tool search applies to these definitions under `options`.
 *
 * @since 0.1.0
 * @category utils
 */
export const isActive = (
  options: Options | undefined,
  definitions: ReadonlyArray<{ readonly name: string; readonly description: string; readonly parameters: unknown }>
): boolean => {
  const mode = options?.mode ?? "auto"
  if (mode !== "auto") return mode === "always"
  const threshold = options?.threshold ?? defaultThreshold
  if (threshold.tools !== undefined && definitions.length > threshold.tools) return true
  return threshold.tokens !== undefined && estimateTokens(definitions) > threshold.tokens
}

/**
 * What the index reads of a tool: structurally an `McpTool` or an agent tool.
 *
 * @since 0.1.0
 * @category models
 */
export interface Searchable extends Search.Tool {}

/**
 * One server's tools, with what the server says of itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface Group<T extends Searchable = Searchable> extends Search.Group<T> {}

/**
 * A found tool and the score it ranked by.
 *
 * @since 0.1.0
 * @category models
 */
export interface Hit<T extends Searchable = Searchable> extends Search.Hit<T> {}

/**
 * An index over some servers' tools, searched any number of times.
 *
 * @since 0.1.0
 * @category models
 */
export interface Index<T extends Searchable = Searchable> extends Search.Index<T> {}

/**
 * Builds the index of some servers' tools (plain: it counts no build; the extension and the toolkit count theirs).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeIndex: <T extends Searchable>(groups: ReadonlyArray<Group<T>>) => Index<T> = Search.make

/**
 * The first sentence of a description on one line, at most `max` characters: what a search shows of a tool.
 *
 * @since 0.1.0
 * @category utils
 */
export const oneLine: (description: string, max?: number) => string = Search.oneLine

/**
 * What tool search needs of an embedding model: structurally `@effect/ai`'s `EmbeddingModel` service, so an app
 * passes that (this package does not import `@effect/ai`).
 *
 * @since 0.1.0
 * @category embeddings
 */
export interface Embedder {
  readonly embed: (input: string) => Effect.Effect<ReadonlyArray<number>, unknown>
  readonly embedMany: (input: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, unknown>
}

/**
 * The embedding model searches rank with beside the words; none by default (lexical alone). Read when the
 * extension or the toolkit is made.
 *
 * @since 0.1.0
 * @category embeddings
 */
export class Embeddings extends Context.Reference<Embeddings>()("@zett/mcp/McpToolSearch/Embeddings", {
  defaultValue: (): Embedder | undefined => undefined
}) {}

/**
 * Tool search with an embedding model: `McpToolSearch.layerEmbeddings(EmbeddingModel.EmbeddingModel)` with an
 * `@effect/ai` provider's embedding layer (e.g. `OpenAiEmbeddingModel.layerBatched`) provided to it, and the whole
 * provided to the extension's or the toolkit's layer.
 *
 * @since 0.1.0
 * @category embeddings
 */
export const layerEmbeddings = <E, R>(embedder: Effect.Effect<Embedder, E, R>): Layer.Layer<Embeddings, E, R> =>
  Layer.effect(Embeddings, embedder)

/**
 * Embedding calls made by tool search: one per version of the tool lists for the tools (`embedMany`), one per
 * search for the query.
 *
 * @since 0.1.0
 * @category metrics
 */
export const embeddingCalls = Metric.counter("mcp_tool_search_embedding_calls", {
  description: "embedding model calls made by tool search (the tools once per version of the lists, each query)",
  incremental: true
})
