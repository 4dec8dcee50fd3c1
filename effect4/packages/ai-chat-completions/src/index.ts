/**
 * @since 1.0.0
 */
export * as ChatCompletionsClient from "./ChatCompletionsClient.js"

/**
 * @since 1.0.0
 */
export * as ChatCompletionsLanguageModel from "./ChatCompletionsLanguageModel.js"
