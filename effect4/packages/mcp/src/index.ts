/**
 * @since 1.0.0
 */
export * as McpTool from "./McpTool.js"

/**
 * @since 1.0.0
 */
export * as McpToolSearch from "./McpToolSearch.js"
