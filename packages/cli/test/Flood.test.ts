/**
 * A server that floods one command (test/fixtures/hostile-server.mjs): thousands of log notifications,
 * hundreds of sampling requests or elicitations. Standard error shows the first 10 log lines and requests of
 * the server, then one summary line when the command ends; another logger (an exporter's) still gets every
 * message, `--log-level debug` shows every line, and the command's result is whole.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cli, Output } from "@zett/cli"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Chatter from "../src/internal/chatter.js"
import { piped } from "./utils/process.js"
import { tempDir, writeFile } from "./utils/zett.js"

const here = Path.dirname(fileURLToPath(import.meta.url))
const fixture = Path.join(here, "fixtures", "hostile-server.mjs")

const configIn = (dir: string) =>
  writeFile(dir, "mcp.json", { mcpServers: { hostile: { command: process.execPath, args: [fixture] } } })

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** `zett ...args` in-process, with a second logger (as an exporter would add) that keeps every message. */
const zettLogged = (args: ReadonlyArray<string>, home: string) =>
  Effect.gen(function*() {
    const { captured, output } = Output.makeMemory()
    const logged: Array<string> = []
    const exporter = Logger.make(({ message }) =>
      void logged.push((Array.isArray(message) ? message : [message]).join(" "))
    )
    const code = yield* Cli.run(args).pipe(
      Effect.provideService(Output.Output, output),
      Effect.provide(Logger.add(exporter)),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["HOME", home]])))
    )
    return { code, stdout: captured.stdout(), stderr: captured.stderr(), logged }
  })

describe("a server's chatter is summarized on standard error", () => {
  it.scoped(
    "2,000 log notifications in one call: 10 lines and a summary on stderr, every one to another logger",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const run = yield* zettLogged(["call", "--config", configIn(home), "hostile__flood", `{"count":2000}`], home)
        assert.strictEqual(run.code, 0, run.stderr.slice(0, 2000))
        assert.deepStrictEqual(JSON.parse(run.stdout), [{ type: "text", text: "sent 2000" }])
        const printed = lines(run.stderr)
        const logLines = printed.filter((line) => line.startsWith("zett: info: MCP server hostile: log "))
        assert.deepStrictEqual(logLines.map((line) => /log (\d+)/.exec(line)![1]), [
          "0",
          "1",
          "2",
          "3",
          "4",
          "5",
          "6",
          "7",
          "8",
          "9"
        ])
        assert.strictEqual(printed.at(-1), "zett: … 1,990 more log messages from MCP server hostile (not shown)")
        assert.strictEqual(printed.length, 11, run.stderr)
        // nothing is lost for a logger that exports
        const exported = run.logged.filter((message) => message.startsWith("MCP server hostile: log "))
        assert.strictEqual(exported.length, 2000)
      }),
    180_000
  )

  it.scoped("--log-level debug shows every log line", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      const run = yield* zettLogged([
        "call",
        "--config",
        configIn(home),
        "--log-level",
        "debug",
        "hostile__flood",
        `{"count":30}`
      ], home)
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(
        lines(run.stderr).filter((line) => line.startsWith("zett: info: MCP server hostile: log ")).length,
        30
      )
      assert.notInclude(run.stderr, "more log messages")
    }), 180_000)

  it.scoped(
    "200 sampling requests in one piped call: 10 lines and a summary, each request answered",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const run = yield* piped(["call", "--config", configIn(home), "hostile__sample_many", `{"count":200}`], home, {
          ZETT_MODEL: "openai:gpt-4.1-mini",
          OPENAI_API_KEY: "sk-test",
          OPENAI_BASE_URL: "http://127.0.0.1:9/v1"
        })
        assert.strictEqual(run.code, 0, run.stderr)
        const answers = JSON.parse(JSON.parse(run.stdout)[0].text) as ReadonlyArray<string>
        assert.strictEqual(answers.length, 200)
        // declined (the first 5, with -1) or over the sampling limit (-32600): none was answered
        assert.deepStrictEqual([...new Set(answers)].sort(), ["error -1", "error -32600"])
        const printed = lines(run.stderr)
        assert.strictEqual(
          printed.filter((line) =>
            line.includes("asks the model") && line.endsWith("declined: zett is not running on a terminal")
          ).length,
          5
        )
        // the requests' own lines and the lines about them count together: 10 lines, then one summary
        assert.strictEqual(printed.length, 11, run.stderr)
        assert.strictEqual(
          printed.at(-1),
          "zett: … 195 more requests from MCP server hostile declined without asking",
          run.stderr
        )
      }),
    180_000
  )

  it.scoped(
    "200 elicitations in one piped call: 10 lines, then declined without a line each, and a summary",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const run = yield* piped(["call", "--config", configIn(home), "hostile__ask_many", `{"count":200}`], home)
        assert.strictEqual(run.code, 0, run.stderr)
        const answers = JSON.parse(JSON.parse(run.stdout)[0].text) as ReadonlyArray<string>
        assert.deepStrictEqual(answers, Array.from({ length: 200 }, () => "decline"))
        const printed = lines(run.stderr)
        const asked = printed.filter((line) => /^zett: MCP server hostile asks: "question \d+"; declined/.test(line))
        assert.deepStrictEqual(asked.map((line) => /question (\d+)/.exec(line)![1]), [
          "0",
          "1",
          "2",
          "3",
          "4",
          "5",
          "6",
          "7",
          "8",
          "9"
        ])
        assert.strictEqual(printed.at(-1), "zett: … 190 more requests from MCP server hostile declined without asking")
        assert.strictEqual(printed.length, 11, run.stderr)
      }),
    180_000
  )
})

describe("the limit is on what a server sends", () => {
  it.effect("zett's own lines about a flooding server all show; the server's own lines past the limit are counted", () =>
    Effect.gen(function*() {
      const { captured, output } = Output.makeMemory()
      const stderrLogger = Output.logger(output, Chatter.make(3))
      const server = (n: number) =>
        Effect.logInfo(`MCP server hostile: flood ${n}`).pipe(
          Effect.annotateLogs({ "mcp.server": "hostile", "mcp.stream": "log" })
        )
      const own = (n: number) =>
        Effect.logWarning(`MCP server hostile is unavailable ${n}`).pipe(
          Effect.annotateLogs({ "mcp.server": "hostile" })
        )
      yield* Effect.forEach([1, 2, 3, 4, 5], (n) => Effect.zipRight(server(n), own(n)), { discard: true }).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, stderrLogger))
      )
      const printed = lines(captured.stderr())
      assert.deepStrictEqual(printed.filter((line) => line.includes("flood")).length, 3)
      assert.deepStrictEqual(printed.filter((line) => line.includes("unavailable")).length, 5)
      // a server's log message reads as the server's, without the [server] prefix of its stderr lines
      assert.isFalse(printed.some((line) => line.includes("[hostile]")))
    }))
})
