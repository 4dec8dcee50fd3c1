/**
 * Every feature works against server-everything, from `zett`: the real `zett` as a child process against the real
 * server-everything over stdio, its `trigger-elicitation-request` form on a pseudo-terminal (`script` of
 * util-linux) and piped, its conditional tools listed, and `trigger-sampling-request` answered by the configured
 * model (the fake OpenAI provider) once approved.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FakeProvider from "@zett/testing/FakeProvider"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { onTerminal as terminal, piped, plain } from "./utils/process.js"
import type { Run } from "./utils/process.js"
import { tempDir, writeFile } from "./utils/zett.js"

/**
 * `zett ...args` on a pseudo-terminal: each step's keys are typed once its prompt has shown (after the previous
 * step's). Standard error reaches the terminal too.
 */
const onTerminal = (
  args: ReadonlyArray<string>,
  home: string,
  steps: ReadonlyArray<readonly [RegExp, string]>,
  env: Readonly<Record<string, string>> = {}
) =>
  Effect.suspend(() => {
    let step = 0
    let seenUpTo = 0
    return Effect.map(
      terminal(args, home, env, (printed, type) => {
        while (step < steps.length) {
          const [prompt, keys] = steps[step]!
          if (prompt.exec(plain(printed.slice(seenUpTo))) === null) break
          // a prompt is drawn again as keys are typed: what came before the keys is not looked at again
          seenUpTo = printed.length
          step++
          type(keys)
        }
      }),
      (run) => ({ ...run, typed: step })
    )
  })

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)
const node = process.execPath

