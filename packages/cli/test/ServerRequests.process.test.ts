/**
 * `zett` answering a server's requests, as a real process against a real stdio server
 * (test/fixtures/asking-server.mjs): on a pseudo-terminal (`script` of util-linux) it asks field by field and
 * asks approval for sampling; piped, it declines; `--yes-defaults` answers with the form's defaults.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FakeProvider from "@zett/testing/FakeProvider"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { onTerminal, piped as zett, plain } from "./utils/process.js"
import { tempDir, writeFile } from "./utils/zett.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const asking = Path.join(here, "fixtures", "asking-server.mjs")
const node = process.execPath

const configIn = (home: string) =>
  writeFile(home, "mcp.json", JSON.stringify({ mcpServers: { asking: { command: node, args: [asking] } } }))

/**
 * `zett ...args` on a pseudo-terminal: each step's keys are typed once its prompt has shown (after the previous
 * step's). Standard error goes to the terminal too.
 */
const zettOnTerminal = (
  args: ReadonlyArray<string>,
  home: string,
  steps: ReadonlyArray<readonly [RegExp, string]>,
  env: Readonly<Record<string, string>> = {}
) =>
  Effect.suspend(() => {
    let step = 0
    let seenUpTo = 0
    return Effect.map(
      onTerminal(args, home, env, (printed, type) => {
        while (step < steps.length) {
          const [prompt, keys] = steps[step]!
          const match = prompt.exec(printed.slice(seenUpTo))
          if (match === null) break
          seenUpTo += match.index + match[0].length
          step++
          type(keys)
        }
      }),
      (run) => ({ ...run, typed: step })
    )
  })

/** The JSON the fixture's tool returned, from `zett call`'s output (the result's text block). */
const answered = (stdout: string): unknown => {
  const text = /"text": "((?:[^"\\]|\\.)*)"/.exec(stdout)?.[1]
  return text === undefined ? undefined : JSON.parse(JSON.parse(`"${text}"`))
}

