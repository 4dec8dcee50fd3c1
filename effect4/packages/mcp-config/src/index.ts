/**
 * @since 1.0.0
 */
export * as McpConfiguration from "./McpConfiguration.js"

/**
 * @since 1.0.0
 */
export * as McpInputs from "./McpInputs.js"
