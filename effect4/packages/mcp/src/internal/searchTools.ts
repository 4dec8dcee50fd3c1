/**
 * What the agent's extension and the `@effect/ai` toolkit share of tool search: the index of a version of the tool
 * lists (built on the first search, once per version) and the always-loaded rule; the search tool's definition, the
 * reading of its arguments, its result and the system text are `@zett/common`'s `ToolSearch` (both lines share them).
 */
import * as Search from "@zett/common/ToolSearch"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Result from "effect/Result"
import * as McpServerConfig from "../McpServerConfig.js"
import type * as McpTool from "../McpTool.js"
import * as McpToolSearch from "../McpToolSearch.js"

/** A server's tools that tool search holds back (or loaded), as the cache handed them out. */
export interface Group {
  readonly server: McpServerConfig.McpServerConfig
  readonly tools: ReadonlyArray<McpTool.McpTool>
  /** What the server said of itself when listed: context for every tool of it. */
  readonly instructions?: string | undefined
}

/**
 * The index of the last version of the tool lists searched: the version is the lists themselves (the cache hands
 * out one array per server while it is fresh), so a request on the same lists reuses it; with an embedding model,
 * the tools' embeddings of that version beside it.
 */
export interface IndexCell {
  key: ReadonlyArray<ReadonlyArray<McpTool.McpTool>> | undefined
  index: Search.Index<McpTool.McpTool> | undefined
  embedded: Search.Embedded<McpTool.McpTool> | undefined
}

export const indexCell = (): IndexCell => ({ key: undefined, index: undefined, embedded: undefined })

const sameLists = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>) =>
  a.length === b.length && a.every((x, i) => x === b[i])

const searchGroups = (groups: ReadonlyArray<Group>): ReadonlyArray<Search.Group<McpTool.McpTool>> =>
  groups.map((group) => ({ server: group.server.name, instructions: group.instructions, tools: group.tools }))

/** The index of `groups`, built (and counted in `McpToolSearch.indexBuilds`) when their lists are not the last ones. */
export const indexOf = (cell: IndexCell, groups: ReadonlyArray<Group>): Effect.Effect<Search.Index<McpTool.McpTool>> =>
  Effect.suspend(() => {
    const key = groups.map((group) => group.tools)
    if (cell.index !== undefined && cell.key !== undefined && sameLists(cell.key, key)) {
      return Effect.succeed(cell.index)
    }
    const index = Search.make(searchGroups(groups))
    cell.key = key
    cell.index = index
    cell.embedded = undefined
    return Effect.as(Metric.update(McpToolSearch.indexBuilds, 1), index)
  })

class EmbeddingFailure extends Data.TaggedError("EmbeddingFailure")<{ readonly reason: string }> {}

// the error's kind only: a provider's message may quote what it was sent
const failureOf = (cause: unknown): EmbeddingFailure =>
  new EmbeddingFailure({
    reason: typeof cause === "object" && cause !== null && typeof (cause as { _tag?: unknown })._tag === "string"
      ? (cause as { _tag: string })._tag
      : "an error"
  })

const embed = <A>(call: Effect.Effect<A, unknown>): Effect.Effect<A, EmbeddingFailure> =>
  call.pipe(Effect.tap(() => Metric.update(McpToolSearch.embeddingCalls, 1)), Effect.mapError(failureOf))

const vectorOf = (embedding: unknown): unknown =>
  typeof embedding === "object" && embedding !== null ? (embedding as { vector?: unknown }).vector : undefined

// the tools' embeddings of the index's version: made on its first search with a model, then kept beside it
const embeddedOf = (
  cell: IndexCell,
  index: Search.Index<McpTool.McpTool>,
  groups: ReadonlyArray<Group>,
  embedder: McpToolSearch.Embedder
): Effect.Effect<Search.Embedded<McpTool.McpTool>, EmbeddingFailure> =>
  Effect.suspend(() => {
    if (cell.index === index && cell.embedded !== undefined) return Effect.succeed(cell.embedded)
    const { texts, tools } = Search.toEmbed(searchGroups(groups))
    return Effect.flatMap(embed(embedder.embedMany(texts)), (response) => {
      const vectors = Array.isArray(response.embeddings) ? response.embeddings.map(vectorOf) : undefined
      const embedded = Search.embedded(tools, vectors)
      if (typeof embedded === "string") return Effect.fail(new EmbeddingFailure({ reason: embedded }))
      // a search of a newer version may have replaced the index meanwhile
      if (cell.index === index) cell.embedded = embedded
      return Effect.succeed(embedded)
    })
  })

/**
 * The best-ranked tools for a query: by their words (the index), and with an embedding model also by meaning, the
 * two rankings fused (`ToolSearch.searchEmbedded`). The model's failure leaves the words' ranking, with a warning.
 */
export const search = (
  cell: IndexCell,
  groups: ReadonlyArray<Group>,
  embedder: McpToolSearch.Embedder | undefined,
  query: string,
  options: Search.SearchOptions
): Effect.Effect<ReadonlyArray<Search.Hit<McpTool.McpTool>>> =>
  Effect.flatMap(indexOf(cell, groups), (index) => {
    if (embedder === undefined) return Effect.succeed(index.search(query, options))
    return Effect.gen(function*() {
      const embedded = yield* embeddedOf(cell, index, groups, embedder)
      const asked = yield* embed(embedder.embed(query.slice(0, 2_000)))
      const hits = Search.searchEmbedded(index, embedded, query, vectorOf(asked), options)
      return typeof hits === "string" ? yield* new EmbeddingFailure({ reason: hits }) : hits
    }).pipe(
      Effect.catch((failure) =>
        Effect.as(
          Effect.logWarning(`tool search ranked by words alone: the embedding model failed (${failure.reason})`),
          index.search(query, options)
        )
      )
    )
  })

/** The search tool as the model reads it (`@zett/common`'s `ToolSearch.definition`). */
export const definition = Search.definition

export type Arguments = Search.Arguments

/** The search's arguments, or what is wrong with them in a sentence the model reads. */
export const readArguments = (
  args: unknown,
  servers: ReadonlyArray<string>,
  defaultLimit: number
): Result.Result<Arguments, string> => {
  const read = Search.readArguments(args, servers, defaultLimit)
  return read._tag === "Success" ? Result.succeed(read.value) : Result.fail(read.message)
}

/** What a search returns to the model: the found tools' names and one-line descriptions. */
export const result = Search.result

/** The system text of a request under tool search. */
export const describe = (groups: ReadonlyArray<Group>, deferred: number): string =>
  Search.describe(groups.map((group) => group.server.name), deferred)

/** Whether a server's tool is offered even under tool search. */
export const alwaysLoaded = (group: Group, tool: McpTool.McpTool): boolean =>
  McpServerConfig.alwaysLoads(group.server, tool.remoteName)
