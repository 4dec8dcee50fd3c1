/**
 * @since 1.0.0
 */
export * as AiModel from "./AiModel.js"

/**
 * @since 1.0.0
 */
export * as AiProvider from "./AiProvider.js"
