/**
 * A connected MCP server, reduced to the two requests the extension needs. Both honour interruption:
 * interrupting the fiber aborts the SDK request, which sends `notifications/cancelled` to the server.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js"
import { Scrubber, Tracing } from "@zett/agent"
import * as Effect from "effect/Effect"
import { McpRequestError } from "./McpError.js"
import * as McpTool from "./McpTool.js"
import { z } from "zod"

/**
 * One page of `tools/list`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListToolsPage {
  readonly tools: ReadonlyArray<Tool>
  readonly nextCursor: string | undefined
}

/**
 * The surface of a connected server that the extension needs. Timing is the caller's business
 * (`Effect.timeoutFail`): neither method has a timeout of its own.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpClient {
  readonly server: string
  /** The process id of a stdio server (it leads a process group of its own); absent for other transports. */
  readonly pid?: number | undefined
  readonly listTools: (cursor?: string | undefined) => Effect.Effect<ListToolsPage, McpRequestError>
  /**
   * The result is normalized to `{ content, structuredContent?, isError? }` (a 2024-10-07 `toolResult`
   * is converted). A result with `isError: true` is a value, not a failure.
   */
  readonly callTool: (name: string, args: Record<string, unknown>) => Effect.Effect<CallToolResult, McpRequestError>
}

/**
 * The longest timeout `setTimeout` accepts (about 24.8 days). The SDK arms a 60 s timer on every request
 * unless given a `timeout`; anything larger than this would overflow and fire at once.
 *
 * @since 0.1.0
 * @category constants
 */
export const sdkTimeoutDisabled = 2_147_483_647

/**
 * Converts the 2024-10-07 compatibility shape `{ toolResult }` into `{ content, structuredContent? }`: the
 * value becomes a text block (JSON unless it is a string) and, when it is an object, `structuredContent`.
 * A current result is returned as it is. (The SDK's parser gives a legacy result `content: []` as well.)
 *
 * @since 0.1.0
 * @category utils
 */
export const normalizeResult = (
  result: CallToolResult | { readonly toolResult: unknown; readonly content?: CallToolResult["content"] }
): CallToolResult => {
  if (!("toolResult" in result)) return result
  const { toolResult: value, ...rest } = result as CallToolResult & { readonly toolResult: unknown }
  const out: CallToolResult = { ...rest, content: rest.content ?? [] }
  if (out.content.length === 0) {
    out.content = [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) ?? "null" }]
  }
  if (out.structuredContent === undefined && typeof value === "object" && value !== null && !Array.isArray(value)) {
    out.structuredContent = value as Record<string, unknown>
  }
  return out
}

const isSchemaError = (u: unknown): boolean =>
  u instanceof Error && Array.isArray((u as { readonly issues?: unknown }).issues)

const LooseListToolsResult = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() })

/**
 * A tool name as a log line shows it: at most 80 characters.
 *
 * @since 0.1.0
 * @category utils
 */
