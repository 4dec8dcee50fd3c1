/**
 * @since 1.0.0
 */
export * as AnthropicClient from "./AnthropicClient.js"

/**
 * @since 1.0.0
 */
export * as AnthropicLanguageModel from "./AnthropicLanguageModel.js"
