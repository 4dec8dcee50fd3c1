import { assert, describe, it } from "@effect/vitest"
import * as Source from "@zett/testing-core/Source"
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

describe("offline example", () => {
  // its own process runs the example as a user runs it
  const run = () =>
    Effect.gen(function*() {
      const { code, stdout } = yield* Effect.async<{ code: number | null; stdout: string }>((resume) => {
        execFile(
          process.execPath,
          [...Source.nodeArgs, path.join(here, "..", "examples", "offline.ts")],
          {
            timeout: 100_000
          },
          (error, stdout) => resume(Effect.succeed({ code: error ? (error.code as number | null) ?? 1 : 0, stdout }))
        )
      })
      assert.strictEqual(code, 0)
      assert.deepStrictEqual(stdout.trim().split("\n"), ["MCP tool result: 42", "MCP connection closed."])
    })
  it.live("the offline example prints the tool result, then that the connection closed (F1)", run)
})
