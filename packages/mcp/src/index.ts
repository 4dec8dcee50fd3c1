/**
 * @since 0.1.0
 */
export * as McpClient from "./McpClient.js"

/**
 * @since 0.1.0
 */
export * as McpClientFactory from "./McpClientFactory.js"

/**
 * @since 0.1.0
 */
export * as McpConnections from "./McpConnections.js"

/**
 * Elicitation (form and URL modes): the `McpElicitation` service answers a server's questions to the user.
 *
 * @since 0.1.0
 */
export * as McpElicitation from "./McpElicitation.js"

/**
 * @since 0.1.0
 */
export * as McpError from "./McpError.js"

/**
 * @since 0.1.0
 */
export * as McpExtension from "./McpExtension.js"

/**
 * Roots: the `McpRoots` service answers `roots/list` and announces changes.
 *
 * @since 0.1.0
 */
export * as McpRoots from "./McpRoots.js"

/**
 * Sampling: the `McpSampling` service answers `sampling/createMessage` through a `Model`.
 *
 * @since 0.1.0
 */
export * as McpSampling from "./McpSampling.js"

/**
 * @since 0.1.0
 */
export * as McpServerConfig from "./McpServerConfig.js"

/**
 * @since 0.1.0
 */
export * as McpServers from "./McpServers.js"

/**
 * @since 0.1.0
 */
export * as McpTool from "./McpTool.js"

/**
 * @since 0.1.0
 */
export * as McpToolCache from "./McpToolCache.js"

/**
 * @since 0.1.0
 */
export * as McpToolResult from "./McpToolResult.js"

/**
 * @since 0.1.0
 */
export * as McpToolSearch from "./McpToolSearch.js"

/**
 * @since 0.1.0
 */
export * as McpPrompts from "./McpPrompts.js"

/**
 * @since 0.1.0
 */
export * as McpResources from "./McpResources.js"

/**
 * @since 0.1.0
 */
export * as McpSkills from "./McpSkills.js"

/**
 * Tool calls that run as tasks (the Tasks extension): the task as data, its polling, the wait for its end.
 *
 * @since 0.1.0
 */
export * as McpTask from "./McpTask.js"

/**
 * The handles of tool calls a server answered with a task, kept so that a later request or another process of a
 * fleet can await the task by its id: the `McpTaskStore` tag, `layerMemory`, and `call`, `awaitTask`, `getTask`.
 *
 * @since 0.1.0
 */
export * as McpTaskStore from "./McpTaskStore.js"
