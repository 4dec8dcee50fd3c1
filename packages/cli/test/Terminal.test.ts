/**
 * Text from a server is inert on the terminal: the control sequences of a hostile stdio server
 * (test/fixtures/hostile-server.mjs: window title, clear screen, OSC 52 clipboard write, a C1 CSI, DEL, a lone
 * ESC) are printed written out (`\x1b`, `\u009b`) in every table, in `read`, `prompt` and `call`, in its log
 * lines, its failures and its requests; `--json` output keeps them exactly. `zett` runs in-process against the
 * real server process; the requests' lines are those of a piped `zett` process.
 */
import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { inert } from "../src/internal/inert.js"
import { piped } from "./utils/process.js"
import { tempDir, writeFile, zett } from "./utils/zett.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const fixture = Path.join(here, "fixtures", "hostile-server.mjs")

// what the fixture puts in its texts
const hostile = "\u001b]0;owned\u0007\u001b[2J\u001b]52;c;b3duZWQ=\u0007\u009b31mred\u007f\u001b"
const shown = "\\x1b]0;owned\\x07\\x1b[2J\\x1b]52;c;b3duZWQ=\\x07\\u009b31mred\\x7f\\x1b"

/** A control character a terminal acts on: C0 but newline and tab, DEL, C1. */
const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

const configIn = (dir: string) =>
  writeFile(dir, "mcp.json", { mcpServers: { hostile: { command: process.execPath, args: [fixture] } } })

const assertInert = (text: string, where: string) => {
  const found = control.exec(text)
  assert.isNull(found, `${where}: a raw ${JSON.stringify(found?.[0])} in ${JSON.stringify(text)}`)
}

describe("text from a server is inert on the terminal", () => {
  it("inert writes out the control characters but newline and tab, and keeps Unicode text as it is", () => {
    assert.strictEqual(inert(hostile), shown)
    assert.strictEqual(inert("a\tb\nc"), "a\tb\nc")
    // CRLF text keeps its line ends; a lone carriage return (which could hide a line) does not
    assert.strictEqual(inert("one\r\ntwo\rthree"), "one\r\ntwo\\x0dthree")
    assert.strictEqual(inert("\u0000\u0085\u009f\u00a0"), "\\x00\\u0085\\u009f\u00a0")
    const unicode = "Grüße, 東京 👩‍💻 e\u0301 ‏שלום‏ ∑"
    assert.strictEqual(inert(unicode), unicode)
  })

  it.scoped(
    "tools, resources and prompts tables show the server's descriptions inert; --json keeps them exactly",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const config = configIn(dir)
        const tools = yield* zett(["tools", "--config", config], { env: { HOME: dir } })
        assert.strictEqual(tools.code, 0, tools.stderr)
        assertInert(tools.stdout + tools.stderr, "zett tools")
        assert.match(tools.stdout, /^ {2}hostile__echo\s+\d+ {2}Echoes \\x1b\]0;owned\\x07\\x1b\[2J/m)

        const json = yield* zett(["tools", "--config", config, "--json"], { env: { HOME: dir } })
        const echo = JSON.parse(json.stdout).servers[0].tools.find((tool: { name: string }) =>
          tool.name === "hostile__echo"
        )
        assert.strictEqual(echo.description, `Echoes ${hostile} text`)
        // the document as JSON.stringify wrote it: the C1 and DEL characters as they came
        assert.include(json.stdout, "\u009b31mred\u007f")

        const resources = yield* zett(["resources", "--config", config], { env: { HOME: dir } })
        assert.strictEqual(resources.code, 0, resources.stderr)
        assertInert(resources.stdout, "zett resources")
        assert.include(resources.stdout, "A resource \\x1b]0;owned")

        const prompts = yield* zett(["prompts", "--config", config], { env: { HOME: dir } })
        assert.strictEqual(prompts.code, 0, prompts.stderr)
        assertInert(prompts.stdout, "zett prompts")
        assert.include(prompts.stdout, "Greets \\x1b]0;owned")
      })
  )

  it.scoped(
    "read, prompt and call print the server's text inert; read --json and call's JSON keep its value",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const config = configIn(dir)
        const read = yield* zett(["read", "--config", config, "hostile", "hostile://text"], { env: { HOME: dir } })
        assert.strictEqual(read.code, 0, read.stderr)
        assert.strictEqual(read.stdout, `line one ${shown}\r\nline two\ttabbed\n`)
        const readJson = yield* zett(["read", "--config", config, "--json", "hostile", "hostile://text"], {
          env: { HOME: dir }
        })
        assert.strictEqual(JSON.parse(readJson.stdout).contents[0].text, `line one ${hostile}\r\nline two\ttabbed\n`)

        const prompt = yield* zett(["prompt", "--config", config, "hostile", "greet"], { env: { HOME: dir } })
        assert.strictEqual(prompt.code, 0, prompt.stderr)
        assert.strictEqual(prompt.stdout, `user: Hello ${shown}\n`)

        const call = yield* zett(["call", "--config", config, "hostile__echo"], { env: { HOME: dir } })
        assert.strictEqual(call.code, 0, call.stderr)
        assertInert(call.stdout, "zett call")
        assert.deepStrictEqual(JSON.parse(call.stdout), [{ type: "text", text: `said: ${hostile}` }])
      })
  )

  it.scoped(
    "zett run's transcript shows a tool's result and failure, and the model's text, inert",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const model = ScriptedModel.layer([
          { text: `Calling ${hostile}.`, toolCalls: [{ name: "hostile__echo" }, { name: "hostile__fail" }] },
          { text: "done" }
        ])
        const run = yield* zett(["run", "Go", "--config", configIn(dir)], { env: { HOME: dir }, model })
        assert.strictEqual(run.code, 0, run.stderr)
        assertInert(run.stdout, "the transcript")
        assert.include(run.stdout, `Calling ${shown}.`)
        assert.include(run.stdout, "← hostile__echo: ")
        assert.include(run.stdout, "\\u001b]0;owned\\u0007")
        assert.include(run.stdout, `← hostile__fail failed: `)
        assert.include(run.stdout, `broken ${shown}`)
      })
  )

  it.scoped("a failure and the server's log lines on standard error are inert", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = configIn(dir)
      const failed = yield* zett(["call", "--config", config, "hostile__fail"], { env: { HOME: dir } })
      assert.strictEqual(failed.code, 1)
      assertInert(failed.stderr, "a failed call")
      assert.include(failed.stderr, `zett: hostile__fail failed: broken ${shown}`)

      const logged = yield* zett(["call", "--config", config, "hostile__flood", `{"count":3}`], { env: { HOME: dir } })
      assert.strictEqual(logged.code, 0, logged.stderr)
      assertInert(logged.stderr, "log lines")
      assert.include(logged.stderr, `zett: info: MCP server hostile: log 2 ${shown}\n`)
    }))

  it.scoped("a request's message and fields are inert where zett says it declined", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const asked = yield* piped(["call", "--config", configIn(dir), "hostile__ask"], dir)
      assert.strictEqual(asked.code, 0, asked.stderr)
      assertInert(asked.stderr, "the declined request")
      // JSON.stringify quotes the message (its C0 controls as \u001b), inert writes out the rest
      assert.include(asked.stderr, "zett: MCP server hostile asks: \"Tell me \\u001b]0;owned\\u0007")
      assert.include(asked.stderr, "\\u009b31mred\\x7f\\u001b\"; declined")
    }))
})
