/**
 * `zett` as a real child process (from its sources, as `npm start` runs it) against real MCP servers from npm:
 * the bundled demo server, server-everything over stdio and Streamable HTTP on 127.0.0.1, server-filesystem
 * on a temporary folder. Output is piped, as in a script.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Source from "@zett/testing-core/Source"
import * as FakeProvider from "@zett/testing/FakeProvider"
import { faultyServer } from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import * as RecordingServer from "@zett/testing/RecordingServer"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { tempDir, terminalControl, writeFile } from "./utils/zett.js"

const require = createRequire(import.meta.url)
const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")
const demoServer = Path.join(root, "packages", "mcp", "examples", "demo-server.mjs")
const entry = (name: string) => Path.join(Path.dirname(require.resolve(`${name}/package.json`)), "dist", "index.js")
const everything = entry("@modelcontextprotocol/server-everything")
const filesystem = entry("@modelcontextprotocol/server-filesystem")
const node = process.execPath

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `zett ...args` (its sources) with piped output and an environment without any model or home config. */
const zett = (
  args: ReadonlyArray<string>,
  home: string,
  env: Readonly<Record<string, string>> = {}
): Effect.Effect<Run> =>
  Effect.async<Run>((resume) => {
    const child = ChildProcess.execFile(
      node,
      [...Source.zettArgs, ...args],
      { cwd: root, timeout: 100_000, env: { PATH: process.env.PATH ?? "", HOME: home, ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** Runs `zett ...args` on a pseudo-terminal (`script` of util-linux); `answer` is typed once `prompt` shows. */
const zettOnTerminal = (
  args: ReadonlyArray<string>,
  home: string,
  prompt: RegExp,
  answer: string
): Effect.Effect<Run> =>
  Effect.async<Run>((resume) => {
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`
    const command = [node, ...Source.zettArgs, ...args].map(quote).join(" ")
    const child = ChildProcess.spawn("script", ["-qefc", command, "/dev/null"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: home, TERM: "xterm" }
    })
    let stdout = ""
    let typed = false
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      if (!typed && prompt.test(stdout)) {
        typed = true
        child.stdin.write(`${answer}\r`)
      }
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 100_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, stdout, stderr: "" }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

describe("zett as a process", () => {
  it.scoped(
    "zett asks for a file's ${input:ID} on a terminal, hidden for a password, and the server gets it",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const recording = yield* RecordingServer.make()
        const config = writeFile(
          home,
          "mcp.json",
          JSON.stringify({
            inputs: [{ type: "promptString", id: "key", description: "API key", password: true }],
            mcpServers: { r: { url: recording.url("/mcp"), headers: { "X-Key": "${input:key}" } } }
          })
        )
        const typed = "typed-input-secret-81"
        const result = yield* zettOnTerminal(["tools", "--config", config], home, /API key \(key\)/, typed)
        assert.strictEqual(result.code, 0, result.stdout)
        assert.isTrue(
          recording.received.some((r) => r.headers["x-key"] === typed),
          JSON.stringify(recording.received.map((r) => r.headers["x-key"]))
        )
        // hidden: the terminal never shows what was typed
        assert.notInclude(result.stdout, typed)
        assert.match(result.stdout, /r\s+streamable-http\s+.*ok/)
      })
  )

  it.scoped(
    "zett tools: a tool nesting 5,000 levels is skipped with a warning, and every server is still reported",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const config = writeFile(
          home,
          "mcp.json",
          JSON.stringify({
            mcpServers: {
              deep: { command: node, args: [faultyServer, "--fault=deep-schema", "--name=deep"] },
              loose: { command: node, args: [faultyServer, "--fault=untyped-schema", "--name=loose"] },
              demo: { command: node, args: [demoServer] }
            }
          })
        )
        const result = yield* zett(["tools", "--config", config], home)
        assert.strictEqual(result.code, 0, result.stderr)
        assert.match(result.stdout, /^deep\s+stdio\s+.*\s3\s+\d+\s+ok$/m)
        assert.match(result.stdout, /^demo\s+stdio\s+.*\s3\s+\d+\s+ok$/m)
        assert.include(
          result.stderr,
          "MCP server deep: tool deep is skipped: its input schema nests deeper than 128 levels"
        )
        assert.notInclude(result.stdout + result.stderr, "internal error")
        // a schema without `type` is an object schema (the SDK alone drops such a tool)
        assert.match(result.stdout, /^loose\s+stdio\s+.*\s4\s+\d+\s+ok$/m)
        const call = yield* zett(["call", "--config", config, "loose__loose", "{\"x\": \"y\"}"], home)
        assert.strictEqual(call.code, 0, call.stderr)
        assert.deepStrictEqual(JSON.parse(call.stdout), { called: "loose" })
      })
  )

  it.scoped(
    "zett demo end to end (npm start): real stdio server, scripted model, exit 0, no server process left",
    () =>
      Effect.gen(function*() {
        const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
        assert.strictEqual(
          pkg.scripts.start,
          "node --conditions=@zett/source --import tsx packages/cli/src/main.ts demo"
        )
        const home = yield* tempDir
        const result = yield* zett(["demo", "--log-level", "debug"], home)
        assert.strictEqual(result.code, 0, result.stderr)
        const out = lines(result.stdout)
        assert.match(result.stdout, /^demo\s+stdio\s+2026-07-28\s+[\d.]+ m?s\s+3\s+\d+\s+ok$/m)
        for (const name of ["demo__add", "demo__weather", "demo__fail"]) assert.include(result.stdout, `  ${name} `)
        const transcript = out.slice(out.indexOf(`> What is 2 + 40? Use the demo server's add tool.`))
        assert.deepStrictEqual(transcript, [
          "> What is 2 + 40? Use the demo server's add tool.",
          "I'll ask the demo server.",
          "→ demo__add {\"a\":2,\"b\":40}",
          "← demo__add: {\"sum\":42}",
          "2 + 40 = 42",
          "Answer: 2 + 40 = 42",
          "MCP connections: 2 opened, 2 closed; no server process left (2 started)."
        ])
        assert.notMatch(result.stdout + result.stderr, terminalControl)
        // the server processes zett saw (debug log) are gone, checked here from outside
        const pids = Array.from(result.stderr.matchAll(/MCP server demo runs as process (\d+)/g), (m) => Number(m[1]))
        assert.strictEqual(pids.length, 2, result.stderr)
        assert.deepStrictEqual(Processes.livePids(pids), [])
      })
  )

  it.scoped(
    "zett demo with ZETT_MODEL uses that model (OpenAI Responses API on 127.0.0.1) instead of the script",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const key = "sk-zett-cli-test-0123456789SECRET"
        const openai = yield* FakeProvider.fakeProvider([
          FakeProvider.sse(FakeProvider.openAiEvents({
            calls: [{ id: "call_1", name: "demo__add", pieces: ["{\"a\":2,", "\"b\":40}"] }]
          })),
          FakeProvider.sse(FakeProvider.openAiEvents({ text: ["The demo server says 42."] }))
        ])
        const result = yield* zett(["demo"], home, {
          ZETT_MODEL: "openai:gpt-4.1-mini",
          OPENAI_API_KEY: key,
          OPENAI_BASE_URL: `${openai.url}/v1`
        })
        assert.strictEqual(result.code, 0, result.stderr)
        const out = lines(result.stdout)
        assert.include(out, "Model: openai:gpt-4.1-mini")
        assert.deepStrictEqual(out.slice(out.indexOf("→ demo__add {\"a\":2,\"b\":40}")), [
          "→ demo__add {\"a\":2,\"b\":40}",
          "← demo__add: {\"sum\":42}",
          "The demo server says 42.",
          "Answer: The demo server says 42.",
          "MCP connections: 2 opened, 2 closed; no server process left (2 started)."
        ])
        assert.strictEqual(openai.requests.length, 2)
        assert.include(openai.requests[0]!.body.tools.map((tool: { name: string }) => tool.name), "demo__add")
        assert.deepStrictEqual(openai.requests[1]!.body.input.at(-1), {
          type: "function_call_output",
          call_id: "call_1",
          output: "{\"sum\":42}"
        })
        assert.deepStrictEqual(openai.requests.map((r) => r.headers.authorization), [`Bearer ${key}`, `Bearer ${key}`])
        assert.notInclude(result.stdout + result.stderr, key)
      })
  )

  it.scoped(
    "zett tools --config FILE: server-everything (stdio, HTTP), server-filesystem, a broken entry",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const files = yield* tempDir
        Fs.writeFileSync(Path.join(files, "note.txt"), "forty-two\n")
        const marker = `--zett-cli-marker-${process.pid}-${Date.now()}`
        const port = yield* Processes.freePort
        const http = yield* Processes.spawnScoped({
          command: node,
          args: [everything, "streamableHttp"],
          env: { PORT: String(port) },
          ready: /listening on port/
        })
        const config = writeFile(home, "mcp.json", {
          mcpServers: {
            everything: { command: node, args: [everything, "stdio", marker] },
            "everything-http": { type: "streamable-http", url: `http://127.0.0.1:${port}/mcp` },
            fs: { command: node, args: [filesystem, files] },
            broken: { command: "/nonexistent/zett-missing-server" }
          }
        })

        const json = yield* zett(["tools", "--config", config, "--json"], home)
        assert.strictEqual(json.code, 1, json.stderr)
        const report = JSON.parse(json.stdout)
        const byName = Object.fromEntries(report.servers.map((s: { name: string }) => [s.name, s]))
        assert.deepStrictEqual(Object.keys(byName), ["everything", "everything-http", "fs", "broken"])
        assert.deepStrictEqual(
          report.servers.map((s: { transport: string; status: string }) => [s.transport, s.status]),
          [["stdio", "ok"], ["streamable-http", "ok"], ["stdio", "ok"], ["stdio", "unavailable"]]
        )
        const names = (server: { tools: ReadonlyArray<{ name: string }> }) => server.tools.map((t) => t.name)
        assert.include(names(byName.everything), "everything__echo")
        assert.deepStrictEqual(
          names(byName["everything-http"]).map((n: string) => n.replace("everything-http__", "")),
          names(byName.everything).map((n: string) => n.replace("everything__", ""))
        )
        assert.include(names(byName.fs), "fs__list_directory")
        for (const server of [byName.everything, byName["everything-http"], byName.fs]) {
          assert.isAbove(server.toolCount, 0)
          assert.isAbove(server.tokens, server.toolCount * 10)
          assert.isAbove(server.discoveryMillis, 0)
        }
        assert.include(byName.broken.reason, "ENOENT")
        assert.deepStrictEqual(lines(json.stderr), [
          "zett: 1 of 4 MCP servers unavailable: broken (cannot start /nonexistent/zett-missing-server (ENOENT))"
        ])
        assert.deepStrictEqual([...Processes.liveWithCommand(marker), ...Processes.liveWithCommand(files)], [])
        // the HTTP session was ended (DELETE) when discovery closed its connection
        assert.isTrue(
          yield* Processes.eventually(() => http.output().includes("Received session termination request")),
          http.output()
        )

        const table = yield* zett(["tools", "--config", config], home)
        assert.strictEqual(table.code, 1)
        // piped: no spinner, no escape codes, no carriage returns
        assert.notMatch(table.stdout + table.stderr, terminalControl)
        assert.match(table.stdout, /^everything-http\s+streamable-http\s+2025-11-25\s+[\d.]+ m?s\s+\d+\s+\d+\s+ok$/m)
        assert.match(table.stdout, /^broken\s+stdio\s+.*unavailable: cannot start/m)
        assert.strictEqual(lines(table.stderr).length, 1)
        assert.deepStrictEqual([...Processes.liveWithCommand(marker), ...Processes.liveWithCommand(files)], [])
      }),
    // two whole zett runs against three real servers: 8 s here alone, over 60 s on CI beside the other jobs
    180_000
  )

  it.scoped(
    "zett call: exit 0 with the result, 2 for invalid JSON and for a bad configuration, one line each",
    () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const marker = `--zett-cli-call-${process.pid}-${Date.now()}`
        const config = writeFile(home, "mcp.json", { servers: { demo: { command: node, args: [demoServer, marker] } } })
        const [ok, invalid, bad] = yield* Effect.all([
          zett(["call", "demo__add", "{\"a\":1,\"b\":2}", "--config", config], home),
          zett(["call", "demo__add", "{\"a\":", "--config", config], home),
          zett(["tools", "--config", writeFile(home, "bad.json", { servers: { x: { type: "http" } } })], home)
        ], { concurrency: "unbounded" })
        assert.strictEqual(ok.code, 0, ok.stderr)
        assert.deepStrictEqual(JSON.parse(ok.stdout), { sum: 3 })
        assert.strictEqual(invalid.code, 2)
        assert.strictEqual(invalid.stdout, "")
        assert.strictEqual(lines(invalid.stderr).length, 1)
        assert.match(invalid.stderr, /^zett: the tool's arguments are not valid JSON \(/)
        assert.strictEqual(bad.code, 2)
        assert.deepStrictEqual(lines(bad.stderr).length, 1)
        assert.match(bad.stderr, new RegExp(`^zett: ${home}/bad\\.json: servers\\.x`))
        assert.deepStrictEqual(Processes.liveWithCommand(marker), [])
      })
  )
})
