/**
 * A connected MCP server, reduced to the two requests the extension needs. Both honour interruption:
 * interrupting the fiber aborts the SDK request, which sends `notifications/cancelled` to the server.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { CallToolResult, Progress as SdkProgress, Tool } from "@modelcontextprotocol/sdk/types.js"
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  ToolSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Scrubber, Tracing } from "@zett/agent"
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Deadlines from "./internal/deadlines.js"
import * as CallSignal from "./internal/callSignal.js"
import * as ServerRequests from "./internal/serverRequests.js"
import { McpRequestError, McpTimeoutError } from "./McpError.js"
import * as McpTool from "./McpTool.js"
import { z } from "zod"

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
 * The longest timeout `setTimeout` accepts (about 24.8 days). The SDK arms a 60 s timer on every request
 * unless given a `timeout`; anything larger than this would overflow and fire at once.
 *
 * @since 0.1.0
 * @category constants
 */
export const sdkTimeoutDisabled = 2_147_483_647

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

const isSchemaError = (u: unknown): boolean =>
  u instanceof Error && Array.isArray((u as { readonly issues?: unknown }).issues)

const LooseListToolsResult = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() })

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

// A listed "tool" may be any JSON value; a field of a number, a string, an array or null reads as undefined.
const field = (candidate: unknown, key: "name" | "inputSchema"): unknown =>
  (candidate as { readonly [key: string]: unknown } | null)?.[key]

// The SDK requires `inputSchema.type: "object"`; a schema that leaves `type` out means an object all the
// same (as `McpTool.cleanSchema` reads it), so it is filled in rather than the tool dropped.
const withObjectType = (candidate: unknown): unknown => {
  const schema = field(candidate, "inputSchema")
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return candidate
  // a shortcut: the schema's own `type` would win the spread below, and the SDK's parse orders the keys
  // Stryker disable next-line StringLiteral,ConditionalExpression: a shortcut, equivalent to the spread
  if (Object.hasOwn(schema, "type")) return candidate
  return { ...(candidate as object), inputSchema: { type: "object", ...schema } }
}

/** The tools of a page that are valid one by one; each invalid one is named with its first problem. */
const lenientPage = (
  page: z.infer<typeof LooseListToolsResult>
): ListToolsPage & { readonly skipped: ReadonlyArray<string> } => {
  const tools: Array<Tool> = []
  const skipped: Array<string> = []
  for (const candidate of page.tools.map(withObjectType)) {
    const parsed = ToolSchema.safeParse(candidate)
    if (parsed.success) {
      tools.push(parsed.data)
      continue
    }
    // a failed parse has at least one issue; one about the whole tool has an empty path
    const issue = parsed.error.issues[0]!
    const where = issue.path.length === 0 ? "" : `${issue.path.join(".")}: `
    skipped.push(`tool ${clipName(field(candidate, "name"))} is skipped: ${where}${issue.message}`)
  }
  return { tools, nextCursor: page.nextCursor, skipped }
}

// OpenTelemetry's MCP conventions: the method, the session (Streamable HTTP), the tool
const spanAttributes = (client: Client, server: string, method: string): Record<string, unknown> => {
  const session = client.transport?.sessionId
  return { "mcp.method.name": method, "mcp.server": server, ...(session !== undefined ? { "mcp.session.id": session } : {}) }
}
const toolCallAttributes = (client: Client, server: string, name: string) => ({
  ...spanAttributes(client, server, "tools/call"),
  "gen_ai.operation.name": "execute_tool",
  "gen_ai.tool.name": name
})

/**
 * Builds an `McpClient` from a connected SDK `Client`. Everything the server sends back (tool definitions,
 * results, error reasons) passes through `scrubber`, made from the server's header or environment values:
 * a server that repeats its credentials, in any form, does not hand them on. Closing the client stays with
 * whoever connected it.
 *
 * Each request runs in a span named after OpenTelemetry's MCP conventions (`tools/list`, `tools/call {tool}`,
 * attributes `mcp.method.name`, `mcp.session.id`, `gen_ai.tool.name`, and `mcp.server`) whenever a tracer is installed; with Effect's built-in tracer, which exports nothing, the
 * span is skipped to keep the warm call path thin.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSdkClient = (client: Client, options: SdkClientOptions): McpClient => build(client, options, undefined)

/**
 * @since 0.1.0
 * @category models
 */
export interface SdkClientOptions {
  readonly server: string
  readonly scrubber?: Scrubber.Scrubber | undefined
  readonly pid?: number | undefined
}

