/**
 * The connection the stores share, and `BackingPersistence` on it.
 *
 * @since 1.0.0
 */
export * as McpRedis from "./McpRedis.js"

/**
 * Task handles shared by a fleet: `McpTaskStore` in Redis.
 *
 * @since 1.0.0
 */
export * as RedisTaskStore from "./RedisTaskStore.js"

/**
 * OAuth tokens shared by a fleet: `McpTokenStore` in Redis, encrypted, with a refresh lock in Redis.
 *
 * @since 1.0.0
 */
export * as RedisTokenStore from "./RedisTokenStore.js"

/**
 * Tool lists shared by a fleet, with one discovery per server across it.
 *
 * @since 1.0.0
 */
export * as RedisToolCache from "./RedisToolCache.js"
