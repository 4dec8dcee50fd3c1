/**
 * `npm test` on a fresh machine: scripts/prerequisites.mjs runs before the tests and finds the system programs
 * they start. Missing ones are installed by root through apt-get (as CI does); anyone else gets one line per
 * program naming it and how to install it, and the tests do not start.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const script = Path.join(root, "scripts", "prerequisites.mjs")

const run = (path: string) =>
  ChildProcess.spawnSync(process.execPath, [script], {
    encoding: "utf8",
    env: { PATH: path, ZETT_INSTALL_PREREQUISITES: "never" }
  })

describe("npm test's prerequisites", () => {
  it.scoped("with redis-server and script missing, it stops with one line for each, naming how to install it", () =>
    Effect.gen(function*() {
      const empty = yield* TempDir.make()
      const result = run(empty)
      assert.strictEqual(result.status, 1)
      const lines = result.stderr.trim().split("\n")
      assert.strictEqual(lines.length, 2)
      assert.match(lines[0]!, /^npm test needs redis-server .*apt-get install redis-server, or brew install redis/)
      assert.match(lines[1]!, /^npm test needs script .*apt-get install bsdutils/)
    }))

  it.scoped("with both on PATH, it says nothing and lets the tests start", () =>
    Effect.gen(function*() {
      const bin = yield* TempDir.make()
      for (const name of ["redis-server", "script"]) {
        Fs.writeFileSync(Path.join(bin, name), "#!/bin/sh\n", { mode: 0o755 })
      }
      const result = run(bin)
      assert.strictEqual(result.status, 0)
      assert.strictEqual(result.stderr, "")
    }))

  it("npm test runs it before vitest", () => {
    const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>
    }
    assert.strictEqual(manifest.scripts["test"], "node scripts/prerequisites.mjs && vitest run")
  })
})
