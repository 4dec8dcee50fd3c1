// An MCP server on SDK v2 (`@modelcontextprotocol/server` 2.x) with the server side of the Tasks extension
// (`io.modelcontextprotocol/tasks`, 2026-07-28 era): over stdio (`serveStdio`) or, with `--http`, over Streamable
// HTTP (`createMcpHandler` behind node:http on 127.0.0.1, `--port=0` for any; it prints `listening on <url>`).
//
// The extension is served here, in front of the SDK's server: @modelcontextprotocol/ext-tasks 0.2.2 has no server
// part (its `receiver` is the 2025-11-25 client-hosted receiver), and the SDK validates a `tools/call` result as a
// CallToolResult and keeps only the four change filters of a `subscriptions/listen`. So `tools/call` of the task
// tools, `tasks/get`, `tasks/update`, `tasks/cancel` and a `subscriptions/listen` naming `taskIds` are answered by
// this file; everything else (discover, initialize, tools/list, the plain tools) by the SDK.
//
// Tools answered with a task handle (`resultType: "task"`) to a client that declares the extension in the request's
// `_meta["io.modelcontextprotocol/clientCapabilities"].extensions` (to one that does not: -32021, except `lookup`):
//   build {steps?}  working; completes after `steps` advances (default `--steps`, 2) with "built <text>"
//   explode         fails at its first advance (status `failed`, error -32603)
//   reject {text?}  completes at its first advance with a tool error (`isError: true`, "rejected <text>")
//   approve         asks for input at its first advance (`input_required`, key `approve-1`, an elicitation);
//                   after `tasks/update` answers it, working, then completed with "approved: <answer>"
//   forever         never finishes; acknowledges `tasks/cancel` and keeps working (cancellation is cooperative)
//   cancellable     never finishes on its own; `tasks/cancel` makes it `cancelled`
//   lookup {word}   an ordinary-looking tool answered with a task handle unsolicited (completes at its first
//                   advance); to a client without the extension a plain result, unless `--tasks-to-anyone`
// and `echo` {text}, a plain tool. A task advances one step at each `tasks/get` of it (before the answer) and, with
// `--tick=<ms>`, every tick (with `--tick-when-listened`, only while a `subscriptions/listen` names it). With `--handle-delay=<ms>` a task handle is sent that long after the task is created
// (a client that gives up on the call meanwhile gets it late). Hints: `--poll-interval=<ms>` (pollIntervalMs, default 50), `--ttl=<ms>` (ttlMs,
// default 60000). Each status change is sent as `notifications/tasks` to the open `subscriptions/listen` requests
// whose `notifications.taskIds` name the task.
//
// With `--record=<file>` it appends one JSON line per message it receives: `{"event":"message","method","id",
// "taskId","tool","tasks"(declared the extension),"inputKeys","headers":{mcp-*}}`, and of what it did:
// `task-created` {taskId, tool}, `task-status` {taskId, status}, `task-cancel` {taskId, honoured},
// `task-input` {taskId, accepted, ignored}, `task-notified` {taskId, status, subscription}, `listen` {taskIds},
// `listen-closed` {subscription}, and `ready` at start. Every line has the process's pid.
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as z from "zod/v4"
import { forward } from "./nodeFetchBridge.mjs"

const option = (name, fallback) => {
  const prefix = `--${name}=`
  const found = process.argv.find((arg) => arg.startsWith(prefix))
  return found === undefined ? fallback : found.slice(prefix.length)
}
const flag = (name) => process.argv.includes(`--${name}`)
const name = option("name", "tasks")
const legacy = option("legacy", "serve")
const recordFile = option("record", undefined)
const defaultSteps = Number(option("steps", "2"))
const pollIntervalMs = Number(option("poll-interval", "50"))
const ttlMs = Number(option("ttl", "60000"))
const tick = option("tick", undefined)
const handleDelay = Number(option("handle-delay", "0"))
const tasksToAnyone = flag("tasks-to-anyone")
const record = (event, fields = {}) => {
  if (recordFile !== undefined) {
    Fs.appendFileSync(recordFile, `${JSON.stringify({ event, pid: process.pid, ...fields })}\n`)
  }
}

