/**
 * A host that runs its program through `NodeRuntime.runMain` and is ended by SIGINT or SIGTERM while an agent
 * request has a call in flight: runMain interrupts the main fiber, the request scope closes (the call is
 * cancelled on the server, the connection closes, the server exits on the end of its input), the host exits
 * normally, and no server process (the wrapper nor its child) survives.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Source from "@zett/testing-core/Source"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Path from "node:path"
import { faultyServer, node, withMarker, wrapper } from "./utils/faults.js"
import * as Processes from "./utils/processes.js"
import { FixtureError } from "./utils/servers.js"

// this line's own host programs (the 3 line's fixtures/servers/runmain-host.ts and plain-host.ts on Effect 4)
const fixtures = Path.join(import.meta.dirname, "fixtures")

interface HostRun {
  readonly stdout: string
  readonly stderr: string
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly pids: ReadonlyArray<number>
}

/** Starts the host, waits until the server's call is in flight, sends `signal`, and waits for the host's exit. */
const runHost = (signal: NodeJS.Signals, marker: string) =>
  Effect.callback<HostRun, Error>((resume) => {
    const host = ChildProcess.spawn(
      node,
      [...Source.nodeArgs, Path.join(fixtures, "runmain-host.ts"), faultyServer, wrapper, marker],
      { cwd: Path.join(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "pipe"] }
    )
    let stdout = ""
    let stderr = ""
    let pids: Array<number> = []
    let sent = false
    const check = () => {
      const line = stdout.split("\n").find((l) => l.startsWith("{"))
      if (line !== undefined && pids.length === 0) {
        const { pid, ppid } = JSON.parse(line) as { pid: number; ppid: number }
        pids = [pid, ppid]
      }
      if (!sent && pids.length > 0 && stderr.includes("wait: started")) {
        sent = true
        host.kill(signal)
      }
    }
    host.stdout.on("data", (chunk) => ((stdout += chunk), check()))
    host.stderr.on("data", (chunk) => ((stderr += chunk), check()))
    const timer = setTimeout(() => host.kill("SIGKILL"), 100_000)
    host.once("exit", (code, signal) => {
      clearTimeout(timer)
      resume(
        sent
          ? Effect.succeed({ stdout, stderr, code, signal, pids })
          : Effect.fail(new FixtureError({ message: stderr }))
      )
    })
    return Effect.sync(() => host.kill("SIGKILL"))
  })

describe("a host ended by a signal under NodeRuntime.runMain", { concurrent: false }, () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it.live(
      `${signal}: the request scope closes, the call is cancelled, no server process survives (D1)`,
      () =>
        Effect.gen(function*() {
          const marker = Crypto.randomUUID()
          const run = yield* runHost(signal, marker)
          const [pid, ppid] = run.pids as [number, number]
          // runMain handled the signal: the host was not killed by it, and exits as an interrupted program does
          // (on Effect 4 with 130: `Runtime.defaultTeardown` reserves it for an interruption from outside; Effect 3
          // exited with 0)
          assert.strictEqual(run.signal, null, run.stderr)
          assert.strictEqual(run.code, 130, run.stderr)
          // the run was interrupted and its request scope closed, after the MCP connections
          assert.include(run.stdout, "event RunCancelled")
          assert.include(run.stdout, "request scope closed")
          // the server saw its call cancelled and then the end of its input: it was closed, not killed
          assert.include(run.stderr, "wait: cancelled")
          assert.include(run.stderr, "stdin ended")
          assert.deepStrictEqual(yield* Processes.awaitGone([pid, ppid], ppid), [])
          assert.deepStrictEqual(withMarker(marker), [])
        }),
      150_000
    )
  }
})

describe("a plain script that awaits Effect.runPromise", () => {
  it.live(
    "the reply is not lost while a server's sidecar outlives the end of stdin and SIGTERM (D1)",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const run = yield* Effect.callback<
          { readonly code: number | null; readonly stdout: string; readonly stderr: string }
        >(
          (resume) => {
            const host = ChildProcess.execFile(
              node,
              [...Source.nodeArgs, Path.join(fixtures, "plain-host.ts"), faultyServer, marker],
              { cwd: Path.join(import.meta.dirname, ".."), timeout: 100_000 },
              (error, stdout, stderr) =>
                resume(
                  Effect.succeed({
                    code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
                    stdout,
                    stderr
                  })
                )
            )
            return Effect.sync(() => host.kill("SIGKILL"))
          }
        )
        assert.strictEqual(run.code, 0, run.stderr)
        assert.strictEqual(run.stdout, "reply: the reply arrived\n", run.stderr)
        assert.deepStrictEqual(withMarker(marker), [])
      }),
    150_000
  )
})
