/**
 * `zett call` and `zett run` as real child processes against server-everything's
 * `trigger-long-running-operation`, on a pseudo-terminal (`script` of util-linux records what the terminal got)
 * and piped.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FakeProvider from "@zett/testing/FakeProvider"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { onTerminal, piped } from "./utils/process.js"
import { tempDir, terminalControl, writeFile } from "./utils/zett.js"

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)
const node = process.execPath

const tool = "everything__trigger-long-running-operation"
const args = JSON.stringify({ duration: 2, steps: 4 })
const completed = "Long running operation completed. Duration: 2 seconds, Steps: 4."
const bar = (n: number) => {
  const filled = Math.round((n / 4) * 20)
  return `${tool} [${"█".repeat(filled)}${"░".repeat(20 - filled)}] ${n}/4 ${n * 25}%`
}

/** A configuration with server-everything over stdio, marked so that its processes can be found. */
const setup = Effect.gen(function*() {
  const home = yield* tempDir
  const marker = `--zett-progress-marker-${process.pid}-${Date.now()}`
  const config = writeFile(home, "mcp.json", {
    mcpServers: { everything: { command: node, args: [everything, "stdio", marker] } }
  })
  return { home, marker, config }
})

describe.sequential("progress on a terminal and piped", () => {
  it.scoped(
    "zett call on a terminal draws the operation's progress; nothing is left running",
    () =>
      Effect.gen(function*() {
        const { config, home, marker } = yield* setup
        const result = yield* onTerminal(["call", "--config", config, tool, args], home)
        assert.strictEqual(result.code, 0, result.stdout)
        // the spinner shows the bar from the first report on (the last one may be replaced by the result at once)
        assert.include(result.stdout, bar(1))
        assert.include(result.stdout, bar(3))
        assert.include(result.stdout, completed)
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )

  it.scoped(
    "zett call piped prints the result alone: no bar, no escape code, no carriage return",
    () =>
      Effect.gen(function*() {
        const { config, home } = yield* setup
        const result = yield* piped(["call", "--config", config, tool, args], home)
        assert.strictEqual(result.code, 0, result.stderr)
        assert.deepStrictEqual(JSON.parse(result.stdout), [{ type: "text", text: completed }])
        assert.notMatch(result.stdout + result.stderr, terminalControl)
        assert.notInclude(result.stderr, "░")
      })
  )

  const model = Effect.gen(function*() {
    const openai = yield* FakeProvider.fakeProvider([
      FakeProvider.sse(FakeProvider.openAiEvents({ calls: [{ id: "call_1", name: tool, pieces: [args] }] })),
      FakeProvider.sse(FakeProvider.openAiEvents({ text: ["It ran."] }))
    ])
    return {
      ZETT_MODEL: "openai:gpt-4.1-mini",
      OPENAI_API_KEY: "sk-zett-progress-test",
      OPENAI_BASE_URL: `${openai.url}/v1`
    }
  })

  it.scoped(
    "zett run on a terminal draws each report as a bar and erases it before the result",
    () =>
      Effect.gen(function*() {
        const { config, home, marker } = yield* setup
        const result = yield* onTerminal(["run", "Run it.", "--config", config], home, yield* model)
        assert.strictEqual(result.code, 0, result.stdout)
        const screen = result.stdout
        for (const n of [1, 2, 3, 4]) assert.include(screen, `\r\u001b[2K${bar(n)}`)
        // the line is erased, and then the transcript shows the result
        assert.include(screen, `${bar(4)}\r\u001b[2K← ${tool}: `)
        assert.include(screen, "It ran.")
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )

  it.scoped("zett run piped shows the transcript alone", () =>
    Effect.gen(function*() {
      const { config, home } = yield* setup
      const result = yield* piped(["run", "Run it.", "--config", config], home, yield* model)
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(result.stdout.split("\n").filter((line) => line !== ""), [
        `→ ${tool} ${args}`,
        `← ${tool}: ${JSON.stringify([{ type: "text", text: completed }])}`,
        "It ran."
      ])
      assert.notMatch(result.stdout + result.stderr, terminalControl)
    }))
})
