/**
 * An MCP tool as the agent sees it: the name the model calls it by (E1, E2), the input schema the model
 * reads (E4), and what the model gets back from a call (E7, D8). Everything here is pure: no connection,
 * no service, no effect.
 *
 * @since 0.1.0
 */
import type { CallToolResult, CompatibilityCallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Data from "effect/Data"
import { dual } from "effect/Function"
import * as Effect from "effect/Effect"
import * as Naming from "./internal/naming.js"
import * as JsonSchemaCleanup from "./internal/schema.js"
import * as McpClient from "./McpClient.js"
import type { McpRequestError } from "./McpError.js"

// -----------------------------------------------------------------------------
// naming
// -----------------------------------------------------------------------------

/**
 * The longest tool name every major model provider accepts.
 *
 * @since 0.1.0
 * @category naming
 */
export const maxNameLength: number = Naming.maxNameLength

/**
 * The name the model sees for `tool` of `server` (E1, E2).
 *
 * - `namespace: true` gives `<server>__<tool>`, `namespace: false` gives `<tool>`.
 * - A name made only of `[A-Za-z0-9_-]` and at most 64 characters long is returned unchanged.
 * - Any other name (other characters, too long, empty) becomes `<prefix>_<hash>`, at most 64 characters:
 *   `prefix` is the name with every other character replaced by `_`, cut to fit, and `hash` is the first
 *   8 hex digits of the SHA-256 of the original (unsanitised, untruncated) name. The result is therefore
 *   the same in every process, and two names that sanitise or truncate alike still differ.
 *
 * Two different remote tools can still meet on one exposed name (`a` + `b__c` and `a__b` + `c`); the
 * registry detects and skips such duplicates (E3).
 *
 * @example
 * ```ts
 * import { McpTool } from "@zett/mcp"
 *
 * McpTool.exposedName("catalog", "search", { namespace: true }) // "catalog__search"
 * McpTool.exposedName("catalog", "search", { namespace: false }) // "search"
 * McpTool.exposedName("catalog", "find items", { namespace: true }) // "catalog__find_items_<8 hex digits>"
 * ```
 *
 * @since 0.1.0
 * @category naming
 */
export const exposedName = (server: string, tool: string, options: { readonly namespace: boolean }): string =>
  Naming.sanitize(options.namespace ? `${server}__${tool}` : tool)

/**
 * Whether `name` is acceptable as a tool name as it is: only `[A-Za-z0-9_-]`, 1 to 64 characters.
 *
 * @since 0.1.0
 * @category naming
 */
export const isValidName = (name: string): boolean => Naming.isValid(name)

// -----------------------------------------------------------------------------
// schema cleanup
// -----------------------------------------------------------------------------

/**
 * A JSON Schema object (the same shape as `@zett/agent`'s `Tool.JsonSchema`).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonSchema = { readonly [key: string]: unknown }

/**
 * The input schema as it is sent to the model (E4).
 *
 * - `title` and `$schema` annotation keys are removed at every depth, but only where a schema stands:
 *   a property named `title` (a key of `properties`, `patternProperties`, `$defs`, `definitions`,
 *   `dependentSchemas`, `dependencies`) stays, and so do `required`, `enum`, `const`, `default` and
 *   `examples`, which are data, not schemas.
 * - The walk follows the schema positions of JSON Schema drafts 4 to 2020-12 (`properties/*`, `items`
 *   (schema or tuple array), `prefixItems/*`, `additionalItems`, `additionalProperties`, `allOf`/`anyOf`/
 *   `oneOf/*`, `not`, `if`/`then`/`else`, `contains`, `propertyNames`, `unevaluatedItems`,
 *   `unevaluatedProperties`, `contentSchema`, and the maps above). Unknown keywords are copied unchanged.
 * - The top level is always an object schema: a missing `type` becomes `"object"`, an object schema
 *   without `properties` gets `properties: {}` (some providers reject an object schema without them), and
 *   an input that is not a JSON object at all (missing, `null`, `true`, an array) becomes
 *   `{ type: "object", properties: {} }`. An explicit non-object `type` is kept as sent (the SDK already
 *   rejects tools whose `inputSchema.type` is not `"object"`).
 * - The input is never mutated. Cleaned schema objects are new; data values (`enum`, `default` ...) are
 *   shared with the input, so treat both as immutable.
 * - Nesting deeper than 256 schema levels (only a hostile or cyclic schema does that) is copied unchanged
 *   below that depth instead of overflowing the stack.
 *
 * @since 0.1.0
 * @category schemas
 */
export const cleanSchema = (schema: unknown): JsonSchema => JsonSchemaCleanup.cleanInputSchema(schema)

// -----------------------------------------------------------------------------
// results
// -----------------------------------------------------------------------------

/**
 * What a call gives the model: `Success` carries the tool's JSON result, `Failure` the text of an ordinary
 * tool failure (`TOOL_FAILED`, the run goes on).
 *
 * @since 0.1.0
 * @category models
 */
export type ToolOutcome = Data.TaggedEnum<{
  readonly Success: { readonly value: unknown }
  readonly Failure: { readonly message: string }
}>

/**
 * Constructors and matchers for `ToolOutcome`: `ToolOutcome.Success({ value })`,
 * `ToolOutcome.Failure({ message })`, `ToolOutcome.$is("Success")`, `ToolOutcome.$match(...)`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ToolOutcome = Data.taggedEnum<ToolOutcome>()

/**
 * A remote failure whose text may or may not reach the model (D8): a tool result with `isError: true`
 * (`ToolError`), or a `tools/call` that failed at the protocol or transport level (`RequestError`).
 *
 * @since 0.1.0
 * @category models
 */
export type RemoteFailure = Data.TaggedEnum<{
  readonly ToolError: { readonly result: CallToolResult }
  readonly RequestError: { readonly error: McpRequestError }
}>

/**
 * Constructors and matchers for `RemoteFailure`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const RemoteFailure = Data.taggedEnum<RemoteFailure>()

/**
 * Chooses the text the model sees for a remote failure (D8). Any function will do; the ready-made ones
 * are in `ErrorTextPolicy.toolText` (the default), `ErrorTextPolicy.generic` and `ErrorTextPolicy.verbose`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ErrorTextPolicy {
  (failure: RemoteFailure): string
}

/**
 * The longest remote text a ready-made policy passes on; longer text is cut and marked `… (truncated)`.
 *
 * @since 0.1.0
 * @category results
 */
export const maxErrorTextLength = 2_000

const truncate = (text: string, max: number = maxErrorTextLength): string => {
  if (text.length <= max) return text
  // don't cut a surrogate pair in half
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max
  return `${text.slice(0, end)}… (truncated)`
}

const contentText = (result: CallToolResult): string => {
  const parts: Array<string> = []
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text)
  }
  return parts.join("\n").trim()
}

