/**
 * @since 1.0.0
 */
export * as Agent from "./Agent.js"

/**
 * @since 1.0.0
 */
export * as AgentError from "./AgentError.js"

/**
 * @since 1.0.0
 */
export * as EditDistance from "./EditDistance.js"

/**
 * @since 1.0.0
 */
export * as EffectVersion from "./EffectVersion.js"

/**
 * @since 1.0.0
 */
export * as Extension from "./Extension.js"

/**
 * @since 1.0.0
 */
export * as Message from "./Message.js"

/**
 * @since 1.0.0
 */
export * as MessageAccumulator from "./MessageAccumulator.js"

/**
 * @since 1.0.0
 */
export * as Model from "./Model.js"

/**
 * @since 1.0.0
 */
export * as ScriptedModel from "./ScriptedModel.js"

/**
 * @since 1.0.0
 */
export * as Scrubber from "./Scrubber.js"

/**
 * @since 1.0.0
 */
export * as Tool from "./Tool.js"

/**
 * @since 1.0.0
 */
export * as ToolGuidelines from "./ToolGuidelines.js"

/**
 * @since 1.0.0
 */
export * as Tracing from "./Tracing.js"
