/**
 * `zett call` of a tool a server runs as a task, `zett task get` and `zett task cancel`, as real child processes
 * against the task server (`@zett/testing/TaskServer`, the Tasks extension on SDK v2), whose record says what it
 * received: the calls, the polls of each task id, the cancellations. Output is piped, as in a script.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Source from "@zett/testing-core/Source"
import * as FakeProvider from "@zett/testing/FakeProvider"
import { withMarker } from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import * as TaskServer from "@zett/testing/TaskServer"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"
import { onTerminal, piped, plain } from "./utils/process.js"
import { tempDir, terminalControl, writeFile } from "./utils/zett.js"

/** A home with a configuration naming the task server `builds`, over stdio (zett starts it) or over HTTP. */
const setup = (options: TaskServer.Options & { readonly http?: boolean } = {}) =>
  Effect.gen(function*() {
    const home = yield* tempDir
    const record = Path.join(home, "record.jsonl")
    const marker = `zett-task-${process.pid}-${Math.random().toString(36).slice(2)}`
    const entry = options.http === true
      ? { url: (yield* TaskServer.http("builds", record, marker, options)).url }
      : {
        command: process.execPath,
        args: TaskServer.args("builds", record, options),
        env: { ZETT_TEST_MARKER: marker }
      }
    const config = writeFile(home, "mcp.json", { mcpServers: { builds: entry } })
    return { home, record, marker, config }
  })

/** The one task the server created (for `tool`). */
const createdTask = (record: string, tool: string) => {
  const created = TaskServer.created(record).filter((task) => task.tool === tool)
  assert.strictEqual(created.length, 1, JSON.stringify(TaskServer.readRecord(record)))
  return created[0]!.taskId
}

/** `zett ...args` started piped; `signal` sends a signal; `exit` waits for it to end. */
const started = (args: ReadonlyArray<string>, home: string): Effect.Effect<
  {
    readonly pid: number
    readonly stderr: () => string
    readonly signal: (name: NodeJS.Signals) => Effect.Effect<void>
    readonly exit: Effect.Effect<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>
  },
  never,
  Scope.Scope
> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => {
        const child = ChildProcess.spawn(process.execPath, [...Source.zettArgs, ...args], {
          cwd: Source.root,
          env: { PATH: process.env.PATH ?? "", HOME: home },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString("utf8")))
        child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
        const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
        return { child, exited, stdout: () => stdout, stderr: () => stderr }
      }),
      ({ child }) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    ),
    ({ child, exited, stderr, stdout }) => ({
      pid: child.pid!,
      stderr,
      signal: (name) => Effect.sync(() => void child.kill(name)),
      exit: Effect.map(Effect.promise(() => exited), (code) => ({ code, stdout: stdout(), stderr: stderr() }))
    })
  )

