/**
 * What the agent's extension and a toolkit share of tasks the model handles itself (`tasks: "handle"`): the text the
 * model reads when a call is answered with a task. The `task_status` tool comes with the extension's port.
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as McpTask from "../McpTask.js"

export const toolName = "task_status"

/** The task's state as the model reads it. */
const summary = (task: McpTask.Task) => ({
  server: task.server,
  taskId: task.taskId,
  status: task.status,
  ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {})
})

/** What the model reads for a call the server answered with a task, in `handle` mode. */
export const handle = (task: McpTask.Task) => ({
  task: summary(task),
  note: `The tool runs on the server as a task. Call ${toolName} with this server and taskId to check it, ` +
    `"action": "wait" to wait for its result, or "action": "cancel" to cancel it.`
})

/** The task of a call's result in `handle` mode, as the model reads it; none for any other result. */
export const handled = (result: Parameters<typeof McpTask.fromResult>[0]) =>
  Option.map(McpTask.fromResult(result), handle)
