/**
 * @since 0.1.0
 */
export * as McpAuthSession from "./McpAuthSession.js"

/**
 * @since 0.1.0
 */
export * as McpAuthorization from "./McpAuthorization.js"

/**
 * @since 0.1.0
 */
export * as McpTokenStore from "./McpTokenStore.js"
