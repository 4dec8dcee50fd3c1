/**
 * An MCP tool as the agent sees it: the name the model calls it by (namespaced by server, within the characters and
 * length providers accept) and the input schema the model reads (without annotations that only cost tokens). What the
 * model gets back from a call is `McpToolResult` (in `@zett/mcp`). Everything here is pure: no connection, no service,
 * no effect; both Effect lines of `@zett/mcp` export this module as their `McpTool`.
 *
 * @since 0.1.0
 */
import * as JsonSchemaCleanup from "./internal/jsonSchema.js"
import * as Naming from "./internal/toolName.js"

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
 * The name the model sees for `tool` of `server`: unique across servers and within what providers accept as a
 * function name.
 *
 * - `namespace: true` gives `<server>__<tool>`, `namespace: false` gives `<tool>`.
 * - A name made only of `[A-Za-z0-9_-]` and at most 64 characters long is returned unchanged.
 * - Any other name (other characters, too long, empty) becomes `<prefix>_<hash>`, at most 64 characters:
 *   `prefix` is the name with every other character replaced by `_`, cut to fit, and `hash` is the first
 *   8 hex digits of the SHA-256 of the original (unsanitised, untruncated) name. The result is therefore
 *   the same in every process, and two names that sanitise or truncate alike still differ.
 *
 * Two different remote tools can still meet on one exposed name (`a` + `b__c` and `a__b` + `c`); the registry detects
 * and skips such duplicates, so one tool never shadows another.
 *
 * @example
 * ```ts
 * import { McpTool } from "@zett/common"
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

/**
 * A name every provider accepts: the name itself when valid, otherwise its invalid characters replaced and a
 * short hash of the original added, so that names that clean up alike stay apart.
 *
 * @since 0.1.0
 * @category utils
 */
export const sanitizeName = (name: string): string => Naming.sanitize(name)

// -----------------------------------------------------------------------------
// schema cleanup
// -----------------------------------------------------------------------------

/**
 * A JSON Schema object (the same shape as `@zett/agent`'s `Tool.JsonSchema`, on either line).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonSchema = { readonly [key: string]: unknown }

/**
 * The input schema as it is sent to the model, without what only costs the model tokens.
 *
 * - `title` annotation keys are removed at every depth, and `$schema` below the root (the root's names the
 *   dialect, which the 2026-07-28 revision asks clients to keep), but only where a schema stands:
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
 * - The input is never mutated. Only what changes is copied: a schema that needs no change (no annotation
 *   anywhere, `type` and `properties` present at the top) is returned as it is, and a cleaned schema shares
 *   every unchanged part (and every data value: `enum`, `default` ...) with the input, so treat both as
 *   immutable.
 * - Nesting deeper than 256 schema levels (only a hostile or cyclic schema does that) is copied unchanged
 *   below that depth instead of overflowing the stack.
 *
 * @since 0.1.0
 * @category schemas
 */
export const cleanSchema = (schema: unknown): JsonSchema => JsonSchemaCleanup.cleanInputSchema(schema)

// -----------------------------------------------------------------------------
// tools
// -----------------------------------------------------------------------------

/**
 * An MCP tool as the agent registers it. Structurally a `@zett/agent` `Tool.Definition` (with `guidelines: false`: MCP
 * tools carry no per-tool guidelines, their description is all the model gets), plus where the tool comes from.
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
  /**
   * How the tool runs as a task on the 2025-11-25 revision (its `execution.taskSupport`): `"required"` or
   * `"optional"`; left out, it does not (`"forbidden"`, the default, as in a tool list stored before this field).
   */
  readonly taskSupport?: "required" | "optional" | undefined
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
  tool: {
    readonly name: string
    readonly description?: string | undefined
    readonly inputSchema?: unknown
    readonly execution?: { readonly taskSupport?: unknown } | undefined
  },
  options: {
    readonly namespace: boolean
    /** The `<prefix>__` of the exposed name (`McpServerConfig.toolPrefix`); the server name by default. */
    readonly prefix?: string | undefined
  }
): McpTool => ({
  name: exposedName(options.prefix ?? server, tool.name, options),
  description: tool.description ?? "",
  parameters: cleanSchema(tool.inputSchema),
  guidelines: false,
  server,
  remoteName: tool.name,
  ...taskSupportOf(tool.execution?.taskSupport)
})

const taskSupportOf = (support: unknown): { readonly taskSupport?: "required" | "optional" } =>
  support === "required" || support === "optional" ? { taskSupport: support } : {}

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
 * A tool name as a log line shows it: at most 80 characters, `(unnamed)` for a name that is no string.
 *
 * @since 0.1.0
 * @category naming
 */
export const clipName = (name: unknown): string => {
  const text = typeof name === "string" ? name : "(unnamed)"
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}