const EXTENSION = "io.modelcontextprotocol/tasks"
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
const TASK_TOOLS = new Set(["build", "explode", "reject", "approve", "forever", "cancellable", "lookup"])
const Confirmation = { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] }

const declaresTasks = (message) => message?.params?._meta?.[CLIENT_CAPABILITIES]?.extensions?.[EXTENSION] !== undefined
const missingCapability = (id) => ({
  jsonrpc: "2.0",
  id,
  error: {
    code: -32021,
    message: "Missing required client capability",
    data: { requiredCapabilities: { extensions: { [EXTENSION]: {} } } }
  }
})
const invalidTask = (id, taskId) => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32602, message: `Failed to retrieve task: Task not found (${taskId})` }
})
// a CallToolResult as the 2026-07-28 era writes it (ext-tasks 0.2.2 refuses a task's `result` without `resultType`)
const text = (value) => ({ resultType: "complete", content: [{ type: "text", text: value }], isError: false })

// the tasks of this process (over HTTP every request has a server instance of its own: state lives here)
const tasks = new Map()
// open subscriptions/listen requests naming task ids: id → { taskIds, send }
const listeners = new Map()

const detailed = (task) => {
  const base = {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs,
    pollIntervalMs
  }
  if (task.status === "input_required") return { ...base, inputRequests: task.inputRequests }
  if (task.status === "completed") return { ...base, result: task.result }
  if (task.status === "failed") return { ...base, error: task.error }
  return base
}

const setStatus = (task, status, fields = {}) => {
  Object.assign(task, fields, { status, lastUpdatedAt: new Date().toISOString() })
  record("task-status", { taskId: task.taskId, status })
  for (const [subscription, listener] of listeners) {
    if (!listener.taskIds.includes(task.taskId)) continue
    record("task-notified", { taskId: task.taskId, status, subscription })
    listener.send({
      jsonrpc: "2.0",
      method: "notifications/tasks",
      params: { ...detailed(task), _meta: { [SUBSCRIPTION_ID]: subscription } }
    })
  }
}

const terminal = (task) => task.status === "completed" || task.status === "failed" || task.status === "cancelled"

// one step of a task's work: what each tool does next
const advance = (task) => {
  if (terminal(task) || task.status === "input_required") return
  task.steps += 1
  switch (task.tool) {
    case "build":
      if (task.steps >= task.target) {
        setStatus(task, "completed", { result: text(`built ${task.text}`), statusMessage: "done" })
      } else task.statusMessage = `step ${task.steps} of ${task.target}`
      return
    case "explode":
      return setStatus(task, "failed", {
        statusMessage: "Tool execution failed: the build broke",
        error: { code: -32603, message: "the build broke" }
      })
    case "reject":
      return setStatus(task, "completed", {
        result: { ...text(`rejected ${task.text}`), isError: true },
        statusMessage: "done"
      })
    case "approve":
      if (task.answer === undefined) {
        return setStatus(task, "input_required", {
          statusMessage: "waiting for approval",
          inputRequests: {
            "approve-1": {
              method: "elicitation/create",
              params: { mode: "form", message: "Deploy to production?", requestedSchema: Confirmation }
            }
          }
        })
      }
      return setStatus(task, "completed", {
        result: text(`approved: ${JSON.stringify(task.answer)}`),
        statusMessage: "done"
      })
    case "lookup":
      return setStatus(task, "completed", { result: text(`lookup: ${task.text}`) })
    default:
      // forever, cancellable: still working
      return
  }
}

const createTask = (tool, args) => {
  const now = new Date().toISOString()
  const task = {
    taskId: Crypto.randomUUID(),
    tool,
    status: "working",
    statusMessage: "The operation is now in progress.",
    createdAt: now,
    lastUpdatedAt: now,
    steps: 0,
    target: typeof args?.steps === "number" ? args.steps : defaultSteps,
    text: typeof args?.text === "string" ? args.text : typeof args?.word === "string" ? args.word : "",
    answer: undefined,
    inputRequests: {}
  }
  tasks.set(task.taskId, task)
  record("task-created", { taskId: task.taskId, tool })
  return task
}

