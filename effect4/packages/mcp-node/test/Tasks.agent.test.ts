/**
 * Tool calls answered with a task, in the agent (McpExtension) and in McpToolkit, against the task server of
 * @zett/testing: by default the call waits for its task within `callTimeout` and the model reads the task's result,
 * its states published as `ToolTask` events; with `tasks: "handle"` the model reads the task's server, id and status
 * and checks, waits for or cancels it with `task_status`, in the same run or a later request. Interrupting the run
 * or `callTimeout` passing cancels the task. What the model was given is read from the scripted model's requests,
 * what the server received from its record.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import type { Extension, Message } from "@zett/agent"
import { McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import { toolMessages } from "@zett/testing-core/FakeAgent"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import * as Path from "node:path"
import * as Handled from "./utils/handled.js"
import { agentWith } from "./utils/mcpLayers.js"
import { sleepingUntil, until } from "./utils/realTime.js"
import * as TaskServer from "./utils/taskServer.js"

const marker = "zett-tasks-agent-test"

const record = Effect.map(TempDir.make("zett-tasks-agent-"), (dir) => Path.join(dir, "record.jsonl"))

const modern = (file: string, options: TaskServer.Options = {}) =>
  McpServerConfig.withProtocol(
    TaskServer.stdio("tasks", file, marker, { pollIntervalMs: 10, ...options }),
    "2026-07-28"
  )

const lastTool = (request: { messages: ReadonlyArray<Message.Message> }) => toolMessages(request as never).at(-1)!

/** An extension that records the `ToolTask` events it is published. */
const recorder = () => {
  const events: Array<Extension.ToolTaskEvent> = []
  const extension: Extension.Extension = {
    name: "recorder",
    onEvent: (_context, event) => Effect.sync(() => void (event._tag === "ToolTask" && events.push(event)))
  }
  return { events, extension }
}

const createdId = (file: string): string => {
  const created = TaskServer.created(file)
  assert.strictEqual(created.length, 1)
  return created[0]!.taskId
}

/** A text result as the model reads it (the result's content blocks). */
const textOf = (text: string) => [{ type: "text", text }]

interface Handed {
  readonly task: { readonly server: string; readonly taskId: string; readonly status: string }
  readonly note: string
}

