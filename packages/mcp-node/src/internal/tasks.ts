/**
 * The Tasks extension of a connection (`io.modelcontextprotocol/tasks`, 2026-07-28): the task handle a `tools/call`
 * may be answered with, and `tasks/get`, `tasks/update`, `tasks/cancel` as the core's `McpTask.Driver`.
 *
 * `@modelcontextprotocol/ext-tasks` gives the wire: the schemas of the results and of a task handle, and the
 * declaration of the extension in a request's `_meta`. Its client (`createTaskSessionFromClient`) is not used: it is
 * promise- and `AbortSignal`-driven with polling timers of its own and takes over the SDK client's fallback handlers,
 * where a call here keeps one deadline on the connection's timer, polls on the caller's `Clock` (`McpTask.wait`), and
 * answers input through the connection's own server-request handlers.
 *
 * @internal
 */
import type { CallToolResult, Client, StandardSchemaV1 } from "@modelcontextprotocol/client"
import { DetailedTaskV2Schema, isDetailedTaskV2 } from "@modelcontextprotocol/ext-tasks/core/v2"
import * as Tracing from "@zett/agent/Tracing"
import { normalizeResult } from "@zett/mcp/McpClient"
import { McpRequestError } from "@zett/mcp/McpError"
import type * as McpTask from "@zett/mcp/McpTask"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { z } from "zod"
import * as CallResult from "./callResult.js"
import * as Connection from "./connection.js"
import * as GuardedTransport from "./guardedTransport.js"
import * as TaskAnswer from "./taskAnswer.js"

type Raw = Readonly<Record<string, unknown>>

// The SDK's client takes `resultType` off a 2026-07-28 result before a result schema reads it: ext-tasks' result
// schemas (`GetTaskResultV2Schema` ...) ask for it, so `tasks/get` is read with the task's own schema, and the
// acks of `tasks/update` and `tasks/cancel` as any object
const Ack = z.looseObject({})

const optionalFields = (raw: Raw) => ({
  ...(typeof raw.statusMessage === "string" ? { statusMessage: raw.statusMessage } : {}),
  ...(typeof raw.createdAt === "string" ? { createdAt: raw.createdAt } : {}),
  ...(typeof raw.lastUpdatedAt === "string" ? { lastUpdatedAt: raw.lastUpdatedAt } : {}),
  ...(typeof raw.ttlMs === "number" || raw.ttlMs === null ? { ttlMs: raw.ttlMs } : {}),
  ...(typeof raw.pollIntervalMs === "number" ? { pollIntervalMs: raw.pollIntervalMs } : {})
})

const checkedResult = CallResult.schema["~standard"].validate as (value: unknown) => StandardSchemaV1.Result<
  CallToolResult
>

/**
 * A task as the core has it, scrubbed: `result` read as a `tools/call` result is read (`check`: the tool's output
 * schema, when the tool is known), `error` kept to its code and message. It throws for a result that is not one.
 *
 * @internal
 */
export const taskOf = (
  connection: Connection.Connection,
  raw: Raw,
  check?: (result: CallToolResult) => CallToolResult
): McpTask.Task => {
  const scrubber = connection.scrubber
  const task: {
    -readonly [K in keyof McpTask.Task]: McpTask.Task[K]
  } = {
    server: connection.server,
    taskId: raw.taskId as string,
    status: raw.status as McpTask.Status,
    ...optionalFields(raw)
  }
  if (task.statusMessage !== undefined) task.statusMessage = scrubber.scrub(task.statusMessage)
  if (raw.status === "completed" && raw.result !== undefined) {
    const { resultType: _, ...result } = raw.result as Record<string, unknown>
    const checked = checkedResult(result)
    if (checked.issues !== undefined) {
      throw new Error(`the task's result is not a tool result: ${checked.issues[0]?.message ?? "invalid"}`)
    }
    const value = normalizeResult(checked.value)
    task.result = scrubber.scrubDeep(check === undefined ? value : check(value))
  }
  if (raw.status === "failed" && raw.error !== undefined) {
    const error = raw.error as { readonly code: number; readonly message: string }
    task.error = { code: error.code, message: scrubber.scrub(error.message) }
  }
  if (raw.status === "input_required" && raw.inputRequests !== undefined) {
    task.inputRequests = raw.inputRequests as Record<string, McpTask.InputRequest>
  }
  return task
}

