/**
 * `tools/call` of a connection: the one path of `McpClient.callTool` and `callWithin`.
 *
 * @internal
 */
import type { CallToolResult, Progress as SdkProgress, RequestOptions } from "@modelcontextprotocol/client"
import { ProtocolError } from "@modelcontextprotocol/client"
import * as Tracing from "@zett/agent/Tracing"
import type { CallLimits, CallOptions, Progress, TaskSupport } from "@zett/mcp/McpClient"
import { callBudget, normalizeResult } from "@zett/mcp/McpClient"
import type { McpRequestError, McpTimeoutError } from "@zett/mcp/McpError"
import * as McpTask from "@zett/mcp/McpTask"
import type * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as CallResult from "./callResult.js"
import * as CallSignal from "./callSignal.js"
import * as Connection from "./connection.js"
import type * as Deadlines from "./deadlines.js"
import type * as ListedTools from "./listedTools.js"
import * as TaskAnswer from "./taskAnswer.js"
import * as Tasks from "./tasks.js"
import type * as ToolList from "./toolList.js"

// a type, not an interface: the SDK's request params want an index signature
type CallParams = {
  readonly name: string
  readonly arguments: Record<string, unknown>
  readonly task?: Record<string, unknown>
}

/**
 * On the 2025-11-25 revision, whether a server runs `tools/call` as tasks (`capabilities.tasks.requests.tools.call`):
 * the client then asks for a task (`params.task`) for a tool whose `execution.taskSupport` is `required`, and for
 * an `optional` one when the caller wants the task's handle (`task: "handle"`); otherwise the call is a plain one.
 */
const legacyTasks = (connection: Connection.Connection): boolean => {
  const client = connection.client
  if (client.getProtocolEra() !== "legacy") return false
  const capabilities = client.getServerCapabilities() as
    | { readonly tasks?: { readonly requests?: { readonly tools?: { readonly call?: unknown } } } }
    | undefined
  return capabilities?.tasks?.requests?.tools?.call !== undefined
}

// the JSON-RPC code of a header mismatch (the 2026-07-28 revision's HTTP headers)
const HEADER_MISMATCH = -32020

// a listing again after a header mismatch stops here, as the core's does
const MAX_RELIST_PAGES = 100

const ignoreProgress = (_: SdkProgress): void => {}

/**
 * A call's time limit as the connection's timer watches it: `entry` adds the call's deadline entry, which asks
 * `expire` when the deadline passes (and gets how to end the call with the error, unless it has ended), and wraps
 * the call's progress listener so that a report moves the deadline when each report starts the time afresh.
 */
interface Timing<E> {
  readonly entry: (expire: () => ((error: E) => void) | undefined) => TimedEntry
  readonly remove: (entry: TimedEntry) => void
}

interface TimedEntry extends Deadlines.Entry {
  readonly onProgress: (listener: (report: SdkProgress) => void) => (report: SdkProgress) => void
}

/** The timing of a call under `limits` with `timeout`, started when its entry is made (`McpClient.callBudget`). */
const timingOf = (
  deadlines: Deadlines.Deadlines,
  limits: CallLimits,
  timeout: Duration.Duration
): Timing<McpTimeoutError> => ({
  entry: (expire) => {
    const clock = deadlines.clock
    const budget = callBudget(limits, timeout, clock.currentTimeMillisUnsafe())
    let last = budget.start
    const entry: TimedEntry = {
      deadline: () => budget.deadline(last),
      expire: () => expire()?.(budget.error(last)),
      onProgress: (listener) =>
        limits.resetOnProgress
          ? (report) => {
            last = clock.currentTimeMillisUnsafe()
            listener(report)
          }
          : listener
    }
    deadlines.add(entry)
    return entry
  },
  remove: deadlines.remove
})

/** @internal */
export interface Calls {
  readonly callTool: (
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions | undefined
  ) => Effect.Effect<CallToolResult, McpRequestError>
  /** Without a timer of the connection's (`NodeMcpClient.fromSdkClient`), none: the core races the call. */
  readonly callWithin:
    | ((
      name: string,
      args: Record<string, unknown>,
      limits: CallLimits
    ) => Effect.Effect<CallToolResult, McpRequestError | McpTimeoutError>)
    | undefined
}

