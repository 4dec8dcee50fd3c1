/**
 * @since 0.1.0
 */
export * as AiModel from "./AiModel.js"
