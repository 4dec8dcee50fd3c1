/**
 * `zett task get SERVER ID [--wait]` and `zett task cancel SERVER ID`: a task started earlier (by `zett call`, an
 * agent, another process of a fleet), found again by its server and id.
 *
 * @internal
 */
import type { McpClient, McpTask } from "@zett/mcp"
import * as McpError from "@zett/mcp/McpError"
import * as McpToolResult from "@zett/mcp/McpToolResult"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Output from "../Output.js"
import * as Progress from "../Progress.js"
import * as Catalog from "./catalog.js"
import { inert, inertJson } from "./inert.js"
import type * as Options from "./options.js"
import { callLimit, connectLimit } from "./options.js"
import * as TaskStatus from "./taskStatus.js"

type TaskOptions = Options.TaskCancelOptions

type CallToolResult = Effect.Effect.Success<ReturnType<McpClient.McpClient["callTool"]>>

/** No server on the command line: a task is found again on a configured server. */
const configured = {
  url: Option.none(),
  header: [],
  transport: Option.none(),
  env: [],
  cwd: Option.none(),
  includeTools: [],
  excludeTools: [],
  serverName: Option.none()
} as const

/** The server named, connected in the command's scope. */
const connected = (options: TaskOptions, doing: string) =>
  Effect.gen(function*() {
    const { factory, server } = yield* Catalog.named({ ...options, ...configured })
    const client = yield* Catalog.connect(factory, server, connectLimit(options.connectTimeout)).pipe(
      Effect.mapError((error) =>
        new CliError.RunFailed({
          reason: "Unavailable",
          message: `cannot ${doing}: MCP server ${server.name} is unavailable: ${McpError.reasonOf(error)}`
        })
      )
    )
    return { client, server }
  })

const failed = (doing: string, server: string) => (error: McpError.McpRequestError | McpError.McpTimeoutError) =>
  new CliError.RunFailed({
    reason: "Failed",
    message: error._tag === "McpRequestError" && (error.reason === "TaskFailed" || error.reason === "TaskCancelled")
      ? error.description
      : `cannot ${doing} of ${server}: ${Catalog.failureReason(error)}`
  })

/** A result as `zett call` prints it; a tool's error result fails the command. */
const printResult = (taskId: string, result: CallToolResult) => {
  const outcome = McpToolResult.toResult(result, McpToolResult.ErrorTextPolicy.verbose)
  return outcome._tag === "Failure"
    ? Effect.fail(
      new CliError.RunFailed({ reason: "Failed", message: `the task ${taskId} failed: ${outcome.message}` })
    )
    : Output.line(inertJson(JSON.stringify(outcome.value, null, 2) ?? "null"))
}

/** The task as one line, or (`--json`) as JSON; its result once completed; a failure for one that did not. */
const report = (options: TaskOptions, task: McpTask.Task) =>
  Effect.gen(function*() {
    if (options.json) yield* Output.line(inertJson(JSON.stringify(task, null, 2)))
    switch (task.status) {
      case "completed":
        if (options.json || task.result === undefined) return
        return yield* printResult(task.taskId, task.result)
      case "failed":
      case "cancelled":
        return yield* new CliError.RunFailed({
          reason: "Failed",
          message: inert(`the task ${task.taskId} ${task.status}${
            task.statusMessage !== undefined
              ? `: ${task.statusMessage}`
              : task.error !== undefined
              ? `: ${task.error.message}`
              : ""
          }`)
        })
      default:
        if (!options.json) {
          yield* Output.line(
            inert(`${task.taskId}  ${task.status}${task.statusMessage !== undefined ? `  ${task.statusMessage}` : ""}`)
          )
        }
    }
  })

export const get = (options: Options.TaskGetOptions) =>
  Effect.gen(function*() {
    const doing = `get the task ${options.taskId}`
    const { client, server } = yield* connected(options, doing)
    const limit = callLimit(options.callTimeout, server)
    if (!options.wait) {
      const task = yield* client.tasks.get(options.taskId).pipe(
        McpError.within({ server: server.name, operation: "call", limit }),
        Effect.mapError(failed(doing, server.name))
      )
      return yield* report(options, task)
    }
    const line = yield* TaskStatus.reporter(server.name)
    // the wait only watches: Ctrl-C or the limit end it and leave the task running (zett task cancel cancels it)
    const result = yield* Progress.withSpinner(`Waiting for the task ${options.taskId}…`, (status) =>
      client.tasks.await(options.taskId, {
        onStatus: (task) =>
          line(status, task)
      }).pipe(
        McpError.within({ server: server.name, operation: "call", limit }),
        Effect.mapError(failed(`wait for the task ${options.taskId}`, server.name))
      ))
    if (options.json) {
      return yield* Output.line(inertJson(JSON.stringify(result, null, 2)))
    }
    return yield* printResult(options.taskId, result)
  }).pipe(Effect.scoped)

export const cancel = (options: Options.TaskCancelOptions) =>
  Effect.gen(function*() {
    const doing = `cancel the task ${options.taskId}`
    const { client, server } = yield* connected(options, doing)
    const limit = callLimit(options.callTimeout, server)
    yield* client.tasks.cancel(options.taskId).pipe(
      McpError.within({ server: server.name, operation: "call", limit }),
      Effect.mapError(failed(doing, server.name))
    )
    // cancellation is a request: what the task did with it, as far as the server says at once
    const after = yield* client.tasks.get(options.taskId).pipe(
      McpError.within({ server: server.name, operation: "call", limit: Option.some(Duration.seconds(10)) }),
      Effect.option
    )
    if (options.json) {
      return yield* Output.line(inertJson(JSON.stringify(
        {
          server: server.name,
          taskId: options.taskId,
          cancelRequested: true,
          ...Option.match(after, { onNone: () => ({}), onSome: (task) => ({ status: task.status }) })
        },
        null,
        2
      )))
    }
    yield* Output.line(inert(Option.match(after, {
      onNone: () => `${options.taskId}  cancel requested`,
      onSome: (task) =>
        task.status === "cancelled"
          ? `${task.taskId}  cancelled`
          : `${task.taskId}  ${task.status}  (cancel requested; the server may still finish it)`
    })))
  }).pipe(Effect.scoped)
