/**
 * @since 0.1.0
 */
export * as AiModel from "./AiModel.js"

/**
 * @since 0.1.0
 */
export * as AiProvider from "./AiProvider.js"
