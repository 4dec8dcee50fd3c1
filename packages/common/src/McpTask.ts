/**
 * Tool calls that run as tasks (the Tasks extension, `io.modelcontextprotocol/tasks`) as data, without any Effect: a
 * task's statuses, when a task has said all there is to say, when a poll saw a change, and a task as a call's result
 * and back. Both Effect lines' `McpTask` export these and add the polling and the wait.
 *
 * @since 0.1.0
 */

/**
 * The extension's identifier, as capabilities declare it.
 *
 * @since 0.1.0
 * @category constants
 */
export const extension = "io.modelcontextprotocol/tasks"

/**
 * A task's statuses: `working`, waiting for input (`input_required`), or ended: `completed`, `failed`, `cancelled`.
 *
 * @since 0.1.0
 * @category constants
 */
export const statuses = ["working", "input_required", "completed", "failed", "cancelled"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type Status = typeof statuses[number]

/**
 * Whether a status is one a task does not leave.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isTerminal = (status: Status): boolean =>
  status === "completed" || status === "failed" || status === "cancelled"

/**
 * A task as far as these functions read it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Task {
  readonly server: string
  readonly taskId: string
  readonly status: Status
  readonly statusMessage?: string | undefined
  readonly lastUpdatedAt?: string | undefined
  readonly pollIntervalMs?: number | undefined
  readonly result?: unknown
}

/**
 * Whether a poll saw a new state of the task: its status, its status message or its time changed.
 *
 * @since 0.1.0
 * @category utils
 */
export const changed = (before: Task, after: Task): boolean =>
  before.status !== after.status || before.statusMessage !== after.statusMessage ||
  before.lastUpdatedAt !== after.lastUpdatedAt

/**
 * A terminal task that says all there is to say (a handle's `completed` has no result yet: `tasks/get` has it).
 *
 * @since 0.1.0
 * @category utils
 */
export const settled = (task: Task): boolean =>
  isTerminal(task.status) && (task.status !== "completed" || task.result !== undefined)

const metaKey = "dev.zett/task"

/**
 * A task as a call's result, for a call made with mode `handle`: a text block with the task's id and status (JSON),
 * the task as `structuredContent`, and the task in `_meta` (`fromResult` reads it back).
 *
 * @since 0.1.0
 * @category utils
 */
export const asResult = (task: Task): {
  readonly content: Array<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent: { readonly [key: string]: unknown }
  readonly _meta: { readonly [key: string]: unknown }
} => {
  const summary = {
    server: task.server,
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {})
  }
  return {
    content: [{ type: "text", text: JSON.stringify({ task: summary }) }],
    structuredContent: { task: summary },
    _meta: { [metaKey]: summary }
  }
}

/**
 * The task of a result made by `asResult` (a call made with mode `handle` that the server answered with a task), or
 * `undefined`.
 *
 * @since 0.1.0
 * @category utils
 */
export const fromResult = (
  result: { readonly _meta?: { readonly [key: string]: unknown } | undefined }
): Task | undefined => {
  const meta = result._meta?.[metaKey]
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) &&
      "taskId" in meta && typeof meta.taskId === "string" && "server" in meta && typeof meta.server === "string" &&
      "status" in meta && (statuses as ReadonlyArray<unknown>).includes(meta.status)
    ? meta as Task
    : undefined
}