/**
 * How a task asks for input is answered: as the connection answers the same request made during a call (in the
 * call's context), or refused when the connection has no handler for it.
 *
 * @internal
 */
export type Answer = (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>

const request = <A, B>(
  connection: Connection.Connection,
  method: string,
  taskId: string,
  params: Raw,
  schema: StandardSchemaV1<unknown, A>,
  read: (result: A) => B
): Effect.Effect<B, McpRequestError> =>
  Effect.tryPromise({
    try: (signal) =>
      connection.client.request({ method, params } as Parameters<Client["request"]>[0], schema as never, {
        signal,
        timeout: Connection.sdkTimeoutDisabled
      }).then((result) => read(result as A)),
    catch: (cause) => withTask(Connection.requestError(connection, method)(cause), taskId)
  }).pipe(Tracing.traced(() => method, () => ({
    kind: "client",
    // no task id: a server may take one as a bearer token
    attributes: Connection.spanAttributes(connection, method),
    captureStackTrace: false
  })))

const withTask = (error: McpRequestError, taskId: string): McpRequestError =>
  new McpRequestError({
    server: error.server,
    method: error.method,
    reason: error.reason,
    description: error.description,
    taskId,
    ...(error.code !== undefined ? { code: error.code } : {}),
    ...(error.cause !== undefined ? { cause: error.cause } : {})
  }, true)

/**
 * A task's states as the server sends them (`notifications/tasks`): a `subscriptions/listen` naming the task, open
 * until the scope closes (its abort tells the server to stop), and the notifications of the task taken from the
 * transport before the SDK's client (which does not know them). ext-tasks' session does not open the listen itself,
 * and the SDK's `client.listen` keeps only the four change filters, so the listen is a request of its own.
 */
const watchOf = (
  connection: Connection.Connection,
  guard: GuardedTransport.GuardedTransport,
  check: ((result: CallToolResult) => CallToolResult) | undefined
) =>
(taskId: string, onTask: (task: McpTask.Task) => void): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const remove = guard.onTaskStatus(taskId, (params) => {
      if (!isDetailedTaskV2(params)) return
      let task: McpTask.Task
      try {
        task = taskOf(connection, params as Raw, check)
      } catch {
        // a state that cannot be read is left to the next poll
        return
      }
      onTask(task)
    })
    yield* Effect.addFinalizer(() => Effect.sync(remove))
    yield* Effect.forkScoped(
      Effect.tryPromise((signal) =>
        connection.client.request(
          {
            method: "subscriptions/listen",
            params: { notifications: { taskIds: [taskId] } }
          } as Parameters<Client["request"]>[0],
          Ack as never,
          { signal, timeout: Connection.sdkTimeoutDisabled }
        )
      ).pipe(Effect.ignore)
    )
  })

/**
 * The task requests of a connection, for a task of `tool` when it is known (a call's own task: a completed task's
 * result is then read against the tool's output schema, as the call's result would have been, by `check`).
 *
 * @internal
 */
export const make = (
  connection: Connection.Connection,
  answer: Answer | undefined,
  check: ((result: CallToolResult) => CallToolResult) | undefined
): McpTask.Driver =>
  connection.client.getProtocolEra() === "legacy" ? legacy(connection, check) : modern(connection, answer, check)