// with --tick-when-listened a tick advances only the tasks an open listen names: a client's listen is then in
// place before its task can end, whatever the load
const tickWhenListened = flag("tick-when-listened")
const listened = (task) => [...listeners.values()].some((listener) => listener.taskIds.includes(task.taskId))

if (tick !== undefined) {
  setInterval(() => {
    for (const task of tasks.values()) if (!tickWhenListened || listened(task)) advance(task)
  }, Number(tick)).unref()
}

/**
 * Answers the extension's messages: `respond` writes the answer of a request, `open` starts a listen stream and
 * gives its writer (over stdio the connection's, over HTTP the response's SSE stream). False: not ours, the SDK
 * answers it.
 */
const handleTaskMessage = (message, respond, open) => {
  if (message === null || typeof message !== "object" || typeof message.method !== "string") return false
  const { id, method, params } = message
  const taskId = params?.taskId
  if (method === "tools/call" && TASK_TOOLS.has(params?.name)) {
    if (!declaresTasks(message)) {
      if (params.name !== "lookup") return respond(missingCapability(id)), true
      if (!tasksToAnyone) {
        return respond({ jsonrpc: "2.0", id, result: text(`lookup: ${params.arguments?.word ?? ""}`) }), true
      }
    }
    const task = createTask(params.name, params.arguments)
    const answer = () => respond({ jsonrpc: "2.0", id, result: { resultType: "task", ...detailed(task) } })
    if (handleDelay > 0) setTimeout(answer, handleDelay)
    else answer()
    return true
  }
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel") {
    if (!declaresTasks(message)) return respond(missingCapability(id)), true
    const task = tasks.get(taskId)
    if (task === undefined) return respond(invalidTask(id, taskId)), true
    if (method === "tasks/get") {
      advance(task)
      respond({ jsonrpc: "2.0", id, result: { resultType: "complete", ...detailed(task) } })
      return true
    }
    if (method === "tasks/update") {
      const responses = params?.inputResponses ?? {}
      const accepted = []
      const ignored = []
      for (const [key, answer] of Object.entries(responses)) {
        if (task.status === "input_required" && Object.hasOwn(task.inputRequests, key)) {
          accepted.push(key)
          task.answer = answer
          delete task.inputRequests[key]
        } else {
          ignored.push(key)
        }
      }
      record("task-input", { taskId, accepted, ignored })
      if (accepted.length > 0 && Object.keys(task.inputRequests).length === 0) {
        setStatus(task, "working", { statusMessage: "approval received" })
      }
      respond({ jsonrpc: "2.0", id, result: { resultType: "complete" } })
      return true
    }
    // tasks/cancel: acknowledged always; honoured by every tool but `forever`, and only before a terminal status
    const honoured = task.tool !== "forever" && !terminal(task)
    record("task-cancel", { taskId, honoured })
    if (honoured) setStatus(task, "cancelled", { statusMessage: "cancelled by the client" })
    respond({ jsonrpc: "2.0", id, result: { resultType: "complete" } })
    return true
  }
  if (method === "subscriptions/listen" && Array.isArray(params?.notifications?.taskIds)) {
    if (!declaresTasks(message)) return respond(missingCapability(id)), true
    const taskIds = params.notifications.taskIds.filter((t) => tasks.has(t))
    record("listen", { subscription: id, taskIds })
    const send = open(id)
    listeners.set(id, { taskIds, send })
    send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds }, _meta: { [SUBSCRIPTION_ID]: id } }
    })
    return true
  }
  if (method === "notifications/cancelled" && listeners.has(params?.requestId)) {
    listeners.delete(params.requestId)
    record("listen-closed", { subscription: params.requestId })
    return true
  }
  return false
}