/**
 * Tools/call goes through `request` with a schema of the driver's own (internal/callResult): `callTool` adds only
 * the SDK's own listing (output schemas, header mirroring), which the driver keeps itself (`outputs`).
 *
 * On the 2026-07-28 revision over HTTP, a tool's `x-mcp-header` arguments go into headers, from its definition as
 * this connection listed it (the SDK's `callTool` mirrors them); a server that finds them missing or stale (a tool
 * list cached elsewhere, or changed) refuses the call with a header mismatch: the tools are listed again and the
 * call sent again, once.
 */
const sendOf = (connection: Connection.Connection, outputs: ListedTools.ListedTools, listing: ToolList.Listing) => {
  const client = connection.client
  const plain = (params: CallParams, options: RequestOptions): Promise<CallToolResult> =>
    client.request({ method: "tools/call", params }, CallResult.schema, options)
  // a connection that calls from a cached tool list lists the tools once to learn which run as tasks
  let learning: Promise<void> | undefined
  const send = !legacyTasks(connection) ? plain : async (params: CallParams, options: RequestOptions) => {
    const given = (options as TaskRequestOptions).taskSupport
    if (given === undefined && !outputs.listed) {
      learning ??= listing.relist(options.signal, MAX_RELIST_PAGES).finally(() => {
        learning = undefined
      })
      await learning
    }
    // the connection's own listing first: a cached tool list may be older
    const support = outputs.listed ? outputs.taskSupport(params.name) : given
    const asTask = support === "required" ||
      (support === "optional" && (options as TaskRequestOptions).asHandle === true)
    return plain(asTask ? { ...params, task: {} } : params, options)
  }
  if (!outputs.headers) return send
  const sendMirrored = (params: CallParams, options: RequestOptions): Promise<CallToolResult> => {
    const definition = outputs.definition(params.name)
    return definition === undefined
      ? send(params, options)
      : client.callTool(params, { ...options, toolDefinition: definition })
  }
  return async (params: CallParams, options: RequestOptions) => {
    try {
      return await sendMirrored(params, options)
    } catch (error) {
      if (!(error instanceof ProtocolError) || error.code !== HEADER_MISMATCH) throw error
      await listing.relist(options.signal, MAX_RELIST_PAGES)
      return sendMirrored(params, options)
    }
  }
}

/**
 * Every call asks for progress (the SDK sends a `progressToken` only with a callback); one without a listener gets
 * a shared callback that does nothing.
 */
const progressOf =
  (connection: Connection.Connection) =>
  (onProgress: ((progress: Progress) => void) | undefined): (progress: SdkProgress) => void =>
    onProgress === undefined ? ignoreProgress : (report) => {
      const message = report.message
      onProgress({
        progress: report.progress,
        total: report.total,
        message: message === undefined ? undefined : connection.scrubber.scrub(message)
      })
    }

/** The request options of a call, and whether its caller wants a task's handle (`task: "handle"`). */
type TaskRequestOptions = RequestOptions & {
  readonly asHandle?: boolean
  readonly taskSupport?: TaskSupport | undefined
}

/** What one call of a connection is sent with. */
interface Sender {
  readonly connection: Connection.Connection
  readonly sdkCall: (params: CallParams, options: RequestOptions) => Promise<CallToolResult>
  readonly progress: (onProgress: ((progress: Progress) => void) | undefined) => (report: SdkProgress) => void
  /** The result as the core gets it: checked against the tool's output schema, normalized, scrubbed (it may throw). */
  readonly result: (name: string, result: CallToolResult) => CallToolResult
  readonly error: (cause: unknown) => McpRequestError
  /** The task requests for a task of the tool `name` (internal/tasks). */
  readonly tasks: (name: string) => McpTask.Driver
}