describe("tasks in the agent", () => {
  it.live("by default the model reads the task's result; its states are ToolTask events, the last completed", () =>
    Effect.gen(function*() {
      const file = yield* record
      const { events, extension } = recorder()
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [modern(file)] }, [
        () => ({ toolCalls: [{ name: "tasks__build", arguments: { steps: 2, text: "app" } }] }),
        (request) => {
          seen.tool = lastTool(request)
          seen.tools = request.tools.map((tool) => tool.name)
          return { text: "done" }
        }
      ], { extensions: [extension] })
      yield* Agent.run("build the app").pipe(Effect.provide(layer))
      const message = seen.tool as Message.ToolMessage
      assert.strictEqual(message.status, "ok")
      assert.deepStrictEqual(message.content, textOf("built app"))
      assert.notInclude(seen.tools as Array<string>, "task_status")
      const taskId = createdId(file)
      assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get", "tasks/get"])
      assert.isTrue(events.length >= 2)
      assert.isTrue(events.every((event) => event.taskId === taskId && event.tool === "tasks__build"))
      assert.strictEqual(events[0]!.status, "working")
      assert.deepInclude(events.at(-1)!, { status: "completed", message: "done" })
    }))

  it.live("a failed task is a tool error the model reads; nothing is cancelled", () =>
    Effect.gen(function*() {
      const file = yield* record
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [modern(file)] }, [
        () => ({ toolCalls: [{ name: "tasks__explode", arguments: {} }] }),
        (request) => {
          seen.tool = lastTool(request)
          return { text: "done" }
        }
      ])
      yield* Agent.run("build").pipe(Effect.provide(layer))
      const message = seen.tool as Message.ToolMessage
      assert.strictEqual(message.status, "TOOL_FAILED")
      assert.include(JSON.stringify(message.content), "the server failed to run the tool (internal error)")
      assert.deepStrictEqual(TaskServer.cancellations(file), [])
    }))

  it.live(
    "tasks: handle: the model reads the task's server, id and status at once, then waits for it with task_status",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const seen: Record<string, unknown> = {}
        const { events, extension } = recorder()
        const { layer } = agentWith({ servers: [modern(file)], tasks: "handle" }, [
          (request) => {
            seen.tools = request.tools.map((tool) => tool.name)
            return { toolCalls: [{ name: "tasks__build", arguments: { steps: 2, text: "app" } }] }
          },
          (request) => {
            const handed = lastTool(request).content as Handed
            seen.handed = handed
            seen.getsBefore = TaskServer.taskRequests(file, handed.task.taskId).length
            return {
              toolCalls: [{
                name: "task_status",
                arguments: { server: handed.task.server, taskId: handed.task.taskId, action: "wait" }
              }]
            }
          },
          (request) => {
            seen.waited = lastTool(request).content
            return { text: "done" }
          }
        ], { extensions: [extension] })
        yield* Agent.run("build the app").pipe(Effect.provide(layer))
        const taskId = createdId(file)
        assert.include(seen.tools as Array<string>, "task_status")
        const handed = seen.handed as Handed
        assert.deepInclude(handed.task, { server: "tasks", taskId, status: "working" })
        assert.include(handed.note, "task_status")
        assert.strictEqual(seen.getsBefore, 0)
        assert.deepStrictEqual(seen.waited, {
          task: { server: "tasks", taskId, status: "completed" },
          result: textOf("built app")
        })
        // the handle, then the wait's states as events of the task_status call
        assert.deepInclude(events[0]!, { tool: "tasks__build", taskId, status: "working" })
        const waited = events.filter((event) => event.tool === "task_status")
        assert.isAbove(waited.length, 0)
        assert.isTrue(waited.every((event) => event.taskId === taskId && event.toolCallId !== events[0]!.toolCallId))
        assert.strictEqual(waited.at(-1)!.status, "completed")
      })
  )

  it.live("tasks: handle: task_status checks and cancels a task handed in an earlier request", () =>
    Effect.gen(function*() {
      const file = yield* record
      // over HTTP, so that the task outlives the first request's connection
      const server = McpServerConfig.withProtocol(
        yield* TaskServer.http("tasks", file, marker, { pollIntervalMs: 10 }),
        "2026-07-28"
      )
      const seen: Record<string, unknown> = {}
      const first = agentWith({ servers: [server], tasks: "handle" }, [
        () => ({ toolCalls: [{ name: "tasks__cancellable", arguments: {} }] }),
        (request) => {
          seen.handed = lastTool(request).content
          return { text: "started" }
        }
      ])
      yield* Agent.run("start the job").pipe(Effect.provide(first.layer))
      const { taskId } = (seen.handed as Handed).task
      const second = agentWith({ servers: [server], tasks: "handle" }, [
        () => ({ toolCalls: [{ name: "task_status", arguments: { server: "tasks", taskId } }] }),
        (request) => {
          seen.status = lastTool(request).content
          return { toolCalls: [{ name: "task_status", arguments: { server: "tasks", taskId, action: "cancel" } }] }
        },
        (request) => {
          seen.cancelled = lastTool(request).content
          return { text: "cancelled" }
        }
      ])
      yield* Agent.run("how is the job?").pipe(Effect.provide(second.layer))
      assert.strictEqual(createdId(file), taskId)
      assert.deepInclude((seen.status as Handed).task, { taskId, status: "working" })
      assert.deepInclude((seen.cancelled as Handed).task, { taskId, status: "cancelled" })
      assert.deepStrictEqual(TaskServer.cancellations(file).map((c) => [c.taskId, c.honoured]), [[taskId, true]])
      assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get", "tasks/cancel", "tasks/get"])
    }))

  it.live("interrupting the run cancels the task its call waits for", () =>
    Effect.gen(function*() {
      const file = yield* record
      const { layer } = agentWith({ servers: [modern(file)] }, [
        () => ({ toolCalls: [{ name: "tasks__cancellable", arguments: {} }] }),
        () => ({ text: "never" })
      ])
      const fiber = yield* Effect.forkChild(Agent.run("run the job").pipe(Effect.provide(layer)))
      yield* until(() => TaskServer.created(file).length === 1)
      const taskId = createdId(file)
      yield* until(() => TaskServer.taskRequests(file, taskId).length >= 1)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(TaskServer.cancellations(file).map((c) => [c.taskId, c.honoured]), [[taskId, true]])
    }))

  it.effect("callTimeout bounds the whole wait: the task is cancelled and the model reads a timeout (TestClock)", () =>
    Effect.gen(function*() {
      const file = yield* record
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [modern(file, { pollIntervalMs: 1_000 })], callTimeout: "2500 millis" }, [
        () => ({ toolCalls: [{ name: "tasks__forever", arguments: {} }] }),
        (request) => {
          seen.tool = lastTool(request)
          return { text: "gave up" }
        }
      ])
      const fiber = yield* Effect.forkChild(Agent.run("run the job").pipe(Effect.provide(layer)))
      yield* until(() => TaskServer.created(file).length === 1)
      const taskId = createdId(file)
      for (let n = 1; n <= 2; n++) {
        yield* sleepingUntil(n * 1_000)
        yield* TestClock.adjust("1 second")
        yield* until(() => TaskServer.taskRequests(file, taskId).length === n)
      }
      yield* TestClock.adjust("500 millis")
      yield* Fiber.join(fiber)
      const message = seen.tool as Message.ToolMessage
      assert.strictEqual(message.status, "TOOL_FAILED")
      assert.include(JSON.stringify(message.content), "did not finish within 2s 500ms")
      assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), ["tasks/get", "tasks/get", "tasks/cancel"])
    }).pipe(Effect.scoped))
})

