/**
 * @since 1.0.0
 */
export * as McpClient from "./McpClient.js"

/**
 * @since 1.0.0
 */
export * as McpClientFactory from "./McpClientFactory.js"

/**
 * @since 1.0.0
 */
export * as McpConnections from "./McpConnections.js"

/**
 * Elicitation (form and URL modes): the `McpElicitation` service answers a server's questions to the user.
 *
 * @since 1.0.0
 */
export * as McpElicitation from "./McpElicitation.js"

/**
 * @since 1.0.0
 */
export * as McpError from "./McpError.js"

/**
 * The MCP extension for `@zett/agent`: every configured server's tools, discovered at the start of a request
 * (through the tool cache) and called when the model asks.
 *
 * @since 1.0.0
 */
export * as McpExtension from "./McpExtension.js"

/**
 * Prompts: a server's prompts, listed and got as the agent's messages.
 *
 * @since 1.0.0
 */
export * as McpPrompts from "./McpPrompts.js"

/**
 * Resources: a server's resources, listed, read and followed.
 *
 * @since 1.0.0
 */
export * as McpResources from "./McpResources.js"

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
export * as McpServers from "./McpServers.js"

/**
 * Skills: a server's skills (the Skills extension), listed, got and read with verification.
 *
 * @since 1.0.0
 */
export * as McpSkills from "./McpSkills.js"

/**
 * Tasks: a tool call that runs as a task (the Tasks extension), polled, given input and cancelled.
 *
 * @since 1.0.0
 */
export * as McpTask from "./McpTask.js"

/**
 * The handles of tool calls a server answered with a task, kept so that a later request or another process of a
 * fleet can await the task by its id: the `McpTaskStore` tag, `layerMemory`, and `call`, `awaitTask`, `getTask`.
 *
 * @since 1.0.0
 */
export * as McpTaskStore from "./McpTaskStore.js"

/**
 * @since 1.0.0
 */
export * as McpTool from "./McpTool.js"

/**
 * @since 1.0.0
 */
export * as McpToolCache from "./McpToolCache.js"

/**
 * @since 1.0.0
 */
export * as McpToolResult from "./McpToolResult.js"

/**
 * @since 1.0.0
 */
export * as McpToolSearch from "./McpToolSearch.js"

/**
 * The configured servers' tools as an `effect/ai` `Toolkit`, for a `LanguageModel.generateText` loop of the app's own.
 *
 * @since 1.0.0
 */
export * as McpToolkit from "./McpToolkit.js"
