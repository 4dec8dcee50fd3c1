/**
 * @since 0.1.0
 */
export * as McpConfiguration from "./McpConfiguration.js"

/**
 * @since 0.1.0
 */
export * as McpInputs from "./McpInputs.js"