export const clipName = (name: unknown): string => {
  const text = typeof name === "string" ? name : "(unnamed)"
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

// A listed "tool" may be any JSON value; a field of a number, a string, an array or null reads as undefined.
const field = (candidate: unknown, key: "name" | "inputSchema"): unknown =>
  (candidate as { readonly [key: string]: unknown } | null)?.[key]

// The SDK requires `inputSchema.type: "object"`; a schema that leaves `type` out means an object all the
// same (as `McpTool.cleanSchema` reads it), so it is filled in rather than the tool dropped.
const withObjectType = (candidate: unknown): unknown => {
  const schema = field(candidate, "inputSchema")
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return candidate
  // a shortcut: the schema's own `type` would win the spread below, and the SDK's parse orders the keys
  // Stryker disable next-line StringLiteral,ConditionalExpression: a shortcut, equivalent to the spread
  if (Object.hasOwn(schema, "type")) return candidate
  return { ...(candidate as object), inputSchema: { type: "object", ...schema } }
}

/** The tools of a page that are valid one by one; each invalid one is named with its first problem. */
const lenientPage = (
  page: z.infer<typeof LooseListToolsResult>
): ListToolsPage & { readonly skipped: ReadonlyArray<string> } => {
  const tools: Array<Tool> = []
  const skipped: Array<string> = []
  for (const candidate of page.tools.map(withObjectType)) {
    const parsed = ToolSchema.safeParse(candidate)
    if (parsed.success) {
      tools.push(parsed.data)
      continue
    }
    // a failed parse has at least one issue; one about the whole tool has an empty path
    const issue = parsed.error.issues[0]!
    const where = issue.path.length === 0 ? "" : `${issue.path.join(".")}: `
    skipped.push(`tool ${clipName(field(candidate, "name"))} is skipped: ${where}${issue.message}`)
  }
  return { tools, nextCursor: page.nextCursor, skipped }
}

// OpenTelemetry's MCP conventions: the method, the session (Streamable HTTP), the tool
const spanAttributes = (client: Client, server: string, method: string): Record<string, unknown> => {
  const session = client.transport?.sessionId
  return { "mcp.method.name": method, "mcp.server": server, ...(session !== undefined ? { "mcp.session.id": session } : {}) }
}
const toolCallAttributes = (client: Client, server: string, name: string) => ({
  ...spanAttributes(client, server, "tools/call"),
  "gen_ai.operation.name": "execute_tool",
  "gen_ai.tool.name": name
})

/**
 * Builds an `McpClient` from a connected SDK `Client`. Everything the server sends back (tool definitions,
 * results, error reasons) passes through `scrubber`, made from the server's header or environment values:
 * a server that repeats its credentials, in any form, does not hand them on. Closing the client stays with
 * whoever connected it.
 *
 * Each request runs in a span named after OpenTelemetry's MCP conventions (`tools/list`, `tools/call {tool}`,
 * attributes `mcp.method.name`, `mcp.session.id`, `gen_ai.tool.name`, and `mcp.server`) whenever a tracer is installed; with Effect's built-in tracer, which exports nothing, the
 * span is skipped to keep the warm call path thin.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSdkClient = (client: Client, options: {
  readonly server: string
  readonly scrubber?: Scrubber.Scrubber | undefined
  readonly pid?: number | undefined
}): McpClient => {
  const server = options.server
  const scrubber = options.scrubber ?? Scrubber.none
  const listSpan = () => ({ attributes: spanAttributes(client, server, "tools/list"), captureStackTrace: false })
  const listError = (cause: unknown) => McpRequestError.fromCause({ server, method: "tools/list", cause, scrubber })
  const callError = (cause: unknown) => McpRequestError.fromCause({ server, method: "tools/call", cause, scrubber })

  const listTools = (cursor?: string | undefined): Effect.Effect<ListToolsPage, McpRequestError> =>
    Effect.tryPromise({
      try: async (signal): Promise<ListToolsPage & { readonly skipped: ReadonlyArray<string> }> => {
        const params = cursor === undefined ? undefined : { cursor }
        const options = { signal, timeout: sdkTimeoutDisabled }
        try {
          const result = await client.listTools(params, options)
          return { tools: scrubber.scrubDeep(result.tools), nextCursor: result.nextCursor, skipped: [] }
        } catch (error) {
          if (!isSchemaError(error)) throw error
          // One malformed tool must not cost the server all of its tools: list again without the SDK's
          // all-or-nothing validation, and keep the tools that pass it one by one.
          const page = lenientPage(await client.request({ method: "tools/list", params }, LooseListToolsResult, options))
          return scrubber.scrubDeep(page)
        }
      },
      catch: listError
    }).pipe(
      Effect.tap(({ skipped }) =>
        Effect.forEach(skipped, (reason) =>
          Effect.logWarning(`MCP server ${server}: ${reason}`).pipe(Effect.annotateLogs("mcp.server", server)),
          // Stryker disable next-line ObjectLiteral,BooleanLiteral: tap drops the result, collected or not
          { discard: true }
        )
      ),
      Effect.map(({ nextCursor, tools }) => ({ tools, nextCursor })),
      Tracing.traced("tools/list", listSpan)
    )

  const callTool = (name: string, args: Record<string, unknown>): Effect.Effect<CallToolResult, McpRequestError> =>
    Effect.tryPromise({
      try: async (signal) =>
        scrubber.scrubDeep(normalizeResult(
          await client.callTool({ name, arguments: args }, undefined, { signal, timeout: sdkTimeoutDisabled })
        )),
      catch: callError
    }).pipe(Tracing.traced(() => `tools/call ${name}`, () => ({
      kind: "client",
      attributes: toolCallAttributes(client, server, name),
      captureStackTrace: false
    })))

  return { server, pid: options.pid, listTools, callTool }
}

/**
 * The most pages one tool listing may take (D9).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxPages = 100

/**
 * Lists every page of a server's tools. A server that repeats a pagination cursor, or needs more than
 * `maxPages` pages, fails with an `McpRequestError` rather than looping (D9).
 *
 * @since 0.1.0
 * @category utils
 */
export const listAll = (client: McpClient): Effect.Effect<ReadonlyArray<Tool>, McpRequestError> =>
  Effect.gen(function*() {
    const tools: Array<Tool> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let page = 1;; page++) {
      if (page > maxPages) {
        return yield* new McpRequestError({
          server: client.server,
          method: "tools/list",
          reason: `more than ${maxPages} pages of tools`
        })
      }
      const result = yield* client.listTools(cursor)
      tools.push(...result.tools)
      if (result.nextCursor === undefined) return tools
      if (seen.has(result.nextCursor)) {
        return yield* new McpRequestError({
          server: client.server,
          method: "tools/list",
          reason: "the server repeated a pagination cursor"
        })
      }
      seen.add(result.nextCursor)
      cursor = result.nextCursor
    }
  })

/**
 * Lists every tool of a connected server (with the guards of `listAll`) and converts each as the model will
 * see it (`McpTool.fromTool`). A tool whose input schema is over `McpTool.schemaLimits` is skipped with a
 * warning, like a tool with an invalid schema; the rest of the server stays available.
 *
 * @since 0.1.0
 * @category utils
 */
export const discover = (
  client: McpClient,
  options: { readonly namespace: boolean; readonly prefix?: string | undefined }
): Effect.Effect<ReadonlyArray<McpTool.McpTool>, McpRequestError> =>
  Effect.flatMap(listAll(client), (tools) => {
    const out: Array<McpTool.McpTool> = []
    const skipped: Array<string> = []
    for (const tool of tools) {
      const refusal = McpTool.checkSchema(tool.inputSchema)
      if (refusal === undefined) out.push(McpTool.fromTool(client.server, tool, options))
      else skipped.push(`MCP server ${client.server}: tool ${clipName(tool.name)} is skipped: ${refusal}`)
    }
    // Stryker disable next-line ConditionalExpression: logging no line at all is the shortcut's result too
    if (skipped.length === 0) return Effect.succeed(out)
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: Effect.as drops the result, collected or not
    const warnings = Effect.forEach(skipped, (line) => Effect.logWarning(line), { discard: true })
    return Effect.as(Effect.annotateLogs(warnings, "mcp.server", client.server), out)
  })