/** What server-everything received, from the tool's own "Raw result" text block. */
const received = (stdout: string): unknown => {
  const raw = /Raw result: ((?:[^"\\]|\\.)*)"/.exec(stdout)?.[1]
  return raw === undefined ? undefined : JSON.parse(JSON.parse(`"${raw}"`))
}

const tool = "everything__trigger-elicitation-request"
const down = "\u001b[B"

/** A configuration with server-everything over stdio, marked so that its processes can be found. */
const setup = Effect.gen(function*() {
  const home = yield* tempDir
  const marker = `--zett-everything-asks-${process.pid}-${Date.now()}`
  const config = writeFile(home, "mcp.json", {
    mcpServers: { everything: { command: node, args: [everything, "stdio", marker] } }
  })
  return { home, marker, config }
})

describe.sequential("zett answers server-everything's requests", () => {
  it.scoped(
    "on a terminal zett asks server-everything's form field by field; the server gets the answers",
    () =>
      Effect.gen(function*() {
        const { config, home, marker } = yield* setup
        // each prompt shows the field's title, type, format, range, whether it is required and its default
        const result = yield* onTerminal(["call", "--config", config, tool], home, [
          [/Answer everything\?/, "y"],
          [/String \(string, required\): Your full, legal name/, "Ada Lovelace\r"],
          [/Boolean \(boolean, optional\): Agree to the terms and conditions/, "y"],
          [/String with default \(string, optional, default It was a dark and stormy night\.\)/, "\r"],
          [/String with email format \(string, email, optional\)/, "ada@example.com\r"],
          [/String with uri format \(string, uri, optional\)/, "https://ada.example.com\r"],
          [/String with date format \(string, date, optional\)/, "1815-12-10\r"],
          [/Integer \(integer, 1 to 100, optional, default 42\)/, "7\r"],
          [/Number in range 1-1000 \(number, 0 to 1000, optional, default 3\.14\)/, "\r"],
          // choices: the default first, then the others; down picks the next one
          [
            /Untitled Single Select Enum \(choose one, optional, default Monica\)[\s\S]*Monica \(default\)[\s\S]*Rachel[\s\S]*Phoebe/,
            `${down}\r`
          ],
          // all five are more than the form's maxItems: refused on the spot, then (below "Select None" and
          // "Inverse Selection") Guitar, then Piano
          [
            /Untitled Multiple Select Enum \(choose any, 1 to 3 choices, optional, default Guitar\)[\s\S]*Guitar \(default\)[\s\S]*Bass/,
            " \r"
          ],
          [/At most 3 choices are allowed/, ` ${down}${down}${down} \r`],
          // titled choices show their titles
          [
            /Titled Single Select Enum \(choose one, optional, default hero-1\)[\s\S]*Superman \(default\)[\s\S]*Wonder Woman/,
            "\r"
          ],
          // its default is ticked when asked (☒ on this terminal, [*] on Windows'): enter sends what is shown
          [
            /Titled Multiple Select Enum \(choose any, 1 to 3 choices, optional, default fish-1\)[\s\S]*(☒|\[\*\]) Tuna \(default\)[\s\S]*(☐|\[ \]) Trout/,
            "\r"
          ],
          [
            /Legacy Titled Single Select Enum \(choose one, optional, default pet-1\)[\s\S]*Cats \(default\)[\s\S]*Dogs/,
            `${down}\r`
          ]
        ])
        const out = plain(result.stdout)
        assert.strictEqual(result.typed, 15, out)
        assert.strictEqual(result.code, 0, out)
        assert.include(out, "MCP server everything asks: \"Please provide inputs for the following fields:\"")
        // the tool's own summary of what it received
        assert.include(out, "✅ User provided the requested information!")
        assert.include(
          out,
          "User inputs:\\n- Name: Ada Lovelace\\n- Agreed to terms: true\\n- Email: ada@example.com\\n- Homepage: https://ada.example.com\\n- Birthdate: 1815-12-10\\n- Favorite Integer: 7\\n- Favorite Number: 3.14"
        )
        assert.deepStrictEqual(received(out), {
          action: "accept",
          content: {
            name: "Ada Lovelace",
            check: true,
            firstLine: "It was a dark and stormy night.",
            email: "ada@example.com",
            homepage: "https://ada.example.com",
            birthdate: "1815-12-10",
            integer: 7,
            number: 3.14,
            untitledSingleSelectEnum: "Rachel",
            untitledMultipleSelectEnum: ["Piano"],
            titledSingleSelectEnum: "hero-1",
            titledMultipleSelectEnum: ["fish-1"],
            legacyTitledEnum: "pet-2"
          }
        })
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )

  it.scoped(
    "on a terminal with --yes-defaults zett asks only for the field without a default; the server gets every default",
    () =>
      Effect.gen(function*() {
        const { config, home, marker } = yield* setup
        const result = yield* onTerminal(["call", "--config", config, "--yes-defaults", tool], home, [
          [/Answer everything\?/, "y"],
          [/String \(string, required\): Your full, legal name/, "Ada Lovelace\r"]
        ])
        const out = plain(result.stdout)
        assert.strictEqual(result.typed, 2, out)
        assert.strictEqual(result.code, 0, out)
        assert.notInclude(out, "Boolean (boolean")
        assert.notInclude(out, "Integer (integer")
        assert.include(out, "User inputs:\\n- Name: Ada Lovelace\\n- Favorite Integer: 42\\n- Favorite Number: 3.14")
        // the schema's defaults were filled in (a field without one, like check, is left out)
        assert.deepStrictEqual(received(out), {
          action: "accept",
          content: {
            name: "Ada Lovelace",
            firstLine: "It was a dark and stormy night.",
            integer: 42,
            number: 3.14,
            untitledSingleSelectEnum: "Monica",
            untitledMultipleSelectEnum: ["Guitar"],
            titledSingleSelectEnum: "hero-1",
            titledMultipleSelectEnum: ["fish-1"],
            legacyTitledEnum: "pet-1"
          }
        })
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )

  it.scoped(
    "piped, server-everything's form is declined, with --yes-defaults too (name has no default); zett says why",
    () =>
      Effect.gen(function*() {
        const { config, home, marker } = yield* setup
        const asked =
          "zett: MCP server everything asks: \"Please provide inputs for the following fields:\"; declined: zett is not running on a terminal"
        const declined = "❌ User declined to provide the requested information."

        const plainly = yield* piped(["call", "--config", config, tool], home)
        assert.strictEqual(plainly.code, 0, plainly.stderr)
        assert.deepStrictEqual(plainly.stderr.split("\n").filter((line) => line !== ""), [
          `${asked} (--yes-defaults answers with the defaults)`
        ])
        assert.strictEqual(JSON.parse(plainly.stdout)[0].text, declined)
        assert.deepStrictEqual(received(plainly.stdout), { action: "decline" })

        const defaults = yield* piped(["call", "--config", config, "--yes-defaults", tool], home)
        assert.strictEqual(defaults.code, 0, defaults.stderr)
        assert.deepStrictEqual(defaults.stderr.split("\n").filter((line) => line !== ""), [
          `${asked} and name has no default`
        ])
        assert.strictEqual(JSON.parse(defaults.stdout)[0].text, declined)
        assert.deepStrictEqual(received(defaults.stdout), { action: "decline" })
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )

  /** `zett`'s model: the fake OpenAI provider answering each request with `text`. */
  const model = (texts: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      const openai = yield* FakeProvider.fakeProvider(
        texts.map((text) => FakeProvider.sse(FakeProvider.openAiEvents({ text: [text] })))
      )
      const env = {
        ZETT_MODEL: "openai:gpt-4.1-mini",
        OPENAI_API_KEY: "sk-zett-everything-test",
        OPENAI_BASE_URL: `${openai.url}/v1`
      }
      return { openai, env }
    })

  it.scoped(
    "zett tools lists server-everything's conditional tools: elicitation always, sampling once a model is configured",
    () =>
      Effect.gen(function*() {
        const { config, home, marker } = yield* setup
        const names = (run: Run) =>
          JSON.parse(run.stdout).servers[0].tools.map((t: { name: string }) => t.name) as Array<string>
        const without = yield* piped(["tools", "--json", "--config", config], home)
        assert.strictEqual(without.code, 0, without.stderr)
        assert.includeMembers(names(without), ["everything__echo", tool, "everything__trigger-url-elicitation"])
        assert.notInclude(names(without), "everything__trigger-sampling-request")

        const { env, openai } = yield* model([])
        const withModel = yield* piped(["tools", "--json", "--config", config], home, env)
        assert.strictEqual(withModel.code, 0, withModel.stderr)
        assert.includeMembers(names(withModel), [
          tool,
          "everything__trigger-url-elicitation",
          "everything__trigger-sampling-request"
        ])
        // listing asks the model nothing
        assert.strictEqual(openai.requests.length, 0)
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )

  it.scoped(
    "zett call everything__trigger-sampling-request: approved on a terminal, the model answers; piped, declined",
    () =>
      Effect.gen(function*() {
        const { config, home, marker } = yield* setup
        const sampling = "everything__trigger-sampling-request"
        const { env, openai } = yield* model(["Hello from the model"])
        const terminal = yield* onTerminal(
          ["call", "--config", config, sampling, JSON.stringify({ prompt: "say hi", maxTokens: 60 })],
          home,
          [
            [/Let everything use the model\?/, "y"]
          ],
          env
        )
        const out = plain(terminal.stdout)
        assert.strictEqual(terminal.typed, 1, out)
        assert.strictEqual(terminal.code, 0, out)
        assert.include(
          out,
          "MCP server everything asks the model (up to 60 tokens): \"Resource trigger-sampling-request context: say hi\""
        )
        // the tool's result shows what it got back: the model's text (JSON inside the JSON of the text block)
        assert.match(out, /LLM sampling result: \\n\{[\s\S]*\\"text\\": \\"Hello from the model\\"/)
        // the server's request went to the model as it was: its system prompt and message, no tools
        assert.strictEqual(openai.requests.length, 1)
        assert.deepStrictEqual(openai.requests[0]!.body.input, [
          { role: "system", content: "You are a helpful test server." },
          { role: "user", content: [{ type: "input_text", text: "Resource trigger-sampling-request context: say hi" }] }
        ])
        assert.isUndefined(openai.requests[0]!.body.tools)
        assert.notInclude(out, env.OPENAI_API_KEY)

        const { env: env2, openai: unused } = yield* model(["never"])
        const declined = yield* piped(
          ["call", "--config", config, sampling, JSON.stringify({ prompt: "say hi", maxTokens: 60 })],
          home,
          env2
        )
        // server-everything fails its tool when sampling is refused: zett exits 1 and says why
        assert.strictEqual(declined.code, 1, declined.stderr)
        assert.strictEqual(declined.stdout, "")
        assert.deepStrictEqual(declined.stderr.split("\n").filter((line) => line !== ""), [
          "zett: MCP server everything asks the model (up to 60 tokens): \"Resource trigger-sampling-request context: say hi\"; declined: zett is not running on a terminal",
          "zett: warning: sampling request of MCP server everything refused: the user declined it",
          "zett: everything__trigger-sampling-request failed: MCP error -1: sampling request of MCP server everything refused: the user declined it"
        ])
        assert.strictEqual(unused.requests.length, 0)
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )
})
