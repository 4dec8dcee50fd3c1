/**
 * The messages of a conversation: what the model reads and what the agent appends.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * One tool call requested by the model. `arguments` is the decoded JSON object the model produced.
 *
 * @since 0.1.0
 * @category models
 */
export class ToolCall extends Schema.Class<ToolCall>("@zett/agent/ToolCall")({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.Unknown
}) {}

/**
 * Token counts reported by a provider at the end of a response.
 *
 * @since 0.1.0
 * @category models
 */
export class Usage extends Schema.Class<Usage>("@zett/agent/Usage")({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export class SystemMessage extends Schema.TaggedClass<SystemMessage>("@zett/agent/SystemMessage")("SystemMessage", {
  content: Schema.String
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export class UserMessage extends Schema.TaggedClass<UserMessage>("@zett/agent/UserMessage")("UserMessage", {
  content: Schema.String
}) {}

/**
 * An assistant turn: text and the tool calls it requested (none for a final answer).
 *
 * @since 0.1.0
 * @category models
 */
export class AssistantMessage extends Schema.TaggedClass<AssistantMessage>("@zett/agent/AssistantMessage")(
  "AssistantMessage",
  {
    content: Schema.String,
    toolCalls: Schema.optionalWith(Schema.Array(ToolCall), { default: () => [] }),
    usage: Schema.optional(Usage)
  }
) {}

/**
 * How a tool call ended: `ok`, failed (`TOOL_FAILED`, the model sees why) or `skipped` (steering arrived
 * before it started).
 *
 * @since 0.1.0
 * @category models
 */
export const ToolStatus = Schema.Literal("ok", "TOOL_FAILED", "skipped")

/**
 * @since 0.1.0
 * @category models
 */
export type ToolStatus = typeof ToolStatus.Type

/**
 * The result of one tool call. `content` is JSON data; for a failure it is `{ error: { type, message } }`.
 *
 * @since 0.1.0
 * @category models
 */
export class ToolMessage extends Schema.TaggedClass<ToolMessage>("@zett/agent/ToolMessage")("ToolMessage", {
  toolCallId: Schema.String,
  name: Schema.String,
  status: ToolStatus,
  content: Schema.Unknown
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export const Message = Schema.Union(SystemMessage, UserMessage, AssistantMessage, ToolMessage)

/**
 * @since 0.1.0
 * @category models
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/**
 * @since 0.1.0
 * @category constructors
 */
export const system = (content: string): SystemMessage => new SystemMessage({ content })

/**
 * @since 0.1.0
 * @category constructors
 */
export const user = (content: string): UserMessage => new UserMessage({ content })

/**
 * @since 0.1.0
 * @category constructors
 */
export const assistant = (content: string, toolCalls: ReadonlyArray<ToolCall> = []): AssistantMessage =>
  new AssistantMessage({ content, toolCalls })
