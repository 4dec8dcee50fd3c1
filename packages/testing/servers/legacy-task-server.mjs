// An MCP server on SDK v1 (`@modelcontextprotocol/sdk` 1.x, the 2025 revisions only) with the tasks of the
// 2025-11-25 revision (`capabilities.tasks`, `execution.taskSupport`, `params.task`, `tasks/get`, `tasks/result`,
// `tasks/cancel`), over stdio. Tools:
//   finishes {text?}   taskSupport "required": working; completes with "finished <text>" at the `--steps`th
//                      `tasks/get` of it (default 2)
//   forever            taskSupport "required": never finishes; `tasks/cancel` makes it `cancelled` (the SDK's store)
//   either {text?}     taskSupport "optional": as a task, as `finishes`; without one, "plain <text>" at once
//   plain {text?}      no `execution`: "plain <text>"
//   rejects {text?}    taskSupport "required": `failed` at its first `tasks/get`, with a tool error as its result
//                      (`isError`, "rejected <text>")
//   breaks             taskSupport "required": `failed` at its first `tasks/get`, with no result (a status message)
// Hints: `--poll-interval=<ms>` (pollInterval, default 50), `--ttl=<ms>` (default 60000).
//
// With `--record=<file>` it appends one JSON line per message it receives: `{"event":"message","method","id",
// "taskId","tool","task"(whether params.task was given)}`, and `ready` at start. Every line has the process's pid.
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as Fs from "node:fs"
import * as z from "zod/v4"

const option = (name, fallback) => {
  const prefix = `--${name}=`
  const found = process.argv.find((arg) => arg.startsWith(prefix))
  return found === undefined ? fallback : found.slice(prefix.length)
}
const recordFile = option("record", undefined)
const steps = Number(option("steps", "2"))
const pollInterval = Number(option("poll-interval", "50"))
const ttl = Number(option("ttl", "60000"))
const record = (event, fields = {}) => {
  if (recordFile !== undefined) {
    Fs.appendFileSync(recordFile, `${JSON.stringify({ event, pid: process.pid, ...fields })}\n`)
  }
}

const taskStore = new InMemoryTaskStore()
// the tasks that finish, by id: the text they finish with and the `tasks/get`s seen
const finishing = new Map()
// the ids of the `tools/call` requests that did not ask for a task
const untasked = new Set()

const server = new McpServer({ name: "legacy-tasks", version: "1.0.0" }, {
  capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
  taskStore,
  taskMessageQueue: new InMemoryTaskMessageQueue()
})

const taskHandlers = (finishes) => ({
  createTask: async (args, extra) => {
    const task = await extra.taskStore.createTask({ ttl, pollInterval })
    // a call of an optional tool that asked for no task: the SDK waits for the task by itself, which ends at once
    if (untasked.delete(extra.requestId)) {
      await extra.taskStore.storeTaskResult(task.taskId, "completed", {
        content: [{ type: "text", text: `plain ${args.text ?? ""}` }]
      })
    } else if (finishes !== false) finishing.set(task.taskId, { text: args.text ?? "", gets: 0, ends: finishes })
    return { task }
  },
  getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId)
})

const text = { text: z.string().optional() }
server.experimental.tasks.registerToolTask("finishes", {
  inputSchema: text,
  execution: { taskSupport: "required" }
}, taskHandlers("finishes"))
server.experimental.tasks.registerToolTask("rejects", {
  inputSchema: text,
  execution: { taskSupport: "required" }
}, taskHandlers("rejects"))
server.experimental.tasks.registerToolTask("breaks", {
  inputSchema: {},
  execution: { taskSupport: "required" }
}, taskHandlers("breaks"))
server.experimental.tasks.registerToolTask("forever", {
  inputSchema: {},
  execution: { taskSupport: "required" }
}, taskHandlers(false))
server.experimental.tasks.registerToolTask("either", {
  inputSchema: text,
  execution: { taskSupport: "optional" }
}, taskHandlers("finishes"))
server.registerTool("plain", { inputSchema: text }, async (args) => ({
  content: [{ type: "text", text: `plain ${args.text ?? ""}` }]
}))

const transport = new StdioServerTransport()
await server.connect(transport)
const handle = transport.onmessage
transport.onmessage = (message, extra) => {
  const params = message.params ?? {}
  record("message", {
    method: message.method,
    id: message.id,
    taskId: params.taskId,
    tool: message.method === "tools/call" ? params.name : undefined,
    task: params.task !== undefined
  })
  if (message.method === "tools/call" && params.task === undefined) untasked.add(message.id)
  const finish = message.method === "tasks/get" ? finishing.get(params.taskId) : undefined
  if (finish === undefined) return handle(message, extra)
  finish.gets++
  if (finish.ends === "finishes" && finish.gets < steps) return handle(message, extra)
  finishing.delete(params.taskId)
  const ended = finish.ends === "finishes"
    ? taskStore.storeTaskResult(params.taskId, "completed", {
      content: [{ type: "text", text: `finished ${finish.text}` }]
    })
    : finish.ends === "rejects"
    ? taskStore.storeTaskResult(params.taskId, "failed", {
      content: [{ type: "text", text: `rejected ${finish.text}` }],
      isError: true
    })
    : taskStore.updateTaskStatus(params.taskId, "failed", "the build broke")
  ended.then(() => handle(message, extra), () => handle(message, extra))
}
record("ready")
