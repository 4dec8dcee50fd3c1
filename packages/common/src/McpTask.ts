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

/**
 * The name of the tool the model checks, waits for and cancels a task with, when calls hand it their tasks (`tasks:
 * "handle"` of `@zett/mcp`).
 *
 * @since 0.1.0
 * @category task_status tool
 */
export const statusToolName = "task_status"

/**
 * What `task_status` does: tell the task's state (`status`, the default), wait for its end, or cancel it.
 *
 * @since 0.1.0
 * @category task_status tool
 */
export const statusActions = ["status", "wait", "cancel"] as const

/**
 * @since 0.1.0
 * @category task_status tool
 */
export type StatusAction = typeof statusActions[number]

/**
 * A task's state as the model reads it: its server, id, status and status message.
 *
 * @since 0.1.0
 * @category task_status tool
 */
export const summary = (task: Task): {
  readonly server: string
  readonly taskId: string
  readonly status: Status
  readonly statusMessage?: string
} => ({
  server: task.server,
  taskId: task.taskId,
  status: task.status,
  ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {})
})

/**
 * What the model reads for a call the server answered with a task, in mode `handle`: the task, and how to follow it.
 *
 * @since 0.1.0
 * @category task_status tool
 */
export const handle = (task: Task): { readonly task: ReturnType<typeof summary>; readonly note: string } => ({
  task: summary(task),
  note: `The tool runs on the server as a task. Call ${statusToolName} with this server and taskId to check it, ` +
    `"action": "wait" to wait for its result, or "action": "cancel" to cancel it.`
})

/**
 * `task_status` as the model reads it; `servers` are the servers a task may run on.
 *
 * @since 0.1.0
 * @category task_status tool
 */
export const statusDefinition = (servers: ReadonlyArray<string>): {
  readonly name: string
  readonly description: string
  readonly parameters: { readonly [key: string]: unknown }
} => ({
  name: statusToolName,
  description: "Checks a task that an MCP tool started on its server (a tool result that names a task): its status " +
    "and, once completed, its result. \"action\": \"wait\" waits for it to end (up to the call time limit), " +
    "\"cancel\" asks the server to cancel it.",
  parameters: {
    type: "object",
    properties: {
      server: {
        type: "string",
        enum: servers,
        description: "The server the task runs on, as the tool result named it."
      },
      taskId: { type: "string", description: "The task's id, as the tool result named it." },
      action: { type: "string", enum: statusActions, description: "status (default), wait or cancel." }
    },
    required: ["server", "taskId"],
    additionalProperties: false
  }
})

/**
 * A `task_status` call as the model asked for it.
 *
 * @since 0.1.0
 * @category task_status tool
 */
export interface StatusArguments {
  readonly server: string
  readonly taskId: string
  readonly action: StatusAction
}

/**
 * `task_status`'s arguments, or what is wrong with them in a sentence the model reads.
 *
 * @since 0.1.0
 * @category task_status tool
 */
export const readStatusArguments = (
  args: unknown,
  servers: ReadonlyArray<string>
): { readonly _tag: "Success"; readonly value: StatusArguments } | {
  readonly _tag: "Failure"
  readonly message: string
} => {
  const record = typeof args === "object" && args !== null ? args as Record<string, unknown> : {}
  const { action, server, taskId } = record
  if (typeof server !== "string" || !servers.includes(server)) {
    return {
      _tag: "Failure",
      message: `server must be one of ${servers.map((name) => JSON.stringify(name)).join(", ")}`
    }
  }
  if (typeof taskId !== "string" || taskId === "") return { _tag: "Failure", message: "taskId must be the task's id" }
  if (action !== undefined && action !== null && !statusActions.includes(action as StatusAction)) {
    return { _tag: "Failure", message: `action must be one of ${statusActions.join(", ")}` }
  }
  return { _tag: "Success", value: { server, taskId, action: (action ?? "status") as StatusAction } }
}
