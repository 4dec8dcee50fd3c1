/**
 * @since 0.1.0
 */
export * as AiModel from "./AiModel.js"

/**
 * @since 0.1.0
 */
export * as AiProvider from "./AiProvider.js"

/**
 * @since 0.1.0
 */
export * as AnthropicToolSearch from "./AnthropicToolSearch.js"

/**
 * @since 0.1.0
 */
export * as OpenAiToolSearch from "./OpenAiToolSearch.js"
