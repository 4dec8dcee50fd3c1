/**
 * The exit and signal hooks of `ProcessGroups` live exactly as long as the layer's scope, and while they do, a
 * host that ends without closing its scopes (`process.exit()`, a signal it does not handle) takes its stdio
 * servers along; an application's own signal listener is left to close the scopes itself, and `layerNone`
 * leaves the servers to the host.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { FixtureError } from "@zett/testing-core/FixtureError"
import * as Source from "@zett/testing-core/Source"
import { faultyServer, withMarker, wrapper } from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Path from "node:path"

const events = ["exit", "SIGINT", "SIGTERM", "SIGHUP"] as const

const counts = () => events.map((event) => process.listenerCount(event))

/** Builds `layer` in a scope of its own: the listener counts while it is open, and after it closed. */
const countsAround = <A, E>(layer: Layer.Layer<A, E>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Layer.buildWithScope(layer, scope)
    const open = counts()
    yield* Scope.close(scope, Exit.void)
    return { open, closed: counts() }
  })

describe("the hooks of ProcessGroups", () => {
  it.effect("layer adds one listener of exit, SIGINT, SIGTERM and SIGHUP while it is open, and removes them as it closes", () =>
    Effect.gen(function*() {
      const before = counts()
      const { closed, open } = yield* countsAround(ProcessGroups.layer)
      assert.deepStrictEqual(open, before.map((n) => n + 1))
      assert.deepStrictEqual(closed, before)
    }))

  it.effect("the signal listener goes before the application's own", () =>
    Effect.gen(function*() {
      const before = process.listeners("SIGTERM")
      const own = () => {}
      process.on("SIGTERM", own)
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(ProcessGroups.layer, scope)
      const first = process.listeners("SIGTERM")[0]
      yield* Scope.close(scope, Exit.void)
      process.removeListener("SIGTERM", own)
      assert.notStrictEqual(first, own)
      assert.deepStrictEqual(process.listeners("SIGTERM"), before)
    }))

  it.effect("two layers open at once add a listener each", () =>
    Effect.gen(function*() {
      const before = counts()
      const { closed, open } = yield* countsAround(Layer.merge(ProcessGroups.layer, Layer.fresh(ProcessGroups.layer)))
      assert.deepStrictEqual(open, before.map((n) => n + 2))
      assert.deepStrictEqual(closed, before)
    }))

  it.effect("layerNone adds no listener", () =>
    Effect.gen(function*() {
      const before = counts()
      const { closed, open } = yield* countsAround(ProcessGroups.layerNone)
      assert.deepStrictEqual(open, before)
      assert.deepStrictEqual(closed, before)
    }))

  it.effect("NodeMcpClientFactory.layer holds the hooks for as long as it is open", () =>
    Effect.gen(function*() {
      const before = counts()
      const { closed, open } = yield* countsAround(NodeMcpClientFactory.layer())
      assert.deepStrictEqual(open, before.map((n) => n + 1))
      assert.deepStrictEqual(closed, before)
    }))

  it.effect("makeInMemory needs no ProcessGroups and adds no listener", () =>
    Effect.gen(function*() {
      const before = counts()
      const { closed, open } = yield* countsAround(NodeMcpClientFactory.layerInMemory({}))
      assert.deepStrictEqual(open, before)
      assert.deepStrictEqual(closed, before)
    }))
})

