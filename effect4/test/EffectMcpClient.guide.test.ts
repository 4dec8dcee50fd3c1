/**
 * The guide for an app that moves from `effect/ai`'s `McpClient` to Zett's 4 line
 * (docs/guides/effect4-mcpclient.md): its `typescript` blocks (the 3 line's README test runs only `ts` blocks)
 * compiled together with this workspace's strict settings, and each run as written with this Node (22) from a folder
 * of this workspace, printing what it says it prints (`console.log(...) // <what>`). The blocks start
 * server-everything from npm, as an installed app would.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const require = createRequire(import.meta.url)
const guide = Path.join(import.meta.dirname, "..", "..", "docs", "guides", "effect4-mcpclient.md")
const blocks = Array.from(Fs.readFileSync(guide, "utf8").matchAll(/```typescript\n([\s\S]*?)```/g), (m) => m[1]!)

/** What a block says it prints, in order. */
const expected = (code: string) => Array.from(code.matchAll(/console\.log\(.*\) \/\/ (.+)$/gm), (m) => m[1]!)

// the packages from their TypeScript sources, as the driver's tests start children (@zett/testing-core/Source)
const nodeArgs = [
  "--conditions=@zett/source",
  "--experimental-transform-types",
  "--no-warnings=ExperimentalWarning",
  "--import",
  pathToFileURL(Path.join(import.meta.dirname, "..", "packages", "testing-core", "src", "sourceHooks.mjs")).href
]

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.callback<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = ChildProcess.execFile(
      command,
      [...args],
      { cwd, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : (error.code as number | null) ?? 1, stdout, stderr }))
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** A folder of this workspace (so the blocks resolve its packages) holding the blocks, removed after the test. */
const folder = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = Fs.mkdtempSync(Path.join(import.meta.dirname, ".guide-"))
    Fs.writeFileSync(Path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }))
    Fs.writeFileSync(
      Path.join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../tsconfig.base.json",
        include: ["*.ts"],
        compilerOptions: {
          types: ["node"],
          noEmit: true,
          composite: false,
          incremental: false,
          declaration: false,
          declarationMap: false
        }
      })
    )
    blocks.forEach((code, i) => Fs.writeFileSync(Path.join(dir, `block${i + 1}.ts`), code))
    return dir
  }),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

describe("docs/guides/effect4-mcpclient.md on the Effect 4 line", () => {
  it("has the before, the after and the definitions, each saying what it prints", () => {
    assert.strictEqual(blocks.length, 3)
    for (const code of blocks) assert.isAbove(expected(code).length, 0, code)
    assert.include(blocks[0], `from "effect/ai"`)
    assert.include(blocks[1], `from "@zett/mcp/McpToolkit"`)
  })

  it.live(
    "its blocks compile together (strict) and each prints what it says",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const dir = yield* folder
        const tsc = yield* run(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.json"], dir)
        assert.strictEqual(tsc.code, 0, `${tsc.stdout}${tsc.stderr}`)
        for (const [i, code] of blocks.entries()) {
          const ran = yield* run(process.execPath, [...nodeArgs, `block${i + 1}.ts`], dir)
          assert.strictEqual(ran.code, 0, `block ${i + 1}: ${ran.stderr}`)
          assert.deepStrictEqual(ran.stdout.trim().split("\n"), expected(code), `block ${i + 1}`)
        }
      })),
    180_000
  )
})