const makeServer = () => {
  const server = new McpServer({ name, version: "2.0.0" }, { capabilities: { tools: {} } })
  server.server.registerCapabilities({ extensions: { [EXTENSION]: {} } })
  server.registerTool(
    "echo",
    { description: "echoes its text", inputSchema: z.object({ text: z.string() }) },
    async ({ text: value }) => text(`${name} echo: ${value}`)
  )
  // what the SDK would answer if this file did not: never reached for a task tool (see handleTaskMessage)
  const unreachable = async () => ({ content: [{ type: "text", text: "not a task" }], isError: true })
  const tool = (toolName, description, inputSchema) =>
    server.registerTool(toolName, { description, inputSchema }, unreachable)
  tool(
    "build",
    "builds; runs as a task",
    z.object({ steps: z.number().int().min(1).optional(), text: z.string().optional() })
  )
  tool("explode", "a build that fails; runs as a task", z.object({}))
  tool("reject", "a review that ends with a tool error; runs as a task", z.object({ text: z.string().optional() }))
  tool("approve", "a deployment that asks for approval; runs as a task", z.object({}))
  tool("forever", "a job that never ends and does not stop when cancelled; runs as a task", z.object({}))
  tool("cancellable", "a job that never ends until cancelled; runs as a task", z.object({}))
  tool("lookup", "looks up a word", z.object({ word: z.string() }))
  return server
}

const recordMessage = (message, headers = {}) => {
  if (recordFile === undefined || message === null || typeof message !== "object") return
  const params = message.params
  record("message", {
    method: message.method,
    id: message.id,
    ...(typeof params?.taskId === "string" ? { taskId: params.taskId } : {}),
    ...(message.method === "tools/call" ? { tool: params?.name } : {}),
    ...(message.method === "tasks/update" ? { inputKeys: Object.keys(params?.inputResponses ?? {}) } : {}),
    ...(Array.isArray(params?.notifications?.taskIds) ? { taskIds: params.notifications.taskIds } : {}),
    ...(message.method === "notifications/cancelled" ? { requestId: params?.requestId } : {}),
    tasks: declaresTasks(message),
    headers: Object.fromEntries(Object.entries(headers).filter(([key]) => key.startsWith("mcp-")))
  })
}

if (!flag("http")) {
  // every message from the client passes the recorder and the extension before the SDK's server
  const transport = new StdioServerTransport()
  let sdkOnMessage
  const onmessage = (message, extra) => {
    recordMessage(message)
    const send = (out) => void transport.send(out)
    if (!handleTaskMessage(message, send, () => send)) sdkOnMessage?.(message, extra)
  }
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => onmessage,
    set: (handler) => {
      sdkOnMessage = handler
    }
  })
  serveStdio(makeServer, { legacy, transport })
  record("ready")
} else {
  const handler = createMcpHandler(makeServer, { legacy: legacy === "reject" ? "reject" : "stateless" })
  const server = Http.createServer(async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const body = Buffer.concat(chunks)
    if (body.length > 0) {
      let message
      try {
        message = JSON.parse(body.toString("utf8"))
      } catch {
        // not JSON: the handler answers it
      }
      if (message !== undefined) {
        recordMessage(message, req.headers)
        const respond = (out) => {
          res.writeHead(out.error?.code === -32021 ? 400 : 200, { "content-type": "application/json" })
          res.end(JSON.stringify(out))
        }
        const open = (subscription) => {
          res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
          res.on("close", () => {
            if (listeners.delete(subscription)) record("listen-closed", { subscription })
          })
          return (out) => res.write(`event: message\ndata: ${JSON.stringify(out)}\n\n`)
        }
        if (handleTaskMessage(message, respond, open)) return
      }
    }
    await forward(handler, req, res, body)
  })
  server.listen(Number(option("port", "0")), "127.0.0.1", () => {
    const { port } = server.address()
    record("ready")
    process.stdout.write(`listening on http://127.0.0.1:${port}/mcp\n`)
  })
}
