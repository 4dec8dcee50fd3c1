/**
 * @since 0.1.0
 */
export * as McpRedis from "./McpRedis.js"

/**
 * @since 0.1.0
 */
export * as RedisTaskStore from "./RedisTaskStore.js"

/**
 * @since 0.1.0
 */
export * as RedisTokenStore from "./RedisTokenStore.js"

/**
 * @since 0.1.0
 */
export * as RedisToolCache from "./RedisToolCache.js"
