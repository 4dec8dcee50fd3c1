/**
 * @since 0.1.0
 */
export * as ChatCompletionsClient from "./ChatCompletionsClient.js"

/**
 * @since 0.1.0
 */
export * as ChatCompletionsLanguageModel from "./ChatCompletionsLanguageModel.js"