/** What a call does with a task the server answers it with (`CallOptions.task`, `onTask`). */
interface TaskHandling {
  readonly mode: McpTask.Mode | undefined
  readonly onTask: ((task: McpTask.Task) => void) | undefined
  /** How the tool runs as a task, when the caller knows (`CallOptions.taskSupport`). */
  readonly taskSupport: TaskSupport | undefined
  /** The calling fiber: the wait for a task runs with its context (its clock, services, span). */
  readonly fiber: Fiber.Fiber<unknown, unknown>
}

/**
 * The wait for the task a call was answered with, in a fiber of its own with the calling fiber's context: the call's
 * deadline entry and its interruption stay the call's (they interrupt this fiber, which then cancels the task).
 */
const waitFor = (
  sender: Sender,
  name: string,
  task: McpTask.Task,
  handling: TaskHandling
): Fiber.Fiber<CallToolResult, McpRequestError> =>
  Effect.runForkWith(runtimeOf(handling))(
    McpTask.wait(sender.tasks(name), task, { onStatus: handling.onTask, cancelUnfinished: true })
  )

// Effect 4 keeps a fiber's references (log annotations, span, clock) in its context: the context is all there is
const runtimeOf = (handling: TaskHandling): Context.Context<never> => handling.fiber.context

/**
 * A task handle that came as the call ended (interrupted, or out of time, in the same turn): nobody waits for the
 * task and nobody was given its id, so it is cancelled, as the call was. (A handle that comes after the call was
 * given up is cancelled by the guarded transport.)
 */
const cancelLate = (sender: Sender, name: string, taskId: string, handling: TaskHandling): void => {
  Effect.runForkWith(runtimeOf(handling))(
    sender.tasks(name).cancel(taskId).pipe(Effect.timeout(lateCancelTimeout), Effect.ignore)
  )
}

const lateCancelTimeout = 2_000

/**
 * One call in flight, as `Effect.async` registers it: sent with one abort signal (internal/callSignal), which an
 * interruption (the returned canceler) and a deadline both abort, so that the SDK sends `notifications/cancelled`;
 * under a time limit, an entry for the connection's timer, not a fiber raced against the call.
 */
const start = <E>(
  sender: Sender,
  params: CallParams,
  onProgress: ((progress: Progress) => void) | undefined,
  timing: Timing<E> | undefined,
  handling: TaskHandling,
  resume: (outcome: Effect.Effect<CallToolResult, McpRequestError | E>) => void
): Effect.Effect<void> => {
  let done = false
  // the wait for a task the server answered with, while there is one
  let waiting: Fiber.Fiber<CallToolResult, McpRequestError> | undefined
  const controller = new CallSignal.CallSignal()
  const entry = timing?.entry(() => {
    if (done) return undefined
    done = true
    return (error) => {
      controller.abort(error)
      // the task is cancelled (its wait's finalizer) before the call fails
      resume(waiting === undefined ? Effect.fail(error) : Effect.andThen(Fiber.interrupt(waiting), Effect.fail(error)))
    }
  })
  // only while the call is pending: a deadline or an interruption may have ended it
  const settle = (outcome: Effect.Effect<CallToolResult, McpRequestError>) => {
    done = true
    if (entry !== undefined) timing!.remove(entry)
    resume(outcome)
  }
  let pending: Promise<CallToolResult>
  try {
    pending = sender.sdkCall(params, {
      signal: controller.signal,
      timeout: Connection.sdkTimeoutDisabled,
      ...(handling.mode === "handle" ? { asHandle: true } : {}),
      ...(handling.taskSupport !== undefined ? { taskSupport: handling.taskSupport } : {}),
      onprogress: entry === undefined ? sender.progress(onProgress) : entry.onProgress(sender.progress(onProgress))
    })
  } catch (error) {
    // a request refused before it is sent (a transport already closed) fails as one refused after
    pending = Promise.reject(error)
  }
  pending.then(
    (result) => {
      if (done) return
      // read here rather than in an `Effect.try` after the resume: one step of the fiber less per call
      let outcome: Effect.Effect<CallToolResult, McpRequestError>
      try {
        outcome = Effect.succeed(sender.result(params.name, result))
      } catch (error) {
        outcome = Effect.fail(sender.error(error))
      }
      settle(outcome)
    },
    (error) => {
      if (done) {
        const late = TaskAnswer.handleOf(error)
        if (late !== undefined) cancelLate(sender, params.name, late.taskId, handling)
        return
      }
      const handle = TaskAnswer.handleOf(error)
      if (handle === undefined) return settle(Effect.fail(sender.error(error)))
      let task: McpTask.Task
      try {
        task = Tasks.taskOf(sender.connection, handle)
      } catch (cause) {
        return settle(Effect.fail(sender.error(cause)))
      }
      handling.onTask?.(task)
      if (handling.mode === "handle") return settle(Effect.succeed(McpTask.asResult(task)))
      const fiber = waitFor(sender, params.name, task, handling)
      waiting = fiber
      fiber.addObserver((exit) => {
        if (!done) settle(exit)
      })
    }
  )
  return Effect.suspend(() => {
    if (done) return Effect.void
    done = true
    if (entry !== undefined) timing!.remove(entry)
    controller.abort()
    // an interrupted call cancels its task: the wait's finalizer sends `tasks/cancel`, and the call waits for it
    return waiting === undefined ? Effect.void : Fiber.interrupt(waiting)
  })
}

