/**
 * A connected MCP server, as the extension, the resources and the prompts use it: the interface every driver
 * fills (`@zett/mcp-node` builds it on the MCP SDK), and the helpers written once over it (paging, discovery,
 * a call under time limits). Every request honours interruption.
 *
 * @since 0.1.0
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js"
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { McpRequestError, McpTimeoutError } from "./McpError.js"
import * as McpTool from "./McpTool.js"

/**
 * One page of `tools/list`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ListToolsPage {
  readonly tools: ReadonlyArray<Tool>
  readonly nextCursor: string | undefined
}

/**
 * One progress report of a call (`notifications/progress`): `progress` grows from one report to the next;
 * `total` is present when the server knows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** Called (synchronously, as each report arrives) for the call's progress reports. */
  readonly onProgress?: ((progress: Progress) => void) | undefined
  /**
   * Services for a server request (elicitation, sampling) that arrives during the call, added to the call's
   * own: the agent's model and the request's sampling count. Given here rather than provided around the call,
   * whose every run would pay for it, although few calls ever see a server request.
   */
  readonly context?: Context.Context<never> | undefined
}

/**
 * The surface of a connected server that the extension needs. Timing is the caller's business
 * (`Effect.timeoutFail`, or `callWithin`): neither method has a timeout of its own.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpClient {
  readonly server: string
  /** The process id of a stdio server (it leads a process group of its own); absent for other transports. */
  readonly pid?: number | undefined
  readonly listTools: (cursor?: string | undefined) => Effect.Effect<ListToolsPage, McpRequestError>
  /**
   * The result is normalized to `{ content, structuredContent?, isError? }` (a 2024-10-07 `toolResult`
   * is converted). A result with `isError: true` is a value, not a failure.
   */
  readonly callTool: (
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions | undefined
  ) => Effect.Effect<CallToolResult, McpRequestError>
  /**
   * Optional: `callTool` under `limits`, as `McpClient.callWithin` describes it, timed by the client itself.
   * `callWithin` uses it when present; a client without it is raced against a sleep.
   */
  readonly callWithin?: ((
    name: string,
    args: Record<string, unknown>,
    limits: CallLimits
  ) => Effect.Effect<CallToolResult, McpRequestError | McpTimeoutError>) | undefined
  /**
   * Calls `listener` on each `notifications/tools/list_changed` the server sends on this connection, until the
   * `Scope` it was registered in closes. A client that cannot tell (a factory of your own) leaves it out.
   */
  readonly onToolListChanged?: ((listener: () => void) => Effect.Effect<void, never, Scope.Scope>) | undefined
  /**
   * Optional: any other request (`resources/read`, `prompts/get` ...), its result as the server sent it (scrubbed).
   * `McpResources` and `McpPrompts` use it and decode the result; a client without it answers them with an
   * `McpRequestError` of kind `Unsupported`.
   */
  readonly request?: ((method: string, params?: Record<string, unknown> | undefined) => Effect.Effect<unknown, McpRequestError>) | undefined
  /**
   * Optional: subscribes to the server's notifications (`notifications/resources/updated`, `.../list_changed`)
   * for the life of the `Scope`; the queue ends when the connection closes. A client without it sends none.
   */
  readonly notifications?: Effect.Effect<Queue.Dequeue<Notification>, never, Scope.Scope> | undefined
}

/**
 * A notification from a connected server that concerns the client's state: a subscribed resource changed
 * (`ResourceUpdated`), or the list of resources or prompts did (`ResourceListChanged`, `PromptListChanged`).
 *
 * @since 0.1.0
 * @category models
 */
export type Notification = Data.TaggedEnum<{
  readonly ResourceUpdated: { readonly server: string; readonly uri: string }
  readonly ResourceListChanged: { readonly server: string }
  readonly PromptListChanged: { readonly server: string }
}>

/**
 * Constructors and matchers for `Notification`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Notification = Data.taggedEnum<Notification>()

/**
 * Converts the 2024-10-07 compatibility shape `{ toolResult }` into `{ content, structuredContent? }`: the
 * value becomes a text block (JSON unless it is a string) and, when it is an object, `structuredContent`.
 * A current result is returned as it is. (The SDK's parser gives a legacy result `content: []` as well.)
 *
 * @since 0.1.0
 * @category utils
 */
export const normalizeResult = (
  result: CallToolResult | { readonly toolResult: unknown; readonly content?: CallToolResult["content"] }
): CallToolResult => {
  if (!("toolResult" in result)) return result
  const { toolResult: value, ...rest } = result as CallToolResult & { readonly toolResult: unknown }
  const out: CallToolResult = { ...rest, content: rest.content ?? [] }
  if (out.content.length === 0) {
    out.content = [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) ?? "null" }]
  }
  if (out.structuredContent === undefined && typeof value === "object" && value !== null && !Array.isArray(value)) {
    out.structuredContent = value as Record<string, unknown>
  }
  return out
}

/**
 * A tool name as a log line shows it: at most 80 characters.
 *
 * @since 0.1.0
 * @category utils
 */
export const clipName = (name: unknown): string => {
  const text = typeof name === "string" ? name : "(unnamed)"
  return text.length > 80 ? `${text.slice(0, 80)}…` : text
}

/**
 * The time limits of one call (`callWithin`).
 *
 * @since 0.1.0
 * @category models
 */
export interface CallLimits {
  /** The server's name, for the timeout error. */
  readonly server: string
  /** The time for the call; `Option.none()` is no limit. */
  readonly timeout: Option.Option<Duration.Duration>
  /** Whether each progress report starts `timeout` afresh. */
  readonly resetOnProgress: boolean
  /** With `resetOnProgress`: the most the call may take however often it reports; `Option.none()` is no cap. */
  readonly maxTimeout: Option.Option<Duration.Duration>
  readonly onProgress?: ((progress: Progress) => void) | undefined
  /** As in `CallOptions`. */
  readonly context?: Context.Context<never> | undefined
}

