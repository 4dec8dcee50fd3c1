import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"

// patches/README.md: why the 3 line's vitest is patched
const require = createRequire(import.meta.url)
const dist = Path.join(Path.dirname(require.resolve("vitest/package.json")), "dist", "chunks")
const chunks = Fs.readdirSync(dist)
  .filter((file) => file.endsWith(".js"))
  .map((file) => Fs.readFileSync(Path.join(dist, file), "utf8"))
const count = (pattern: RegExp) => chunks.reduce((sum, source) => sum + (source.match(pattern)?.length ?? 0), 0)

describe("the installed vitest", () => {
  it("waits for its host without a deadline: the worker's channel has timeout -1", () => {
    assert.strictEqual(count(/\[vitest-worker\]: Timeout calling/g), 1)
    assert.strictEqual(
      count(/timeout: -1,\s*onTimeoutError\(functionName, args\) \{\s*let message = `\[vitest-worker\]/g),
      1
    )
  })

  it("the pool's four channels to its workers have timeout -1 too", () => {
    assert.strictEqual(count(/\[vitest-pool\]: Timeout calling/g), 4)
    assert.strictEqual(
      count(/timeout: -1,\s*onTimeoutError\(functionName\) \{\s*throw new Error\(`\[vitest-pool\]/g),
      4
    )
  })
})