/** @internal */
export const make = (
  connection: Connection.Connection,
  outputs: ListedTools.ListedTools,
  listing: ToolList.Listing,
  deadlines: Deadlines.Deadlines | undefined,
  answer: Tasks.Answer | undefined
): Calls => {
  const scrubber = connection.scrubber
  const sender: Sender = {
    connection,
    sdkCall: sendOf(connection, outputs, listing),
    progress: progressOf(connection),
    result: (name, result) => scrubber.scrubDeep(normalizeResult(outputs.check(name, result))),
    error: Connection.requestError(connection, "tools/call"),
    tasks: (name) => Tasks.make(connection, answer, (result) => outputs.check(name, result))
  }

  // the one path of `callTool` and `callWithin`: traced, scrubbed and normalized here only
  const call = <E>(
    name: string,
    args: Record<string, unknown>,
    onProgress: ((progress: Progress) => void) | undefined,
    timing: Timing<E> | undefined,
    mode: McpTask.Mode | undefined,
    onTask: ((task: McpTask.Task) => void) | undefined,
    taskSupport: TaskSupport | undefined
  ): Effect.Effect<CallToolResult, McpRequestError | E> =>
    Tracing.withTraceparent((traceparent) =>
      Effect.withFiber<CallToolResult, McpRequestError | E>((fiber) =>
        Effect.callback<CallToolResult, McpRequestError | E>((resume) =>
          start(
            sender,
            Connection.withTrace({ name, arguments: args }, traceparent),
            onProgress,
            timing,
            { mode, onTask, taskSupport, fiber },
            resume
          )
        )
      )
    ).pipe(Tracing.traced(() => `tools/call ${name}`, () => ({
      kind: "client",
      attributes: Connection.toolCallAttributes(connection, name),
      captureStackTrace: false
    })))

  const callTool = (
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions | undefined
  ): Effect.Effect<CallToolResult, McpRequestError> =>
    call<never>(name, args, options?.onProgress, undefined, options?.task, options?.onTask, options?.taskSupport)

  // without a timer of the connection's (`fromSdkClient`), the core races the call against a sleep
  const callWithin = deadlines === undefined ? undefined : (
    name: string,
    args: Record<string, unknown>,
    limits: CallLimits
  ): Effect.Effect<CallToolResult, McpRequestError | McpTimeoutError> =>
    call(
      name,
      args,
      limits.onProgress,
      Option.isNone(limits.timeout) ? undefined : timingOf(deadlines, limits, limits.timeout.value),
      limits.task,
      limits.onTask,
      limits.taskSupport
    )

  return { callTool, callWithin }
}