/**
 * `client.callTool` under `limits`: it fails with `McpTimeoutError` when `timeout` passes, counted from the
 * start of the call or, with `resetOnProgress`, from its last progress report, but never later than
 * `maxTimeout` after the start. A call cut short is interrupted, so the server is sent
 * `notifications/cancelled`. The timer is an Effect sleep (`TestClock` drives it), set once per call: a
 * progress report only records the time, and the timer, when it wakes, sleeps again for what is left.
 *
 * @since 0.1.0
 * @category utils
 */
export const callWithin = (
  client: McpClient,
  name: string,
  args: Record<string, unknown>,
  limits: CallLimits
): Effect.Effect<CallToolResult, McpRequestError | McpTimeoutError> => {
  if (client.callWithin !== undefined) return client.callWithin(name, args, limits)
  const onProgress = limits.onProgress
  const context = limits.context
  if (Option.isNone(limits.timeout)) return client.callTool(name, args, { onProgress, context })
  const timeout = limits.timeout.value
  if (!limits.resetOnProgress) {
    return Effect.timeoutFail(client.callTool(name, args, { onProgress, context }), {
      duration: timeout,
      onTimeout: () => new McpTimeoutError({ server: limits.server, operation: "call", timeout })
    })
  }
  return Effect.clockWith((clock) => {
    const budget = callBudget(limits, timeout, clock.unsafeCurrentTimeMillis())
    let last = budget.start
    const timer: Effect.Effect<never, McpTimeoutError> = Effect.suspend(() => {
      const now = clock.unsafeCurrentTimeMillis()
      const deadline = budget.deadline(last)
      if (now < deadline) return Effect.zipRight(Effect.sleep(deadline - now), timer)
      return Effect.fail(budget.error(last))
    })
    const call = client.callTool(name, args, {
      onProgress: (progress) => {
        last = clock.unsafeCurrentTimeMillis()
        onProgress?.(progress)
      },
      context
    })
    return Effect.raceFirst(call, timer)
  })
}

/**
 * A call's time under `limits`, started at `start`: its deadline given the time of its last progress report
 * (`timeout` after it, with `resetOnProgress` never later than `maxTimeout` after the start), and the error once
 * that has passed. Shared by a driver's own timer and the race of a client without one.
 *
 * @since 0.1.0
 * @category utils
 */
export const callBudget = (limits: CallLimits, timeout: Duration.Duration, start: number) => {
  const idle = Duration.toMillis(timeout)
  const cap = limits.resetOnProgress && Option.isSome(limits.maxTimeout) ? Duration.toMillis(limits.maxTimeout.value) : Infinity
  const capped = (last: number) => start + cap <= last + idle
  return {
    start,
    deadline: (last: number) => capped(last) ? start + cap : last + idle,
    error: (last: number) => {
      const byCap = capped(last)
      return new McpTimeoutError({
        server: limits.server,
        operation: "call",
        timeout: byCap ? Duration.millis(cap) : timeout,
        ...(!byCap && last > start ? { sinceProgress: true } : {})
      })
    }
  }
}

/**
 * The most pages one tool listing may take (D9).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxPages = 100

/**
 * Lists every page of a server's tools. A server that repeats a pagination cursor, or needs more than
 * `maxPages` pages, fails with an `McpRequestError` rather than looping (D9).
 *
 * @since 0.1.0
 * @category utils
 */
export const listAll = (client: McpClient): Effect.Effect<ReadonlyArray<Tool>, McpRequestError> =>
  Effect.gen(function*() {
    const tools: Array<Tool> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let page = 1;; page++) {
      if (page > maxPages) {
        return yield* new McpRequestError({
          server: client.server,
          method: "tools/list",
          reason: `more than ${maxPages} pages of tools`
        })
      }
      const result = yield* client.listTools(cursor)
      tools.push(...result.tools)
      if (result.nextCursor === undefined) return tools
      if (seen.has(result.nextCursor)) {
        return yield* new McpRequestError({
          server: client.server,
          method: "tools/list",
          reason: "the server repeated a pagination cursor"
        })
      }
      seen.add(result.nextCursor)
      cursor = result.nextCursor
    }
  })

/**
 * Lists every tool of a connected server (with the guards of `listAll`) and converts each as the model will
 * see it (`McpTool.fromTool`). A tool whose input schema is over `McpTool.schemaLimits` is skipped with a
 * warning, like a tool with an invalid schema; the rest of the server stays available.
 *
 * @since 0.1.0
 * @category utils
 */
export const discover = (
  client: McpClient,
  options: { readonly namespace: boolean; readonly prefix?: string | undefined }
): Effect.Effect<ReadonlyArray<McpTool.McpTool>, McpRequestError> =>
  Effect.flatMap(listAll(client), (tools) => {
    const out: Array<McpTool.McpTool> = []
    const skipped: Array<string> = []
    for (const tool of tools) {
      const refusal = McpTool.checkSchema(tool.inputSchema)
      if (refusal === undefined) out.push(McpTool.fromTool(client.server, tool, options))
      else skipped.push(`MCP server ${client.server}: tool ${clipName(tool.name)} is skipped: ${refusal}`)
    }
    if (skipped.length === 0) return Effect.succeed(out)
    const warnings = Effect.forEach(skipped, (line) => Effect.logWarning(line), { discard: true })
    return Effect.as(Effect.annotateLogs(warnings, "mcp.server", client.server), out)
  })
