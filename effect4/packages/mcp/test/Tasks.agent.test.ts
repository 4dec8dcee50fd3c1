/**
 * Tool calls answered with a task, in the agent: by default the call waits for its task within `callTimeout` and the
 * model reads the task's result, its states published as `ToolTask` events; with `tasks: "handle"` the model reads the
 * task's server, id and status at once and checks, waits for or cancels it with `task_status`, in the same run or a
 * later request. Interrupting the run or `callTimeout` passing cancels the task. The 3 line's tests over its task
 * server (packages/mcp-node/test/Tasks.agent.test.ts), every assertion kept, on a fake task server in process that
 * behaves as the shared `packages/testing/servers/task-server.mjs` (a task advances at each `tasks/get`) and waits
 * for a task as a driver does (`McpTask.wait`, cancelling a wait cut short): what the model was given is read from
 * the scripted model's requests, what the server received from its record. The live tests poll every 10 ms.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import type { Extension, Message } from "@zett/agent"
import { McpClientFactory, McpServerConfig, McpServers, McpTask, McpToolCache, McpToolkit } from "@zett/mcp"
import { agentWith, type Recorded, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, type FakeServer, tool } from "@zett/testing-core/FakeMcp"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"

/**
 * A server `tasks` whose `build` ({ steps, text }) runs as a task that completes with `built <text>` after `steps`
 * polls, `explode` fails at its first poll, `cancellable` runs until cancelled and `forever` acknowledges a cancel and
 * keeps working; it records the tasks it created, the task requests per task and the cancellations, as the 3 line's
 * `TaskServer` does. A call that does not ask to handle the task waits for it as a driver does.
 */
const taskServer = (options: { readonly pollIntervalMs?: number } = {}) => {
  const created: Array<{ readonly taskId: string }> = []
  const requests = new Map<string, Array<string>>()
  const cancellations: Array<{ readonly taskId: string; readonly honoured: boolean }> = []
  const running = new Map<
    string,
    { task: McpTask.Task; remaining: number; readonly text: string; readonly tool: string }
  >()
  const record = (taskId: string, request: string) => {
    const list = requests.get(taskId) ?? []
    list.push(request)
    requests.set(taskId, list)
  }
  const tasks: McpTask.Driver = {
    get: (taskId) =>
      Effect.sync(() => {
        record(taskId, "tasks/get")
        const entry = running.get(taskId)!
        if (entry.task.status === "working" && entry.tool === "explode") {
          entry.task = {
            ...entry.task,
            status: "failed",
            statusMessage: "Tool execution failed: the build broke",
            error: { code: -32603, message: "the build broke" }
          }
        } else if (entry.task.status === "working") {
          entry.remaining -= 1
          entry.task = entry.remaining <= 0
            ? {
              ...entry.task,
              status: "completed",
              statusMessage: "done",
              result: { content: [{ type: "text", text: entry.text }] }
            }
            : { ...entry.task, statusMessage: `${entry.remaining} steps to go` }
        }
        return entry.task
      }),
    update: () => Effect.void,
    cancel: (taskId) =>
      Effect.sync(() => {
        record(taskId, "tasks/cancel")
        const entry = running.get(taskId)!
        // `forever` acknowledges a cancel and keeps working: cancellation is cooperative
        const honoured = entry.task.status === "working" && entry.tool !== "forever"
        if (honoured) entry.task = { ...entry.task, status: "cancelled", statusMessage: "cancelled by request" }
        cancellations.push({ taskId, honoured })
      }),
    answer: () => Effect.die("no input is asked")
  }
  const server: FakeServer = {
    tools: [
      tool("build", { type: "object" }, "Builds something, as a task"),
      tool("explode"),
      tool("cancellable"),
      tool("forever")
    ],
    call: (name, args, call) =>
      Effect.sync(() => {
        const taskId = `task-${created.length + 1}`
        created.push({ taskId })
        const task: McpTask.Task = {
          server: "tasks",
          taskId,
          status: "working",
          createdAt: new Date(0).toISOString(),
          ttlMs: 60_000,
          pollIntervalMs: options.pollIntervalMs ?? 10
        }
        running.set(taskId, {
          task,
          remaining: name === "build" ? Number(args.steps ?? 1) : name === "explode" ? 0 : Number.POSITIVE_INFINITY,
          text: `built ${String(args.text ?? "")}`,
          tool: name
        })
        call?.onTask?.(task)
        return task
      }).pipe(Effect.flatMap((task) =>
        call?.task === "handle"
          ? Effect.succeed(McpTask.asResult(task))
          : McpTask.wait(tasks, task, { onStatus: call?.onTask, cancelUnfinished: true })
      )),
    driver: { tasks }
  }
  return {
    server,
    created: () => created,
    taskRequests: (taskId: string) => requests.get(taskId) ?? [],
    cancellations: () => cancellations
  }
}

const modern = McpServerConfig.withProtocol(
  McpServerConfig.http({ name: "tasks", url: "http://127.0.0.1:1/tasks" }),
  "2026-07-28"
)

