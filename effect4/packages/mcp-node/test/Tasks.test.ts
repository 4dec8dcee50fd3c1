/**
 * Tool calls answered with a task (the Tasks extension), through the Node driver, against the task server of
 * @zett/testing (servers/task-server.mjs): a call waits for its task (polled as the server asks, input given through
 * McpElicitation, the tool's result or a typed error at the end), within its one deadline, and cancels it when cut
 * short; a call may instead return the task's handle, and `McpClient.tasks` gets, awaits and cancels a task by id,
 * from another connection too. Each test reads what the server received from its record; polling and deadlines are
 * driven by `TestClock`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpClientFactory, McpElicitation, McpServerConfig, McpTask } from "@zett/mcp"
import type { McpError } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import * as Path from "node:path"
import { settle, sleepingUntil, until } from "./utils/realTime.js"
import * as TaskServer from "./utils/taskServer.js"

const { tools } = TaskServer
const marker = "zett-tasks-test"

const record = Effect.map(TempDir.make("zett-tasks-"), (dir) => Path.join(dir, "record.jsonl"))

const connect = (
  server: McpServerConfig.McpServerConfig,
  handlers: Layer.Layer<never> = Layer.empty
) =>
  Effect.flatMap(McpClientFactory.McpClientFactory, (factory) => factory.connect(server)).pipe(
    Effect.provide(
      NodeMcpClientFactory.layer().pipe(Layer.provide(handlers), Layer.provideMerge(NodeServices.layer))
    )
  )

const modern = (file: string, options: TaskServer.Options = {}) =>
  McpServerConfig.withProtocol(TaskServer.stdio("tasks", file, marker, options), "2026-07-28")

const createdId = (file: string): string => {
  const created = TaskServer.created(file)
  assert.strictEqual(created.length, 1)
  return created[0]!.taskId
}

const gets = (file: string, taskId: string) =>
  TaskServer.taskRequests(file, taskId).filter((method) => method === "tasks/get").length

const text = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((block) => (block as { readonly text: string }).text).join("")

const requestError = <A>(either: Result.Result<A, McpError.McpRequestError | McpError.McpTimeoutError>) => {
  assert.isTrue(Result.isFailure(either))
  const error = (either as Result.Failure<A, McpError.McpRequestError>).failure
  assert.strictEqual(error._tag, "McpRequestError")
  return error
}

describe("a tool call answered with a task", () => {
  it.live(
    "waits for the task: tasks/get of that task until it completes, its result as the call's; every request declares the extension",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
        const seen: Array<McpTask.Task> = []
        const result = yield* client.callTool(tools.finishes, { steps: 3, text: "app" }, {
          onTask: (task) => seen.push(task)
        })
        assert.deepStrictEqual(result, { content: [{ type: "text", text: "built app" }], isError: false })
        const taskId = createdId(file)
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get", "tasks/get", "tasks/get"])
        assert.deepStrictEqual(TaskServer.statuses(file, taskId), ["completed"])
        const requests = TaskServer.messages(file).filter((message) => message.id !== undefined)
        assert.deepStrictEqual(requests.map((message) => message.method), [
          "server/discover",
          "tools/call",
          "subscriptions/listen",
          "tasks/get",
          "tasks/get",
          "tasks/get"
        ])
        assert.isTrue(requests.every((message) => message.tasks))
        assert.strictEqual(seen[0]!.taskId, taskId)
        assert.strictEqual(seen[0]!.status, "working")
        assert.strictEqual(seen[0]!.pollIntervalMs, 10)
        assert.strictEqual(seen.at(-1)!.status, "completed")
        assert.deepStrictEqual(TaskServer.cancellations(file), [])
      })
  )

  it.live("a task that completes with a tool error gives that result as a value (isError)", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
      const result = yield* client.callTool(tools.toolError, { text: "the plan" })
      assert.deepStrictEqual(result, { content: [{ type: "text", text: "rejected the plan" }], isError: true })
      assert.deepStrictEqual(TaskServer.taskRequests(file, createdId(file)), ["tasks/get"])
    }))

  it.live("a task that fails fails the call with reason TaskFailed, the task's error code and id; nothing cancelled", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
      const error = requestError(yield* Effect.result(client.callTool(tools.fails, {})))
      const taskId = createdId(file)
      assert.strictEqual(error.reason, "TaskFailed")
      assert.strictEqual(error.code, -32603)
      assert.strictEqual(error.taskId, taskId)
      assert.strictEqual(error.method, "tools/call")
      assert.include(error.message, "the build broke")
      assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get"])
      assert.deepStrictEqual(TaskServer.cancellations(file), [])
    }))

  it.live(
    "input the task asks for goes through McpElicitation, once, and back with tasks/update under its key",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const asked: Array<McpElicitation.Request> = []
        const client = yield* connect(
          modern(file, { pollIntervalMs: 10 }),
          McpElicitation.layer((request) => {
            asked.push(request)
            return Effect.succeed({ action: "accept", content: { confirm: true } })
          })
        )
        const statuses: Array<McpTask.Status> = []
        const result = yield* client.callTool(tools.asksInput, {}, { onTask: (task) => statuses.push(task.status) })
        assert.strictEqual(text(result), `approved: {"action":"accept","content":{"confirm":true}}`)
        assert.strictEqual(asked.length, 1)
        assert.deepInclude(asked[0], { _tag: "Form", server: "tasks", message: "Deploy to production?" })
        const taskId = createdId(file)
        const updates = TaskServer.messages(file).filter((message) => message.method === "tasks/update")
        assert.deepStrictEqual(updates.map((message) => [message.taskId, message.inputKeys]), [[
          taskId,
          [TaskServer.approvalKey]
        ]])
        assert.deepStrictEqual(TaskServer.inputs(file).map((input) => [input.accepted, input.ignored]), [[
          [TaskServer.approvalKey],
          []
        ]])
        assert.include(statuses, "input_required")
        assert.strictEqual(statuses.at(-1), "completed")
      })
  )

  it.live("input the client cannot give fails the call with reason Refused, and the task is cancelled", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
      const error = requestError(yield* Effect.result(client.callTool(tools.asksInput, {})))
      const taskId = createdId(file)
      assert.strictEqual(error.reason, "Refused")
      assert.strictEqual(error.taskId, taskId)
      assert.include(error.description, "elicitation/create")
      assert.deepStrictEqual(TaskServer.inputs(file), [])
      assert.deepStrictEqual(TaskServer.cancellations(file).map((c) => [c.taskId, c.honoured]), [[taskId, true]])
    }))

  it.live("an ordinary tool answered with a task unsolicited is waited for as well", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
      const result = yield* client.callTool(tools.unsolicited, { word: "zett" })
      assert.strictEqual(text(result), "lookup: zett")
      assert.deepStrictEqual(TaskServer.created(file).map((c) => c.tool), [tools.unsolicited])
      assert.deepStrictEqual(TaskServer.taskRequests(file, createdId(file)), ["tasks/get"])
    }))

  it.effect("polls no sooner than the server's pollIntervalMs (TestClock)", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 5_000 }))
      const fiber = yield* Effect.forkChild(client.callTool(tools.finishes, { steps: 2, text: "slow" }))
      yield* until(() => TaskServer.created(file).length === 1)
      const taskId = createdId(file)
      yield* sleepingUntil(5_000)
      yield* TestClock.adjust("4999 millis")
      yield* settle
      assert.strictEqual(gets(file, taskId), 0)
      yield* TestClock.adjust("1 millis")
      yield* until(() => gets(file, taskId) === 1)
      yield* sleepingUntil(10_000)
      yield* TestClock.adjust("4999 millis")
      yield* settle
      assert.strictEqual(gets(file, taskId), 1)
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(text(result), "built slow")
      assert.strictEqual(gets(file, taskId), 2)
    }).pipe(Effect.scoped))

  it.effect(
    "the wait stays inside the call's one deadline: when it passes the task is cancelled (tasks/cancel) before the call fails with McpTimeoutError",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const client = yield* connect(modern(file, { pollIntervalMs: 1_000 }))
        const fiber = yield* Effect.forkChild(Effect.result(client.callWithin(tools.runsForever, {}, {
          server: "tasks",
          timeout: Option.some(Duration.millis(2_500)),
          resetOnProgress: false,
          maxTimeout: Option.none()
        })))
        yield* until(() => TaskServer.created(file).length === 1)
        const taskId = createdId(file)
        yield* sleepingUntil(1_000)
        yield* TestClock.adjust("1 second")
        yield* until(() => gets(file, taskId) === 1)
        yield* sleepingUntil(2_000)
        yield* TestClock.adjust("1 second")
        yield* until(() => gets(file, taskId) === 2)
        assert.deepStrictEqual(TaskServer.cancellations(file), [])
        yield* TestClock.adjust("500 millis")
        const outcome = yield* Fiber.join(fiber)
        assert.isTrue(Result.isFailure(outcome))
        const error = (outcome as Result.Failure<unknown, McpError.McpRequestError | McpError.McpTimeoutError>).failure
        assert.strictEqual(error._tag, "McpTimeoutError")
        // read at once: the call ended only once tasks/cancel was answered
        assert.deepStrictEqual(TaskServer.cancellations(file).map((c) => [c.taskId, c.honoured]), [[taskId, false]])
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get", "tasks/get", "tasks/cancel"])
      }).pipe(Effect.scoped)
  )

  it.live("an interrupted call cancels its task on the server before the interruption completes", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
      const fiber = yield* Effect.forkChild(client.callTool(tools.cancellable, {}))
      yield* until(() => TaskServer.created(file).length === 1)
      const taskId = createdId(file)
      yield* until(() => gets(file, taskId) >= 2)
      yield* Fiber.interrupt(fiber)
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.hasInterrupts(exit))
      assert.deepStrictEqual(TaskServer.cancellations(file).map((c) => [c.taskId, c.honoured]), [[taskId, true]])
      assert.deepStrictEqual(TaskServer.statuses(file, taskId), ["cancelled"])
    }))

  it.live("a call interrupted before its task handle came cancels the task when the handle comes late", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10, handleDelayMs: 300 }))
      const fiber = yield* Effect.forkChild(client.callTool(tools.cancellable, {}))
      yield* until(() => TaskServer.created(file).length === 1)
      const taskId = createdId(file)
      yield* Fiber.interrupt(fiber)
      // the handle comes 300 ms after the task was made, after the call was given up (notifications/cancelled)
      yield* until(() => TaskServer.cancellations(file).length === 1)
      assert.deepStrictEqual(TaskServer.cancellations(file).map((c) => [c.taskId, c.honoured]), [[taskId, true]])
      const sent = TaskServer.messages(file).map((message) => message.method)
      assert.isBelow(sent.indexOf("notifications/cancelled"), sent.indexOf("tasks/cancel"))
      const cancel = TaskServer.messages(file).find((message) => message.method === "tasks/cancel")!
      assert.isTrue(cancel.tasks)
      assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/cancel"])
      // the connection still works
      const result = yield* client.callTool(tools.toolError, { text: "after" })
      assert.strictEqual(text(result), "rejected after")
    }))

  it.live("a call in a scope that closes cancels its task", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
      yield* Effect.scoped(Effect.gen(function*() {
        yield* Effect.forkScoped(client.callTool(tools.cancellable, {}))
        yield* until(() => TaskServer.created(file).length === 1)
        // the call waits for its task (it polled it)
        yield* until(() => gets(file, createdId(file)) >= 1)
      }))
      assert.deepStrictEqual(TaskServer.cancellations(file).map((c) => [c.taskId, c.honoured]), [
        [createdId(file), true]
      ])
    }))

  it.effect(
    "the wait listens for the task's status notifications: a task the server finishes by itself ends the call before the next poll (TestClock)",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        // the server advances its tasks every 30 ms of real time once the client listens; it would poll only
        // after 60 s
        const client = yield* connect(
          modern(file, { pollIntervalMs: 60_000, tickMs: 30, steps: 3, tickWhenListened: true })
        )
        const result = yield* client.callTool(tools.finishes, { text: "pushed" })
        assert.strictEqual(text(result), "built pushed")
        const taskId = createdId(file)
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), [])
        const listens = TaskServer.messages(file).filter((message) => message.method === "subscriptions/listen")
        assert.deepStrictEqual(listens.map((message) => message.taskIds), [[taskId]])
        assert.deepStrictEqual(TaskServer.notified(file).map((n) => n.status).at(-1), "completed")
        // the listen ends with the wait
        yield* until(() => TaskServer.readRecord(file).some((entry) => entry.event === "listen-closed"))
      }).pipe(Effect.scoped)
  )

  it.live("on the 2025-11-25 revision nothing changes: the extension is not declared, a task tool answers -32021", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(
        McpServerConfig.withProtocol(TaskServer.stdio("tasks", file, marker), "2025-11-25")
      )
      const error = requestError(yield* Effect.result(client.callTool(tools.finishes, {})))
      assert.strictEqual(error.reason, "Remote")
      assert.strictEqual(error.code, -32021)
      assert.isTrue(TaskServer.messages(file).every((message) => !message.tasks))
      assert.deepStrictEqual(TaskServer.created(file), [])
    }))
})

describe("a task by id (McpClient.tasks)", () => {
  it.live(
    "a call made with task: handle returns at once with the task; tasks.get and tasks.await by id finish it",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
        const result = yield* client.callTool(tools.finishes, { steps: 2, text: "later" }, { task: "handle" })
        const task = Option.getOrThrow(McpTask.fromResult(result))
        const taskId = createdId(file)
        assert.strictEqual(task.taskId, taskId)
        assert.strictEqual(task.server, "tasks")
        assert.strictEqual(task.status, "working")
        assert.deepStrictEqual(result.structuredContent, { task })
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), [])
        const now = yield* client.tasks.get(taskId)
        assert.strictEqual(now.status, "working")
        assert.strictEqual(now.statusMessage, "step 1 of 2")
        const done = yield* client.tasks.await(taskId)
        assert.strictEqual(text(done), "built later")
        assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get", "tasks/get"])
      })
  )

  it.live("a task cancelled by id ends a later await with reason TaskCancelled", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
      yield* client.callTool(tools.cancellable, {}, { task: "handle" })
      const taskId = createdId(file)
      yield* client.tasks.cancel(taskId)
      const error = requestError(yield* Effect.result(client.tasks.await(taskId)))
      assert.strictEqual(error.reason, "TaskCancelled")
      assert.strictEqual(error.taskId, taskId)
      assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/cancel", "tasks/get"])
    }))

  it.live("an interrupted await by id leaves the task running; with cancelUnfinished it cancels it", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file, { pollIntervalMs: 10 }))
      yield* client.callTool(tools.cancellable, {}, { task: "handle" })
      const taskId = createdId(file)
      const left = yield* Effect.forkChild(client.tasks.await(taskId))
      yield* until(() => gets(file, taskId) >= 2)
      yield* Fiber.interrupt(left)
      assert.deepStrictEqual(TaskServer.cancellations(file), [])
      const owned = yield* Effect.forkChild(client.tasks.await(taskId, { cancelUnfinished: true }))
      yield* until(() => gets(file, taskId) >= 4)
      yield* Fiber.interrupt(owned)
      assert.deepStrictEqual(TaskServer.cancellations(file).map((c) => [c.taskId, c.honoured]), [[taskId, true]])
    }))

  it.live("an unknown task id fails with the server's -32602, naming the task", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(modern(file))
      const error = requestError(yield* Effect.result(client.tasks.get("no-such-task")))
      assert.strictEqual(error.reason, "Remote")
      assert.strictEqual(error.code, -32602)
      assert.strictEqual(error.taskId, "no-such-task")
      assert.strictEqual(error.method, "tasks/get")
    }))

  it.live(
    "over Streamable HTTP, a task one connection started is awaited by another; its tasks/* requests carry Mcp-Name",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const server = McpServerConfig.withProtocol(
          yield* TaskServer.http("tasks", file, marker, { pollIntervalMs: 10 }),
          "2026-07-28"
        )
        const started = yield* Effect.scoped(Effect.gen(function*() {
          const first = yield* connect(server)
          return Option.getOrThrow(
            McpTask.fromResult(
              yield* first.callTool(tools.finishes, { steps: 2, text: "elsewhere" }, { task: "handle" })
            )
          )
        }))
        const second = yield* connect(server)
        const result = yield* second.tasks.await(started.taskId)
        assert.strictEqual(text(result), "built elsewhere")
        const requests = TaskServer.messages(file).filter((message) => message.taskId === started.taskId)
        assert.deepStrictEqual(requests.map((message) => message.method), ["tasks/get", "tasks/get"])
        for (const message of requests) {
          assert.strictEqual(message.headers["mcp-name"], started.taskId)
          assert.strictEqual(message.headers["mcp-method"], "tasks/get")
        }
      })
  )

  it.live("a client without task support says so (McpClient.make without tasks)", () =>
    Effect.gen(function*() {
      const client = McpClient.make({
        server: "plain",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [] })
      })
      const error = requestError(yield* Effect.result(client.tasks.get("t")))
      assert.strictEqual(error.reason, "Unsupported")
    }))
})