/**
 * `fromSdkClient`, with one timer for the connection in the current `Scope` (the connection's): `callWithin`
 * then times a call by a deadline that the timer watches, instead of racing a fiber against each call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (client: Client, options: SdkClientOptions): Effect.Effect<McpClient, never, Scope.Scope> =>
  Effect.map(Deadlines.make, (deadlines) => build(client, options, deadlines))

const build = (client: Client, options: SdkClientOptions, deadlines: Deadlines.Deadlines | undefined): McpClient => {
  const server = options.server
  const scrubber = options.scrubber ?? Scrubber.none
  keepNotificationOrder(client)
  const listSpan = () => ({ attributes: spanAttributes(client, server, "tools/list"), captureStackTrace: false })
  const listError = (cause: unknown) => McpRequestError.fromCause({ server, method: "tools/list", cause, scrubber })
  const callError = (cause: unknown) => McpRequestError.fromCause({ server, method: "tools/call", cause, scrubber })

  const listTools = (cursor?: string | undefined): Effect.Effect<ListToolsPage, McpRequestError> =>
    Effect.tryPromise({
      try: async (signal): Promise<ListToolsPage & { readonly skipped: ReadonlyArray<string> }> => {
        const params = cursor === undefined ? undefined : { cursor }
        const options = { signal, timeout: sdkTimeoutDisabled }
        try {
          const result = await client.listTools(params, options)
          return { tools: scrubber.scrubDeep(result.tools), nextCursor: result.nextCursor, skipped: [] }
        } catch (error) {
          if (!isSchemaError(error)) throw error
          // One malformed tool must not cost the server all of its tools: list again without the SDK's
          // all-or-nothing validation, and keep the tools that pass it one by one.
          const page = lenientPage(await client.request({ method: "tools/list", params }, LooseListToolsResult, options))
          return scrubber.scrubDeep(page)
        }
      },
      catch: listError
    }).pipe(
      Effect.tap(({ skipped }) =>
        Effect.forEach(skipped, (reason) =>
          Effect.logWarning(`MCP server ${server}: ${reason}`).pipe(Effect.annotateLogs("mcp.server", server)),
          // Stryker disable next-line ObjectLiteral,BooleanLiteral: tap drops the result, collected or not
          { discard: true }
        )
      ),
      Effect.map(({ nextCursor, tools }) => ({ tools, nextCursor })),
      Tracing.traced("tools/list", listSpan)
    )

  // Every call asks for progress (the SDK sends a `progressToken` only with a callback); one without a
  // listener gets a shared callback that does nothing.
  const progressOf = (onProgress: ((progress: Progress) => void) | undefined): (progress: SdkProgress) => void =>
    onProgress === undefined ? ignoreProgress : (report) => {
      const message = report.message
      onProgress({
        progress: report.progress,
        total: report.total,
        message: message === undefined ? undefined : scrubber.scrub(message)
      })
    }

  const callTool = (
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions | undefined
  ): Effect.Effect<CallToolResult, McpRequestError> =>
    Effect.tryPromise({
      try: async (signal) =>
        scrubber.scrubDeep(normalizeResult(
          await client.callTool({ name, arguments: args }, undefined, {
            signal,
            timeout: sdkTimeoutDisabled,
            onprogress: progressOf(options?.onProgress)
          })
        )),
      catch: callError
    }).pipe(Tracing.traced(() => `tools/call ${name}`, () => ({
      kind: "client",
      attributes: toolCallAttributes(client, server, name),
      captureStackTrace: false
    })))

  // One call under its limits (see `callWithin`): one abort signal (internal/callSignal), which a timeout and
  // an interruption both abort (the SDK then sends `notifications/cancelled`), and a deadline entry for the connection's timer.
  const callWithinDeadline = (deadlines: Deadlines.Deadlines) =>
  (
    name: string,
    args: Record<string, unknown>,
    limits: CallLimits
  ): Effect.Effect<CallToolResult, McpRequestError | McpTimeoutError> => {
    if (Option.isNone(limits.timeout)) return callTool(name, args, limits)
    const timeout = limits.timeout.value
    const clock = deadlines.clock
    return Effect.async<CallToolResult, McpRequestError | McpTimeoutError>((resume) => {
      const budget = budgetOf(limits, timeout, clock.unsafeCurrentTimeMillis())
      let last = budget.start
      let done = false
      const controller = new CallSignal.CallSignal()
      const entry: Deadlines.Entry = {
        deadline: () => budget.deadline(last),
        expire: () => {
          if (done) return
          done = true
          const error = budget.error(last)
          controller.abort(error)
          resume(Effect.fail(error))
        }
      }
      const settle = (outcome: () => Effect.Effect<CallToolResult, McpRequestError>) => {
        if (done) return
        done = true
        deadlines.remove(entry)
        resume(outcome())
      }
      const onProgress = limits.onProgress
      deadlines.add(entry)
      client.callTool({ name, arguments: args }, undefined, {
        signal: controller.signal,
        timeout: sdkTimeoutDisabled,
        onprogress: limits.resetOnProgress
          ? (report) => {
            last = clock.unsafeCurrentTimeMillis()
            if (onProgress !== undefined) progressOf(onProgress)(report)
          }
          : progressOf(onProgress)
      }).then(
        (result) => settle(() => Effect.try({ try: () => scrubber.scrubDeep(normalizeResult(result)), catch: callError })),
        (error) => settle(() => Effect.fail(callError(error)))
      )
      return Effect.sync(() => {
        if (done) return
        done = true
        deadlines.remove(entry)
        controller.abort()
      })
    }).pipe(Tracing.traced(() => `tools/call ${name}`, () => ({
      kind: "client",
      attributes: toolCallAttributes(client, server, name),
      captureStackTrace: false
    })))
  }
  const timedCall = deadlines === undefined ? undefined : callWithinDeadline(deadlines)

  // The handler is installed with the first listener (the extension adds one as soon as it has connected): a
  // change announced before the first listing is reflected by that listing, so none is missed.
  const listeners = new Set<{ readonly listener: () => void }>()
  let handled = false
  const onToolListChanged = (listener: () => void): Effect.Effect<void, never, Scope.Scope> =>
    Effect.acquireRelease(
      Effect.sync(() => {
        if (!handled) {
          handled = true
          client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
            for (const entry of listeners) entry.listener()
          })
        }
        const entry = { listener }
        listeners.add(entry)
        return entry
      }),
      (entry) => Effect.sync(() => void listeners.delete(entry))
    )

  const request = (method: string, params?: Record<string, unknown> | undefined): Effect.Effect<unknown, McpRequestError> =>
    Effect.tryPromise({
      try: async (signal) =>
        scrubber.scrubDeep(
          await client.request(
            params === undefined ? { method } : { method, params },
            LooseResult,
            { signal, timeout: sdkTimeoutDisabled }
          )
        ),
      catch: (cause) => McpRequestError.fromCause({ server, method, cause, scrubber })
    }).pipe(Tracing.traced("McpClient.request", () => ({
      attributes: { "mcp.server": server, "mcp.method": method },
      captureStackTrace: false
    })))

  // a server request (elicitation, sampling) during a call runs as part of it (see internal/serverRequests)
  const requests = ServerRequests.trackerOf(client)
  return {
    server,
    pid: options.pid,
    listTools,
    // every argument is passed on, whatever `callTool` takes
    callTool: requests === undefined
      ? callTool
      : (name, args, options) => requests.track(callTool(name, args, options), options?.context),
    callWithin: timedCall === undefined || requests === undefined
      ? timedCall
      : (name, args, limits) => requests.track(timedCall(name, args, limits), limits.context),
    request,
    notifications: notificationsOf(client, server, scrubber),
    onToolListChanged
  }
}

// the result is decoded by whoever asked (McpResources, McpPrompts), the same way for any client
const LooseResult = z.looseObject({})

/**
 * Publishes the client's resource and prompt notifications to subscribers; ended when the connection closes.
 * The handlers are installed on the first subscription: a notification nobody listens to is dropped either way.
 * The SDK calls notification handlers synchronously: an unbounded PubSub takes each offer at once.
 */