/**
 * The task requests of the 2025-11-25 revision: `tasks/get` gives the task's state (its fields named `ttl` and
 * `pollInterval`), and once the task asks for input or ends, `tasks/result` waits for its end, the input requests
 * coming meanwhile as requests of the server's of their own (answered by the connection's handlers, as during a call),
 * and gives its result: the call's result (an `isError` one included, the task then `completed` here as on the
 * 2026-07-28 revision), or the JSON-RPC error the task failed with. There are no `inputRequests` to answer by key.
 */
const legacy = (
  connection: Connection.Connection,
  check: ((result: CallToolResult) => CallToolResult) | undefined
): McpTask.Driver => {
  const read = (raw: Raw) => taskOf(connection, TaskAnswer.legacyFields(raw), check)
  const result = (state: Raw) =>
    request(
      connection,
      "tasks/result",
      state.taskId as string,
      { taskId: state.taskId },
      Ack,
      (result) => read({ ...state, status: "completed", result })
    ).pipe(
      Effect.catchIf(
        (error) => error.reason === "Remote" && error.code !== undefined,
        (error) =>
          Effect.sync(() =>
            read({
              ...state,
              status: "failed",
              // a task that failed with no result: its own message says why better than the missing result
              error: {
                code: error.code,
                message: state.status === "failed" && typeof state.statusMessage === "string"
                  ? state.statusMessage
                  : error.description
              }
            })
          )
      )
    )
  return {
    get: (taskId) =>
      request(connection, "tasks/get", taskId, { taskId }, Ack, (state) => state as Raw).pipe(
        Effect.flatMap((state) =>
          state.status === "working" || state.status === "cancelled"
            ? Effect.try({
              try: () => read(state),
              catch: (cause) => withTask(Connection.requestError(connection, "tasks/get")(cause), taskId)
            })
            : result(state)
        )
      ),
    update: (taskId) =>
      Effect.fail(
        new McpRequestError({
          server: connection.server,
          method: "tasks/update",
          reason: "Unsupported",
          taskId,
          description: "the 2025-11-25 revision has no tasks/update: a task's input comes as requests of the server's"
        })
      ),
    cancel: (taskId) => request(connection, "tasks/cancel", taskId, { taskId }, Ack, () => {}),
    answer: (taskId, input) =>
      Effect.fail(
        new McpRequestError({
          server: connection.server,
          method: "tasks/update",
          reason: "Unsupported",
          taskId,
          description: `the 2025-11-25 revision has no tasks/update to answer ${input.method} with`
        })
      )
  }
}

const modern = (
  connection: Connection.Connection,
  answer: Answer | undefined,
  check: ((result: CallToolResult) => CallToolResult) | undefined
): McpTask.Driver => ({
  ...(connection.client.transport instanceof GuardedTransport.GuardedTransport
    ? { watch: watchOf(connection, connection.client.transport, check) }
    : {}),
  get: (taskId) =>
    request(
      connection,
      "tasks/get",
      taskId,
      { taskId },
      DetailedTaskV2Schema,
      (raw) => taskOf(connection, raw as Raw, check)
    ) as Effect.Effect<McpTask.Task, McpRequestError>,
  update: (taskId, inputResponses) =>
    request(connection, "tasks/update", taskId, { taskId, inputResponses }, Ack, () => {}),
  cancel: (taskId) => request(connection, "tasks/cancel", taskId, { taskId }, Ack, () => {}),
  answer: (taskId, input) =>
    answer === undefined
      ? Effect.fail(
        new McpRequestError({
          server: connection.server,
          method: "tasks/update",
          reason: "Refused",
          taskId,
          description: `the task asked for input (${input.method}) that this client does not offer`
        })
      )
      : Effect.tryPromise({
        try: (signal) => answer(input.method, input.params ?? {}, signal),
        catch: (cause) =>
          new McpRequestError({
            server: connection.server,
            method: "tasks/update",
            reason: "Refused",
            taskId,
            description: `the client refused the input the task asked for (${input.method}): ${
              connection.scrubber.scrub(cause instanceof Error ? cause.message : String(cause))
            }`
          })
      })
})
