/**
 * A tool cache over tool lists alone (the 3 line's `@zett/testing-core/ToolListCache`): what the cache tests read.
 */
import type { McpTool } from "@zett/mcp/McpTool"
import * as McpToolCache from "@zett/mcp/McpToolCache"
import * as Effect from "effect/Effect"

export interface ToolListCache {
  readonly lookup: <E, R>(
    key: McpToolCache.Key,
    discover: Effect.Effect<ReadonlyArray<McpTool>, E, R>
  ) => Effect.Effect<ReadonlyArray<McpTool>, E, R>
  readonly has: McpToolCache.McpToolCache["Service"]["has"]
  readonly invalidate: McpToolCache.McpToolCache["Service"]["invalidate"]
}

export const of = (cache: McpToolCache.McpToolCache["Service"]): ToolListCache => ({
  lookup: (key, discover) =>
    Effect.map(cache.lookup(key, Effect.map(discover, McpToolCache.listing)), (listing) => listing.tools),
  has: cache.has,
  invalidate: cache.invalidate
})

export const makeMemory = (options: { readonly ttl: McpToolCache.MemoryOptions["ttl"] }) =>
  Effect.map(McpToolCache.makeMemory(options), of)
