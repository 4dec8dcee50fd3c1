/**
 * Extensions: plain values with a unique `name` and optional hooks, run by the agent in a fixed order (`Hooks`).
 *
 * Hooks capture the services they need when the extension is built, so a hook needs nothing from context; its
 * failures are typed (`Extension<E>`). A failing hook fails the run (an `ExtensionError`), except
 * `onToolCall`, whose failure is an ordinary tool failure. Per-request state is built by `request`, in the
 * request scope.
 *
 * @since 1.0.0
 */
import type * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
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
 * @since 1.0.0
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
 * @since 1.0.0
 * @category models
 */
export interface ServerToolRegistry {
  readonly add: (tool: ServerTool) => Effect.Effect<void>
  readonly list: Effect.Effect<ReadonlyArray<ServerTool>>
}

/**
 * What a hook sees of the request it runs in. `scope` is the request scope: anything acquired in it is
 * released when the request ends, whatever the exit.
 *
 * @since 1.0.0
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
  /**
   * Publishes `event` to the `onEvent` hook of every extension of the request, in registration order. A hook
   * that fails is logged, not raised: an observer cannot fail the step that published.
   */
  readonly publish: (event: AgentEvent) => Effect.Effect<void>
  /** Whether an extension of the request has an `onEvent` hook: a publisher may skip building events nobody reads. */
  readonly observed: boolean
  /**
   * The agent's time limit for a tool that sets none of its own (`Agent.Options.toolTimeout`): the agent applies
   * it, except to a tool that keeps its own time (`Tool.timesItself`), which reads it here. Absent: no limit.
   */
  readonly toolTimeout?: Duration.Duration | undefined
}

/**
 * Published to `onEvent` when a run is interrupted: that path bypasses `onError`.
 *
 * @since 1.0.0
 * @category models
 */
export interface RunCancelledEvent {
  readonly _tag: "RunCancelled"
  readonly runId: number
}

/**
 * Published to `onEvent` while a tool runs, for each progress report of the tool (an MCP server's
 * `notifications/progress`). `progress` grows from one report to the next; `total` is present when the tool
 * knows it.
 *
 * @since 1.0.0
 * @category models
 */
export interface ToolProgressEvent {
  readonly _tag: "ToolProgress"
  readonly runId: number
  readonly toolCallId: string
  /** The tool's name as the model called it. */
  readonly tool: string
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * Published to `onEvent` while a tool runs as a task on its server (an MCP server that answered the call with a task
 * handle, the Tasks extension): when the task starts and at each change of its status or status message. `status` is
 * `working`, `input_required`, or how it ended: `completed`, `failed`, `cancelled`.
 *
 * @since 1.0.0
 * @category models
 */
export interface ToolTaskEvent {
  readonly _tag: "ToolTask"
  readonly runId: number
  readonly toolCallId: string
  /** The tool's name as the model called it. */
  readonly tool: string
  readonly taskId: string
  readonly status: "working" | "input_required" | "completed" | "failed" | "cancelled"
  readonly message?: string | undefined
}

/**
 * @since 1.0.0
 * @category models
 */
export type AgentEvent = RunCancelledEvent | ToolProgressEvent | ToolTaskEvent

/**
 * A hook around a step of the request: it may change the input, answer without calling `next`, or call it.
 *
 * @since 1.0.0
 * @category models
 */
export type Wrap<In, Out> = (context: RunContext, input: In, next: (input: In) => Out) => Out

/**
 * The hooks of an extension, each optional, listed in the order the agent runs them. `E` is what the hooks may fail
 * with: a failing hook fails the run with an `ExtensionError` that carries it, except `onToolCall`, whose failure is
 * the tool's own (a `TOOL_FAILED` message).
 *
 * @since 1.0.0
 * @category models
 */
export interface Hooks<E = never> {
  readonly onMessage?: (context: RunContext) => Effect.Effect<void, E>
  readonly beforeRun?: (context: RunContext) => Effect.Effect<void, E>
  readonly beforeTurn?: (context: RunContext) => Effect.Effect<void, E>
  readonly onTool?: (context: RunContext) => Effect.Effect<void, E>
  readonly onState?: (context: RunContext) => Effect.Effect<void, E>
  readonly beforeModel?: (context: RunContext, request: ModelRequest) => Effect.Effect<void, E>
  /** Wraps the model call: `next` calls the rest of the chain (and at its end, the model). */
  readonly onModelRequest?: Wrap<ModelRequest, Stream.Stream<ModelEvent, ModelError>>
  readonly afterModel?: (context: RunContext, response: AssistantMessage) => Effect.Effect<void, E>
  readonly beforeTool?: (context: RunContext, call: ToolCall) => Effect.Effect<void, E>
  /** Wraps a tool call; what it fails with is the call's failure, which the model reads. */
  readonly onToolCall?: Wrap<ToolCall, Effect.Effect<unknown, unknown>>
  /** Return a `ToolMessage` to replace the result; fail to prevent its append (and fail the run). */
  readonly afterTool?: (
    context: RunContext,
    call: ToolCall,
    result: ToolMessage,
    error: Option.Option<unknown>
  ) => Effect.Effect<ToolMessage | void, E>
  readonly afterTurn?: (context: RunContext, result: AssistantMessage) => Effect.Effect<void, E>
  readonly afterRun?: (context: RunContext, result: AssistantMessage) => Effect.Effect<void, E>
  readonly onSuccess?: (context: RunContext, result: AssistantMessage) => Effect.Effect<void, E>
  readonly onError?: (context: RunContext, error: unknown) => Effect.Effect<void, E>
  readonly onEvent?: (context: RunContext, event: AgentEvent) => Effect.Effect<void, E>
  /** A maintenance pass (`Agent.compact`) starts: restore what should be compacted. */
  readonly onCompact?: (context: RunContext) => Effect.Effect<void, E>
  /** A maintenance pass ends after compaction: persist its result. */
  readonly afterCompact?: (context: RunContext) => Effect.Effect<void, E>
  /**
   * Services of this request, returned by `request`: every hook, tool handler and model call of the request runs
   * with them in its context (as a transaction's connection is reached in `@effect/sql`), so request state is read
   * from the context rather than looked up. A run also provides the agent's `Model`.
   */
  readonly services?: Context.Context<never> | undefined
}

/**
 * A hook whose failure fails the request, as `ExtensionError.hook` names it.
 *
 * @since 1.0.0
 * @category models
 */
export type HookName = Exclude<keyof Hooks, "onModelRequest" | "onToolCall" | "services">

/**
 * An extension: a `name` unique within the agent, hooks, and optionally `request`.
 *
 * Request state lives in the request: `request` runs when a request (a run or a compaction pass) starts, in
 * the request `Scope`, and returns the hooks for that request alone, so whatever they share (a connection
 * map, a configuration snapshot) is held in their closure and whatever they acquire is released when the
 * request ends. Its hooks take the place of the extension's own hook fields of the same name for that
 * request. A failing `request` fails the request like a failing hook.
 *
 * @since 1.0.0
 * @category models
 */
export interface Extension<E = never> extends Hooks<E> {
  readonly name: string
  readonly request?: (context: RunContext) => Effect.Effect<Hooks<E>, E, Scope.Scope>
  /** An external event offered to every extension (`Agent.accept`); `true` means this extension took it. */
  readonly accept?: (config: unknown, event: unknown) => boolean
}

/**
 * An extension whatever its hooks fail with: what a list of extensions holds.
 *
 * @since 1.0.0
 * @category models
 */
export type Any = Extension<any>