describe("zett answers a server's requests", () => {
  it.scoped(
    "on a terminal a form is asked field by field, with types, choices and defaults shown",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const result = yield* zettOnTerminal(["call", "--config", configIn(home), "asking__ask"], home, [
          [/Answer asking\?/, "y"],
          [/Name \(string, required\): Your name/, "Ada\r"],
          [/Count \(integer, 1 to 9, optional, default 3\)/, "\r"],
          [/Color \(choose one, optional, default green\)/, "\r"],
          [/Subscribe \(boolean, optional, default false\)/, "y"],
          // an answer that does not match the field's format is asked again
          [/Email \(string, email, optional\)/, "nope\r"],
          [/must match format "email"/, "\u007f\u007f\u007f\u007fada@example.com\r"]
        ])
        const out = plain(result.stdout)
        assert.strictEqual(result.typed, 7, out)
        assert.strictEqual(result.code, 0, out)
        assert.include(out, "MCP server asking asks: \"Tell me about you\"")
        // the choices are listed, the default first
        assert.match(out, /green \(default\)[\s\S]*red[\s\S]*blue/)
        assert.deepStrictEqual(answered(out), {
          action: "accept",
          content: { name: "Ada", count: 3, color: "green", subscribe: true, email: "ada@example.com" }
        })
      })
  )

  it.scoped(
    "on a terminal, no declines; Ctrl-C answers cancel to the server and interrupts zett (exit 130)",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const declined = yield* zettOnTerminal(["call", "--config", configIn(home), "asking__ask"], home, [
          [/Answer asking\?/, "n"]
        ])
        assert.deepStrictEqual(answered(plain(declined.stdout)), { action: "decline" })
        const recorded = Path.join(home, "record.jsonl")
        const recording = writeFile(home, "recording.json", {
          mcpServers: { asking: { command: node, args: [asking], env: { ASKING_RECORD: recorded } } }
        })
        const cancelled = yield* zettOnTerminal(["call", "--config", recording, "asking__ask"], home, [
          [/Answer asking\?/, "y"],
          [/Name \(string/, "\u0003"]
        ])
        const out = plain(cancelled.stdout)
        assert.strictEqual(cancelled.code, 130, out)
        assert.include(out, "zett: interrupted")
        // the server heard the answer
        const events = () =>
          Fs.existsSync(recorded)
            ? Fs.readFileSync(recorded, "utf8").split("\n").filter((line) => line !== "").map((line) =>
              JSON.parse(line) as unknown
            )
            : []
        assert.isTrue(yield* Processes.eventually(() => events().length > 0, 30_000), "the server recorded nothing")
        assert.deepInclude(events(), { answered: { action: "cancel" } })
      })
  )

  it.scoped(
    "piped, a form is declined and zett says why; --yes-defaults answers a form whose required fields have defaults",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const config = configIn(home)
        const piped = yield* zett(["call", "--config", config, "asking__ask"], home)
        assert.strictEqual(piped.code, 0, piped.stderr)
        assert.deepStrictEqual(answered(piped.stdout), { action: "decline" })
        assert.include(
          piped.stderr,
          "zett: MCP server asking asks: \"Tell me about you\"; declined: zett is not running on a terminal (--yes-defaults answers with the defaults)"
        )

        const defaults = yield* zett(["call", "--config", config, "--yes-defaults", "asking__prefs"], home)
        assert.strictEqual(defaults.code, 0, defaults.stderr)
        assert.deepStrictEqual(answered(defaults.stdout), { action: "accept", content: { theme: "dark", size: 12.5 } })
        assert.include(defaults.stderr, "answered with the defaults (--yes-defaults)")

        // a required field without a default cannot be answered without asking
        const missing = yield* zett(["call", "--config", config, "--yes-defaults", "asking__ask"], home)
        assert.deepStrictEqual(answered(missing.stdout), { action: "decline" })
        assert.include(missing.stderr, "declined: zett is not running on a terminal and name has no default")
      })
  )

  it.scoped(
    "URL mode: the URL is printed on a terminal and the answer sent; piped, declined",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const config = configIn(home)
        const terminal = yield* zettOnTerminal(["call", "--config", config, "asking__open"], home, [[/Done with/, "y"]])
        const out = plain(terminal.stdout)
        assert.include(out, "MCP server asking asks you to open https://example.test/sign-in: \"Sign in, please\"")
        assert.deepStrictEqual(answered(out), { action: "accept" })
        const piped = yield* zett(["call", "--config", config, "asking__open"], home)
        assert.deepStrictEqual(answered(piped.stdout), { action: "decline" })
      })
  )

  it.scoped(
    "sampling in zett run: asked on a terminal, then answered by the run's model; piped, declined",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const config = configIn(home)
        const script = () => [
          FakeProvider.sse(
            FakeProvider.openAiEvents({ calls: [{ id: "call_1", name: "asking__sample", pieces: ["{}"] }] })
          ),
          FakeProvider.sse(FakeProvider.openAiEvents({ text: ["Hello from the model"] })),
          FakeProvider.sse(FakeProvider.openAiEvents({ text: ["done"] }))
        ]
        const openai = yield* FakeProvider.fakeProvider(script())
        const env = {
          ZETT_MODEL: "openai:gpt-4.1-mini",
          OPENAI_API_KEY: "sk-test",
          OPENAI_BASE_URL: `${openai.url}/v1`
        }
        const terminal = yield* zettOnTerminal(["run", "--config", config, "sample something"], home, [
          [/Let asking use the model\?/, "y"]
        ], env)
        const out = plain(terminal.stdout)
        assert.strictEqual(terminal.code, 0, out)
        assert.include(out, "MCP server asking asks the model (up to 50 tokens): \"Say hello\"")
        assert.include(out, "Hello from the model")
        // the server's request went to the model: user message "Say hello", no tools
        assert.deepStrictEqual(openai.requests[1]!.body.input, [{
          role: "user",
          content: [{ type: "input_text", text: "Say hello" }]
        }])

        const declinedProvider = yield* FakeProvider.fakeProvider([script()[0]!, script()[2]!])
        const piped = yield* zett(["run", "--config", config, "sample something"], home, {
          ...env,
          OPENAI_BASE_URL: `${declinedProvider.url}/v1`
        })
        assert.strictEqual(piped.code, 0, piped.stderr)
        assert.include(
          piped.stderr,
          "asks the model (up to 50 tokens): \"Say hello\"; declined: zett is not running on a terminal"
        )
        assert.include(piped.stdout, "the user declined it")
        assert.strictEqual(declinedProvider.requests.length, 2)
      })
  )

  it.scoped(
    "a question owns the terminal: the call's spinner draws no frame while it waits, and comes back after",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const frames = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/
        let latest = ""
        let askedAt: number | undefined
        let typedAt: number | undefined
        const result = yield* onTerminal(
          ["call", "--config", configIn(home), "asking__ask-then-work"],
          home,
          {},
          (printed, type) => {
            latest = printed
            if (askedAt !== undefined || !printed.includes("Answer asking?")) return
            askedAt = printed.length
            // long enough for several of the spinner's 80 ms frames, had it gone on drawing
            setTimeout(() => {
              typedAt = latest.length
              type("y")
            }, 600)
          }
        )
        const out = result.stdout
        assert.strictEqual(result.code, 0, out)
        assert.isDefined(askedAt, out)
        assert.isDefined(typedAt, out)
        assert.match(out.slice(0, askedAt), frames, "the spinner ran before the question")
        const waiting = out.slice(askedAt, typedAt)
        assert.notMatch(waiting, frames, JSON.stringify(waiting))
        // the tool works on for a second after the answer: the spinner is back
        assert.match(out.slice(typedAt), frames)
        assert.deepStrictEqual(answered(plain(out)), { action: "accept", content: {} })
      })
  )
})
