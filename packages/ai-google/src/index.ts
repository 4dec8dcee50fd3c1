/**
 * @since 0.1.0
 */
export * as GoogleClient from "./GoogleClient.js"

/**
 * @since 0.1.0
 */
export * as GoogleLanguageModel from "./GoogleLanguageModel.js"
