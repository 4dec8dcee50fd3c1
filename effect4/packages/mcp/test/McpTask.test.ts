/**
 * The wait for a task over a driver's requests (`McpTask.wait`, `McpClient.tasks`), on a fake driver and the test
 * clock: when it polls (the server's `pollIntervalMs`, else a backoff capped at 10 s), input answered once, how it
 * ends, and the cancel of a wait that ends first. The driver's own tests (against the task server) are the driver's.
 * After this line's own, the 3 line's tests (packages/mcp/test/McpTask.test.ts), every assertion kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpError, McpTask } from "@zett/mcp"
import type { CallToolResult } from "@zett/testing-core/FakeMcp"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
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

// The 3 line's tests.

const working = (fields: Partial<McpTask.Task> = {}): McpTask.Task => ({
  server: "fake",
  taskId: "t1",
  status: "working",
  ...fields
})

const completed = (fields: Partial<McpTask.Task> = {}): McpTask.Task =>
  working({ status: "completed", result: { content: [{ type: "text", text: "done" }] }, ...fields })

/**
 * A driver whose `tasks/get` answers the given states in turn (the last one again), recording the test clock's time
 * of each request, the input it was asked and the updates and cancels it was sent.
 */
const fake = (states: ReadonlyArray<McpTask.Task>) => {
  const seen = {
    gets: [] as Array<number>,
    asked: [] as Array<string>,
    updates: [] as Array<Readonly<Record<string, unknown>>>,
    cancels: 0
  }
  let next = 0
  const driver: McpTask.Driver = {
    get: () =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        seen.gets.push(now)
        return states[Math.min(next++, states.length - 1)]!
      }),
    update: (_taskId, responses) => Effect.sync(() => void seen.updates.push(responses)),
    cancel: () => Effect.sync(() => void seen.cancels++),
    answer: (_taskId, request) =>
      Effect.sync(() => {
        seen.asked.push(request.method)
        return { action: "accept", content: { n: seen.asked.length } }
      })
  }
  return { driver, seen }
}

