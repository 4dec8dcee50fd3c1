/**
 * What the agent's extension and the `@effect/ai` toolkit share of tool search: the index of a version of the tool
 * lists (built on the first search, once per version), the search tool's definition, the reading of its
 * arguments, its result and the system text.
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

/** The search tool as the model reads it. */
export const definition = (servers: ReadonlyArray<string>, deferred: number, limit: number) => ({
  name: McpToolSearch.toolName,
  description: `Finds tools of the MCP servers by what they do and loads them (${deferred.toLocaleString("en-US")} ` +
    "tools are not loaded until found). Search with a few words of the task, such as \"create issue\" or \"list " +
    "files\"; then call the tools it returns by name. Search again with other words if none fits.",
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "What the tool should do, in a few words." },
      ...(servers.length > 1
        ? { server: { type: "string", enum: servers, description: "Only the tools of this MCP server." } }
        : {}),
      limit: {
        type: "integer",
        minimum: 1,
        maximum: McpToolSearch.maxLimit,
        description: `How many tools at most (default ${limit}).`
      }
    },
    required: ["query"],
    additionalProperties: false
  }
})

export interface Arguments {
  readonly query: string
  readonly server: string | undefined
  readonly limit: number
}

/** The search's arguments, or what is wrong with them in a sentence the model reads. */
export const readArguments = (
  args: unknown,
  servers: ReadonlyArray<string>,
  defaultLimit: number
): Result.Result<Arguments, string> => {
  const record = typeof args === "object" && args !== null ? args as Record<string, unknown> : {}
  const query = record.query
  if (typeof query !== "string" || query.trim() === "") {
    return Result.fail("query must be a non-empty string: what the tool should do, in a few words")
  }
  const server = record.server
  if (server !== undefined && server !== null && (typeof server !== "string" || !servers.includes(server))) {
    return Result.fail(`server must be one of ${servers.map((name) => JSON.stringify(name)).join(", ")}`)
  }
  const limit = record.limit
  if (limit !== undefined && limit !== null && (typeof limit !== "number" || !Number.isFinite(limit) || limit < 1)) {
    return Result.fail(`limit must be a number from 1 to ${McpToolSearch.maxLimit}`)
  }
  return Result.succeed({
    query,
    server: typeof server === "string" ? server : undefined,
    limit: Math.min(McpToolSearch.maxLimit, Math.floor(typeof limit === "number" ? limit : defaultLimit))
  })
}

/** What a search returns to the model: the found tools' names and one-line descriptions. */
export const result = (hits: ReadonlyArray<Search.Hit<McpTool.McpTool>>) =>
  hits.length === 0
    ? { tools: [], note: "No tool matched. Search again with other words for what the tool should do." }
    : {
      tools: hits.map((hit) => ({ name: hit.tool.name, description: Search.oneLine(hit.tool.description) })),
      note: "These tools are loaded now: call them by name."
    }

/** The system text of a request under tool search. */
export const describe = (groups: ReadonlyArray<Group>, deferred: number): string => {
  const names = groups.map((group) => group.server.name)
  const shown = names.slice(0, 20).join(", ") + (names.length > 20 ? ` and ${names.length - 20} more` : "")
  return `Tool search is on: ${deferred.toLocaleString("en-US")} tools of the MCP servers ${shown} are not offered ` +
    `until found. Call ${McpToolSearch.toolName} with what you need to do; the tools it finds are loaded for the ` +
    "rest of this conversation and are then called by name. A tool already known by name may be called directly."
}

/** Whether a server's tool is offered even under tool search. */
export const alwaysLoaded = (group: Group, tool: McpTool.McpTool): boolean =>
  McpServerConfig.alwaysLoads(group.server, tool.remoteName)
