/**
 * @since 1.0.0
 */
export * as OpenAiClient from "./OpenAiClient.js"

/**
 * @since 1.0.0
 */
export * as OpenAiLanguageModel from "./OpenAiLanguageModel.js"
