import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { McpConfiguration, McpInputs } from "@zett/mcp-config"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Source from "@zett/testing/Source"
import * as TempDir from "@zett/testing/TempDir"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
const blocks = Array.from(readme.matchAll(/```ts\n([\s\S]*?)```/g), (m) => m[1]!)
const jsonBlocks = Array.from(readme.matchAll(/```jsonc?\n([\s\S]*?)```/g), (m) => m[1]!)
// shell blocks written as a transcript: `$ command` lines followed by what they print
const transcripts = Array.from(readme.matchAll(/```sh\n(\$ [\s\S]*?)```/g), (m) => m[1]!)

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
            execFile(process.execPath, [...Source.nodeArgs, file], { cwd: root, timeout: 60_000 }, (error, stdout, stderr) =>
              resume(Effect.succeed({ code: error ? 1 : 0, stdout, stderr })))
          }
        )
        assert.strictEqual(exit, 0, stderr)
        assert.deepStrictEqual(stdout.trim().split("\n"), expectedOutput(code))
      }), 60_000)
  })

  jsonBlocks.forEach((text, i) => {
    it.scoped(`README configuration block ${i + 1} loads as written`, () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-readme-")
        // a block that names its file (`// .vscode/mcp.json`) is written there, with what it refers to
        const named = /^\/\/ (\S+)/.exec(text)?.[1]
        const file = path.join(dir, named ?? "mcp.json")
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, text)
        fs.writeFileSync(path.join(dir, ".env"), "")
        const snapshot = yield* McpConfiguration.fromFile(file)
        assert.isAbove(snapshot.servers.length, 0)
      }).pipe(Effect.provide(NodeContext.layer), Effect.provide(McpInputs.layerValues({ token: "t" }))))
  })

  transcripts.forEach((transcript, i) => {
    it.scopedLive(`README shell transcript ${i + 1} prints what it shows`, () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-readme-")
        const demo = path.join(root, "packages", "mcp", "examples", "demo-server.mjs")
        fs.writeFileSync(
          path.join(dir, "mcp.json"),
          JSON.stringify({ servers: { demo: { command: process.execPath, args: [demo] } } })
        )
        // `zett` from this workspace's sources (the installed bin runs the build)
        const bin = path.join(dir, "bin")
        fs.mkdirSync(bin)
        fs.writeFileSync(
          path.join(bin, "zett"),
          `#!/bin/sh\nexec "${process.execPath}" ${Source.zettArgs.map((arg) => `"${arg}"`).join(" ")} "$@"\n`,
          { mode: 0o755 }
        )
        const lines = transcript.trimEnd().split("\n")
        const command = lines[0]!.slice(2)
        const { stdout } = yield* Effect.async<{ stdout: string }>((resume) => {
          execFile("bash", ["-c", `{ ${command}; } 2>&1`], {
            cwd: dir,
            timeout: 60_000,
            env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }
          }, (_error, stdout) => resume(Effect.succeed({ stdout })))
        })
        assert.deepStrictEqual(stdout.trimEnd().split("\n"), lines.slice(1))
      }), 60_000)
  })
})
