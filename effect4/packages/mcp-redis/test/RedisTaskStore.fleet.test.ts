/**
 * Tasks across a fleet: processes of an app built from the public API (fixtures/task-app.ts) share their tasks
 * through a real Redis (`RedisTaskStore`), against the task server over Streamable HTTP, whose record says what it
 * received (each task's polls and cancellations). One process starts a task and stops; another awaits it by its id.
 * The 3 line's tests on this line's packages, run from their TypeScript sources.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Processes from "./utils/processes.js"
import * as RedisServer from "./utils/redisServer.js"
import * as TaskServer from "./utils/taskServer.js"

const app = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "fixtures", "task-app.ts")

interface Instance {
  readonly stdout: () => string
  readonly signal: (name: NodeJS.Signals) => Effect.Effect<void>
  readonly exit: Effect.Effect<
    { readonly code: number | null; readonly signal: string | null; readonly stdout: string; readonly stderr: string }
  >
}

/** One process of the app; the scope kills it if it is still running. */
const start = (env: Record<string, string>): Effect.Effect<Instance, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => {
        const child = ChildProcess.spawn(process.execPath, [...Processes.nodeArgs, app], {
          env: { ...process.env, ...env },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString("utf8")))
        child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
        const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
          child.once("exit", (code, signal) => resolve({ code, signal }))
        )
        return { child, exited, stdout: () => stdout, stderr: () => stderr }
      }),
      ({ child, exited }) =>
        Effect.promise(async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill("SIGKILL")
            await exited
          }
        })
    ),
    ({ child, exited, stderr, stdout }) => ({
      stdout,
      signal: (name) => Effect.sync(() => void child.kill(name)),
      exit: Effect.map(Effect.promise(() => exited), (exit) => ({ ...exit, stdout: stdout(), stderr: stderr() }))
    })
  )

const resultOf = (stdout: string) => {
  const line = stdout.split("\n").find((l) => l.startsWith("RESULT "))
  assert.isDefined(line, stdout)
  return JSON.parse(line!.slice("RESULT ".length)) as {
    readonly result?: { readonly content: ReadonlyArray<unknown> }
    readonly failed?: string
  }
}

/** Redis, the task server over HTTP and its record, and the environment of the app's processes. */
const setup = Effect.gen(function*() {
  const redis = yield* RedisServer.make
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-fleet-tasks-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
  const record = Path.join(dir, "record.jsonl")
  const marker = `zett-fleet-tasks-${process.pid}-${Math.random().toString(36).slice(2)}`
  // polled every 300 ms: a task of 10 steps outlives the moment its first process is stopped
  const server = yield* TaskServer.http("builds", record, marker, { pollIntervalMs: 300 })
  const raw = yield* Effect.acquireRelease(
    Effect.sync(() => new Redis(redis.url)),
    (c) => Effect.sync(() => c.disconnect())
  )
  return { record, raw, env: { REDIS_URL: redis.url, SERVER_URL: server.url } }
})

/** Starts a task in one process and waits until its handle is in Redis. */
const starter = (env: Record<string, string>, raw: Redis, tool: string, args: unknown, onInterrupt = "leave") =>
  Effect.gen(function*() {
    const first = yield* start({
      ...env,
      MODE: "start",
      TOOL: tool,
      ARGS: JSON.stringify(args),
      ON_INTERRUPT: onInterrupt
    })
    assert.isTrue(yield* Processes.eventually(() => first.stdout().includes("TASK "), 30_000), first.stdout())
    const taskId = /TASK (\S+)/.exec(first.stdout())![1]!
    const kept = yield* Effect.promise(async () => {
      for (let i = 0; i < 500; i++) {
        const text = await raw.get(`zett:mcp-tasks:${taskId}`)
        if (text !== null) return JSON.parse(text) as Record<string, unknown>
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      return undefined
    })
    assert.isDefined(kept, "the handle is kept in Redis")
    return { first, taskId, kept: kept! }
  })

describe("tasks across a fleet through Redis", { concurrent: false }, () => {
  it.live(
    "a task started by a process that is killed is awaited by another, which gets its result",
    () =>
      Effect.gen(function*() {
        const { env, raw, record } = yield* setup
        const { first, kept, taskId } = yield* starter(env, raw, "build", { steps: 10, text: "for the fleet" })
        // what Redis keeps: the handle, its server, when it was created and how long the server keeps it
        assert.deepStrictEqual(
          { server: kept.server, tool: kept.tool, taskId: kept.taskId, ttlMs: kept.ttlMs },
          { server: "builds", tool: "build", taskId, ttlMs: 60_000 }
        )
        assert.isString(kept.createdAt)
        yield* first.signal("SIGKILL")
        yield* first.exit
        const second = yield* start({ ...env, MODE: "await", TASK_ID: taskId })
        const exit = yield* second.exit
        assert.strictEqual(exit.code, 0, exit.stderr)
        assert.deepStrictEqual(resultOf(exit.stdout).result?.content, [{ type: "text", text: "built for the fleet" }])
        assert.deepStrictEqual(TaskServer.statuses(record, taskId).at(-1), "completed")
        assert.notInclude(TaskServer.taskRequests(record, taskId), "tasks/cancel")
      })
  )

  it.live(
    "a process shut down while it waits leaves the task running by default: no tasks/cancel, another process gets the result",
    () =>
      Effect.gen(function*() {
        const { env, raw, record } = yield* setup
        const { first, taskId } = yield* starter(env, raw, "build", { steps: 10, text: "left" })
        yield* first.signal("SIGTERM")
        const stopped = yield* first.exit
        assert.notInclude(stopped.stdout, "RESULT", "the first process did not finish the wait")
        assert.notInclude(TaskServer.taskRequests(record, taskId), "tasks/cancel")
        const second = yield* start({ ...env, MODE: "await", TASK_ID: taskId })
        const exit = yield* second.exit
        assert.deepStrictEqual(resultOf(exit.stdout).result?.content, [{ type: "text", text: "built left" }])
      })
  )

  it.live(
    "with onInterrupt cancel, a process shut down while it waits cancels the task; another process finds it cancelled",
    () =>
      Effect.gen(function*() {
        const { env, raw, record } = yield* setup
        const { first, taskId } = yield* starter(env, raw, "cancellable", {}, "cancel")
        yield* first.signal("SIGTERM")
        const stopped = yield* first.exit
        assert.include(TaskServer.taskRequests(record, taskId), "tasks/cancel", JSON.stringify(stopped))
        assert.deepStrictEqual(TaskServer.cancellations(record).map((c) => c.taskId), [taskId])
        const second = yield* start({ ...env, MODE: "await", TASK_ID: taskId })
        const exit = yield* second.exit
        assert.match(resultOf(exit.stdout).failed ?? "", new RegExp(`the task ${taskId} was cancelled`))
      })
  )

  it.live(
    "a task id the store does not hold: the awaiting process fails with NotFound and asks the server nothing",
    () =>
      Effect.gen(function*() {
        const { env, record } = yield* setup
        const second = yield* start({ ...env, MODE: "await", TASK_ID: "never-started" })
        const exit = yield* second.exit
        assert.match(resultOf(exit.stdout).failed ?? "", /task store: no task of that id is kept/)
        assert.deepStrictEqual(TaskServer.messages(record).filter((m) => m.method?.startsWith("tasks/")), [])
      })
  )
})