const notificationsOf = (client: Client, server: string, scrubber: Scrubber.Scrubber) => {
  const pubsub = Effect.runSync(PubSub.unbounded<Notification>())
  let installed = false
  const install = () => {
    if (installed) return
    installed = true
    const publish = (notification: Notification) => void Effect.runSync(PubSub.publish(pubsub, notification))
    const shutdown = () => void Effect.runSync(PubSub.shutdown(pubsub))
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
      publish(Notification.ResourceUpdated({ server, uri: scrubber.scrub(notification.params.uri) })))
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
      publish(Notification.ResourceListChanged({ server })))
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => publish(Notification.PromptListChanged({ server })))
    // closed already: nothing will come
    if (client.transport === undefined) return shutdown()
    const onclose = client.onclose
    client.onclose = () => {
      onclose?.()
      shutdown()
    }
  }
  return Effect.suspend(() => {
    install()
    return PubSub.subscribe(pubsub)
  })
}

const ignoreProgress = (_: SdkProgress): void => {}

/**
 * The SDK handles a notification one microtask after it arrives, but a response at once, and forgets a request's
 * progress callback with its response: a call's last progress report, read together with its result (one chunk
 * of a busy pipe), would be dropped. A response that comes in the same tick as a notification is handed on one
 * microtask later, after the notification; any other message goes through as it is.
 */
const keepNotificationOrder = (client: Client): void => {
  const transport = client.transport
  const deliver = transport?.onmessage
  if (transport === undefined || deliver === undefined) return
  let pending = 0
  const settle = () => void pending--
  transport.onmessage = (message, extra) => {
    if (!("id" in message)) {
      pending++
      deliver(message, extra)
      queueMicrotask(settle)
    } else if (pending > 0 && !("method" in message)) {
      queueMicrotask(() => deliver(message, extra))
    } else {
      deliver(message, extra)
    }
  }
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
    const budget = budgetOf(limits, timeout, clock.unsafeCurrentTimeMillis())
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
 * that has passed. Shared by the connection's timer and the race of a client without one.
 */
const budgetOf = (limits: CallLimits, timeout: Duration.Duration, start: number) => {
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
    // Stryker disable next-line ConditionalExpression: logging no line at all is the shortcut's result too
    if (skipped.length === 0) return Effect.succeed(out)
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: Effect.as drops the result, collected or not
    const warnings = Effect.forEach(skipped, (line) => Effect.logWarning(line), { discard: true })
    return Effect.as(Effect.annotateLogs(warnings, "mcp.server", client.server), out)
  })