describe.sequential("tools that run as tasks, from zett", () => {
  it.scoped(
    "zett call waits for the task the server answers with, shows its status on standard error and prints its result",
    () =>
      Effect.gen(function*() {
        const { config, home, marker, record } = yield* setup()
        const result = yield* piped(["call", "--config", config, "builds__build", `{"steps":3,"text":"the app"}`], home)
        assert.strictEqual(result.code, 0, result.stderr)
        assert.deepStrictEqual(JSON.parse(result.stdout), [{ type: "text", text: "built the app" }])
        const taskId = createdTask(record, "build")
        // the status line names the task; piped, it is a plain line per state
        assert.include(
          result.stderr,
          `zett: builds__build: task ${taskId} working (The operation is now in progress.)\n`
        )
        assert.include(result.stderr, `zett: builds__build: task ${taskId} working (step 2 of 3)\n`)
        assert.notMatch(result.stdout + result.stderr, terminalControl)
        // the server was polled for that task until it completed, and never asked to cancel it
        const requests = TaskServer.taskRequests(record, taskId)
        assert.isAtLeast(requests.filter((method) => method === "tasks/get").length, 3)
        assert.notInclude(requests, "tasks/cancel")
        assert.deepStrictEqual(TaskServer.statuses(record, taskId).at(-1), "completed")
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )

  it.scoped(
    "zett call on a terminal shows the task's status and message on the spinner's line",
    () =>
      Effect.gen(function*() {
        const { config, home, marker, record } = yield* setup({ pollIntervalMs: 200 })
        const result = yield* onTerminal(
          ["call", "--config", config, "builds__build", `{"steps":4,"text":"on a tty"}`],
          home
        )
        assert.strictEqual(result.code, 0, result.stdout)
        const taskId = createdTask(record, "build")
        // the spinner draws the status line over and over; the result follows it
        assert.include(plain(result.stdout), `builds__build: task ${taskId} working (step 2 of 4)`)
        assert.include(result.stdout, "built on a tty")
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )

  it.scoped(
    "zett run on a terminal shows the status of a tool that runs as a task; the model gets its result",
    () =>
      Effect.gen(function*() {
        const { config, home, record } = yield* setup({ pollIntervalMs: 200 })
        const args = `{"steps":3,"text":"for the agent"}`
        const openai = yield* FakeProvider.fakeProvider([
          FakeProvider.sse(
            FakeProvider.openAiEvents({ calls: [{ id: "call_1", name: "builds__build", pieces: [args] }] })
          ),
          FakeProvider.sse(FakeProvider.openAiEvents({ text: ["Built."] }))
        ])
        const result = yield* onTerminal(["run", "Build it.", "--config", config], home, {
          ZETT_MODEL: "openai:gpt-4.1-mini",
          OPENAI_API_KEY: "sk-zett-task-test",
          OPENAI_BASE_URL: `${openai.url}/v1`
        })
        assert.strictEqual(result.code, 0, result.stdout)
        const taskId = createdTask(record, "build")
        assert.include(plain(result.stdout), `builds__build: task ${taskId} working (step 2 of 3)`)
        assert.include(result.stdout, "Built.")
        // what the model was given for the call: the task's result
        assert.include(JSON.stringify(openai.requests.at(-1)?.body), "built for the agent")
      })
  )

  it.scoped("zett call of a task that fails exits 1 with the task's failure", () =>
    Effect.gen(function*() {
      const { config, home, record } = yield* setup()
      const result = yield* piped(["call", "--config", config, "builds__explode"], home)
      assert.strictEqual(result.code, 1, result.stderr)
      const taskId = createdTask(record, "explode")
      assert.include(result.stderr, `task ${taskId} failed`)
      assert.strictEqual(result.stdout, "")
    }))

  it.scopedLive(
    "Ctrl-C during zett call cancels the task on the server; zett exits 130 and leaves no process",
    () =>
      Effect.gen(function*() {
        const { config, home, marker, record } = yield* setup()
        const zett = yield* started(["call", "--config", config, "builds__cancellable"], home)
        const running = yield* Processes.eventually(() => zett.stderr().includes("task "), 30_000)
        assert.isTrue(running, zett.stderr())
        const taskId = createdTask(record, "cancellable")
        yield* zett.signal("SIGINT")
        const exit = yield* zett.exit
        assert.strictEqual(exit.code, 130, exit.stderr)
        // the server got tasks/cancel for that task (not a notifications/cancelled of the finished tools/call)
        assert.include(TaskServer.taskRequests(record, taskId), "tasks/cancel")
        assert.deepStrictEqual(
          TaskServer.cancellations(record).map(({ honoured, taskId }) => ({ honoured, taskId })),
          [{ honoured: true, taskId }]
        )
        assert.deepStrictEqual(TaskServer.statuses(record, taskId).at(-1), "cancelled")
        // the server's processes ended with zett
        assert.isTrue(
          yield* Processes.eventually(() => withMarker(marker).length === 0),
          JSON.stringify(withMarker(marker))
        )
        assert.deepStrictEqual(Processes.livePids([zett.pid]), [])
      })
  )

  it.scoped(
    "zett call --detach prints the task and returns; zett task get follows it to its result",
    () =>
      Effect.gen(function*() {
        const { config, home, record } = yield* setup({ http: true })
        const call = yield* piped([
          "call",
          "--config",
          config,
          "--detach",
          "builds__build",
          `{"steps":2,"text":"later"}`
        ], home)
        assert.strictEqual(call.code, 0, call.stderr)
        const taskId = createdTask(record, "build")
        assert.deepStrictEqual(JSON.parse(call.stdout), { server: "builds", taskId, status: "working" })
        assert.include(call.stderr, `zett task get builds ${taskId}`)
        // nothing polled the task while zett returned
        assert.notInclude(TaskServer.taskRequests(record, taskId), "tasks/get")
        // each get is one poll, which advances the task a step
        const first = yield* piped(["task", "get", "--config", config, "builds", taskId], home)
        assert.strictEqual(first.code, 0, first.stderr)
        assert.match(first.stdout, new RegExp(`^${taskId}  working`))
        const last = yield* piped(["task", "get", "--config", config, "builds", taskId], home)
        assert.strictEqual(last.code, 0, last.stderr)
        assert.deepStrictEqual(JSON.parse(last.stdout), [{ type: "text", text: "built later" }])
        const json = yield* piped(["task", "get", "--json", "--config", config, "builds", taskId], home)
        assert.strictEqual(json.code, 0, json.stderr)
        const task = JSON.parse(json.stdout)
        assert.strictEqual(task.taskId, taskId)
        assert.strictEqual(task.status, "completed")
        assert.deepStrictEqual(TaskServer.taskRequests(record, taskId), ["tasks/get", "tasks/get", "tasks/get"])
      })
  )

  it.scoped(
    "zett task get --wait waits for a task started earlier and prints its result",
    () =>
      Effect.gen(function*() {
        const { config, home, record } = yield* setup({ http: true })
        const call = yield* piped(
          ["call", "--config", config, "--detach", "builds__build", `{"steps":3,"text":"it"}`],
          home
        )
        assert.strictEqual(call.code, 0, call.stderr)
        const taskId = createdTask(record, "build")
        const waited = yield* piped(["task", "get", "--wait", "--config", config, "builds", taskId], home)
        assert.strictEqual(waited.code, 0, waited.stderr)
        assert.deepStrictEqual(JSON.parse(waited.stdout), [{ type: "text", text: "built it" }])
        assert.include(waited.stderr, `task ${taskId} working`)
      })
  )

  it.scoped(
    "zett task cancel cancels a task started earlier: the server gets tasks/cancel for it",
    () =>
      Effect.gen(function*() {
        const { config, home, record } = yield* setup({ http: true })
        const call = yield* piped(["call", "--config", config, "--detach", "builds__cancellable"], home)
        assert.strictEqual(call.code, 0, call.stderr)
        const taskId = createdTask(record, "cancellable")
        const cancelled = yield* piped(["task", "cancel", "--config", config, "builds", taskId], home)
        assert.strictEqual(cancelled.code, 0, cancelled.stderr)
        assert.strictEqual(cancelled.stdout, `${taskId}  cancelled\n`)
        assert.deepStrictEqual(TaskServer.cancellations(record).map((c) => c.taskId), [taskId])
        // a get afterwards tells it ended cancelled: exit 1
        const after = yield* piped(["task", "get", "--config", config, "builds", taskId], home)
        assert.strictEqual(after.code, 1)
        assert.include(after.stderr, `the task ${taskId} cancelled`)
      })
  )

  it.scoped(
    "zett task cancel of a task that does not honour it says the server may still finish it",
    () =>
      Effect.gen(function*() {
        const { config, home, record } = yield* setup({ http: true })
        const call = yield* piped(["call", "--config", config, "--detach", "builds__forever"], home)
        assert.strictEqual(call.code, 0, call.stderr)
        const taskId = createdTask(record, "forever")
        const cancelled = yield* piped(["task", "cancel", "--config", config, "builds", taskId], home)
        assert.strictEqual(cancelled.code, 0, cancelled.stderr)
        assert.include(cancelled.stdout, `${taskId}  working  (cancel requested; the server may still finish it)`)
        assert.deepStrictEqual(TaskServer.cancellations(record), [
          { event: "task-cancel", pid: TaskServer.cancellations(record)[0]!.pid, taskId, honoured: false }
        ])
      })
  )

  it.scoped("zett task get of an unknown task exits 1 with the server's error", () =>
    Effect.gen(function*() {
      const { config, home } = yield* setup({ http: true })
      const result = yield* piped(["task", "get", "--config", config, "builds", "no-such-task"], home)
      assert.strictEqual(result.code, 1)
      assert.match(result.stderr, /^zett: cannot get the task no-such-task of builds: .*\(code -32602\)\n$/)
    }))
})