const toolFailedLine = "the tool failed"
const toolFailedWithoutTextLine = "the tool failed without an error message"
const requestFailedLine = "the server failed to run the tool"

// Standard JSON-RPC / MCP codes are fixed vocabulary, not remote text: naming them helps the model decide
// whether retrying makes sense, and reveals nothing about the server.
const requestFailedLineFor = (code: number | undefined): string => {
  switch (code) {
    case -32000:
      return `${requestFailedLine} (connection closed)`
    case -32001:
      return `${requestFailedLine} (request timed out or was cancelled)`
    case -32601:
      return `${requestFailedLine} (method not found)`
    case -32602:
      return `${requestFailedLine} (invalid params)`
    case -32603:
      return `${requestFailedLine} (internal error)`
    default:
      return requestFailedLine
  }
}

const toolText: ErrorTextPolicy = (failure) => {
  switch (failure._tag) {
    case "ToolError": {
      const text = contentText(failure.result)
      return text === "" ? toolFailedWithoutTextLine : truncate(text)
    }
    case "RequestError":
      return failure.error.kind !== undefined
        ? `${requestFailedLine} (${failure.error.reason})`
        : requestFailedLineFor(failure.error.code)
  }
}

const generic: ErrorTextPolicy = (failure) => {
  switch (failure._tag) {
    case "ToolError":
      return toolFailedLine
    case "RequestError":
      // Zett's own reason for a response that never arrived holds no remote text
      return failure.error.kind !== undefined ? `${requestFailedLine} (${failure.error.reason})` : requestFailedLine
  }
}

