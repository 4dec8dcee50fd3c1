/**
 * The messages of a conversation: what the model reads and what the agent appends.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * One tool call requested by the model. `arguments` is the decoded JSON object the model produced. When the
 * model's argument text could not be read, `invalidArguments` says why (`invalid JSON at position 12: ...`),
 * `arguments` is that text, and the agent answers the call with a `TOOL_FAILED` message instead of running it.
 *
 * @since 1.0.0
 * @category models
 */
export class ToolCall extends Schema.Class<ToolCall>("@zett/agent/ToolCall")({
  id: Schema.String,
  name: Schema.String,
  arguments: Schema.Unknown,
  invalidArguments: Schema.optional(Schema.String)
}) {}

/**
 * Token counts reported by a provider at the end of a response. `cachedInputTokens` is the part of
 * `inputTokens` the provider read from its prompt cache, when it says.
 *
 * @since 1.0.0
 * @category models
 */
export class Usage extends Schema.Class<Usage>("@zett/agent/Usage")({
  inputTokens: Schema.Number,
  outputTokens: Schema.Number,
  cachedInputTokens: Schema.optional(Schema.Number)
}) {}

/**
 * The sum of two usages; `cachedInputTokens` is kept when either says it.
 *
 * @since 1.0.0
 * @category constructors
 */
export const addUsage = (self: Usage, that: Usage): Usage =>
  new Usage({
    inputTokens: self.inputTokens + that.inputTokens,
    outputTokens: self.outputTokens + that.outputTokens,
    ...(self.cachedInputTokens !== undefined || that.cachedInputTokens !== undefined
      ? { cachedInputTokens: (self.cachedInputTokens ?? 0) + (that.cachedInputTokens ?? 0) }
      : {})
  })

/**
 * @since 1.0.0
 * @category models
 */
export class SystemMessage extends Schema.TaggedClass<SystemMessage>("@zett/agent/SystemMessage")("SystemMessage", {
  content: Schema.String
}) {}

/**
 * @since 1.0.0
 * @category models
 */
export class UserMessage extends Schema.TaggedClass<UserMessage>("@zett/agent/UserMessage")("UserMessage", {
  content: Schema.String
}) {}

/**
 * An assistant turn: text and the tool calls it requested (none for a final answer). `usage` is this turn's;
 * on the message a run returns, `runUsage` is the sum over every turn of the run.
 *
 * @since 1.0.0
 * @category models
 */
export class AssistantMessage extends Schema.TaggedClass<AssistantMessage>("@zett/agent/AssistantMessage")(
  "AssistantMessage",
  {
    content: Schema.String,
    // absent when constructed or decoded: no tool calls
    toolCalls: Schema.Array(ToolCall).pipe(
      Schema.withConstructorDefault(Effect.succeed([])),
      Schema.withDecodingDefaultKey(Effect.succeed([]))
    ),
    usage: Schema.optional(Usage),
    runUsage: Schema.optional(Usage)
  }
) {}

/**
 * How a tool call ended: `ok`, failed (`TOOL_FAILED`, the model sees why) or `skipped` (steering arrived
 * before it started).
 *
 * @since 1.0.0
 * @category models
 */
export const ToolStatus = Schema.Literals(["ok", "TOOL_FAILED", "skipped"])

/**
 * @since 1.0.0
 * @category models
 */
export type ToolStatus = typeof ToolStatus.Type

/**
 * The result of one tool call. `content` is JSON data; for a failure it is `{ error: { type, message } }`.
 *
 * @since 1.0.0
 * @category models
 */
export class ToolMessage extends Schema.TaggedClass<ToolMessage>("@zett/agent/ToolMessage")("ToolMessage", {
  toolCallId: Schema.String,
  name: Schema.String,
  status: ToolStatus,
  content: Schema.Unknown
}) {}

/**
 * @since 1.0.0
 * @category models
 */
export const Message = Schema.Union([SystemMessage, UserMessage, AssistantMessage, ToolMessage])

/**
 * @since 1.0.0
 * @category models
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/**
 * @since 1.0.0
 * @category constructors
 */
export const system = (content: string): SystemMessage => new SystemMessage({ content })

/**
 * @since 1.0.0
 * @category constructors
 */
export const user = (content: string): UserMessage => new UserMessage({ content })

/**
 * @since 1.0.0
 * @category constructors
 */
export const assistant = (content: string, toolCalls: ReadonlyArray<ToolCall> = []): AssistantMessage =>
  new AssistantMessage({ content, toolCalls })
