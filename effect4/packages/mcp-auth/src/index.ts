/**
 * @since 1.0.0
 */
export * as McpAuthSession from "./McpAuthSession.js"

/**
 * @since 1.0.0
 */
export * as McpAuthorization from "./McpAuthorization.js"

/**
 * @since 1.0.0
 */
export * as McpTokenStore from "./McpTokenStore.js"