const verbose: ErrorTextPolicy = (failure) => {
  switch (failure._tag) {
    case "ToolError": {
      const text = contentText(failure.result)
      if (text !== "") return truncate(text)
      return failure.result.structuredContent === undefined
        ? toolFailedWithoutTextLine
        : truncate(`${toolFailedLine}: ${safeStringify(failure.result.structuredContent)}`)
    }
    case "RequestError": {
      const error = failure.error
      const code = error.code === undefined ? "" : ` (code ${error.code})`
      return truncate(`${error.server}: ${error.method} failed${code}: ${error.reason}`)
    }
  }
}

const safeStringify = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * Ready-made error text policies (D8).
 *
 * - `toolText` (the default): a tool's own `isError` text content (its text blocks joined by newlines, at
 *   most `maxErrorTextLength` characters); a failed request only as a fixed line such as
 *   `the server failed to run the tool (connection closed)`: no reason, no stack trace, no URL.
 * - `generic`: never any remote text: `the tool failed` / `the server failed to run the tool`.
 * - `verbose`: for development: the tool's text (or its structured content when it sent no text), and a
 *   failed request's server, method, code and reason.
 *
 * @since 0.1.0
 * @category results
 */
export const ErrorTextPolicy: {
  readonly toolText: ErrorTextPolicy
  readonly generic: ErrorTextPolicy
  readonly verbose: ErrorTextPolicy
} = { toolText, generic, verbose }

/**
 * The text the model sees for a remote failure under `policy`.
 *
 * @since 0.1.0
 * @category results
 */
export const describeFailure: {
  (policy: ErrorTextPolicy): (failure: RemoteFailure) => string
  (failure: RemoteFailure, policy: ErrorTextPolicy): string
} = dual(2, (failure: RemoteFailure, policy: ErrorTextPolicy): string => policy(failure))

// `_meta` is protocol metadata and `annotations` are display hints for the client (audience, priority):
// neither is the tool's answer, and both cost prompt tokens, so they are dropped.
const blockToJson = (block: unknown): unknown => {
  if (typeof block !== "object" || block === null || Array.isArray(block)) return block
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(block)) {
    if (key === "_meta" || key === "annotations") continue
    const value = (block as Record<string, unknown>)[key]
    if (key === "resource" && typeof value === "object" && value !== null && !Array.isArray(value)) {
      const { _meta: _, ...resource } = value as Record<string, unknown>
      out[key] = resource
    } else if (key === "__proto__") {
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
    } else {
      out[key] = value
    }
  }
  return out
}

/**
 * Maps a `tools/call` result to what the model sees (E7, D8).
 *
 * - `isError: true`: a `Failure` whose message is what `policy` allows.
 * - `structuredContent` present: `Success` with that structured value.
 * - otherwise: `Success` with the content blocks as an array of plain JSON objects (`text`, `image`,
 *   `audio`, `resource`, `resource_link` ...). Image and audio blocks stay data (`{ type: "image", data,
 *   mimeType }`); they are not promoted to vision messages. `_meta` and `annotations` are dropped.
 * - a result in the 2024-10-07 compatibility shape (`{ toolResult }`): `Success` with `toolResult`.
 *
 * @since 0.1.0
 * @category results
 */
