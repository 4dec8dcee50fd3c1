/**
 * @since 0.1.0
 */
export * as NodeMcpClient from "./NodeMcpClient.js"

/**
 * @since 0.1.0
 */
export * as NodeMcpClientFactory from "./NodeMcpClientFactory.js"

/**
 * @since 0.1.0
 */
export * as NodeMcpElicitation from "./NodeMcpElicitation.js"

/**
 * @since 0.1.0
 */
export * as NodeMcpExtension from "./NodeMcpExtension.js"

/**
 * @since 0.1.0
 */
export * as ProcessGroups from "./ProcessGroups.js"
