/**
 * What the agent's extension and the `@effect/ai` toolkit share of tool search: the index of a version of the tool
 * lists (built on the first search, once per version) and the always-loaded rule; the search tool's definition, the
 * reading of its arguments, its result and the system text are `@zett/common`'s `ToolSearch` (both lines share them).
 */
import { ToolSearch as Search } from "@zett/common"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
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
  vectors: ReadonlyArray<Vector> | undefined
}

interface Vector {
  readonly tool: McpTool.McpTool
  readonly server: string
  readonly values: ReadonlyArray<number>
  readonly norm: number
}

export const indexCell = (): IndexCell => ({ key: undefined, index: undefined, vectors: undefined })

const sameLists = (a: ReadonlyArray<unknown>, b: ReadonlyArray<unknown>) =>
  a.length === b.length && a.every((x, i) => x === b[i])

/** The index of `groups`, built (and counted in `McpToolSearch.indexBuilds`) when their lists are not the last ones. */
export const indexOf = (cell: IndexCell, groups: ReadonlyArray<Group>): Effect.Effect<Search.Index<McpTool.McpTool>> =>
  Effect.suspend(() => {
    const key = groups.map((group) => group.tools)
    if (cell.index !== undefined && cell.key !== undefined && sameLists(cell.key, key)) {
      return Effect.succeed(cell.index)
    }
    const index = Search.make(
      groups.map((group) => ({ server: group.server.name, instructions: group.instructions, tools: group.tools }))
    )
    cell.key = key
    cell.index = index
    cell.vectors = undefined
    return Effect.as(Metric.increment(McpToolSearch.indexBuilds), index)
  })

// what a tool's embedding is made of: its server, its name's words and its description, measured
const textOf = (server: string, tool: McpTool.McpTool): string =>
  `${server}: ${(tool.remoteName ?? tool.name).replace(/[_\-.]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2")}. ${
    tool.description.slice(0, 2_000)
  }`

const normOf = (values: ReadonlyArray<number>): number => Math.sqrt(values.reduce((sum, x) => sum + x * x, 0))

const isVector = (values: unknown, length?: number): values is ReadonlyArray<number> =>
  Array.isArray(values) && values.length > 0 && (length === undefined || values.length === length) &&
  values.every((x) => typeof x === "number" && Number.isFinite(x))

class EmbeddingFailure extends Data.TaggedError("EmbeddingFailure")<{ readonly reason: string }> {}

const failureOf = (cause: unknown): EmbeddingFailure =>
  cause instanceof EmbeddingFailure
    ? cause
    : new EmbeddingFailure({
      // the error's kind only: a provider's message may quote what it was sent
      reason: typeof cause === "object" && cause !== null && typeof (cause as { _tag?: unknown })._tag === "string"
        ? (cause as { _tag: string })._tag
        : "an error"
    })

const vectorsOf = (
  cell: IndexCell,
  index: Search.Index<McpTool.McpTool>,
  groups: ReadonlyArray<Group>,
  embedder: McpToolSearch.Embedder
): Effect.Effect<ReadonlyArray<Vector>, EmbeddingFailure> =>
  Effect.suspend(() => {
    if (cell.index === index && cell.vectors !== undefined) return Effect.succeed(cell.vectors)
    const tools = groups.flatMap((group) => group.tools.map((tool) => ({ tool, server: group.server.name })))
    return embedder.embedMany(tools.map(({ server, tool }) => textOf(server, tool))).pipe(
      Effect.tap(Metric.increment(McpToolSearch.embeddingCalls)),
      Effect.mapError(failureOf),
      Effect.flatMap((values) => {
        const length = Array.isArray(values) && isVector(values[0]) ? values[0].length : 0
        if (!Array.isArray(values) || values.length !== tools.length || !values.every((v) => isVector(v, length))) {
          return Effect.fail(new EmbeddingFailure({ reason: "embeddings that do not match the tools" }))
        }
        const vectors = tools.map(({ server, tool }, i) => ({
          tool,
          server,
          values: values[i]!,
          norm: normOf(values[i]!)
        }))
        // a search of a newer version may have replaced the index meanwhile
        if (cell.index === index) cell.vectors = vectors
        return Effect.succeed(vectors)
      })
    )
  })

// Reciprocal rank fusion: a rank's weight falls slowly, so agreement of the two rankings counts more than either
// ranking's top; 60 is the constant of its authors (Cormack, Clarke and Büttcher, 2009), not tuned here.
const fusion = 60

/**
 * The best-ranked tools for a query: by their words (the index), and with an embedding model also by meaning, the
 * two rankings fused. The model's failure leaves the words' ranking, with a warning.
 */
export const search = (
  cell: IndexCell,
  groups: ReadonlyArray<Group>,
  embedder: McpToolSearch.Embedder | undefined,
  query: string,
  options: { readonly server?: string | undefined; readonly limit: number }
): Effect.Effect<ReadonlyArray<Search.Hit<McpTool.McpTool>>> =>
  Effect.flatMap(indexOf(cell, groups), (index) => {
    if (embedder === undefined) return Effect.succeed(index.search(query, options))
    return Effect.gen(function*() {
      const vectors = yield* vectorsOf(cell, index, groups, embedder)
      const asked = yield* embedder.embed(query.slice(0, 2_000)).pipe(
        Effect.tap(Metric.increment(McpToolSearch.embeddingCalls)),
        Effect.mapError(failureOf)
      )
      if (!isVector(asked, vectors[0]?.values.length)) {
        return yield* Effect.fail(new EmbeddingFailure({ reason: "a query embedding that does not match the tools'" }))
      }
      const norm = normOf(asked)
      const scores = new Map<McpTool.McpTool, { server: string; score: number }>()
      const lexical = index.search(query, { server: options.server, limit: index.size })
      lexical.forEach((hit, rank) => scores.set(hit.tool, { server: hit.server, score: 1 / (fusion + rank + 1) }))
      const similar = vectors
        .filter((vector) => options.server === undefined || vector.server === options.server)
        .map((vector) => ({
          vector,
          similarity: vector.values.reduce((sum, x, i) => sum + x * asked[i]!, 0) / (vector.norm * norm || 1)
        }))
        .sort((a, b) => b.similarity - a.similarity)
      similar.forEach(({ vector }, rank) => {
        const fused = scores.get(vector.tool)
        const score = 1 / (fusion + rank + 1)
        scores.set(vector.tool, { server: vector.server, score: (fused?.score ?? 0) + score })
      })
      return [...scores].map(([tool, { score, server }]) => ({ tool, server, score }))
        .sort((a, b) => b.score - a.score)
        .slice(0, options.limit)
    }).pipe(
      Effect.catchAll((failure) =>
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
): Either.Either<Arguments, string> => {
  const read = Search.readArguments(args, servers, defaultLimit)
  return read._tag === "Success" ? Either.right(read.value) : Either.left(read.message)
}

/** What a search returns to the model: the found tools' names and one-line descriptions. */
export const result = Search.result

/** The system text of a request under tool search. */
export const describe = (groups: ReadonlyArray<Group>, deferred: number): string =>
  Search.describe(groups.map((group) => group.server.name), deferred)

/** Whether a server's tool is offered even under tool search. */
export const alwaysLoaded = (group: Group, tool: McpTool.McpTool): boolean =>
  McpServerConfig.alwaysLoads(group.server, tool.remoteName)
