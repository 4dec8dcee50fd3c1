/**
 * @since 1.0.0
 */
export * as McpError from "./McpError.js"

/**
 * Roots: the `McpRoots` service answers `roots/list` and announces changes.
 *
 * @since 1.0.0
 */
export * as McpRoots from "./McpRoots.js"

/**
 * Sampling: the `McpSampling` service answers a server's `sampling/createMessage` with a model.
 *
 * @since 1.0.0
 */
export * as McpSampling from "./McpSampling.js"

/**
 * @since 1.0.0
 */
export * as McpServerConfig from "./McpServerConfig.js"

/**
 * @since 1.0.0
 */
export * as McpTool from "./McpTool.js"

/**
 * @since 1.0.0
 */
export * as McpToolResult from "./McpToolResult.js"

/**
 * @since 1.0.0
 */
export * as McpToolSearch from "./McpToolSearch.js"
