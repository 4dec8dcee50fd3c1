/**
 * Tool search: when a request's MCP tools pass a threshold, the model is given one tool, `search_tools`, and the
 * tools marked always-loaded instead of every definition; a search loads what it found. This module is the rule of
 * when to search (`Options`, `isActive`), the index (`makeIndex`: `ToolSearch` of `@zett/common`, the ranking both
 * lines share) and the count of index builds.
 *
 * With an embedding model (`layerEmbeddings`, on `effect/ai`'s `EmbeddingModel`), a search also ranks every tool
 * by the similarity of its embedding to the query's, and the two rankings are fused: a request that shares no word
 * with the tool it needs is found by meaning. The tools are embedded once per version of the tool lists, the query
 * on each search; when the model fails, the search ranks by words alone and says so in a warning log.
 *
 * @since 1.0.0
 */
import * as Search from "@zett/common/ToolSearch"
import * as EmbeddingModel from "effect/ai/EmbeddingModel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"

/**
 * `auto` (the default): search when the MCP tools of a request pass the `threshold`; `always`: search whatever the
 * count; `off`: every tool is offered to the model.
 *
 * @since 1.0.0
 * @category models
 */
export type Mode = "off" | "always" | "auto"

/**
 * When `auto` searches: when the MCP tools number more than `tools`, or their definitions weigh more than `tokens`
 * (estimated, `estimateTokens`). A field left out does not count.
 *
 * @since 1.0.0
 * @category models
 */
export interface Threshold {
  readonly tools?: number | undefined
  readonly tokens?: number | undefined
}

/**
 * The options of tool search (`McpExtension.Options.toolSearch`, `McpToolkit.Options.toolSearch`).
 *
 * @since 1.0.0
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
 * @since 1.0.0
 * @category constants
 */
export const defaultThreshold: { readonly tools: number; readonly tokens: number } = { tools: 40, tokens: 20_000 }

/**
 * The name of the search tool the model is given.
 *
 * @since 1.0.0
 * @category constants
 */
export const toolName = "search_tools"

/**
 * The most tools one search returns, whatever the model asks.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxLimit = 20

/**
 * Index builds: one per version of the tool lists that a request searched (a warm request builds none).
 *
 * @since 1.0.0
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
 * @since 1.0.0
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
 * @since 1.0.0
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
 * @since 1.0.0
 * @category models
 */
export interface Searchable extends Search.Tool {}

/**
 * One server's tools, with what the server says of itself.
 *
 * @since 1.0.0
 * @category models
 */
export interface Group<T extends Searchable = Searchable> extends Search.Group<T> {}

/**
 * A found tool and the score it ranked by.
 *
 * @since 1.0.0
 * @category models
 */
export interface Hit<T extends Searchable = Searchable> extends Search.Hit<T> {}

/**
 * An index over some servers' tools, searched any number of times.
 *
 * @since 1.0.0
 * @category models
 */
export interface Index<T extends Searchable = Searchable> extends Search.Index<T> {}

/**
 * Builds the index of some servers' tools (plain: it counts no build; the extension and the toolkit count theirs).
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeIndex: <T extends Searchable>(groups: ReadonlyArray<Group<T>>) => Index<T> = Search.make

/**
 * The first sentence of a description on one line, at most `max` characters: what a search shows of a tool.
 *
 * @since 1.0.0
 * @category utils
 */
export const oneLine: (description: string, max?: number) => string = Search.oneLine

/**
 * What tool search needs of an embedding model: structurally `effect/ai`'s `EmbeddingModel`.
 *
 * @since 1.0.0
 * @category embeddings
 */
export interface Embedder {
  readonly embed: (input: string) => Effect.Effect<{ readonly vector: ReadonlyArray<number> }, unknown>
  readonly embedMany: (
    input: ReadonlyArray<string>
  ) => Effect.Effect<{ readonly embeddings: ReadonlyArray<{ readonly vector: ReadonlyArray<number> }> }, unknown>
}

/**
 * The embedding model searches rank with beside the words; none by default (lexical alone). Read when the
 * extension or the toolkit is made.
 *
 * @since 1.0.0
 * @category embeddings
 */
export const Embeddings: Context.Reference<Embedder | undefined> = Context.Reference<Embedder | undefined>(
  "@zett/mcp/McpToolSearch/Embeddings",
  { defaultValue: () => undefined }
)

/**
 * Tool search with the app's `effect/ai` `EmbeddingModel` (a provider's embedding layer provided to it), provided
 * to the extension's or the toolkit's layer.
 *
 * @since 1.0.0
 * @category embeddings
 */
export const layerEmbeddings: Layer.Layer<never, never, EmbeddingModel.EmbeddingModel> = Layer.effect(
  Embeddings,
  Effect.service(EmbeddingModel.EmbeddingModel)
)

/**
 * Embedding calls made by tool search: one per version of the tool lists for the tools (`embedMany`), one per
 * search for the query.
 *
 * @since 1.0.0
 * @category metrics
 */
export const embeddingCalls = Metric.counter("mcp_tool_search_embedding_calls", {
  description: "embedding model calls made by tool search (the tools once per version of the lists, each query)",
  incremental: true
})
