/**
 * The soak (test/fixtures/soak.ts, the 3 line's scripts/soak.ts on Effect 4) with a small count, in a process of its own so that its process, socket
 * and heap measurements see nothing of the test runner: every request is accounted for and nothing leaks.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Source from "@zett/testing-core/Source"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"

const root = Path.join(import.meta.dirname, "..")

const runSoak = (count: number) =>
  Effect.callback<{ readonly stdout: string; readonly stderr: string; readonly code: number | null }>((resume) => {
    const child = ChildProcess.spawn(
      process.execPath,
      [
        "--expose-gc",
        ...Source.nodeArgs,
        Path.join(root, "test", "fixtures", "soak.ts"),
        "--count",
        String(count),
        "--json"
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] }
    )
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.once("exit", (code) => resume(Effect.succeed({ stdout, stderr, code })))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

describe("soak", () => {
  it.live(
    "60 requests ended by success, failure, interruption or compaction: all accounted for, zero leaks (D1) (D5, D6, D7)",
    () =>
      Effect.gen(function*() {
        const { code, stderr, stdout } = yield* runSoak(60)
        const report = JSON.parse(stdout.trim().split("\n").pop()!)
        assert.strictEqual(code, 0, `${stdout}\n${stderr}`)
        assert.strictEqual(report.count, 60)
        assert.deepStrictEqual(report.requests, { started: 60, ended: 60 })
        assert.strictEqual(report.outcomes.hung, 0)
        // the seed is fixed: every kind of ending occurs, and ends the way it was planned (a run may finish
        // before its planned interruption)
        for (const ending of ["success", "failure", "interruption", "compaction"]) {
          assert.isAbove(report.planned[ending], 0)
        }
        assert.strictEqual(report.outcomes.failed, report.planned.failure)
        assert.strictEqual(report.outcomes.compacted, report.planned.compaction)
        assert.strictEqual(
          report.outcomes.succeeded + report.outcomes.interrupted,
          report.planned.success + report.planned.interruption
        )
        assert.isAbove(report.outcomes.interrupted, 0)
        // faults were met: failed tool calls and unavailable servers
        assert.isAbove(report.toolCalls.ok, 0)
        assert.isAbove(report.toolCalls.failed, 0)
        assert.isAbove(report.unavailable, 0)
        assert.deepStrictEqual({ ...report.leaks, heapGrowthMB: report.leaks.heapGrowthMB < 10 }, {
          processes: 0,
          sockets: 0,
          fibers: 0,
          heapGrowthMB: true
        })
      })
  )
})
