/**
 * Extensions: plain values with a unique `name` and optional hooks, run by the agent in a fixed order (A5).
 *
 * Hooks capture the services they need when the extension is built, so every hook is an
 * `Effect<_, unknown>` with no requirements. A failing hook fails the run (an `ExtensionError`), except
 * `onToolCall`, whose failure is an ordinary tool failure.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as pending from "./internal/pending.js"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { AssistantMessage, Message, ToolCall, ToolMessage, UserMessage } from "./Message.js"
import type { ModelError, ModelEvent, ModelRequest, ServerTool } from "./Model.js"
import type { Tool } from "./Tool.js"

/**
 * The tools of one request. `register` skips a name that is already registered, logs a warning and
 * returns `false`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolRegistry {
  readonly register: (tool: Tool) => Effect.Effect<boolean>
  /** Registers many tools at once, skipping (with a warning each) the names already registered. */
  readonly registerAll: (tools: Iterable<Tool>) => Effect.Effect<void>
  readonly remove: (name: string) => Effect.Effect<void>
  readonly get: (name: string) => Tool | undefined
  readonly list: Effect.Effect<ReadonlyArray<Tool>>
}

/**
 * Provider-executed tools of one request.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerToolRegistry {
  readonly add: (tool: ServerTool) => Effect.Effect<void>
  readonly list: Effect.Effect<ReadonlyArray<ServerTool>>
}

/**
 * What a hook sees of the request it runs in. `scope` is the request scope: anything acquired in it is
 * released when the request ends, whatever the exit (A2).
 *
 * @since 0.1.0
 * @category models
 */
export interface RunContext {
  readonly runId: number
  readonly kind: "run" | "compact"
  readonly scope: Scope.Scope
  readonly inputMessage: Effect.Effect<UserMessage>
  readonly setInputMessage: (message: UserMessage) => Effect.Effect<void>
  readonly messages: Effect.Effect<ReadonlyArray<Message>>
  readonly addMessage: (message: Message) => Effect.Effect<void>
  readonly replaceMessages: (messages: ReadonlyArray<Message>) => Effect.Effect<void>
  /** State for the system message of the current model call (`onState`): rebuilt every turn, never stored. */
  readonly addState: (text: string) => Effect.Effect<void>
  readonly tools: ToolRegistry
  readonly serverTools: ServerToolRegistry
}

/**
 * Published to `onEvent` when a run is interrupted: that path bypasses `onError`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunCancelledEvent {
  readonly _tag: "RunCancelled"
  readonly runId: number
}

/**
 * @since 0.1.0
 * @category models
 */
export type AgentEvent = RunCancelledEvent

/**
 * @since 0.1.0
 * @category models
 */
export interface Extension {
  readonly name: string
  readonly onMessage?: (context: RunContext) => Effect.Effect<void, unknown>
  readonly beforeRun?: (context: RunContext) => Effect.Effect<void, unknown>
  readonly beforeTurn?: (context: RunContext) => Effect.Effect<void, unknown>
  readonly onTool?: (context: RunContext) => Effect.Effect<void, unknown>
  readonly onState?: (context: RunContext) => Effect.Effect<void, unknown>
  readonly beforeModel?: (context: RunContext, request: ModelRequest) => Effect.Effect<void, unknown>
  readonly onModelRequest?: (
    context: RunContext,
    request: ModelRequest,
    next: (request: ModelRequest) => Stream.Stream<ModelEvent, ModelError>
  ) => Stream.Stream<ModelEvent, ModelError>
  readonly afterModel?: (context: RunContext, response: AssistantMessage) => Effect.Effect<void, unknown>
  readonly beforeTool?: (context: RunContext, call: ToolCall) => Effect.Effect<void, unknown>
  readonly onToolCall?: (
    context: RunContext,
    call: ToolCall,
    next: (call: ToolCall) => Effect.Effect<unknown, unknown>
  ) => Effect.Effect<unknown, unknown>
  /** Return a `ToolMessage` to replace the result; fail to prevent its append (and fail the run). */
  readonly afterTool?: (
    context: RunContext,
    call: ToolCall,
    result: ToolMessage,
    error: Option.Option<unknown>
  ) => Effect.Effect<ToolMessage | void, unknown>
  readonly afterTurn?: (context: RunContext, result: AssistantMessage) => Effect.Effect<void, unknown>
  readonly afterRun?: (context: RunContext, result: AssistantMessage) => Effect.Effect<void, unknown>
  readonly onSuccess?: (context: RunContext, result: AssistantMessage) => Effect.Effect<void, unknown>
  readonly onError?: (context: RunContext, error: unknown) => Effect.Effect<void, unknown>
  readonly onEvent?: (context: RunContext, event: AgentEvent) => Effect.Effect<void, unknown>
  /** A maintenance pass (`Agent.compact`) starts: restore what should be compacted. */
  readonly onCompact?: (context: RunContext) => Effect.Effect<void, unknown>
  /** A maintenance pass ends after compaction: persist its result. */
  readonly afterCompact?: (context: RunContext) => Effect.Effect<void, unknown>
  /** An external event (A8); `true` means this extension took it. */
  readonly accept?: (config: unknown, event: unknown) => boolean
}

/**
 * Whether at least one active run uses this extension instance, across every agent that registered it (A9).
 *
 * @since 0.1.0
 * @category utils
 */
export const isPending = (extension: Extension): boolean => pending.isPending(extension)
