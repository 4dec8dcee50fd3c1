/**
 * Tool calls that run as tasks on the 2025-11-25 revision (`execution.taskSupport`, `params.task`, `tasks/get`,
 * `tasks/result`, `tasks/cancel`), through the Node driver, against server-everything from npm (on SDK v1, whose
 * `simulate-research-query` requires a task): the call asks for a task, waits for it as on the 2026-07-28 revision
 * (the same `McpTask` data, the server's poll interval, the call's one deadline) and gives the tool's result;
 * `McpClient.tasks` gets, awaits and cancels a task by id. Polling, deadlines and cancellation are read from the
 * record of an SDK v1 task server of our own (packages/testing/servers/legacy-task-server.mjs), on `TestClock`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import {
  McpClient,
  McpClientFactory,
  McpElicitation,
  McpServerConfig,
  McpServers,
  McpTask,
  McpToolCache
} from "@zett/mcp"
import type { McpError } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Persistence } from "effect/persistence"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import * as Handled from "./utils/handled.js"
import { settle, sleepingUntil, until } from "./utils/realTime.js"

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)
const server = McpServerConfig.stdio({ name: "everything", command: process.execPath, args: [everything, "stdio"] })
const research = "simulate-research-query"

const connectTo = (config: McpServerConfig.McpServerConfig) =>
  Effect.flatMap(McpClientFactory.McpClientFactory, (factory) => factory.connect(config)).pipe(
    Effect.provide(NodeMcpClientFactory.layer().pipe(Layer.provideMerge(NodeServices.layer)))
  )
const connect = connectTo(server)

const fixture = require.resolve("@zett/testing/package.json").replace(
  /package\.json$/,
  "servers/legacy-task-server.mjs"
)
const record = Effect.map(TempDir.make("zett-legacy-tasks-"), (dir) => Path.join(dir, "record.jsonl"))
const legacyServer = (file: string, ...options: ReadonlyArray<string>) =>
  McpServerConfig.stdio({
    name: "legacy",
    command: process.execPath,
    args: [fixture, `--record=${file}`, ...options]
  })

interface Received {
  readonly method?: string
  readonly taskId?: string
  readonly tool?: string
  readonly task: boolean
}
/** What the fixture received, in order. */
const received = (file: string): ReadonlyArray<Received> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
      .filter((line: { readonly event: string }) => line.event === "message")
    : []
const taskRequests = (file: string, taskId: string) =>
  received(file).filter((m) => m.taskId === taskId).map((m) => m.method)
const gets = (file: string, taskId: string) => taskRequests(file, taskId).filter((m) => m === "tasks/get").length
const calls = (file: string) => received(file).filter((m) => m.method === "tools/call").map((m) => [m.tool, m.task])

const text = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((block) => (block as { readonly text?: string }).text ?? "").join("")

describe("a tool call that runs as a task on the 2025-11-25 revision (server-everything)", () => {
  it.live(
    "a tool whose taskSupport is required is called as a task, polled to its end and its result given; the caller sees its states",
    () =>
      Effect.gen(function*() {
        const client = yield* connect
        assert.strictEqual(client.protocolVersion, "2025-11-25")
        yield* McpClient.listAll(client)
        const seen: Array<McpTask.Task> = []
        const result = yield* client.callTool(research, { topic: "effect systems" }, { onTask: (t) => seen.push(t) })
        assert.isUndefined(result.isError)
        assert.include(text(result), "effect systems")
        assert.notInclude(text(result), "requires task augmentation")
        assert.isAbove(seen.length, 1)
        assert.strictEqual(seen[0]!.status, "working")
        assert.strictEqual(seen[0]!.pollIntervalMs, 1_000)
        assert.strictEqual(seen[0]!.ttlMs, 300_000)
        assert.strictEqual(seen.at(-1)!.status, "completed")
        assert.isTrue(seen.every((t) => t.taskId === seen[0]!.taskId && t.server === "everything"))
      })
  )

  it.live(
    "a connection that calls without having listed its tools (a cached tool list) lists them once, then calls as a task",
    () =>
      Effect.gen(function*() {
        const client = yield* connect
        const result = yield* client.callTool(research, { topic: "warm caches" })
        assert.include(text(result), "warm caches")
        assert.notInclude(text(result), "requires task augmentation")
      })
  )

  it.live(
    "input the task asks for (an elicitation tied to the task, sent while tasks/result waits) goes through McpElicitation; the answer shapes the result",
    () =>
      Effect.gen(function*() {
        const asked: Array<McpElicitation.Request> = []
        const client = yield* Effect.flatMap(McpClientFactory.McpClientFactory, (factory) => factory.connect(server))
          .pipe(
            Effect.provide(
              NodeMcpClientFactory.layer().pipe(
                Layer.provide(McpElicitation.layer((request) => {
                  asked.push(request)
                  return Effect.succeed({ action: "accept", content: { interpretation: "programming" } })
                })),
                Layer.provideMerge(NodeServices.layer)
              )
            )
          )
        yield* McpClient.listAll(client)
        const statuses: Array<McpTask.Status> = []
        const result = yield* client.callTool(research, { topic: "python", ambiguous: true }, {
          onTask: (t) => statuses.push(t.status)
        })
        assert.strictEqual(asked.length, 1)
        assert.deepInclude(asked[0], { _tag: "Form", server: "everything" })
        assert.include(text(result), "programming")
        assert.notInclude(text(result), "elicitation unavailable")
        assert.strictEqual(statuses.at(-1), "completed")
      })
  )

  it.live(
    "a task by id: the handle (task: handle) is read back, tasks.get gives its state, tasks.cancel cancels it on the server and a later await fails with reason TaskCancelled",
    () =>
      Effect.gen(function*() {
        const client = yield* connect
        yield* McpClient.listAll(client)
        const handle = yield* client.callTool(research, { topic: "by id" }, { task: "handle" })
        const task = Option.getOrThrow(McpTask.fromResult(handle))
        assert.strictEqual(task.status, "working")
        assert.strictEqual(task.server, "everything")
        const now = yield* client.tasks.get(task.taskId)
        assert.strictEqual(now.taskId, task.taskId)
        assert.strictEqual(now.pollIntervalMs, 1_000)
        yield* client.tasks.cancel(task.taskId)
        assert.strictEqual((yield* client.tasks.get(task.taskId)).status, "cancelled")
        const error = yield* Effect.flip(client.tasks.await(task.taskId))
        assert.strictEqual(error.reason, "TaskCancelled")
        assert.strictEqual(error.taskId, task.taskId)
      })
  )
})

