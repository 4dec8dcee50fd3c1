/**
 * Tool calls that run as tasks (the Tasks extension, `io.modelcontextprotocol/tasks`, on the 2026-07-28 revision):
 * a server may answer a `tools/call` with a task handle instead of a result, and the client polls the task
 * (`tasks/get`), gives it the input it asks for (`tasks/update`) and may cancel it (`tasks/cancel`) until it is
 * `completed` (its result is the tool's result), `failed` or `cancelled`.
 *
 * This module holds what is the same for every driver: the task as data, the polling (`pollSchedule`: the server's
 * `pollIntervalMs` when it gives one, a bounded backoff when it does not), and the wait for a task's end over a
 * driver's three requests (`wait`). The task as data (statuses, a task as a result and back) is `@zett/common`'s
 * `McpTask`, the same on both Effect lines.
 *
 * @since 1.0.0
 */
import type { CallToolResult } from "@modelcontextprotocol/client"
import * as Common from "@zett/common/McpTask"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { McpRequestError } from "./McpError.js"

/**
 * The extension's identifier, as capabilities declare it.
 *
 * @since 1.0.0
 * @category constants
 */
export const extension: string = Common.extension

/**
 * A task's status: `working`, waiting for input (`input_required`), or ended: `completed`, `failed`, `cancelled`.
 *
 * @since 1.0.0
 * @category models
 */
export const Status = Schema.Literals(Common.statuses)

/**
 * @since 1.0.0
 * @category models
 */
export type Status = typeof Status.Type

/**
 * Whether a status is one a task does not leave.
 *
 * @since 1.0.0
 * @category refinements
 */
export const isTerminal: (status: Status) => boolean = Common.isTerminal

/**
 * One request for input of a task (`input_required`): an `elicitation/create`, `sampling/createMessage` or
 * `roots/list` with its params, as MRTR carries them.
 *
 * @since 1.0.0
 * @category models
 */
