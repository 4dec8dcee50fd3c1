/**
 * An MCP tool as the agent sees it: the name the model calls it by (namespaced by server, within the characters and
 * length providers accept) and the input schema the model reads (without annotations that only cost tokens). What the
 * model gets back from a call is `McpToolResult`. Everything here is pure, and it is `@zett/common`'s `McpTool`, the
 * module both Effect lines of `@zett/mcp` export.
 *
 * @example
 * ```ts
 * import { McpTool } from "@zett/mcp"
 *
 * McpTool.exposedName("catalog", "search", { namespace: true }) // "catalog__search"
 * ```
 *
 * @since 0.1.0
 */
export * from "@zett/common/McpTool"
