/**
 * An MCP tool as the agent sees it: the name the model calls it by (namespaced by server, within the characters and
 * length providers accept) and the input schema the model reads (without annotations that only cost tokens).
 * Everything here is pure, and it is `@zett/common`'s `McpTool`, the module the Effect 3 line's `@zett/mcp` exports
 * too: the names and schemas a model sees are the same on both lines.
 *
 * @example
 * ```ts
 * import { McpTool } from "@zett/mcp"
 *
 * McpTool.exposedName("catalog", "search", { namespace: true }) // "catalog__search"
 * ```
 *
 * @since 1.0.0
 */
export * from "@zett/common/McpTool"
