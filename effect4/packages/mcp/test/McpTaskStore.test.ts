/**
 * `McpTaskStore`: the memory store, and `call` / `awaitTask` over a client whose tasks are a fake server's, on the
 * `TestClock` (the wait polls on the task's `pollIntervalMs`).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpClientFactory, McpServerConfig, McpServers, McpTask, McpTaskStore } from "@zett/mcp"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"

/** A server `builds` whose `build` is answered with task `t-1`, which completes when `finish` is called. */
const fakeServer = () => {
  const requests: Array<string> = []
  let task: McpTask.Task = {
    server: "builds",
    taskId: "t-1",
    status: "working",
    statusMessage: "queued",
    createdAt: new Date(0).toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 100
  }
  const client = McpClient.make({
    server: "builds",
    listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
    callTool: (name, _args, options) =>
      Effect.sync(() => {
        requests.push(`tools/call ${name}`)
        options?.onTask?.(task)
        return options?.task === "handle" ? McpTask.asResult(task) : { content: [] }
      }),
    tasks: {
      get: (taskId) => Effect.sync(() => (requests.push(`tasks/get ${taskId}`), task)),
      update: () => Effect.void,
      cancel: (taskId) => Effect.sync(() => void requests.push(`tasks/cancel ${taskId}`)),
      answer: () => Effect.die("no input is asked")
    }
  })
  const finish = () => {
    task = {
      ...task,
      status: "completed",
      statusMessage: "done",
      result: { content: [{ type: "text", text: "built" }] }
    }
  }
  return { client, requests, finish }
}

const servers = McpServers.layer([McpServerConfig.http({ name: "builds", url: "http://127.0.0.1:9/unused" })])

describe("McpTaskStore", () => {
  it.effect("the memory store keeps a handle until the server may forget its task, on the Clock", () =>
    Effect.gen(function*() {
      const store = yield* McpTaskStore.makeMemory()
      yield* store.put(
        new McpTaskStore.TaskHandle({
          taskId: "t",
          server: "s",
          tool: "build",
          createdAt: new Date(0).toISOString(),
          ttlMs: 60_000
        })
      )
      assert.deepStrictEqual((yield* store.list).map((h) => h.taskId), ["t"])
      yield* TestClock.adjust("59 seconds")
      assert.isTrue(Option.isSome(yield* store.get("t")))
      yield* TestClock.adjust("1 second")
      assert.isTrue(Option.isNone(yield* store.get("t")))
      assert.deepStrictEqual(yield* store.list, [])
    }))

  it.effect("call keeps the task's handle before it waits, then waits for it and keeps its end", () =>
    Effect.gen(function*() {
      const server = fakeServer()
      const store = yield* McpTaskStore.McpTaskStore
      const fiber = yield* Effect.forkChild(McpTaskStore.call(server.client, "build", {}))
      yield* TestClock.adjust("1 millis")
      const kept = yield* store.get("t-1")
      assert.deepStrictEqual(
        Option.map(kept, (h) => ({ server: h.server, tool: h.tool, status: h.status, ttlMs: h.ttlMs })),
        Option.some({ server: "builds", tool: "build", status: "working" as const, ttlMs: 60_000 })
      )
      server.finish()
      yield* TestClock.adjust("100 millis")
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "built" }])
      assert.deepStrictEqual(Option.map(yield* store.get("t-1"), (h) => h.status), Option.some("completed" as const))
      assert.deepStrictEqual(server.requests, ["tools/call build", "tasks/get t-1", "tasks/get t-1"])
    }).pipe(Effect.provide(McpTaskStore.layerMemory())))

  it.effect("an interrupted call leaves the task on the server by default, its handle kept; onInterrupt cancel cancels it", () =>
    Effect.gen(function*() {
      for (const onInterrupt of ["leave", "cancel"] as const) {
        const server = fakeServer()
        const store = yield* McpTaskStore.makeMemory()
        const fiber = yield* Effect.forkChild(
          McpTaskStore.call(server.client, "build", {}, { onInterrupt }).pipe(
            Effect.provideService(McpTaskStore.McpTaskStore, store)
          )
        )
        yield* TestClock.adjust("250 millis")
        yield* Fiber.interrupt(fiber)
        assert.strictEqual(server.requests.includes("tasks/cancel t-1"), onInterrupt === "cancel", onInterrupt)
        assert.isTrue(Option.isSome(yield* store.get("t-1")), onInterrupt)
      }
    }))

  it.effect("awaitTask finds the handle, connects to its server by name and waits for the task", () =>
    Effect.gen(function*() {
      const server = fakeServer()
      const store = yield* McpTaskStore.McpTaskStore
      yield* store.put(
        McpTaskStore.fromTask(
          { server: "builds", taskId: "t-1", status: "working", createdAt: new Date(0).toISOString(), ttlMs: 60_000 },
          "build",
          0
        )
      )
      server.finish()
      const result = yield* Effect.scoped(McpTaskStore.awaitTask("t-1")).pipe(
        Effect.provideService(
          McpClientFactory.McpClientFactory,
          McpClientFactory.of(() => Effect.succeed(server.client))
        )
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "built" }])
      assert.deepStrictEqual(server.requests, ["tasks/get t-1"])
    }).pipe(Effect.provide(Layer.mergeAll(McpTaskStore.layerMemory(), Layer.orDie(servers)))))

  it.effect("awaitTask of an id the store does not hold fails NotFound; of a server not defined here, UnknownServer", () =>
    Effect.gen(function*() {
      const store = yield* McpTaskStore.McpTaskStore
      yield* store.put(
        new McpTaskStore.TaskHandle({
          taskId: "elsewhere",
          server: "gone",
          tool: "build",
          createdAt: new Date(0).toISOString(),
          ttlMs: null
        })
      )
      const factory = McpClientFactory.of(() => Effect.die("no connection is made"))
      const missing = yield* Effect.flip(
        Effect.scoped(McpTaskStore.awaitTask("never")).pipe(
          Effect.provideService(McpClientFactory.McpClientFactory, factory)
        )
      )
      assert.strictEqual(missing._tag === "McpTaskStoreError" ? missing.reason : missing._tag, "NotFound")
      const unknown = yield* Effect.flip(
        Effect.scoped(McpTaskStore.awaitTask("elsewhere")).pipe(
          Effect.provideService(McpClientFactory.McpClientFactory, factory)
        )
      )
      assert.strictEqual(unknown._tag === "McpTaskStoreError" ? unknown.reason : unknown._tag, "UnknownServer")
      assert.include(unknown.message, "the task runs on gone, which this process does not define")
    }).pipe(Effect.provide(Layer.mergeAll(McpTaskStore.layerMemory(), Layer.orDie(servers)))))
})
