/**
 * Fixture servers die with the test runner: a vitest run holding an HTTP fault server (started as every suite
 * starts them, through `@zett/testing`) is killed with SIGKILL, and no fixture server is left.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Source from "@zett/testing-core/Source"
import { withMarker } from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Path from "node:path"

describe("fixtures and the test runner", () => {
  it.scopedLive("killing a vitest run (SIGKILL) leaves no fixture server behind", () =>
    Effect.gen(function*() {
      const marker = Crypto.randomUUID()
      const victim = Path.join(Source.root, "packages", "testing", "victim")
      const runner = ChildProcess.spawn(
        process.execPath,
        [Path.join(Source.root, "node_modules", "vitest", "vitest.mjs"), "run", "--root", victim],
        { cwd: victim, env: { ...process.env, ZETT_TEST_MARKER: marker }, stdio: ["ignore", "pipe", "pipe"] }
      )
      let output = ""
      runner.stdout.on("data", (chunk) => (output += String(chunk)))
      runner.stderr.on("data", (chunk) => (output += String(chunk)))
      const fixtures = () => withMarker(marker).filter((p) => /faulty-server|lifeline/.test(p.command))
      // the runner's orphaned workers carry the marker too: whatever is left is ended afterwards
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          runner.kill("SIGKILL")
          for (const p of withMarker(marker)) {
            try {
              process.kill(p.pid, "SIGKILL")
            } catch {
              // gone
            }
          }
        })
      )
      const up = yield* Processes.eventually(() => fixtures().some((p) => p.command.includes("faulty-server")), 60_000)
      assert.isTrue(up, `the fixture server never started:\n${output}`)
      runner.kill("SIGKILL")
      const gone = yield* Processes.eventually(() => fixtures().length === 0, 10_000)
      assert.isTrue(gone, `left: ${JSON.stringify(fixtures())}`)
    }))
})
