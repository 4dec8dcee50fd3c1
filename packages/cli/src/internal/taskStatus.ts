/**
 * A task's status while zett waits for it (a call the server answered with a task, `zett task get --wait`): on a
 * terminal the spinner's line, elsewhere one line on standard error each time the status or its message changes, so
 * that a log shows which task ran and how it went.
 *
 * @internal
 */
import type { McpTask } from "@zett/mcp"
import * as Effect from "effect/Effect"
import { Output } from "../Output.js"
import * as Progress from "../Progress.js"
import { inert } from "./inert.js"

/** `build: task 6f1c… working (step 2 of 3)`: the task's id, its status and the server's message. */
export const describe = (name: string, task: McpTask.Task): string =>
  Progress.taskLine({ tool: name, taskId: task.taskId, status: task.status, message: task.statusMessage })

/** What shows each new state of a task that `name` waits for: the spinner's text, or a line on standard error. */
export const reporter = (
  name: string
): Effect.Effect<(status: Progress.Status, task: McpTask.Task) => void, never, Output> =>
  Effect.map(Output, (output) => {
    let last: string | undefined
    return (status, task) => {
      const text = describe(name, task)
      if (output.interactive) return Effect.runSync(status.set(text))
      if (text === last) return
      last = text
      // the server's message, inert
      Effect.runSync(output.stderr(`zett: ${inert(text).replace(/[\n\t]/g, " ")}\n`))
    }
  })