export const toResult: {
  (policy: ErrorTextPolicy): (result: CallToolResult | CompatibilityCallToolResult) => ToolOutcome
  (result: CallToolResult | CompatibilityCallToolResult, policy: ErrorTextPolicy): ToolOutcome
} = dual(2, (result: CallToolResult | CompatibilityCallToolResult, policy: ErrorTextPolicy): ToolOutcome => {
  if (!("content" in result) && "toolResult" in result) return ToolOutcome.Success({ value: result.toolResult })
  const call = result as CallToolResult
  if (call.isError === true) {
    return ToolOutcome.Failure({ message: policy(RemoteFailure.ToolError({ result: call })) })
  }
  if (call.structuredContent !== undefined) return ToolOutcome.Success({ value: call.structuredContent })
  return ToolOutcome.Success({ value: (Array.isArray(call.content) ? call.content : []).map(blockToJson) })
})

// -----------------------------------------------------------------------------
// tools
// -----------------------------------------------------------------------------

/**
 * An MCP tool as the agent registers it. Structurally a `@zett/agent` `Tool.Definition` (with
 * `guidelines: false`: MCP tools carry no per-tool guidelines, E5), plus where the tool comes from.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpTool {
  /** The exposed name the model calls. */
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchema
  readonly guidelines: false
  /** The server the tool belongs to. */
  readonly server: string
  /** The tool's name on its server, used for `tools/call`. */
  readonly remoteName: string
}

/**
 * Builds the agent's view of a listed tool: exposed name, description (empty when the server sent none)
 * and cleaned input schema.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromTool = (
  server: string,
  tool: { readonly name: string; readonly description?: string | undefined; readonly inputSchema?: unknown },
  options: { readonly namespace: boolean }
): McpTool => ({
  name: exposedName(server, tool.name, options),
  description: tool.description ?? "",
  parameters: cleanSchema(tool.inputSchema),
  guidelines: false,
  server,
  remoteName: tool.name
})

/**
 * The most an input schema may nest (JSON levels) and weigh (characters of keys and values). A schema over
 * either limit can only come from a broken or hostile server, and would overflow the stack of whatever
 * serializes it next (`JSON.stringify` for the model's request).
 *
 * @since 0.1.0
 * @category schemas
 */
export const schemaLimits: { readonly depth: number; readonly size: number } = JsonSchemaCleanup.limits

/**
 * Why a tool's input schema cannot be offered to the model (over `schemaLimits`), or `undefined` when it can.
 * Measured without recursion.
 *
 * @since 0.1.0
 * @category schemas
 */
export const checkSchema = (schema: unknown): string | undefined => JsonSchemaCleanup.refusal(schema)

/**
 * Lists every tool of a connected server (with the guards of `McpClient.listAll`) and converts each as the
 * model will see it. A tool whose input schema is over `schemaLimits` is skipped with a warning, like a tool
 * with an invalid schema; the rest of the server stays available.
 *
 * @since 0.1.0
 * @category constructors
 */
export const discover = (
  client: McpClient.McpClient,
  options: { readonly namespace: boolean }
): Effect.Effect<ReadonlyArray<McpTool>, McpRequestError> =>
  Effect.flatMap(McpClient.listAll(client), (tools) => {
    const out: Array<McpTool> = []
    const skipped: Array<string> = []
    for (const tool of tools) {
      const refusal = checkSchema(tool.inputSchema)
      if (refusal === undefined) out.push(fromTool(client.server, tool, options))
      else skipped.push(`MCP server ${client.server}: tool ${McpClient.clipName(tool.name)} is skipped: ${refusal}`)
    }
    return skipped.length === 0 ? Effect.succeed(out) : Effect.as(
      Effect.annotateLogs(Effect.forEach(skipped, (line) => Effect.logWarning(line), { discard: true }), "mcp.server", client.server),
      out
    )
  })