const lastTool = (request: Recorded) => toolMessages(request).at(-1)!

/** An extension that records the `ToolTask` events it is published. */
const recorder = () => {
  const events: Array<Extension.ToolTaskEvent> = []
  const extension: Extension.Extension = {
    name: "recorder",
    onEvent: (_context, event) => Effect.sync(() => void (event._tag === "ToolTask" && events.push(event)))
  }
  return { events, extension }
}

const createdId = (fake: ReturnType<typeof taskServer>): string => {
  const created = fake.created()
  assert.strictEqual(created.length, 1)
  return created[0]!.taskId
}

/** Waits (polling every 10 ms of the live clock) until `check` holds. */
const until = (check: () => boolean): Effect.Effect<void> =>
  Effect.suspend(() => check() ? Effect.void : Effect.andThen(Effect.sleep("10 millis"), until(check)))

/** Lets the other fibers run (on the test clock, which no sleep advances) until `check` holds. */
const untilTest = (check: () => boolean, turns = 1_000): Effect.Effect<void> =>
  Effect.suspend(() =>
    check()
      ? Effect.void
      : turns === 0
      ? Effect.die(new Error("the condition did not hold"))
      : Effect.andThen(Effect.yieldNow, untilTest(check, turns - 1))
  )

/** A text result as the model reads it (the result's content blocks). */
const textOf = (text: string) => [{ type: "text", text }]

interface Handed {
  readonly task: { readonly server: string; readonly taskId: string; readonly status: string }
  readonly note: string
}