describe("tasks in McpToolkit", () => {
  it.live("tasks: handle: a call's result is the task, and task_status waits for it", () =>
    Effect.gen(function*() {
      const file = yield* record
      const layer = Layer.mergeAll(
        McpServers.layer([modern(file)]).pipe(Layer.orDie),
        NodeMcpClientFactory.layer().pipe(Layer.provide(NodeServices.layer)),
        McpToolCache.layerMemory({ ttl: "5 minutes" })
      )
      const mcp = yield* McpToolkit.make({ tasks: "handle" }).pipe(Effect.provide(layer))
      assert.include(Object.keys(mcp.toolkit.tools), "task_status")
      const started = yield* Handled.last(mcp.toolkit.handle("tasks__build", { steps: 2, text: "kit" }))
      const handed = started.result as Handed
      const taskId = createdId(file)
      assert.deepInclude(handed.task, { server: "tasks", taskId, status: "working" })
      assert.deepStrictEqual(TaskServer.taskRequests(file, taskId), [])
      const waited = yield* Handled.last(mcp.toolkit.handle("task_status", { server: "tasks", taskId, action: "wait" }))
      assert.deepStrictEqual(waited.result, {
        task: { server: "tasks", taskId, status: "completed" },
        result: textOf("built kit")
      })
    }))

  it.live("by default a call waits for its task and gives its result", () =>
    Effect.gen(function*() {
      const file = yield* record
      const layer = Layer.mergeAll(
        McpServers.layer([modern(file)]).pipe(Layer.orDie),
        NodeMcpClientFactory.layer().pipe(Layer.provide(NodeServices.layer)),
        McpToolCache.layerMemory({ ttl: "5 minutes" })
      )
      const mcp = yield* McpToolkit.make().pipe(Effect.provide(layer))
      assert.notInclude(Object.keys(mcp.toolkit.tools), "task_status")
      const done = yield* Handled.last(mcp.toolkit.handle("tasks__build", { steps: 2, text: "kit" }))
      assert.deepStrictEqual(done.result, textOf("built kit"))
      assert.deepStrictEqual(TaskServer.taskRequests(file, createdId(file)), ["tasks/get", "tasks/get"])
    }))
})
