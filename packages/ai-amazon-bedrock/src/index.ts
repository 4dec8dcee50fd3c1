/**
 * @since 0.1.0
 */
export * as AmazonBedrockClient from "./AmazonBedrockClient.js"

/**
 * @since 0.1.0
 */
export * as AmazonBedrockLanguageModel from "./AmazonBedrockLanguageModel.js"