/** Lets every fiber that is ready run, without moving the clock. */
const yieldAll = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("McpTask.wait (the 3 line's tests)", () => {
  it.effect("polls after the server's pollIntervalMs, never sooner, and follows a changed hint", () =>
    Effect.gen(function*() {
      const { driver, seen } = fake([
        working({ pollIntervalMs: 5_000 }),
        working({ pollIntervalMs: 2_000, statusMessage: "faster now" }),
        completed()
      ])
      const fiber = yield* Effect.forkChild(McpTask.wait(driver, working({ pollIntervalMs: 5_000 })))
      yield* TestClock.adjust("4999 millis")
      assert.deepStrictEqual(seen.gets, [])
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(seen.gets, [5_000])
      yield* TestClock.adjust("5 seconds")
      assert.deepStrictEqual(seen.gets, [5_000, 10_000])
      yield* TestClock.adjust("1999 millis")
      assert.deepStrictEqual(seen.gets, [5_000, 10_000])
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen.gets, [5_000, 10_000, 12_000])
      assert.deepStrictEqual(result, { content: [{ type: "text", text: "done" }] })
    }))

  it.effect("without a hint it backs off from 1 s by 1.5 times a poll, never past 10 s between polls", () =>
    Effect.gen(function*() {
      const { driver, seen } = fake([working()])
      const fiber = yield* Effect.forkChild(McpTask.wait(driver, working()))
      yield* TestClock.adjust("2 minutes")
      yield* Fiber.interrupt(fiber)
      const gaps = seen.gets.map((at, i) => at - (i === 0 ? 0 : seen.gets[i - 1]!))
      assert.deepStrictEqual(gaps.slice(0, 7), [1_000, 1_500, 2_250, 3_375, 5_062.5, 7_593.75, 10_000])
      assert.isTrue(gaps.slice(6).every((gap) => gap === 10_000))
      assert.isAbove(gaps.length, 10)
    }))

  it.effect("an input request repeated across polls is answered once; a new key is answered and sent alone", () =>
    Effect.gen(function*() {
      const elicit = { method: "elicitation/create", params: { message: "ok?" } }
      const asking = (inputRequests: Record<string, McpTask.InputRequest>) =>
        working({ status: "input_required", pollIntervalMs: 100, inputRequests })
      const { driver, seen } = fake([
        asking({ k1: elicit }),
        asking({ k1: elicit }),
        asking({ k1: elicit, k2: elicit }),
        completed()
      ])
      const fiber = yield* Effect.forkChild(McpTask.wait(driver, working({ pollIntervalMs: 100 })))
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen.asked, ["elicitation/create", "elicitation/create"])
      assert.deepStrictEqual(seen.updates, [
        { k1: { action: "accept", content: { n: 1 } } },
        { k2: { action: "accept", content: { n: 2 } } }
      ])
      assert.strictEqual(seen.gets.length, 4)
    }))

  it.effect("each status change reaches onStatus once", () =>
    Effect.gen(function*() {
      const { driver } = fake([
        working({ pollIntervalMs: 10 }),
        working({ pollIntervalMs: 10, statusMessage: "half" }),
        working({ pollIntervalMs: 10, statusMessage: "half" }),
        completed({ statusMessage: "all" })
      ])
      const heard: Array<string> = []
      const fiber = yield* Effect.forkChild(
        McpTask.wait(driver, working({ pollIntervalMs: 10 }), {
          onStatus: (task) => heard.push(`${task.status} ${task.statusMessage ?? ""}`)
        })
      )
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(heard, ["working half", "completed all"])
    }))

  it.effect("a failed task fails with TaskFailed and its code; a cancelled one with TaskCancelled; neither is cancelled", () =>
    Effect.gen(function*() {
      const failed = fake([working({ status: "failed", error: { code: -32603, message: "broke" } })])
      const error = yield* Effect.flip(McpTask.wait(failed.driver, working({ pollIntervalMs: 10 }), {
        cancelUnfinished: true
      })).pipe(Effect.forkChild, Effect.tap(() => TestClock.adjust("1 second")), Effect.flatMap(Fiber.join))
      assert.strictEqual(error.reason, "TaskFailed")
      assert.strictEqual(error.code, -32603)
      assert.strictEqual(error.taskId, "t1")
      assert.include(error.message, "broke")
      assert.strictEqual(failed.seen.cancels, 0)
      const cancelled = fake([working({ status: "cancelled" })])
      const stopped = yield* Effect.flip(McpTask.wait(cancelled.driver, working({ status: "cancelled" }), {
        cancelUnfinished: true
      }))
      assert.strictEqual(stopped.reason, "TaskCancelled")
      assert.deepStrictEqual(cancelled.seen.gets, [])
      assert.strictEqual(cancelled.seen.cancels, 0)
    }))

  it.effect("a handle that says completed has no result yet: the result is fetched", () =>
    Effect.gen(function*() {
      const { driver, seen } = fake([completed()])
      const fiber = yield* Effect.forkChild(McpTask.wait(driver, working({ status: "completed", pollIntervalMs: 10 })))
      yield* TestClock.adjust("10 millis")
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      assert.strictEqual(seen.gets.length, 1)
    }))

  it.effect("an interrupted wait cancels the task only with cancelUnfinished", () =>
    Effect.gen(function*() {
      const left = fake([working()])
      const leaving = yield* Effect.forkChild(McpTask.wait(left.driver, working()))
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.interrupt(leaving)
      assert.strictEqual(left.seen.cancels, 0)
      const owned = fake([working()])
      const owning = yield* Effect.forkChild(McpTask.wait(owned.driver, working(), { cancelUnfinished: true }))
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.interrupt(owning)
      assert.strictEqual(owned.seen.cancels, 1)
    }))

  it.effect("a wait whose input cannot be given fails and, with cancelUnfinished, cancels the task", () =>
    Effect.gen(function*() {
      const { driver, seen } = fake([
        working({ status: "input_required", inputRequests: { k: { method: "roots/list" } } })
      ])
      const refusing: McpTask.Driver = {
        ...driver,
        answer: () =>
          Effect.fail(
            new McpError.McpRequestError({
              server: "fake",
              method: "tasks/update",
              reason: "Refused",
              description: "no"
            })
          )
      }
      const fiber = yield* Effect.forkChild(Effect.result(McpTask.wait(refusing, working({ pollIntervalMs: 10 }), {
        cancelUnfinished: true
      })))
      yield* TestClock.adjust("10 millis")
      const outcome = yield* Fiber.join(fiber)
      assert.isTrue(Result.isFailure(outcome))
      assert.strictEqual(seen.cancels, 1)
      assert.deepStrictEqual(seen.updates, [])
    }))

  it("asResult and fromResult carry the task through a call's result", () => {
    const task = working({ statusMessage: "started", pollIntervalMs: 50 })
    const result = McpTask.asResult(task)
    assert.deepStrictEqual(Option.getOrThrow(McpTask.fromResult(result)), task)
    assert.deepStrictEqual(JSON.parse((result.content[0] as { readonly text: string }).text), { task })
    assert.isTrue(Option.isNone(McpTask.fromResult({ content: [] })))
  })
})

describe("McpClient.tasks (the 3 line's tests)", () => {
  it.effect("await asks for the task at once, then waits as McpTask.wait does", () =>
    Effect.gen(function*() {
      const { driver, seen } = fake([working({ pollIntervalMs: 1_000 }), completed()])
      const client = McpClient.make({
        server: "fake",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [] }),
        tasks: driver
      })
      const fiber = yield* Effect.forkChild(client.tasks.await("t1"))
      yield* yieldAll
      assert.deepStrictEqual(seen.gets, [0])
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen.gets, [0, 1_000])
    }))

  it.effect("a client's callWithin (without a driver timer) hands the task mode and listener to callTool", () =>
    Effect.gen(function*() {
      const given: Array<McpClient.CallOptions | undefined> = []
      const client = McpClient.make({
        server: "fake",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: (_name, _args, options) => Effect.sync(() => (given.push(options), { content: [] }))
      })
      const onTask = () => {}
      for (const resetOnProgress of [false, true]) {
        yield* client.callWithin("t", {}, {
          server: "fake",
          timeout: Option.some(Duration.seconds(1)),
          resetOnProgress,
          maxTimeout: Option.none(),
          task: "handle",
          onTask
        })
      }
      yield* client.callWithin("t", {}, {
        server: "fake",
        timeout: Option.none(),
        resetOnProgress: false,
        maxTimeout: Option.none(),
        task: "handle",
        onTask
      })
      assert.strictEqual(given.length, 3)
      for (const options of given) {
        assert.strictEqual(options?.task, "handle")
        assert.strictEqual(options?.onTask, onTask)
      }
    }))
})