export interface InputRequest {
  readonly method: string
  readonly params?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A task as the server last described it, with the server it runs on. `result` is there once it is `completed`
 * (what the `tools/call` would have returned, `isError` results included), `error` once it has `failed`, and
 * `inputRequests` (by key) while it is `input_required`. Times are the server's ISO 8601 strings; `ttlMs` `null`
 * is no limit.
 *
 * @since 1.0.0
 * @category models
 */
export interface Task {
  readonly server: string
  readonly taskId: string
  readonly status: Status
  readonly statusMessage?: string | undefined
  readonly createdAt?: string | undefined
  readonly lastUpdatedAt?: string | undefined
  readonly ttlMs?: number | null | undefined
  readonly pollIntervalMs?: number | undefined
  readonly result?: CallToolResult | undefined
  readonly error?: { readonly code: number; readonly message: string } | undefined
  readonly inputRequests?: Readonly<Record<string, InputRequest>> | undefined
}

/**
 * What a process needs to find a task again, in this process or another one of a fleet: its server's name and its
 * id. A task id is a bearer token for some servers: keep it as private as a credential.
 *
 * @since 1.0.0
 * @category models
 */
export interface TaskRef {
  readonly server: string
  readonly taskId: string
}

/**
 * The schema of a `TaskRef`, for one kept in a store.
 *
 * @since 1.0.0
 * @category schemas
 */
export const TaskRef: Schema.Schema<TaskRef> = Schema.Struct({ server: Schema.String, taskId: Schema.String })

/**
 * The requests a driver sends for tasks, and how it answers a task's input requests (as it answers the same
 * requests made during a call: `McpElicitation`, `McpSampling`, `McpRoots` in the caller's context). Each result
 * is scrubbed of the server's secrets and its `result` normalized by the driver.
 *
 * @since 1.0.0
 * @category models
 */
export interface Driver {
  /** `tasks/get`. */
  readonly get: (taskId: string) => Effect.Effect<Task, McpRequestError>
  /** `tasks/update` with the answers to input requests, by key. */
  readonly update: (
    taskId: string,
    inputResponses: Readonly<Record<string, unknown>>
  ) => Effect.Effect<void, McpRequestError>
  /** `tasks/cancel`. */
  readonly cancel: (taskId: string) => Effect.Effect<void, McpRequestError>
  /** The answer to one input request of a task. */
  readonly answer: (taskId: string, request: InputRequest) => Effect.Effect<unknown, McpRequestError>
  /**
   * Optional: asks the server to send the task's states as they change (`notifications/tasks` on a
   * `subscriptions/listen` naming it), each handed to `onTask`, until the `Scope` closes. A wait then ends as soon as
   * the server says the task has, and keeps polling on its schedule all the same (a server may not send them).
   */
  readonly watch?:
    | ((taskId: string, onTask: (task: Task) => void) => Effect.Effect<void, never, Scope.Scope>)
    | undefined
}

/**
 * How a wait for a task goes.
 *
 * @since 1.0.0
 * @category models
 */
export interface WaitOptions {
  /** Called (synchronously) with each new state of the task: a status, a status message or a time changed. */
  readonly onStatus?: ((task: Task) => void) | undefined
  /**
   * Whether a wait that ends before the task does (interrupted, timed out, failing to poll or to give input) cancels
   * the task on the server (`tasks/cancel`). A call's own wait does; a wait for a task by id (`McpClient.tasks`) does
   * not by default: the task may be another process's, and it goes on running.
   */
  readonly cancelUnfinished?: boolean | undefined
}

/**
 * What a call does when the server answers it with a task: wait for the task's end (`wait`, the default), or end
 * at once with the task as the call's result (`handle`: `asResult`).
 *
 * @since 1.0.0
 * @category models
 */
export type Mode = "wait" | "handle"

/**
 * The least time between two polls, whatever a server's `pollIntervalMs` says.
 *
 * @since 1.0.0
 * @category constants
 */
export const minPollInterval: Duration.Duration = Duration.millis(10)

/**
 * The first poll interval when the server gives none; each next one is 1.5 times longer, up to `maxPollInterval`.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultPollInterval: Duration.Duration = Duration.seconds(1)

/**
 * The longest poll interval of the backoff used when the server gives no `pollIntervalMs`.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxPollInterval: Duration.Duration = Duration.seconds(10)

/**
 * When to poll next, given the task as it was last seen: after its `pollIntervalMs` (never sooner: the server may
 * rate-limit a client that polls faster; at least `minPollInterval`), or, when the server gives no hint, after a
 * backoff from `defaultPollInterval` growing 1.5 times a poll up to `maxPollInterval`.
 *
 * @since 1.0.0
 * @category schedules
 */
export const pollSchedule: Schedule.Schedule<Duration.Duration, Task> = Schedule.min([
  Schedule.exponential(defaultPollInterval, 1.5),
  Schedule.spaced(maxPollInterval)
]).pipe(
  Schedule.setInputType<Task>(),
  Schedule.modifyDelay(({ duration, input }) =>
    Effect.succeed(
      input.pollIntervalMs === undefined
        ? duration
        : Duration.max(Duration.millis(input.pollIntervalMs), minPollInterval)
    )
  )
)

/**
 * How long the `tasks/cancel` of a wait that ended early may take: the connection often closes right after.
 */
const cancelTimeout = Duration.seconds(2)

/**
 * The end of a settled task: its result, or the error of a task that `failed` (with the task's JSON-RPC error code)
 * or was `cancelled`.
 *
 * @since 1.0.0
 * @category utils
 */
export const outcome = (task: Task): Effect.Effect<CallToolResult, McpRequestError> => {
  switch (task.status) {
    case "completed":
      return task.result === undefined
        ? Effect.fail(
          new McpRequestError({
            server: task.server,
            method: "tasks/get",
            reason: "InvalidResponse",
            taskId: task.taskId,
            description: `the task ${task.taskId} completed without a result`
          })
        )
        : Effect.succeed(task.result)
    case "failed": {
      const why = task.statusMessage ?? task.error?.message
      return Effect.fail(
        new McpRequestError({
          server: task.server,
          method: "tools/call",
          reason: "TaskFailed",
          taskId: task.taskId,
          description: why === undefined ? `the task ${task.taskId} failed` : `the task ${task.taskId} failed: ${why}`,
          ...(task.error !== undefined ? { code: task.error.code } : {})
        })
      )
    }
    case "cancelled":
      return Effect.fail(
        new McpRequestError({
          server: task.server,
          method: "tools/call",
          reason: "TaskCancelled",
          taskId: task.taskId,
          description: task.statusMessage === undefined
            ? `the task ${task.taskId} was cancelled`
            : `the task ${task.taskId} was cancelled: ${task.statusMessage}`
        })
      )
    default:
      return Effect.fail(
        new McpRequestError({
          server: task.server,
          method: "tasks/get",
          reason: "InvalidResponse",
          taskId: task.taskId,
          description: `the task ${task.taskId} has not ended (${task.status})`
        })
      )
  }
}

/**
 * Waits for `task` to end, from the state it was last seen in (a call's task handle, or a `tasks/get`): polls it on
 * `pollSchedule` (and, with a driver that can `watch`, takes each state the server sends between two polls),
 * answers each input request once (keys are never reused; a request repeated until answered is answered once) and
 * sends the answers with `tasks/update`, and ends with its result, or fails as `outcome` says.
 * Time is the caller's (`Effect.timeout`); with `cancelUnfinished`, a wait that ends before the task sends
 * `tasks/cancel` (at most 2 seconds, its failure ignored).
 *
 * @since 1.0.0
 * @category utils
 */
export const wait = (
  driver: Driver,
  task: Task,
  options?: WaitOptions | undefined
): Effect.Effect<CallToolResult, McpRequestError> => {
  const onStatus = options?.onStatus
  const answered = new Set<string>()
  let ended = false
  const loop = Effect.gen(function*() {
    const poll = yield* Schedule.toStepWithSleep(pollSchedule)
    // the states the server sends, the latest kept: it stands for the next poll
    const sent = yield* Queue.sliding<Task>(1)
    if (driver.watch !== undefined) yield* driver.watch(task.taskId, (state) => void Queue.offerUnsafe(sent, state))
    let current = task
    while (true) {
      if (current.status === "input_required" && current.inputRequests !== undefined) {
        const responses: Record<string, unknown> = {}
        let any = false
        for (const [key, request] of Object.entries(current.inputRequests)) {
          if (answered.has(key)) continue
          responses[key] = yield* driver.answer(current.taskId, request)
          answered.add(key)
          any = true
        }
        if (any) yield* driver.update(current.taskId, responses)
      }
      if (Common.settled(current)) {
        ended = true
        return yield* outcome(current)
      }
      const pushed = yield* Effect.raceFirst(
        Effect.as(Effect.orDie(poll(current)), undefined),
        Queue.take(sent)
      )
      const next = pushed ?? (yield* driver.get(current.taskId))
      if (Common.changed(current, next)) onStatus?.(next)
      current = next
    }
  })
  // the scope of a watch: the server stops sending once the wait is over
  const scoped = Effect.scoped(loop)
  return options?.cancelUnfinished === true
    ? Effect.onExit(scoped, () =>
      ended
        ? Effect.void
        : Effect.interruptible(driver.cancel(task.taskId)).pipe(Effect.timeout(cancelTimeout), Effect.ignore))
    : scoped
}

/**
 * A task as a call's result, for a call made with mode `handle`: a text block with the task's id and status (JSON),
 * the task as `structuredContent`, and the task in `_meta` (`fromResult` reads it back).
 *
 * @since 1.0.0
 * @category utils
 */
export const asResult = (task: Task): CallToolResult => Common.asResult(task)

/**
 * The task of a result made by `asResult` (a call made with mode `handle` that the server answered with a task).
 *
 * @since 1.0.0
 * @category utils
 */
export const fromResult = (result: CallToolResult): Option.Option<Task> =>
  Option.fromUndefinedOr(Common.fromResult(result) as Task | undefined)
