/**
 * The wait for a task over a driver's requests (`McpTask.wait`, `McpClient.tasks`), on a fake driver and the test
 * clock: when it polls (the server's `pollIntervalMs`, else a backoff capped at 10 s), input answered once, how it
 * ends, and the cancel of a wait that ends first. The driver's own tests (against the task server) are the driver's.
 */
import { assert, describe, it } from "@effect/vitest"
import type { CallToolResult } from "@modelcontextprotocol/client"
import { McpClient, McpTask } from "@zett/mcp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"

const done: CallToolResult = { content: [{ type: "text", text: "built" }] }

/** A driver whose task moves through `states`, one a `tasks/get`; it records every request with the clock's time. */
const fakeDriver = (states: ReadonlyArray<Omit<McpTask.Task, "server" | "taskId">>) =>
  Effect.gen(function*() {
    const log: Array<string> = []
    let index = 0
    const now = Effect.clockWith((clock) => Effect.succeed(clock.currentTimeMillisUnsafe()))
    const driver: McpTask.Driver = {
      get: (taskId) =>
        Effect.map(now, (at) => {
          log.push(`get@${at}`)
          index = Math.min(index + 1, states.length - 1)
          return { server: "s", taskId, ...states[index]! }
        }),
      update: (_taskId, responses) => Effect.sync(() => void log.push(`update ${Object.keys(responses).join(",")}`)),
      cancel: (taskId) => Effect.sync(() => void log.push(`cancel ${taskId}`)),
      answer: (_taskId, request) => Effect.sync(() => (log.push(`answer ${request.method}`), { action: "accept" }))
    }
    return { driver, log, first: { server: "s", taskId: "t-1", ...states[0]! } as McpTask.Task }
  })

describe("McpTask.wait", () => {
  it.effect("polls after the server's pollIntervalMs, never sooner than 10 ms", () =>
    Effect.gen(function*() {
      const { driver, first, log } = yield* fakeDriver([
        { status: "working", pollIntervalMs: 500 },
        { status: "working", pollIntervalMs: 1 },
        { status: "completed", result: done }
      ])
      const fiber = yield* Effect.forkChild(McpTask.wait(driver, first))
      yield* TestClock.adjust(Duration.millis(499))
      assert.deepStrictEqual(log, [])
      yield* TestClock.adjust(Duration.millis(1))
      assert.deepStrictEqual(log, ["get@500"])
      yield* TestClock.adjust(Duration.millis(9))
      assert.deepStrictEqual(log, ["get@500"])
      yield* TestClock.adjust(Duration.millis(1))
      assert.deepStrictEqual(yield* Fiber.join(fiber), done)
      assert.deepStrictEqual(log, ["get@500", "get@510"])
    }))

  it.effect("without a hint it backs off from 1 s, 1.5 times a poll, up to 10 s", () =>
    Effect.gen(function*() {
      const working = Array.from({ length: 8 }, () => ({ status: "working" as const }))
      const { driver, first, log } = yield* fakeDriver([...working, { status: "failed" }])
      const fiber = yield* Effect.forkChild(Effect.flip(McpTask.wait(driver, first)))
      yield* TestClock.adjust(Duration.minutes(2))
      const error = yield* Fiber.join(fiber)
      assert.deepStrictEqual([error.reason, error.taskId, error.description], [
        "TaskFailed",
        "t-1",
        "the task t-1 failed"
      ])
      const times = log.map((line) => Number(line.slice(4)))
      const gaps = times.map((time, i) => time - (i === 0 ? 0 : times[i - 1]!))
      assert.deepStrictEqual(gaps, [1000, 1500, 2250, 3375, 5062.5, 7593.75, 10000, 10000])
    }))

  it.effect("answers each input request once, sends the answers with tasks/update, and ends with the result", () =>
    Effect.gen(function*() {
      const asks = { a: { method: "elicitation/create", params: {} }, b: { method: "roots/list" } }
      const { driver, first, log } = yield* fakeDriver([
        { status: "input_required", inputRequests: asks, pollIntervalMs: 100 },
        { status: "input_required", inputRequests: asks, pollIntervalMs: 100 },
        { status: "completed", result: done }
      ])
      const seen: Array<McpTask.Status> = []
      const fiber = yield* Effect.forkChild(McpTask.wait(driver, first, { onStatus: (task) => seen.push(task.status) }))
      yield* TestClock.adjust(Duration.seconds(1))
      assert.deepStrictEqual(yield* Fiber.join(fiber), done)
      assert.deepStrictEqual(log, [
        "answer elicitation/create",
        "answer roots/list",
        "update a,b",
        "get@100",
        "get@200"
      ])
      assert.deepStrictEqual(seen, ["completed"])
    }))

  it.effect("a wait interrupted before the task ends cancels it only with cancelUnfinished", () =>
    Effect.gen(function*() {
      const { driver, first, log } = yield* fakeDriver([{ status: "working", pollIntervalMs: 1000 }])
      const left = yield* Effect.forkChild(McpTask.wait(driver, first))
      const owned = yield* Effect.forkChild(McpTask.wait(driver, first, { cancelUnfinished: true }))
      yield* TestClock.adjust(Duration.millis(10))
      yield* Fiber.interrupt(left)
      yield* Fiber.interrupt(owned)
      assert.deepStrictEqual(log, ["cancel t-1"])
    }))
})

describe("McpClient.tasks", () => {
  it.effect("await gets the task and waits for it; a cancelled task fails with TaskCancelled", () =>
    Effect.gen(function*() {
      const { driver } = yield* fakeDriver([
        { status: "working", pollIntervalMs: 50 },
        { status: "cancelled", statusMessage: "by the user" }
      ])
      const client = McpClient.make({
        server: "s",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [] }),
        tasks: driver
      })
      const fiber = yield* Effect.forkChild(Effect.flip(client.tasks.await("t-9")))
      yield* TestClock.adjust(Duration.seconds(1))
      const error = yield* Fiber.join(fiber)
      assert.deepStrictEqual([error.reason, error.description], [
        "TaskCancelled",
        "the task t-9 was cancelled: by the user"
      ])
    }))

  it.effect("a client without task support says so", () =>
    Effect.gen(function*() {
      const client = McpClient.make({
        server: "plain",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [] })
      })
      const error = yield* Effect.flip(client.tasks.get("t"))
      assert.strictEqual(error.reason, "Unsupported")
    }))

  it("a task handed back as a call's result is read back from it", () => {
    const task: McpTask.Task = { server: "s", taskId: "t-2", status: "working" }
    const back = McpTask.fromResult(McpTask.asResult(task))
    assert.deepStrictEqual(back._tag === "Some" && back.value, task)
  })
})