// A host that connects stdio servers (a wrapper whose child ignores the end of its input and SIGTERM, and starts
// a sidecar in its group that holds none of its pipes: only SIGKILL ends them), says `ready`, and ends without
// closing a scope, as its mode says:
// - exit: NodeMcpClientFactory.layer, then process.exit(0)
// - none: the factory on ProcessGroups.layerNone, then process.exit(0)
// - signal: two ProcessGroups of their own, a server each, then a SIGTERM that nobody else listens for
// - handled: the factory layer and an application's SIGTERM listener, which reports whether the server still
//   runs and then calls process.exit(0)
const host = `
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const [mode, wrapper, faulty, marker] = process.argv.slice(1)
const server = (name) =>
  McpServerConfig.stdio({
    name,
    command: process.execPath,
    args: [wrapper, faulty, "--fault=stubborn", "--fault=stubborn-sidecar", "--name=" + name],
    env: { ZETT_TEST_MARKER: marker }
  })
const leader = (client) => Effect.map(client.callTool("report", {}), (result) => result.structuredContent.ppid)
const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const connect = (factory, name) => Effect.flatMap(factory.connect(server(name)), leader)
const inContext = (name) => Effect.flatMap(McpClientFactory.McpClientFactory, (factory) => connect(factory, name))
// the hooks live as long as the factory's layer: it stays open until the host ends
const hold = (effect) => Effect.zipRight(effect, Effect.never)
const withHooks = NodeMcpClientFactory.make().pipe(Effect.provideServiceEffect(ProcessGroups.ProcessGroups, ProcessGroups.make))

const program = {
  exit: inContext("a").pipe(
    Effect.tap(() => Effect.sync(() => (process.stdout.write("ready\\n"), process.exit(0)))),
    hold,
    Effect.provide(NodeMcpClientFactory.layer())
  ),
  none: inContext("a").pipe(
    Effect.tap(() => Effect.sync(() => (process.stdout.write("ready\\n"), process.exit(0)))),
    hold,
    Effect.provide(Layer.effect(McpClientFactory.McpClientFactory, NodeMcpClientFactory.make()).pipe(
      Layer.provide(ProcessGroups.layerNone)
    ))
  ),
  signal: Effect.gen(function*() {
    yield* connect(yield* withHooks, "a")
    yield* connect(yield* withHooks, "b")
    process.stdout.write("ready\\n")
    process.kill(process.pid, "SIGTERM")
    // a signal is delivered asynchronously: the host stays alive until it arrives
    yield* Effect.never
  }),
  handled: inContext("a").pipe(
    Effect.tap((pid) => Effect.sync(() => {
      process.on("SIGTERM", () =>
        setTimeout(() => {
          process.stdout.write("handled: the server " + (alive(pid) ? "runs" : "is gone") + "\\n")
          process.exit(0)
        }, 200))
      process.stdout.write("ready\\n")
      process.kill(process.pid, "SIGTERM")
    })),
    hold,
    Effect.provide(NodeMcpClientFactory.layer())
  )
}[mode]

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  process.stderr.write(String(error) + "\\n")
  process.exit(1)
})
`

interface HostRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the host in `mode` to its end; whatever carries the marker afterwards is killed with the test's scope. */
const runHost = (mode: "exit" | "none" | "signal" | "handled", marker: string) =>
  Effect.gen(function*() {
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const p of withMarker(marker)) {
          try {
            process.kill(p.pid, "SIGKILL")
          } catch {
            // gone
          }
        }
      })
    )
    return yield* Effect.async<HostRun, Error>((resume) => {
      const child = ChildProcess.spawn(
        process.execPath,
        [...Source.nodeArgs, "--input-type=module", "-e", host, mode, wrapper, faultyServer, marker],
        { cwd: Path.join(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "pipe"] }
      )
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      const timer = setTimeout(() => child.kill("SIGKILL"), 100_000)
      child.once("exit", (code, signal) => {
        clearTimeout(timer)
        resume(
          stdout.includes("ready")
            ? Effect.succeed({ code, signal, stdout, stderr })
            : Effect.fail(new FixtureError({ message: `the host never got ready (${code ?? signal}):\n${stderr}` }))
        )
      })
      return Effect.sync(() => child.kill("SIGKILL"))
    })
  })

/** The wrapper, the server and its sidecar: every process started with the marker in its environment. */
const servers = withMarker

describe.sequential("a host that ends without closing its scopes", () => {
  it.scopedLive(
    "process.exit() with NodeMcpClientFactory.layer open leaves no server process",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const run = yield* runHost("exit", marker)
        assert.strictEqual(run.code, 0, run.stderr)
        assert.isTrue(yield* Processes.eventually(() => servers(marker).length === 0), JSON.stringify(servers(marker)))
      }),
    150_000
  )

  it.scopedLive(
    "a SIGTERM nobody else handles, with two ProcessGroups open, ends the host by SIGTERM and both servers",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const run = yield* runHost("signal", marker)
        // the host still dies of the signal, as it would without the hooks
        assert.strictEqual(run.signal, "SIGTERM", run.stderr)
        assert.isTrue(yield* Processes.eventually(() => servers(marker).length === 0), JSON.stringify(servers(marker)))
      }),
    150_000
  )

  it.scopedLive(
    "an application's own SIGTERM listener is left to handle it: the server runs until the host exits",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const run = yield* runHost("handled", marker)
        assert.strictEqual(run.code, 0, run.stderr)
        assert.include(run.stdout, "handled: the server runs")
        assert.isTrue(yield* Processes.eventually(() => servers(marker).length === 0), JSON.stringify(servers(marker)))
      }),
    150_000
  )

  it.scopedLive(
    "with ProcessGroups.layerNone the server outlives the host: its lifetime is the host's to manage",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const run = yield* runHost("none", marker)
        assert.strictEqual(run.code, 0, run.stderr)
        // the sidecar, at least, which no pipe ties to the host, still runs a moment later; the test's scope ends it
        yield* Effect.sleep("300 millis")
        assert.isTrue(servers(marker).some((p) => p.command.includes("setInterval")), JSON.stringify(servers(marker)))
      }),
    150_000
  )
})
