import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const tsx = createRequire(import.meta.url).resolve("tsx/cli")
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
const blocks = Array.from(readme.matchAll(/```ts\n([\s\S]*?)```/g), (m) => m[1]!)

/** Each `console.log(x) // expected` line of a block states what the block must print. */
const expectedOutput = (code: string) =>
  Array.from(code.matchAll(/console\.log\(.*\) \/\/ (.*)$/gm), (m) => m[1]!.trim())

describe("README", () => {
  it("has TypeScript blocks to run", () => {
    assert.isAtLeast(blocks.length, 3)
  })

  blocks.forEach((code, i) => {
    it.live(`README code block ${i + 1} runs as written and prints what it says`, () =>
      Effect.gen(function*() {
        const dir = path.join(root, ".readme")
        fs.mkdirSync(dir, { recursive: true })
        const file = path.join(dir, `block-${i + 1}.ts`)
        fs.writeFileSync(file, code)
        const { code: exit, stdout, stderr } = yield* Effect.async<{ code: number; stdout: string; stderr: string }>(
          (resume) => {
            execFile(process.execPath, [tsx, file], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) =>
              resume(Effect.succeed({ code: error ? 1 : 0, stdout, stderr })))
          }
        )
        assert.strictEqual(exit, 0, stderr)
        assert.deepStrictEqual(stdout.trim().split("\n"), expectedOutput(code))
      }), 60_000)
  })
})