describe("a tool call that runs as a task on the 2025-11-25 revision (a task server of ours on SDK v1)", () => {
  it.effect("polls no sooner than the server's pollInterval, fetches the result with tasks/result (TestClock)", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connectTo(legacyServer(file, "--poll-interval=5000"))
      yield* McpClient.listAll(client)
      const seen: Array<McpTask.Task> = []
      const fiber = yield* Effect.forkChild(
        client.callTool("finishes", { text: "slow" }, { onTask: (t) => seen.push(t) })
      )
      yield* until(() => seen.length === 1)
      const taskId = seen[0]!.taskId
      assert.strictEqual(seen[0]!.pollIntervalMs, 5_000)
      assert.strictEqual(seen[0]!.ttlMs, 60_000)
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
      assert.strictEqual(text(result), "finished slow")
      assert.deepStrictEqual(taskRequests(file, taskId), ["tasks/get", "tasks/get", "tasks/result"])
      assert.deepStrictEqual(calls(file), [["finishes", true]])
      assert.strictEqual(seen.at(-1)!.status, "completed")
    }).pipe(Effect.scoped))

  it.effect(
    "the wait stays inside the call's one deadline: when it passes the task is cancelled (tasks/cancel) before the call fails with McpTimeoutError",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const client = yield* connectTo(legacyServer(file, "--poll-interval=1000"))
        yield* McpClient.listAll(client)
        const seen: Array<McpTask.Task> = []
        const fiber = yield* Effect.forkChild(Effect.result(client.callWithin("forever", {}, {
          server: "legacy",
          timeout: Option.some(Duration.millis(2_500)),
          resetOnProgress: false,
          maxTimeout: Option.none(),
          onTask: (t) => seen.push(t)
        })))
        yield* until(() => seen.length === 1)
        const taskId = seen[0]!.taskId
        yield* sleepingUntil(1_000)
        yield* TestClock.adjust("1 second")
        yield* until(() => gets(file, taskId) === 1)
        yield* sleepingUntil(2_000)
        yield* TestClock.adjust("1 second")
        yield* until(() => gets(file, taskId) === 2)
        yield* TestClock.adjust("500 millis")
        const outcome = yield* Fiber.join(fiber)
        assert.isTrue(Result.isFailure(outcome))
        const error = (outcome as Result.Failure<unknown, McpError.McpRequestError | McpError.McpTimeoutError>).failure
        assert.strictEqual(error._tag, "McpTimeoutError")
        // read at once: the call ended only once tasks/cancel was answered
        assert.deepStrictEqual(taskRequests(file, taskId), ["tasks/get", "tasks/get", "tasks/cancel"])
        assert.strictEqual((yield* client.tasks.get(taskId)).status, "cancelled")
      }).pipe(Effect.scoped)
  )

  it.live(
    "an interrupted call cancels its task on the server before the interruption completes",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const client = yield* connectTo(legacyServer(file))
        yield* McpClient.listAll(client)
        const seen: Array<McpTask.Task> = []
        const fiber = yield* Effect.forkChild(client.callTool("forever", {}, { onTask: (t) => seen.push(t) }))
        yield* until(() => seen.length === 1)
        const taskId = seen[0]!.taskId
        yield* until(() => gets(file, taskId) >= 1)
        yield* Fiber.interrupt(fiber)
        const exit = yield* Fiber.await(fiber)
        assert.isTrue(Exit.hasInterrupts(exit))
        assert.include(taskRequests(file, taskId), "tasks/cancel")
        assert.strictEqual((yield* client.tasks.get(taskId)).status, "cancelled")
      })
  )

  it.live(
    "an optional tool is a plain call unless the caller wants a handle; a forbidden one is never a task; tasks.await by id gives the result",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const client = yield* connectTo(legacyServer(file))
        yield* McpClient.listAll(client)
        assert.strictEqual(text(yield* client.callTool("either", { text: "a" })), "plain a")
        assert.strictEqual(text(yield* client.callTool("plain", { text: "b" }, { task: "handle" })), "plain b")
        const handle = yield* client.callTool("either", { text: "c" }, { task: "handle" })
        const task = Option.getOrThrow(McpTask.fromResult(handle))
        assert.strictEqual(task.status, "working")
        assert.strictEqual(text(yield* client.tasks.await(task.taskId)), "finished c")
        assert.deepStrictEqual(calls(file), [["either", false], ["plain", false], ["either", true]])
      })
  )

  it.live(
    "a task that fails with a tool error gives that result as a value (isError); one that fails with no result fails the call with reason TaskFailed and its id",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const client = yield* connectTo(legacyServer(file))
        yield* McpClient.listAll(client)
        const rejected = yield* client.callTool("rejects", { text: "r" })
        assert.isTrue(rejected.isError)
        assert.strictEqual(text(rejected), "rejected r")
        const seen: Array<McpTask.Task> = []
        const error = yield* Effect.flip(client.callTool("breaks", {}, { onTask: (t) => seen.push(t) }))
        assert.strictEqual(error.reason, "TaskFailed")
        assert.strictEqual(error.taskId, seen[0]!.taskId)
        assert.include(error.description, "the build broke")
        assert.deepStrictEqual(taskRequests(file, seen[0]!.taskId), ["tasks/get", "tasks/result"])
      })
  )

  it.live(
    "a connection that has not listed its tools lists them once to learn which run as tasks",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const client = yield* connectTo(legacyServer(file))
        assert.strictEqual(text(yield* client.callTool("finishes", { text: "w" })), "finished w")
        assert.strictEqual(text(yield* client.callTool("plain", { text: "x" })), "plain x")
        const methods = received(file).map((m) => m.method).filter((m) => m === "tools/list" || m === "tools/call")
        assert.deepStrictEqual(methods, ["tools/list", "tools/call", "tools/call"])
        assert.deepStrictEqual(calls(file), [["finishes", true], ["plain", false]])
      })
  )

  it.live(
    "the tool list in a shared store keeps each tool's taskSupport: a later process calls from it without listing, as a task where the tool requires one",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const store = yield* Layer.build(Persistence.layerBackingMemory)
        const requestIn = (tool: string) =>
          Effect.scoped(Effect.gen(function*() {
            const mcp = yield* McpToolkit.make()
            return (yield* Handled.last(mcp.toolkit.handle(tool as never, { text: "hi" } as never))).result
          })).pipe(
            Effect.provide(Layer.mergeAll(
              McpServers.layer([legacyServer(file)]).pipe(Layer.orDie),
              McpToolCache.layerPersisted({ ttl: "5 minutes" }).pipe(Layer.provide(Layer.succeedContext(store))),
              NodeMcpClientFactory.layer({ closeTimeout: "300 millis" }).pipe(Layer.provide(NodeServices.layer))
            ))
          )
        assert.include(JSON.stringify(yield* requestIn("legacy__finishes")), "finished hi")
        assert.include(JSON.stringify(yield* requestIn("legacy__finishes")), "finished hi")
        assert.include(JSON.stringify(yield* requestIn("legacy__plain")), "plain hi")
        const lines = Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
          JSON.parse(line) as Received & { readonly event: string; readonly pid: number }
        )
        const pids = [...new Set(lines.map((line) => line.pid))]
        assert.strictEqual(pids.length, 3)
        const asked = pids.map((pid) =>
          lines.filter((line) => line.pid === pid && (line.method === "tools/list" || line.method === "tools/call"))
            .map((line) => line.method === "tools/call" ? `${line.method} ${line.tool} ${line.task}` : line.method)
        )
        assert.deepStrictEqual(asked, [
          ["tools/list", "tools/call finishes true"],
          ["tools/call finishes true"],
          ["tools/call plain false"]
        ])
      })
  )
})
