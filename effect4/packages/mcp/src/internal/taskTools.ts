/**
 * What the agent's extension and the `@effect/ai` toolkit share of tasks the model handles itself (`tasks: "handle"`):
 * the text the model reads when a call is answered with a task, and the `task_status` tool it checks, waits for or
 * cancels the task with, later in the run or in a later request (a task is found by its server and id). The texts,
 * the definition and the reading of the arguments are `@zett/common`'s `McpTask` (both lines share them).
 *
 * @internal
 */
import type { CallToolResult } from "@modelcontextprotocol/client"
import * as Tool from "@zett/agent/Tool"
import * as Common from "@zett/common/McpTask"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as McpClient from "../McpClient.js"
import type { McpRequestError } from "../McpError.js"
import * as McpTask from "../McpTask.js"
import * as McpToolResult from "../McpToolResult.js"

export const toolName = Common.statusToolName

const summary = Common.summary

/** What the model reads for a call the server answered with a task, in `handle` mode. */
export const handle = Common.handle

/** The tool as the model reads it. */
export const definition = Common.statusDefinition

export type Arguments = Common.StatusArguments

/** The tool's arguments, or what is wrong with them in a sentence the model reads. */
export const readArguments = (args: unknown, servers: ReadonlyArray<string>): Result.Result<Arguments, string> => {
  const read = Common.readStatusArguments(args, servers)
  return read._tag === "Success" ? Result.succeed(read.value) : Result.fail(read.message)
}

const requestFailed = (error: McpRequestError, errorText: McpToolResult.ErrorTextPolicy) =>
  new Tool.ToolError({
    reason: "RequestFailed",
    message: McpToolResult.describeFailure(McpToolResult.RemoteFailure.RequestError({ error }), errorText),
    cause: error
  })

/** A task's state, with its result as the model reads it once it has completed. */
const described = (task: McpTask.Task, errorText: McpToolResult.ErrorTextPolicy) => {
  if (task.status !== "completed" || task.result === undefined) return { task: summary(task) }
  const outcome = McpToolResult.toResult(task.result, errorText)
  return outcome._tag === "Success"
    ? { task: summary(task), result: outcome.value }
    : { task: summary(task), error: outcome.message }
}

const awaited = <A, E>(
  self: Effect.Effect<A, E>,
  limit: Option.Option<Duration.Duration>
): Effect.Effect<Option.Option<A>, E> =>
  Option.isNone(limit) ? Effect.map(self, Option.some) : Effect.timeoutOption(self, limit.value)

/**
 * Runs the tool on a connection to the task's server: `status` (`tasks/get`), `wait` (`McpClient.tasks.await`, up to
 * `limit`, after which the task's state is told and the task keeps running; each new state to `onStatus`), `cancel`
 * (`tasks/cancel`, then its state). A failed or cancelled task is a state, told as one; a failed request is the
 * tool's failure.
 */
export const run = (
  client: McpClient.McpClient,
  args: Arguments,
  limit: Option.Option<Duration.Duration>,
  errorText: McpToolResult.ErrorTextPolicy,
  onStatus?: ((task: McpTask.Task) => void) | undefined
): Effect.Effect<unknown, Tool.ToolError> => {
  const tasks = client.tasks
  const status = Effect.map(tasks.get(args.taskId), (task) => described(task, errorText))
  const run: Effect.Effect<unknown, McpRequestError> = args.action === "cancel"
    ? Effect.andThen(tasks.cancel(args.taskId), status)
    : args.action === "status"
    ? status
    : Effect.flatMap(
      awaited(tasks.await(args.taskId, { onStatus }), limit).pipe(
        // a task that ended failed or cancelled is told as its state
        Effect.catchIf(
          (error) => error.reason === "TaskFailed" || error.reason === "TaskCancelled",
          () => Effect.succeed(Option.none<CallToolResult>())
        )
      ),
      Option.match({
        onNone: () => status,
        onSome: (result) => {
          const outcome = McpToolResult.toResult(result, errorText)
          return Effect.succeed(
            outcome._tag === "Success"
              ? { task: { server: client.server, taskId: args.taskId, status: "completed" }, result: outcome.value }
              : { task: { server: client.server, taskId: args.taskId, status: "completed" }, error: outcome.message }
          )
        }
      })
    )
  return Effect.mapError(run, (error) => requestFailed(error, errorText))
}

/** The task of a call's result in `handle` mode, as the model reads it; none for any other result. */
export const handled = (result: Parameters<typeof McpTask.fromResult>[0]) =>
  Option.map(McpTask.fromResult(result), handle)
