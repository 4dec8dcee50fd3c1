/**
 * A tool cache seen as a cache of tool arrays, for the tests of its freshness, sharing and locking, which are
 * about the tools alone: the listing's verdict and caching hint have tests of their own.
 */
import type { McpTool } from "@zett/mcp/McpTool"
import * as McpToolCache from "@zett/mcp/McpToolCache"
import * as Effect from "effect/Effect"

export interface ToolListCache {
  readonly lookup: <E, R>(
    key: McpToolCache.Key,
    discover: Effect.Effect<ReadonlyArray<McpTool>, E, R>
  ) => Effect.Effect<ReadonlyArray<McpTool>, E, R>
  readonly has: McpToolCache.McpToolCache["Type"]["has"]
  readonly invalidate: McpToolCache.McpToolCache["Type"]["invalidate"]
}

export const of = (cache: McpToolCache.McpToolCache["Type"]): ToolListCache => ({
  lookup: (key, discover) =>
    Effect.map(cache.lookup(key, Effect.map(discover, McpToolCache.listing)), (listing) => listing.tools),
  has: cache.has,
  invalidate: cache.invalidate
})

/** `McpToolCache.makeMemory`, of tool arrays. */
export const makeMemory = (options: { readonly ttl: McpToolCache.MemoryOptions["ttl"] }) =>
  Effect.map(McpToolCache.makeMemory(options), of)
