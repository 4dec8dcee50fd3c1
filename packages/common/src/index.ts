/**
 * @since 0.1.0
 */
export * as AwsEventStream from "./AwsEventStream.js"

/**
 * @since 0.1.0
 */
export * as EditDistance from "./EditDistance.js"

/**
 * @since 0.1.0
 */
export * as HostedToolSearch from "./HostedToolSearch.js"

/**
 * @since 0.1.0
 */
export * as JsonDepth from "./JsonDepth.js"

/**
 * @since 0.1.0
 */
export * as McpConfigDialect from "./McpConfigDialect.js"

/**
 * @since 0.1.0
 */
export * as McpConfigEntry from "./McpConfigEntry.js"

/**
 * @since 0.1.0
 */
export * as McpConfigFile from "./McpConfigFile.js"

/**
 * @since 0.1.0
 */
export * as McpConfigVariables from "./McpConfigVariables.js"

/**
 * @since 0.1.0
 */
export * as McpConfigWording from "./McpConfigWording.js"

/**
 * @since 0.1.0
 */
export * as McpElicitation from "./McpElicitation.js"

/**
 * @since 0.1.0
 */
export * as McpParamHeaders from "./McpParamHeaders.js"

/**
 * @since 0.1.0
 */
export * as McpResponseWatch from "./McpResponseWatch.js"

/**
 * @since 0.1.0
 */
export * as McpServerDefinition from "./McpServerDefinition.js"

/**
 * @since 0.1.0
 */
export * as McpSkills from "./McpSkills.js"

/**
 * @since 0.1.0
 */
export * as McpTask from "./McpTask.js"

/**
 * @since 0.1.0
 */
export * as McpTool from "./McpTool.js"

/**
 * @since 0.1.0
 */
export * as McpToolListing from "./McpToolListing.js"

/**
 * @since 0.1.0
 */
export * as McpToolResult from "./McpToolResult.js"

/**
 * @since 0.1.0
 */
export * as OAuthChecks from "./OAuthChecks.js"

/**
 * @since 0.1.0
 */
export * as OAuthDpop from "./OAuthDpop.js"

/**
 * @since 0.1.0
 */
export * as Scrubber from "./Scrubber.js"

/**
 * @since 0.1.0
 */
export * as ToolSearch from "./ToolSearch.js"
