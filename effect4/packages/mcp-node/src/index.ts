/**
 * @since 1.0.0
 */
export * as NodeMcpClient from "./NodeMcpClient.js"

/**
 * @since 1.0.0
 */
export * as NodeMcpClientFactory from "./NodeMcpClientFactory.js"

/**
 * @since 1.0.0
 */
export * as NodeMcpElicitation from "./NodeMcpElicitation.js"

/**
 * @since 1.0.0
 */
export * as NodeMcpExtension from "./NodeMcpExtension.js"

/**
 * @since 1.0.0
 */
export * as ProcessGroups from "./ProcessGroups.js"
