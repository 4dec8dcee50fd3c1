/**
 * @since 1.0.0
 */
export * as GoogleClient from "./GoogleClient.js"

/**
 * @since 1.0.0
 */
export * as GoogleLanguageModel from "./GoogleLanguageModel.js"
