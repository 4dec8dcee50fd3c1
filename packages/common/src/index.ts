/**
 * @since 0.1.0
 */
export * as EditDistance from "./EditDistance.js"

/**
 * @since 0.1.0
 */
export * as JsonDepth from "./JsonDepth.js"

/**
 * @since 0.1.0
 */
export * as McpParamHeaders from "./McpParamHeaders.js"

/**
 * @since 0.1.0
 */
export * as McpServerDefinition from "./McpServerDefinition.js"

/**
 * @since 0.1.0
 */
export * as McpTool from "./McpTool.js"

/**
 * @since 0.1.0
 */
export * as Scrubber from "./Scrubber.js"

/**
 * @since 0.1.0
 */
export * as ToolSearch from "./ToolSearch.js"
