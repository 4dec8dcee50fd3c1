/**
 * The model provider as a service: a request becomes a stream of events.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import { TypeId } from "./AgentError.js"
import type { Message, ToolCall, Usage } from "./Message.js"
import type { Definition } from "./Tool.js"

/**
 * A tool executed by the provider itself (web search, code interpreter, ...); passed through untouched.
 *
 * @since 1.0.0
 * @category models
 */
export interface ServerTool {
  readonly name: string
  readonly spec: { readonly [key: string]: unknown }
}

/**
 * One call to the provider.
 *
 * @since 1.0.0
 * @category models
 */
export interface ModelRequest {
  readonly messages: ReadonlyArray<Message>
  readonly tools: ReadonlyArray<Definition>
  readonly serverTools: ReadonlyArray<ServerTool>
  /**
   * Tools held back until a search finds them (MCP tool search): a provider that loads tools itself may offer them
   * unloaded beside `tools` (Anthropic's `defer_loading`); every other model ignores them. A name here may also be in
   * `tools` (a tool a search has loaded).
   */
  readonly deferredTools?: ReadonlyArray<Definition> | undefined
  /** The tool whose results name the tools a search loaded, as `{ "tools": [{ "name": ... }] }`. */
  readonly toolSearch?: string | undefined
}

/**
 * @since 1.0.0
 * @category models
 */
export type ModelEvent =
  | { readonly _tag: "TextDelta"; readonly text: string }
  | { readonly _tag: "ToolCall"; readonly call: ToolCall }
  | { readonly _tag: "Finish"; readonly reason: string; readonly usage?: Usage | undefined }

/**
 * Why a model request failed, as a kind: the provider answered with an HTTP error status (`Http`), could not be
 * reached (`Unreachable`), sent an answer that could not be read (`InvalidResponse`: a tool call of a tool not
 * offered, among others), or reported an error in its stream (`ProviderError`); the request could not be built for
 * the provider (`InvalidRequest`); a `ScriptedModel` had no step left for the request (`ScriptEnded`). `Unknown`:
 * any other failure.
 *
 * @since 1.0.0
 * @category models
 */
export const ModelFailure = Schema.Literals([
  "Http",
  "Unreachable",
  "InvalidResponse",
  "ProviderError",
  "InvalidRequest",
  "ScriptEnded",
  "Unknown"
])

/**
 * @since 1.0.0
 * @category models
 */
export type ModelFailure = typeof ModelFailure.Type

/**
 * A model request that failed: `reason` its kind, `description` a readable line that holds no secret.
 *
 * @since 1.0.0
 * @category errors
 */
export class ModelError extends Schema.TaggedError<ModelError>("@zett/agent/ModelError")("ModelError", {
  reason: ModelFailure,
  description: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {
  /**
   * @since 1.0.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 1.0.0
   */
  override get message(): string {
    return `model request failed: ${this.description}`
  }
}

/**
 * Who serves a model, for telemetry: `provider` as OpenTelemetry's `gen_ai.provider.name` spells it (`openai`,
 * `anthropic`, ...), `model` the requested model.
 *
 * @since 1.0.0
 * @category models
 */
export interface ModelInfo {
  readonly provider: string
  readonly model: string
}

/**
 * @since 1.0.0
 * @category tags
 */
export class Model extends Context.Service<Model, {
  readonly stream: (request: ModelRequest) => Stream.Stream<ModelEvent, ModelError>
  readonly info?: ModelInfo | undefined
}>()("@zett/agent/Model") {}

/**
 * @since 1.0.0
 * @category constructors
 */
export const textDelta = (text: string): ModelEvent => ({ _tag: "TextDelta", text })

/**
 * @since 1.0.0
 * @category constructors
 */
export const toolCall = (call: ToolCall): ModelEvent => ({ _tag: "ToolCall", call })

/**
 * @since 1.0.0
 * @category constructors
 */
export const finish = (reason: string, usage?: Usage): ModelEvent => ({ _tag: "Finish", reason, usage })
