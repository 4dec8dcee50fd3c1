/**
 * What the agent's extension and the `@effect/ai` toolkit share of tool search: the index of a version of the tool
 * lists (built on the first search, once per version) and the always-loaded rule; the search tool's definition, the
 * reading of its arguments, its result and the system text are `@zett/common`'s `ToolSearch` (both lines share them).
 */
import { ToolSearch as Search } from "@zett/common"
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
 * out one array per server while it is fresh), so a request on the same lists reuses it.
 */
export interface IndexCell {
  key: ReadonlyArray<ReadonlyArray<McpTool.McpTool>> | undefined
  index: Search.Index<McpTool.McpTool> | undefined
}

export const indexCell = (): IndexCell => ({ key: undefined, index: undefined })

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
    return Effect.as(Metric.update(McpToolSearch.indexBuilds, 1), index)
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
