/**
 * The task server of @zett/testing (servers/task-server.mjs), driven with the SDK v2 client and, for what the SDK's
 * client refuses (a `tools/call` answered `resultType: "task"`, the `tasks/*` results), requests of our own on the
 * SDK's transport beside it, framed as @modelcontextprotocol/ext-tasks frames them; and with the ext-tasks client
 * itself. Each test reads what the server received from its record.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { createTaskSessionFromClient, resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client"
import type { RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Faults from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import * as TaskServer from "@zett/testing/TaskServer"
import * as Effect from "effect/Effect"
import * as Path from "node:path"

type Json = Record<string, unknown>
type Answer = { readonly result: Json } | {
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
}

const framing = (declare: boolean) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "task-fixture-test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": declare ? { extensions: { [TaskServer.extension]: {} } } : {}
})

/**
 * An SDK client over `inner`, and beside it requests of our own on the same transport: their ids are ours, and
 * their answers (and every notification) are kept here before the client sees them.
 */
const connect = async (inner: Transport) => {
  const pending = new Map<string, (answer: Answer) => void>()
  const notifications: Array<Json> = []
  let next = 0
  let clientHandler: ((message: JSONRPCMessage, extra?: unknown) => void) | undefined
  const divert = (message: JSONRPCMessage, extra?: unknown) => {
    const m = message as Json
    if (typeof m.id === "string" && pending.has(m.id)) {
      const resolve = pending.get(m.id)!
      pending.delete(m.id)
      return resolve(m as unknown as Answer)
    }
    if (m.id === undefined && typeof m.method === "string") notifications.push(m)
    clientHandler?.(message, extra)
  }
  const transport = new Proxy(inner, {
    get: (target, key) => {
      const value = Reflect.get(target, key, target)
      return typeof value === "function" ? value.bind(target) : value
    },
    set: (target, key, value) => {
      if (key !== "onmessage") return Reflect.set(target, key, value, target)
      clientHandler = value
      return Reflect.set(target, key, divert, target)
    }
  })
  const client = new Client({ name: "task-fixture-test", version: "1.0.0" }, {
    capabilities: { extensions: { [TaskServer.extension]: {} } },
    versionNegotiation: { mode: { pin: "2026-07-28" } }
  })
  await client.connect(transport)
  const send = (message: Json): Promise<Answer> =>
    new Promise((resolve) => {
      const id = `raw-${next++}`
      pending.set(id, resolve)
      void inner.send({ jsonrpc: "2.0", id, ...message } as JSONRPCMessage)
    })
  /** A request framed as a 2026-07-28 request, declaring the extension unless `declare` is false. */
  const request = (method: string, params: Json, declare = true): Promise<Answer> =>
    send({ method, params: { ...params, _meta: framing(declare) } })
  const result = async (method: string, params: Json, declare = true): Promise<Json> => {
    const answer = await request(method, params, declare)
    if ("error" in answer) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`)
    return answer.result
  }
  const rawDispatch: RawClientDispatch = async (message) => {
    const answer = await send(message as Json)
    return "error" in answer
      ? { kind: "error", error: answer.error as never }
      : { kind: "result", result: answer.result as never }
  }
  return { client, request, result, notifications, rawDispatch, close: () => client.close() }
}

type Connection = Awaited<ReturnType<typeof connect>>

const stdioConnection = (file: string, options: TaskServer.Options = {}) => {
  const server = TaskServer.stdioCommand("tasks", file, "task-fixture-test", options)
  return Effect.acquireRelease(
    Effect.promise(() =>
      connect(
        new StdioClientTransport({
          command: server.command,
          args: [...server.args],
          env: { ...process.env, ...server.env } as Record<string, string>
        })
      )
    ),
    (c) => Effect.promise(() => c.close())
  )
}

const record = Effect.map(TempDir.make("zett-tasks-"), (dir) => Path.join(dir, "record.jsonl"))

/** Polls `taskId` until its status is not `working`; the last answer. */
const pollUntilSettled = async (c: Connection, taskId: string, limit = 20): Promise<Json> => {
  for (let i = 0; i < limit; i++) {
    const task = await c.result("tasks/get", { taskId })
    if (task.status !== "working") return task
  }
  throw new Error(`task ${taskId} still working after ${limit} polls`)
}

const createdTask = async (c: Connection, name: string, args: Json = {}): Promise<Json> => {
  const handle = await c.result("tools/call", { name, arguments: args })
  assert.strictEqual(handle.resultType, "task")
  return handle
}

describe("the task server", () => {
  it.scopedLive(
    "a task polled to completion: the handle's hints, one tasks/get per step, the tool's result",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file, { pollIntervalMs: 40, ttlMs: 30_000 })
        const handle = yield* Effect.promise(() => createdTask(c, TaskServer.tools.finishes, { steps: 3, text: "app" }))
        assert.strictEqual(handle.status, "working")
        assert.strictEqual(handle.pollIntervalMs, 40)
        assert.strictEqual(handle.ttlMs, 30_000)
        const taskId = handle.taskId as string
        const done = yield* Effect.promise(() => pollUntilSettled(c, taskId))
        assert.strictEqual(done.status, "completed")
        assert.strictEqual(done.resultType, "complete")
        assert.deepStrictEqual(done.result, {
          resultType: "complete",
          content: [{ type: "text", text: "built app" }],
          isError: false
        })
        assert.deepStrictEqual(TaskServer.created(file).map((t) => [t.taskId, t.tool]), [[taskId, "build"]])
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get", "tasks/get", "tasks/get"])
        assert.deepStrictEqual(TaskServer.statuses(file, taskId), ["completed"])
        assert.isTrue(TaskServer.messages(file).filter((m) => m.taskId === taskId).every((m) => m.tasks))
      })
  )

  it.scopedLive(
    "the SDK v2 client by itself refuses a task handle as an unsupported result type",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file)
        const error = yield* Effect.promise(() =>
          c.client.callTool({ name: TaskServer.tools.finishes, arguments: {} }).then(
            () => undefined,
            (e: unknown) => e as { code?: unknown }
          )
        )
        assert.strictEqual(error?.code, "UNSUPPORTED_RESULT_TYPE")
        // the server made the task all the same: the client declared the extension
        assert.deepStrictEqual(TaskServer.created(file).map((t) => t.tool), ["build"])
      })
  )

  it.scopedLive(
    "a failed task: status failed with the JSON-RPC error and a status message",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file)
        const taskId = (yield* Effect.promise(() => createdTask(c, TaskServer.tools.fails))).taskId as string
        const failed = yield* Effect.promise(() => pollUntilSettled(c, taskId))
        assert.strictEqual(failed.status, "failed")
        assert.deepStrictEqual(failed.error, { code: -32603, message: "the build broke" })
        assert.isString(failed.statusMessage)
        assert.deepStrictEqual(TaskServer.statuses(file, taskId), ["failed"])
      })
  )

  it.scopedLive(
    "cancellation: honoured by one task (cancelled), acknowledged but not honoured by the one that runs forever",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file)
        const cancellable = (yield* Effect.promise(() => createdTask(c, TaskServer.tools.cancellable))).taskId as string
        const forever = (yield* Effect.promise(() => createdTask(c, TaskServer.tools.runsForever))).taskId as string
        for (const taskId of [cancellable, forever]) {
          const ack = yield* Effect.promise(() => c.result("tasks/cancel", { taskId }))
          assert.deepStrictEqual(ack, { resultType: "complete" })
        }
        const after = yield* Effect.promise(() =>
          Promise.all([c.result("tasks/get", { taskId: cancellable }), c.result("tasks/get", { taskId: forever })])
        )
        assert.deepStrictEqual(after.map((t) => t.status), ["cancelled", "working"])
        assert.deepStrictEqual(TaskServer.cancellations(file).map((e) => [e.taskId, e.honoured]), [
          [cancellable, true],
          [forever, false]
        ])
        assert.deepStrictEqual(TaskServer.taskRequests(file, cancellable), ["tasks/cancel", "tasks/get"])
        const unknown = yield* Effect.promise(() => c.request("tasks/get", { taskId: "no-such-task" }))
        assert.strictEqual("error" in unknown && unknown.error.code, -32602)
      })
  )

  it.scopedLive(
    "input asked and given: input_required with an elicitation, tasks/update answers it, then completed",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file)
        const taskId = (yield* Effect.promise(() => createdTask(c, TaskServer.tools.asksInput))).taskId as string
        const asking = yield* Effect.promise(() => pollUntilSettled(c, taskId))
        assert.strictEqual(asking.status, "input_required")
        const requests = asking.inputRequests as Record<string, { method: string; params: Json }>
        assert.deepStrictEqual(Object.keys(requests), [TaskServer.approvalKey])
        assert.strictEqual(requests[TaskServer.approvalKey]!.method, "elicitation/create")
        // asked again until answered, under the same key
        const again = yield* Effect.promise(() => c.result("tasks/get", { taskId }))
        assert.deepStrictEqual(again.inputRequests, asking.inputRequests)
        const ack = yield* Effect.promise(() =>
          c.result("tasks/update", {
            taskId,
            inputResponses: {
              [TaskServer.approvalKey]: { action: "accept", content: { confirm: true } },
              "never-asked": { action: "decline" }
            }
          })
        )
        assert.deepStrictEqual(ack, { resultType: "complete" })
        const done = yield* Effect.promise(() => pollUntilSettled(c, taskId))
        assert.strictEqual(done.status, "completed")
        assert.deepStrictEqual(done.result, {
          resultType: "complete",
          content: [{
            type: "text",
            text: `approved: ${JSON.stringify({ action: "accept", content: { confirm: true } })}`
          }],
          isError: false
        })
        assert.deepStrictEqual(TaskServer.inputs(file).map((e) => [e.accepted, e.ignored]), [[
          [TaskServer.approvalKey],
          ["never-asked"]
        ]])
        assert.deepStrictEqual(TaskServer.statuses(file, taskId), ["input_required", "working", "completed"])
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), [
          "tasks/get",
          "tasks/get",
          "tasks/update",
          "tasks/get"
        ])
      })
  )

  it.scopedLive(
    "an unsolicited handle: an ordinary tool answered with a task to a declaring client, with a result to one that does not declare",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file)
        const handle = yield* Effect.promise(() => createdTask(c, TaskServer.tools.unsolicited, { word: "zett" }))
        const done = yield* Effect.promise(() => pollUntilSettled(c, handle.taskId as string))
        assert.deepStrictEqual(done.result, {
          resultType: "complete",
          content: [{ type: "text", text: "lookup: zett" }],
          isError: false
        })
        const plain = yield* Effect.promise(() =>
          c.result("tools/call", { name: TaskServer.tools.unsolicited, arguments: { word: "zett" } }, false)
        )
        assert.strictEqual(plain.resultType, "complete")
        assert.notProperty(plain, "taskId")
        // a tool that only runs as a task refuses a client that did not declare the extension
        const refused = yield* Effect.promise(() =>
          c.request("tools/call", { name: TaskServer.tools.finishes, arguments: {} }, false)
        )
        assert.strictEqual("error" in refused && refused.error.code, -32021)
        assert.deepStrictEqual(TaskServer.created(file).map((t) => t.tool), ["lookup"])
        assert.deepStrictEqual(
          TaskServer.messages(file).filter((m) => m.method === "tools/call").map((m) => [m.tool, m.tasks]),
          [["lookup", true], ["lookup", false], ["build", false]]
        )
      })
  )

  it.scopedLive(
    "a misbehaving server (tasksToAnyone) answers a client that did not declare the extension with a task handle",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file, { tasksToAnyone: true })
        const handle = yield* Effect.promise(() =>
          c.result("tools/call", { name: TaskServer.tools.unsolicited, arguments: { word: "x" } }, false)
        )
        assert.strictEqual(handle.resultType, "task")
      })
  )

  it.scopedLive(
    "status notifications: a subscriptions/listen naming a task is acknowledged and hears each of its status changes",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file)
        const taskId = (yield* Effect.promise(() => createdTask(c, TaskServer.tools.asksInput))).taskId as string
        // the listen stays open (its answer never comes while it listens)
        void c.request("subscriptions/listen", { notifications: { taskIds: [taskId, "unknown-task"] } })
        yield* Effect.promise(() => c.result("tasks/get", { taskId }))
        yield* Effect.promise(() =>
          c.result("tasks/update", {
            taskId,
            inputResponses: { [TaskServer.approvalKey]: { action: "accept", content: { confirm: false } } }
          })
        )
        yield* Effect.promise(() => c.result("tasks/get", { taskId }))
        const heard = yield* Processes.eventually(() =>
          c.notifications.filter((n) => n.method === "notifications/tasks").length >= 3
        )
        assert.isTrue(heard)
        const ack = c.notifications.find((n) => n.method === "notifications/subscriptions/acknowledged")
        assert.deepStrictEqual((ack?.params as Json).notifications, { taskIds: [taskId] })
        const statuses = c.notifications.filter((n) => n.method === "notifications/tasks").map((n) => n.params as Json)
        assert.deepStrictEqual(statuses.map((p) => [p.taskId, p.status]), [[taskId, "input_required"], [
          taskId,
          "working"
        ], [taskId, "completed"]])
        // each carries the whole task, as tasks/get would give it
        assert.property(statuses[0], "inputRequests")
        assert.property(statuses[2], "result")
        assert.deepStrictEqual(TaskServer.notified(file).map((e) => e.status), [
          "input_required",
          "working",
          "completed"
        ])
      })
  )

  it.scopedLive(
    "over Streamable HTTP: a task polled to completion, its requests recorded with their Mcp-* headers",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const server = yield* TaskServer.http("tasks", file, "task-fixture-test")
        const c = yield* Effect.acquireRelease(
          Effect.promise(() => connect(new StreamableHTTPClientTransport(new URL(server.url)))),
          (c) => Effect.promise(() => c.close())
        )
        const taskId = (yield* Effect.promise(() => createdTask(c, TaskServer.tools.finishes, { text: "web" })))
          .taskId as string
        const done = yield* Effect.promise(() => pollUntilSettled(c, taskId))
        assert.deepStrictEqual(done.result, {
          resultType: "complete",
          content: [{ type: "text", text: "built web" }],
          isError: false
        })
        // the SDK's transport routes a task's requests by its id (Mcp-Name), as the extension asks over HTTP
        const gets = TaskServer.messages(file).filter((m) => m.taskId === taskId)
        assert.deepStrictEqual(gets.map((m) => [m.headers["mcp-method"], m.headers["mcp-name"]]), [[
          "tasks/get",
          taskId
        ], ["tasks/get", taskId]])
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get", "tasks/get"])
        assert.deepStrictEqual(TaskServer.statuses(file, taskId), ["completed"])
      })
  )

  it.scopedLive(
    "a task the server advances on its own clock notifies its listener of completion without a single tasks/get",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file, { tickMs: 20 })
        const taskId = (yield* Effect.promise(() =>
          createdTask(c, TaskServer.tools.finishes, { steps: 25, text: "tick" })
        ))
          .taskId as string
        void c.request("subscriptions/listen", { notifications: { taskIds: [taskId] } })
        const heard = yield* Processes.eventually(
          () => c.notifications.some((n) => n.method === "notifications/tasks"),
          10_000
        )
        assert.isTrue(heard)
        const note = c.notifications.find((n) => n.method === "notifications/tasks")!.params as Json
        assert.strictEqual(note.status, "completed")
        assert.deepStrictEqual(note.result, {
          resultType: "complete",
          content: [{ type: "text", text: "built tick" }],
          isError: false
        })
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), [])
        assert.deepStrictEqual(TaskServer.notified(file).map((e) => [e.taskId, e.status]), [[taskId, "completed"]])
      })
  )

  it.live(
    "the server's processes end with the client that started them (found by their marker)",
    () =>
      Effect.gen(function*() {
        const marker = `task-fixture-${process.pid}-${Date.now()}`
        const server = TaskServer.stdioCommand("tasks", "/dev/null", marker)
        const during = yield* Effect.scoped(Effect.gen(function*() {
          const c = yield* Effect.acquireRelease(
            Effect.promise(() =>
              connect(
                new StdioClientTransport({
                  command: server.command,
                  args: [...server.args],
                  env: { ...process.env, ...server.env } as Record<string, string>
                })
              )
            ),
            (c) => Effect.promise(() => c.close())
          )
          yield* Effect.promise(() => createdTask(c, TaskServer.tools.runsForever))
          return Faults.withMarker(marker).length
        }))
        assert.isAtLeast(during, 1)
        assert.isTrue(yield* Processes.eventually(() => Faults.withMarker(marker).length === 0, 5_000))
      })
  )

  it.scopedLive(
    "the ext-tasks client settles a task of the server: its outcome is the tool's result",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const c = yield* stdioConnection(file, { pollIntervalMs: 20 })
        const session = createTaskSessionFromClient(c.client, {
          endpointId: "task-fixture",
          rawDispatch: c.rawDispatch,
          v2RequestFraming: {
            protocolVersion: "2026-07-28",
            clientInfo: { name: "task-fixture-test", version: "1.0.0" },
            clientCapabilities: { extensions: { [TaskServer.extension]: {} } }
          }
        })
        const result = yield* Effect.promise(async () => {
          try {
            const execution = await session.callTool(TaskServer.tools.finishes, { steps: 2, text: "ext" })
            const { outcome } = await execution.settle()
            return resultFromTaskOutcome(outcome)
          } finally {
            await session.close()
          }
        })
        assert.deepStrictEqual((result as Json).content, [{ type: "text", text: "built ext" }])
        const [task] = TaskServer.created(file)
        assert.strictEqual(task?.tool, "build")
        assert.deepStrictEqual(TaskServer.statuses(file, task!.taskId), ["completed"])
        assert.includeMembers(TaskServer.taskRequests(file, task!.taskId), ["tasks/get"])
      })
  )
})
