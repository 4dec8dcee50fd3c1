/**
 * `zett` on a configuration file nested thousands of levels deep: a usage error naming the file, the entry and
 * the line, like any other invalid file, never an internal error; no server is contacted.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fakeFactory, tempDir, writeFile, zett } from "./utils/zett.js"

describe("zett and a configuration file nested too deep", () => {
  for (const levels of [5_000, 100_000]) {
    it.scoped(`${levels.toLocaleString("en-US")} levels in args: zett tools exits 2 with one line naming the file, the entry and the line`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const prefix = `{"mcpServers":{"ok":{"type":"http","url":"http://127.0.0.1:9/ok"},"s":{"command":"node","args":`
        const config = writeFile(dir, "mcp.json", `${prefix}${"[".repeat(levels)}${"]".repeat(levels)}}}}`)
        const { factory, stats } = fakeFactory({})
        const result = yield* zett(["tools", "--config", config], { clientFactory: factory })
        assert.strictEqual(result.code, 2)
        assert.strictEqual(result.stdout, "")
        // three objects hold args: its 126th bracket is the 129th level
        assert.strictEqual(
          result.stderr,
          `zett: ${config}: mcpServers.s.args: nested deeper than 128 levels (line 1, column ${prefix.length + 126})\n`
        )
        assert.strictEqual(stats.opened, 0)
      }))
  }
})