describe("tasks in the agent", () => {
  it.live("by default the model reads the task's result; its states are ToolTask events, the last completed", () =>
    Effect.gen(function*() {
      const fake = taskServer()
      const { factory } = fakeFactory({ tasks: fake.server })
      const { events, extension } = recorder()
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [modern], clientFactory: factory }, [
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
      const taskId = createdId(fake)
      assert.deepStrictEqual(fake.taskRequests(taskId), ["tasks/get", "tasks/get"])
      assert.isTrue(events.length >= 2)
      assert.isTrue(events.every((event) => event.taskId === taskId && event.tool === "tasks__build"))
      assert.strictEqual(events[0]!.status, "working")
      assert.deepInclude(events.at(-1)!, { status: "completed", message: "done" })
    }))

  it.live("a failed task is a tool error the model reads; nothing is cancelled", () =>
    Effect.gen(function*() {
      const fake = taskServer()
      const { factory } = fakeFactory({ tasks: fake.server })
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [modern], clientFactory: factory }, [
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
      assert.deepStrictEqual(fake.cancellations(), [])
    }))

  it.live(
    "tasks: handle: the model reads the task's server, id and status at once, then waits for it with task_status",
    () =>
      Effect.gen(function*() {
        const fake = taskServer()
        const { factory } = fakeFactory({ tasks: fake.server })
        const seen: Record<string, unknown> = {}
        const { events, extension } = recorder()
        const { layer } = agentWith({ servers: [modern], clientFactory: factory, tasks: "handle" }, [
          (request) => {
            seen.tools = request.tools.map((tool) => tool.name)
            return { toolCalls: [{ name: "tasks__build", arguments: { steps: 2, text: "app" } }] }
          },
          (request) => {
            const handed = lastTool(request).content as Handed
            seen.handed = handed
            seen.getsBefore = fake.taskRequests(handed.task.taskId).length
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
        const taskId = createdId(fake)
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
      // one server for both requests, as the 3 line's over HTTP: the task outlives the first request's connection
      const fake = taskServer()
      const { factory } = fakeFactory({ tasks: fake.server })
      const seen: Record<string, unknown> = {}
      const first = agentWith({ servers: [modern], clientFactory: factory, tasks: "handle" }, [
        () => ({ toolCalls: [{ name: "tasks__cancellable", arguments: {} }] }),
        (request) => {
          seen.handed = lastTool(request).content
          return { text: "started" }
        }
      ])
      yield* Agent.run("start the job").pipe(Effect.provide(first.layer))
      const { taskId } = (seen.handed as Handed).task
      const second = agentWith({ servers: [modern], clientFactory: factory, tasks: "handle" }, [
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
      assert.strictEqual(createdId(fake), taskId)
      assert.deepInclude((seen.status as Handed).task, { taskId, status: "working" })
      assert.deepInclude((seen.cancelled as Handed).task, { taskId, status: "cancelled" })
      assert.deepStrictEqual(fake.cancellations().map((c) => [c.taskId, c.honoured]), [[taskId, true]])
      assert.deepStrictEqual(fake.taskRequests(taskId), ["tasks/get", "tasks/cancel", "tasks/get"])
    }))

  it.live("interrupting the run cancels the task its call waits for", () =>
    Effect.gen(function*() {
      const fake = taskServer()
      const { factory } = fakeFactory({ tasks: fake.server })
      const { layer } = agentWith({ servers: [modern], clientFactory: factory }, [
        () => ({ toolCalls: [{ name: "tasks__cancellable", arguments: {} }] }),
        () => ({ text: "never" })
      ])
      const fiber = yield* Effect.forkChild(Agent.run("run the job").pipe(Effect.provide(layer)))
      yield* until(() => fake.created().length === 1)
      const taskId = createdId(fake)
      yield* until(() => fake.taskRequests(taskId).length >= 1)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(fake.cancellations().map((c) => [c.taskId, c.honoured]), [[taskId, true]])
    }))

  it.effect("callTimeout bounds the whole wait: the task is cancelled and the model reads a timeout (TestClock)", () =>
    Effect.gen(function*() {
      const fake = taskServer({ pollIntervalMs: 1_000 })
      const { factory } = fakeFactory({ tasks: fake.server })
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [modern], clientFactory: factory, callTimeout: "2500 millis" }, [
        () => ({ toolCalls: [{ name: "tasks__forever", arguments: {} }] }),
        (request) => {
          seen.tool = lastTool(request)
          return { text: "gave up" }
        }
      ])
      const fiber = yield* Effect.forkChild(Agent.run("run the job").pipe(Effect.provide(layer)))
      yield* untilTest(() => fake.created().length === 1)
      const taskId = createdId(fake)
      for (let n = 1; n <= 2; n++) {
        yield* TestClock.adjust("1 second")
        yield* untilTest(() => fake.taskRequests(taskId).length === n)
      }
      yield* TestClock.adjust("500 millis")
      yield* Fiber.join(fiber)
      const message = seen.tool as Message.ToolMessage
      assert.strictEqual(message.status, "TOOL_FAILED")
      assert.include(JSON.stringify(message.content), "did not finish within 2s 500ms")
      assert.deepStrictEqual(fake.taskRequests(taskId), ["tasks/get", "tasks/get", "tasks/cancel"])
    }))

  it.live("tasks: handle: task_status refuses a server not configured and an unknown action, naming what it takes", () =>
    Effect.gen(function*() {
      const fake = taskServer()
      const { factory } = fakeFactory({ tasks: fake.server })
      const { layer, requests } = agentWith({ servers: [modern], clientFactory: factory, tasks: "handle" }, [
        {
          toolCalls: [
            { name: "task_status", arguments: { server: "elsewhere", taskId: "t" } },
            { name: "task_status", arguments: { server: "tasks", taskId: "t", action: "restart" } }
          ]
        },
        { text: "done" }
      ])
      yield* Agent.run("check").pipe(Effect.provide(layer))
      const [server, action] = toolMessages(requests[1]!).map((m) =>
        m.content as { error: { type: string; message: string } }
      )
      assert.strictEqual(server!.error.type, "InvalidArguments")
      assert.include(server!.error.message, `server must be one of "tasks"`)
      assert.include(action!.error.message, "action must be one of status, wait, cancel")
      assert.deepStrictEqual(fake.created(), [])
    }))
})

/** A toolkit tool's final result, as `LanguageModel.generateText` would read it. */
const handle = (mcp: McpToolkit.McpToolkit, name: string, params: Record<string, unknown>) =>
  Effect.flatMap(mcp.toolkit.handle(name, params as never), Stream.runCollect).pipe(
    Effect.map((results) => results.at(-1)!)
  )

const toolkitLayer = (fake: ReturnType<typeof taskServer>) =>
  Layer.mergeAll(
    McpServers.layer([modern]),
    Layer.succeed(McpClientFactory.McpClientFactory, fakeFactory({ tasks: fake.server }).factory),
    McpToolCache.layerMemory({ ttl: "5 minutes" })
  )

describe("tasks in McpToolkit", () => {
  it.live("tasks: handle: a call's result is the task, and task_status waits for it", () =>
    Effect.gen(function*() {
      const fake = taskServer()
      const mcp = yield* McpToolkit.make({ tasks: "handle" }).pipe(Effect.provide(toolkitLayer(fake)))
      assert.include(Object.keys(mcp.toolkit.tools), "task_status")
      const started = yield* handle(mcp, "tasks__build", { steps: 2, text: "kit" })
      const handed = started.result as Handed
      const taskId = createdId(fake)
      assert.deepInclude(handed.task, { server: "tasks", taskId, status: "working" })
      assert.deepStrictEqual(fake.taskRequests(taskId), [])
      const waited = yield* handle(mcp, "task_status", { server: "tasks", taskId, action: "wait" })
      assert.deepStrictEqual(waited.result, {
        task: { server: "tasks", taskId, status: "completed" },
        result: textOf("built kit")
      })
    }).pipe(Effect.scoped))

  it.live("by default a call waits for its task and gives its result", () =>
    Effect.gen(function*() {
      const fake = taskServer()
      const mcp = yield* McpToolkit.make().pipe(Effect.provide(toolkitLayer(fake)))
      assert.notInclude(Object.keys(mcp.toolkit.tools), "task_status")
      const done = yield* handle(mcp, "tasks__build", { steps: 2, text: "kit" })
      assert.deepStrictEqual(done.result, textOf("built kit"))
      assert.deepStrictEqual(fake.taskRequests(createdId(fake)), ["tasks/get", "tasks/get"])
    }).pipe(Effect.scoped))
})
