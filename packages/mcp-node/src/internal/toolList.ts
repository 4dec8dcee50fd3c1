/**
 * `tools/list` of a connection, one page per request (the SDK's own listing walks every page and keeps a cache of
 * its own): the core decides how far to page and what a malformed page costs. Each tool is checked on its own, so
 * that one malformed tool does not cost the server all of its tools, and kept for the calls that need its
 * definition (internal/listedTools).
 *
 * @internal
 */
import type { Tool } from "@modelcontextprotocol/client"
import { ToolSchema } from "@modelcontextprotocol/core"
import * as Tracing from "@zett/agent/Tracing"
import type * as McpClient from "@zett/mcp/McpClient"
import { clipName } from "@zett/mcp/McpClient"
import type { McpRequestError } from "@zett/mcp/McpError"
import * as Effect from "effect/Effect"
import { z } from "zod"
import * as Connection from "./connection.js"
import * as JsonDepth from "./jsonDepth.js"
import type * as ListedTools from "./listedTools.js"

const LooseListToolsResult = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() })

// A listed "tool" may be any JSON value; a field of a number, a string, an array or null reads as undefined.
const field = (candidate: unknown, key: "name" | "inputSchema"): unknown =>
  (candidate as { readonly [key: string]: unknown } | null)?.[key]

// The SDK requires `inputSchema.type: "object"`; a schema that leaves `type` out means an object all the
// same (as `McpTool.cleanSchema` reads it), so it is filled in rather than the tool dropped.
const withObjectType = (candidate: unknown): unknown => {
  const schema = field(candidate, "inputSchema")
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return candidate
  // a shortcut: the schema's own `type` would win the spread below, and the SDK's parse orders the keys
  if (Object.hasOwn(schema, "type")) return candidate
  return { ...(candidate as object), inputSchema: { type: "object", ...schema } }
}

// well past any schema a provider takes (the core refuses those deeper than 128 levels), and far from the stack's end
const MAX_CHECKED_DEPTH = 256

/** The tools of a page that are valid one by one; each invalid one is named with its first problem. */
const lenientPage = (
  page: z.infer<typeof LooseListToolsResult>
): McpClient.ListToolsPage & { readonly skipped: ReadonlyArray<string> } => {
  const tools: Array<Tool> = []
  const skipped: Array<string> = []
  for (const candidate of page.tools.map(withObjectType)) {
    // The protocol's schema reads a tool's input schema as JSON values all the way down, one stack frame a level:
    // a very deep one is checked without it, and left for the core to refuse with its own reason.
    const inputSchema = field(candidate, "inputSchema")
    const deep = JsonDepth.valueDeeperThan(inputSchema, MAX_CHECKED_DEPTH)
    const parsed = ToolSchema.safeParse(
      deep ? { ...(candidate as object), inputSchema: { type: "object" } } : candidate
    )
    if (parsed.success) {
      tools.push(deep ? { ...parsed.data, inputSchema: inputSchema as Tool["inputSchema"] } : parsed.data)
      continue
    }
    // a failed parse has at least one issue; one about the whole tool has an empty path
    const issue = parsed.error.issues[0]!
    const where = issue.path.length === 0 ? "" : `${issue.path.join(".")}: `
    skipped.push(`tool ${clipName(field(candidate, "name"))} is skipped: ${where}${issue.message}`)
  }
  const cache = cacheHint(page)
  return { tools, nextCursor: page.nextCursor, skipped, ...(cache !== undefined ? { cache } : {}) }
}

/**
 * The caching hint of a result (2026-07-28): a negative `ttlMs` is read as 0, a scope other than `public` as
 * `private` (what the SDK's own cache does with a missing one). A result without `ttlMs` has none.
 */
const cacheHint = (result: { readonly [key: string]: unknown }): McpClient.CacheHint | undefined => {
  const ttlMs = result.ttlMs
  if (typeof ttlMs !== "number" || Number.isNaN(ttlMs)) return undefined
  return { ttlMs: Math.max(0, ttlMs), scope: result.cacheScope === "public" ? "public" : "private" }
}

/** @internal */
export interface Listing {
  readonly listTools: (cursor?: string | undefined) => Effect.Effect<McpClient.ListToolsPage, McpRequestError>
  /** Every page again, up to `max` pages (after a header mismatch): the definitions calls mirror are renewed. */
  readonly relist: (signal: AbortSignal | undefined, max: number) => Promise<void>
}

/** @internal */
export const make = (connection: Connection.Connection, outputs: ListedTools.ListedTools): Listing => {
  const { client, scrubber, server } = connection
  const listError = Connection.requestError(connection, "tools/list")
  const listSpan = () => ({ attributes: Connection.spanAttributes(connection, "tools/list"), captureStackTrace: false })

  const requestPage = async (params: Record<string, unknown> | undefined, signal: AbortSignal | undefined) => {
    const page = lenientPage(
      await client.request(
        { method: "tools/list", params },
        LooseListToolsResult,
        { ...(signal !== undefined ? { signal } : {}), timeout: Connection.sdkTimeoutDisabled }
      )
    )
    return { ...page, ...outputs.remember(page.tools) }
  }

  const listTools = (cursor?: string | undefined): Effect.Effect<McpClient.ListToolsPage, McpRequestError> =>
    Tracing.withTraceparent((traceparent) =>
      Effect.tryPromise({
        try: async (signal): Promise<McpClient.ListToolsPage & { readonly skipped: ReadonlyArray<string> }> => {
          const given = cursor === undefined ? {} : { cursor }
          const params = cursor === undefined && traceparent === undefined
            ? undefined
            : Connection.withTrace(given, traceparent)
          const page = await requestPage(params, signal)
          return {
            ...scrubber.scrubDeep({
              tools: page.tools,
              nextCursor: page.nextCursor,
              skipped: [...page.skipped, ...page.excluded]
            }),
            cache: page.cache
          }
        },
        catch: listError
      })
    ).pipe(
      Effect.tap(({ skipped }) =>
        Effect.forEach(
          skipped,
          (reason) =>
            Effect.logWarning(`MCP server ${server}: ${reason}`).pipe(Effect.annotateLogs("mcp.server", server)),
          { discard: true }
        )
      ),
      Effect.map((
        { cache, nextCursor, tools }
      ) => (cache === undefined ? { tools, nextCursor } : { tools, nextCursor, cache })),
      Tracing.traced("tools/list", listSpan)
    )

  const relist = async (signal: AbortSignal | undefined, max: number) => {
    let cursor: string | undefined
    for (let page = 0; page < max; page++) {
      const result = await requestPage(cursor === undefined ? undefined : { cursor }, signal)
      if (result.nextCursor === undefined || result.nextCursor === cursor) return
      cursor = result.nextCursor
    }
  }

  return { listTools, relist }
}
