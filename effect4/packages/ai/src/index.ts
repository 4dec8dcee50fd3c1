/**
 * @since 1.0.0
 */
export * as AiModel from "./AiModel.js"
