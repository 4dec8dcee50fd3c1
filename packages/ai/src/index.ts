/**
 * @since 0.1.0
 */
export * as AiModel from "./AiModel.js"

/**
 * @since 0.1.0
 */
export * as AiModelConfig from "./AiModelConfig.js"

/**
 * @since 0.1.0
 */
export * as OpenAiChat from "./OpenAiChat.js"

/**
 * @since 0.1.0
 */
export * as Gemini from "./Gemini.js"

/**
 * @since 0.1.0
 */
export * as Bedrock from "./Bedrock.js"
