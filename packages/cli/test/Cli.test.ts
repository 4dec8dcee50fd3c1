/**
 * The `zett` command run in-process: fake MCP servers behind the client factory, a captured output, and
 * scripted models. (Real servers and real processes: Cli.process.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import { type Message, Model, ScriptedModel } from "@zett/agent"
import { Cli, EnvironmentModel } from "@zett/cli"
import { McpExtension, McpTool } from "@zett/mcp"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { countTokens } from "gpt-tokenizer/encoding/o200k_base"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import {
  awaitSleeps,
  demoCall,
  demoTools,
  fakeFactory,
  httpConfig,
  tempDir,
  terminalControl,
  text,
  tool,
  writeFile,
  zett
} from "./utils/zett.js"

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

// what the model sees of a tool (after the schema cleanup: no title, $schema), in o200k_base, all of it as text
const definitionJson = (tool: McpTool.McpTool): string =>
  JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters })
const definitionTokens = (tool: McpTool.McpTool) => countTokens(definitionJson(tool), { disallowedSpecial: new Set() })

describe("zett tools", () => {
  it.scoped("lists every server with transport, status, time, tool count and tokens (o200k_base); exit 0", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo", "docs"])
      const { factory, stats } = fakeFactory({
        demo: { tools: demoTools },
        docs: { tools: [tool("search", { type: "object", properties: { q: { type: "string" } } }, "Search the docs")] }
      })
      const result = yield* zett(["tools", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stderr, "")
      const out = lines(result.stdout)
      assert.strictEqual(out[0], `MCP servers in ${config}`)
      assert.match(out[1]!, /^SERVER\s+TRANSPORT\s+PROTOCOL\s+TIME\s+TOOLS\s+TOKENS\s+STATUS$/)
      const demoTokens = demoTools
        .map((t) => definitionTokens(McpTool.fromTool("demo", t, { namespace: true })))
        .reduce((a, b) => a + b, 0)
      assert.match(out[2]!, new RegExp(`^demo\\s+streamable-http\\s+-\\s+\\d+ ms\\s+2\\s+${demoTokens}\\s+ok$`))
      assert.match(out[3]!, /^docs\s+streamable-http\s+-\s+\d+ ms\s+1\s+\d+\s+ok$/)
      // the exposed names, each with its own count and description
      const add = definitionTokens(McpTool.fromTool("demo", demoTools[0]!, { namespace: true }))
      assert.match(result.stdout, new RegExp(`^demo: 2 tools, ${demoTokens} tokens \\(o200k_base\\)$`, "m"))
      assert.match(result.stdout, new RegExp(`^  demo__add\\s+${add}  Adds two numbers and returns their sum$`, "m"))
      assert.include(result.stdout, "docs__search")
      assert.match(out.at(-1)!, /^2 servers: 2 ok; 3 tools, \d+ prompt tokens \(o200k_base\)$/)
      // every connection opened for discovery was closed
      assert.strictEqual(stats.opened, 2)
      assert.strictEqual(stats.closed, 2)
    }))

  it.scoped("a fault in one server's bookkeeping loses that server only: the others are listed and its reason named", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["broken", "docs"])
      const { factory } = fakeFactory({ broken: { connectDefect: "URI malformed" }, docs: { tools: [tool("search")] } })
      const result = yield* zett(["tools", "--config", config, "--json"], { clientFactory: factory })
      const servers =
        (JSON.parse(result.stdout) as { servers: Array<{ name: string; status: string; reason?: string }> }).servers
      assert.deepStrictEqual(servers.map((s) => [s.name, s.status, s.reason]), [
        ["broken", "unavailable", "internal error: URI malformed"],
        ["docs", "ok", undefined]
      ])
      assert.notInclude(result.stderr, "zett: internal error")
    }))

  it.scoped("--schema shows under each tool what it takes; --json always has each tool's inputSchema", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools } })
      const table = yield* zett(["tools", "--schema", "--config", config], { clientFactory: factory })
      assert.strictEqual(table.code, 0, table.stderr)
      const out = lines(table.stdout)
      const add = out.findIndex((line) => line.startsWith("  demo__add"))
      assert.deepStrictEqual(out.slice(add + 1, add + 3).map((line) => line.replace(/\s+/g, " ")), [
        " a number required",
        " b number required"
      ])
      assert.strictEqual(out[out.findIndex((line) => line.startsWith("  demo__fail")) + 1], "      (no arguments)")
      const json = yield* zett(["tools", "--json", "--config", config], { clientFactory: factory })
      const tools =
        (JSON.parse(json.stdout) as { servers: Array<{ tools: Array<{ name: string; inputSchema: unknown }> }> })
          .servers[0]!.tools
      assert.strictEqual(tools[0]!.name, "demo__add")
      // the schema the model gets: the server's, without its titles
      assert.deepInclude(tools[0]!.inputSchema as object, {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"]
      })
      const plain = yield* zett(["tools", "--config", config], { clientFactory: factory })
      assert.notInclude(plain.stdout, "required")
    }))

  it.live("--discovery-concurrency bounds how many servers are discovered at once (default 16)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const names = Array.from({ length: 40 }, (_, i) => `s${i}`)
      const config = httpConfig(dir, names)
      const servers = Object.fromEntries(names.map((n) => [n, { tools: [tool("t")], listDelay: "20 millis" as const }]))
      for (const [args, peak] of [[["--discovery-concurrency", "4"], 4], [[], 16]] as const) {
        const { factory, stats } = fakeFactory(servers)
        const result = yield* zett(["tools", "--config", config, ...args], { clientFactory: factory })
        assert.strictEqual(result.code, 0, result.stderr)
        assert.strictEqual(stats.peak, peak)
        assert.strictEqual(stats.opened, 40)
      }
    }).pipe(Effect.scoped))

  it.scoped("thousands of unavailable servers are summarized in one readable line", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const names = Array.from({ length: 2_000 }, (_, i) => `s${i}`)
      const config = httpConfig(dir, names)
      const { factory } = fakeFactory(
        Object.fromEntries(names.map((n) => [n, { connectError: "connect ECONNREFUSED" }]))
      )
      const result = yield* zett(["tools", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(
        result.stderr,
        "zett: 2000 of 2000 MCP servers unavailable: s0 (connect ECONNREFUSED); s1 (connect ECONNREFUSED); " +
          "s2 (connect ECONNREFUSED); 1,997 more servers failed the same way\n"
      )
    }))

  it.scoped("an unavailable server is a row with its reason, the others are listed; exit 1 with one line", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo", "down"])
      const { factory } = fakeFactory({ demo: { tools: demoTools }, down: { connectError: "HTTP 401 Unauthorized" } })
      const result = yield* zett(["tools", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 1)
      assert.match(result.stdout, /^down\s+streamable-http\s+-\s+\d+ ms\s+-\s+-\s+unavailable: HTTP 401 Unauthorized$/m)
      assert.match(result.stdout, /^demo\s+.*\s+ok$/m)
      assert.deepStrictEqual(lines(result.stderr), [
        "zett: 1 of 2 MCP servers unavailable: down (HTTP 401 Unauthorized)"
      ])
    }))

  it.scoped("--json prints the same report as data", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo", "down"])
      const { factory } = fakeFactory({ demo: { tools: demoTools }, down: { connectError: "refused" } })
      const result = yield* zett(["tools", "--json", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 1)
      const report = JSON.parse(result.stdout)
      assert.strictEqual(report.config, config)
      assert.deepStrictEqual(report.servers.map((s: { name: string }) => s.name), ["demo", "down"])
      const [demo, down] = report.servers
      assert.strictEqual(demo.transport, "streamable-http")
      assert.strictEqual(demo.status, "ok")
      assert.strictEqual(demo.toolCount, 2)
      assert.isNumber(demo.discoveryMillis)
      assert.deepStrictEqual(demo.tools.map((t: { name: string }) => t.name), ["demo__add", "demo__fail"])
      // the tokens of what the model sees, after the schema cleanup (no title; the root $schema stays), in the named encoding
      assert.strictEqual(report.tokenEncoding, "o200k_base")
      const add = McpTool.fromTool("demo", demoTools[0]!, { namespace: true })
      assert.strictEqual(add.parameters.$schema, (demoTools[0]!.inputSchema as Record<string, unknown>).$schema)
      assert.strictEqual(demo.tools[0].tokens, definitionTokens(add))
      assert.strictEqual(demo.tokens, demo.tools[0].tokens + demo.tools[1].tokens)
      assert.deepStrictEqual(
        { status: down.status, reason: down.reason, toolCount: down.toolCount },
        { status: "unavailable", reason: "refused", toolCount: 0 }
      )
      assert.deepStrictEqual(report.totals, {
        servers: 2,
        available: 1,
        tools: 2,
        tokens: demo.tokens
      })
    }))

  it.scoped("a description with special-token text (<|endoftext|>) is counted as the text it is", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["odd"])
      const odd = tool("odd", { type: "object" }, "Stops here <|endoftext|> and <|im_start|> go on")
      const { factory } = fakeFactory({ odd: { tools: [odd] } })
      const result = yield* zett(["tools", "--json", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 0, result.stderr)
      const [server] = JSON.parse(result.stdout).servers
      const definition = McpTool.fromTool("odd", odd, { namespace: true })
      // a tokenizer's default refuses such text; here it is counted like any other
      assert.throws(() => countTokens(definitionJson(definition)), /special token/)
      assert.strictEqual(server.tools[0].tokens, definitionTokens(definition))
    }))

  it.scoped("servers are discovered concurrently: the total time is the slowest server's, not the sum", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["a", "b", "c"])
      const { factory } = fakeFactory({
        a: { tools: [tool("x")], listDelay: "10 seconds" },
        b: { tools: [tool("y")], listDelay: "10 seconds" },
        c: { tools: [tool("z")], listDelay: "10 seconds" }
      })
      // without a connect timeout the only sleeps are the servers'
      const fiber = yield* Effect.fork(
        zett(["tools", "--json", "--connect-timeout", "0", "--config", config], { clientFactory: factory })
      )
      yield* awaitSleeps(3)
      yield* TestClock.adjust("10 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.code, 0, result.stderr)
      const report = JSON.parse(result.stdout)
      assert.deepStrictEqual(report.servers.map((s: { discoveryMillis: number }) => s.discoveryMillis), [
        10_000,
        10_000,
        10_000
      ])
    }))

  it.scoped("a server that does not list within --connect-timeout is unavailable (timed out), the others are not", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["slow", "fast"])
      const { factory, stats } = fakeFactory({
        slow: { tools: [tool("x")], listDelay: "1 hour" },
        fast: { tools: [tool("y")] }
      })
      const fiber = yield* Effect.fork(
        zett(["tools", "--json", "--connect-timeout", "2", "--config", config], { clientFactory: factory })
      )
      yield* awaitSleeps(2)
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.code, 1)
      const [slow, fast] = JSON.parse(result.stdout).servers
      assert.deepStrictEqual([slow.status, slow.reason], ["unavailable", "timed out after 2s"])
      assert.strictEqual(fast.status, "ok")
      assert.strictEqual(stats.closed, stats.opened)
    }))

  it.scoped("on a terminal a spinner runs on stderr while servers are discovered, and is erased", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, listDelay: "1 second" } })
      const fiber = yield* Effect.fork(
        zett(["tools", "--connect-timeout", "0", "--config", config], { clientFactory: factory, interactive: true })
      )
      // the spinner's and the server's (no connect timeout)
      yield* awaitSleeps(2)
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.code, 0)
      assert.include(result.stderr, "⠋ Discovering 1 MCP server…")
      assert.isAbove(result.stderr.split("\r\u001b[2K").length, 5, "the spinner redraws its line")
      // the last thing written erases the line and shows the cursor again
      assert.isTrue(result.stderr.endsWith("\r\u001b[2K\u001b[?25h"))
      assert.notMatch(result.stdout, terminalControl)
      assert.match(result.stdout, /^demo\s+streamable-http\s+-\s+1\.0 s\s+2\s+\d+\s+ok$/m)
    }))

  it.scoped("piped or redirected output gets no spinner: no escape codes, no carriage returns", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, listDelay: "1 second" } })
      const fiber = yield* Effect.fork(
        zett(["tools", "--connect-timeout", "0", "--config", config], { clientFactory: factory })
      )
      yield* awaitSleeps(1)
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.code, 0)
      assert.strictEqual(result.stderr, "")
      assert.notMatch(result.stdout, terminalControl)
      assert.match(result.stdout, /^demo\s+streamable-http\s+-\s+1\.0 s\s+2\s+\d+\s+ok$/m)
    }))

  it.scoped("without --config the default ~/.zett/mcp.json is used; a missing default file is no servers", () =>
    Effect.gen(function*() {
      const home = yield* tempDir
      const { factory } = fakeFactory({ demo: { tools: demoTools } })
      const missing = yield* zett(["tools"], { clientFactory: factory, env: { HOME: home } })
      assert.strictEqual(missing.code, 0)
      assert.strictEqual(
        missing.stdout.trim(),
        `No MCP servers are configured: ${home}/.zett/mcp.json does not exist.`
      )
      httpConfig(home, ["demo"], ".zett/mcp.json")
      const found = yield* zett(["tools", "--json"], { clientFactory: factory, env: { HOME: home } })
      assert.strictEqual(found.code, 0)
      const report = JSON.parse(found.stdout)
      assert.strictEqual(report.config, `${home}/.zett/mcp.json`)
      assert.strictEqual(report.servers[0].name, "demo")
    }))
})

describe("zett and real configuration files", () => {
  it.scoped("--config repeated merges the files in order: a later file wins on a name, with a warning", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const first = httpConfig(dir, ["a", "b"], "first.json")
      const second = writeFile(dir, "second.json", {
        mcpServers: {
          b: { type: "http", url: "http://127.0.0.1:9/b2" },
          c: { type: "http", url: "http://127.0.0.1:9/c" }
        }
      })
      const { factory } = fakeFactory({
        a: { tools: [tool("x")] },
        b: { tools: [tool("y")] },
        c: { tools: [tool("z")] }
      })
      const result = yield* zett(["tools", "--json", "--config", first, "--config", second], { clientFactory: factory })
      assert.strictEqual(result.code, 0, result.stderr)
      const report = JSON.parse(result.stdout)
      assert.deepStrictEqual(report.servers.map((s: { name: string }) => s.name), ["a", "b", "c"])
      assert.strictEqual(report.config, `${first}, ${second}`)
      assert.include(result.stderr, `the server "b" is also configured in ${first}; the later entry is used`)
    }))

  it.scoped("--lenient skips an invalid entry with a warning and keeps the valid ones; without it the file fails", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", {
        mcpServers: { good: { type: "http", url: "http://127.0.0.1:9/good" }, bad: { url: "http://x", arg: [] } }
      })
      const { factory } = fakeFactory({ good: { tools: [tool("x")] } })
      const strict = yield* zett(["tools", "--config", config], { clientFactory: factory })
      assert.strictEqual(strict.code, 2)
      assert.strictEqual(strict.stderr, `zett: ${config}: mcpServers.bad.arg: unknown key (did you mean "args"?)\n`)
      const lenient = yield* zett(["tools", "--lenient", "--json", "--config", config], { clientFactory: factory })
      assert.strictEqual(lenient.code, 0, lenient.stderr)
      assert.deepStrictEqual(JSON.parse(lenient.stdout).servers.map((s: { name: string }) => s.name), ["good"])
      assert.include(lenient.stderr, "mcpServers.bad.arg: unknown key (did you mean \"args\"?) (entry skipped)")
    }))

  it.scoped("tools shows what includeTools/excludeTools filtered; call refuses a filtered tool like an unknown one", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", {
        mcpServers: { s: { type: "http", url: "http://127.0.0.1:9/s", excludeTools: ["hidden"] } }
      })
      const { factory, stats } = fakeFactory({ s: { tools: [tool("shown"), tool("hidden")] } })
      const table = yield* zett(["tools", "--config", config], { clientFactory: factory })
      assert.include(table.stdout, "s: filtered out by its includeTools/excludeTools: hidden")
      const json = yield* zett(["tools", "--json", "--config", config], { clientFactory: factory })
      assert.deepStrictEqual(JSON.parse(json.stdout).servers[0].filtered, ["hidden"])
      const call = yield* zett(["call", "--config", config, "s__hidden"], { clientFactory: factory })
      assert.strictEqual(call.code, 2)
      assert.include(call.stderr, "no tool named s__hidden; available: s__shown")
      assert.deepStrictEqual(stats.calls, [])
    }))

  it.scoped("a server named as a client allows (My Server) is called by its tools' prefix, and only it is connected", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", {
        mcpServers: {
          "My Server": { type: "http", url: "http://127.0.0.1:9/mine" },
          "other": { type: "http", url: "http://127.0.0.1:9/other" }
        }
      })
      const { factory, stats } = fakeFactory({
        "My Server": { tools: [tool("echo")] },
        other: { tools: [tool("echo")] }
      })
      const tools = JSON.parse(
        (yield* zett(["tools", "--json", "--config", config], { clientFactory: factory })).stdout
      )
      const name: string = tools.servers[0].tools[0].name
      assert.match(name, /^My_Server_[0-9a-f]{8}__echo$/)
      assert.strictEqual(tools.servers[0].name, "My Server")
      const before = stats.opened
      const call = yield* zett(["call", "--config", config, name], { clientFactory: factory })
      assert.strictEqual(call.code, 0, call.stderr)
      assert.strictEqual(stats.opened - before, 1)
      assert.deepStrictEqual(stats.calls.map((c) => c.server), ["My Server"])
    }))

  it.scoped("${input:ID} without a terminal fails naming the input; variables come from the environment", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", {
        inputs: [{ type: "promptString", id: "key", password: true }],
        mcpServers: {
          s: { type: "http", url: "http://127.0.0.1:9/s", headers: { "X-Key": "${input:key}", "X-Token": "${TOKEN}" } }
        }
      })
      const { factory } = fakeFactory({ s: { tools: [tool("x")] } })
      const result = yield* zett(["tools", "--config", config], {
        clientFactory: factory,
        env: { TOKEN: "cli-var-secret" }
      })
      assert.strictEqual(result.code, 2)
      assert.strictEqual(
        result.stderr,
        `zett: ${config}: mcpServers.s.headers.X-Key: the input "key" has no value: zett is not running on a terminal, so it cannot ask for it; run zett interactively\n`
      )
      const unset = yield* zett(["tools", "--config", config], { clientFactory: factory })
      assert.include(unset.stderr, "the input \"key\"")
    }))
})

describe("zett: options before the command", () => {
  it.scoped("--config, --json, --lenient and --connect-timeout work before the command as after it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const json = yield* zett(["--config", config, "--json", "tools"], { clientFactory: factory })
      assert.strictEqual(json.code, 0, json.stderr)
      assert.deepStrictEqual(JSON.parse(json.stdout).servers.map((s: { name: string }) => s.name), ["demo"])
      const call = yield* zett(
        ["--lenient", `--config=${config}`, "--connect-timeout", "5", "call", "demo__add", `{"a": 2, "b": 40}`],
        { clientFactory: factory }
      )
      assert.strictEqual(call.code, 0, call.stderr)
      assert.deepStrictEqual(JSON.parse(call.stdout), { sum: 42 })
      // a nested command: the options go after its whole name
      const status = yield* zett(["--config", config, "auth", "status"], { clientFactory: factory })
      assert.strictEqual(status.code, 0, status.stderr)
      assert.include(status.stdout, "demo")
    }))

  it.scoped("--name=VALUE works for every option that takes a value, --config repeated included", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const first = httpConfig(dir, ["demo"], "a.json")
      const second = httpConfig(dir, ["docs"], "b.json")
      const { factory } = fakeFactory({ demo: { tools: demoTools }, docs: { tools: [tool("search")] } })
      const result = yield* zett(["tools", `--config=${first}`, `--config=${second}`, "--discovery-concurrency=1"], {
        clientFactory: factory
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.match(result.stdout, /^demo\s+streamable-http\s.*ok$/m)
      assert.match(result.stdout, /^docs\s+streamable-http\s.*ok$/m)
    }))

  it.scoped("a value that is a command's name stays the option's value", () =>
    Effect.gen(function*() {
      const result = yield* zett(["--config", "tools", "tools"])
      // the command ran (tools) and read `tools` as the file it names
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stderr, `zett: ${Path.resolve("tools")}: no such configuration file\n`)
    }))

  it.effect("an unknown option before the command is refused by name, exit 2; --help there is the command's help", () =>
    Effect.gen(function*() {
      const result = yield* zett(["--bogus", "tools"])
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stdout, "")
      assert.strictEqual(result.stderr, "zett: unknown option --bogus for zett tools; see zett tools --help\n")
      const help = yield* zett(["--help", "tools"])
      assert.strictEqual(help.code, 0)
      assert.include(help.stdout, "--discovery-concurrency")
    }))
})

describe("zett --log-level", () => {
  it.scoped("--log-level works before or after the command's options; logs go to stderr, one line each", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", { servers: { off: { command: "node", disabled: true } } })
      const quiet = yield* zett(["tools", "--config", config])
      assert.strictEqual(quiet.stderr, "")
      for (
        const args of [
          ["--log-level", "debug", "tools", "--config", config],
          ["tools", "--config", config, "--log-level", "debug"],
          ["tools", "--config", config, "--log-level=debug"]
        ]
      ) {
        const result = yield* zett(args)
        assert.strictEqual(result.code, 0, result.stderr)
        assert.include(lines(result.stderr), `zett: debug: ${config}: disabled entries left out: off`)
      }
    }))

  it.scoped("--log-level error hides the warning about an unavailable server", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["down"])
      const { factory } = fakeFactory({ down: { connectError: "refused" } })
      const model = ScriptedModel.layer([{ text: "ok" }])
      const result = yield* zett(["run", "Hi", "--config", config, "--log-level", "error"], {
        clientFactory: factory,
        model
      })
      assert.deepStrictEqual([result.code, result.stdout, result.stderr], [0, "ok\n", ""])
    }))
})

describe("zett: bad usage and bad configuration exit 2 with one line", () => {
  it.scoped("an invalid entry: the line names the file, the entry and the reason (C5)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", {
        mcpServers: { ok: { command: "node" }, bad: { type: "http", url: "not a url" } }
      })
      const { factory, stats } = fakeFactory({})
      for (const args of [["tools", "--config", config], ["call", "ok__x", "--config", config]]) {
        const result = yield* zett(args, { clientFactory: factory })
        assert.strictEqual(result.code, 2)
        assert.strictEqual(result.stdout, "")
        const [line, ...rest] = lines(result.stderr)
        assert.deepStrictEqual(rest, [])
        assert.match(line!, new RegExp(`^zett: ${config}: mcpServers\\.bad\\.url: `))
      }
      assert.strictEqual(stats.opened, 0)
    }))

  it.scoped("a file that is not JSON, and a --config file that does not exist", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const broken = writeFile(dir, "broken.json", "{ not json")
      const notJson = yield* zett(["tools", "--config", broken])
      assert.strictEqual(notJson.code, 2)
      assert.strictEqual(lines(notJson.stderr).length, 1)
      assert.match(notJson.stderr, new RegExp(`^zett: ${broken}: `))
      const missing = yield* zett(["tools", "--config", `${dir}/nope.json`])
      assert.strictEqual(missing.code, 2)
      assert.strictEqual(missing.stderr, `zett: ${dir}/nope.json: no such configuration file\n`)
    }))

  it.effect("no command, an unknown command, an unknown option", () =>
    Effect.gen(function*() {
      const none = yield* zett([])
      assert.strictEqual(none.code, 2)
      assert.include(none.stderr, "missing command")
      const unknown = yield* zett(["bogus"])
      assert.strictEqual(unknown.code, 2)
      assert.include(unknown.stderr, "zett has no command bogus")
      const option = yield* zett(["tools", "--bogus"])
      assert.strictEqual(option.code, 2)
      // @effect/cli colours its messages; without a terminal the escape codes are removed
      assert.notMatch(option.stderr + option.stdout, terminalControl)
    }))

  it.scoped("every usage error is one zett: line, exit 2: parser errors, odd --config paths, bad and negative numbers", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const fifo = `${dir}/fifo.json`
      ChildProcess.execFileSync("mkfifo", [fifo])
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [["tools", "--bogus"], "zett: unknown option --bogus for zett tools; see zett tools --help"],
        [["tools", "--confg", "x"], "zett: unknown option --confg for zett tools (did you mean --config?)"],
        [["tools", "--jsn"], "zett: unknown option --jsn for zett tools (did you mean --json?)"],
        [
          ["bogus"],
          "zett: zett has no command bogus; it has tools, call, run, auth, task, demo, resources, read, prompts, prompt, skills, skill, complete"
        ],
        [
          ["tols"],
          "zett: zett has no command tols (did you mean tools?); it has tools, call, run, auth, task, demo, resources, read, prompts, prompt, skills, skill, complete"
        ],
        [
          ["auth", "logn", "x"],
          "zett: zett auth has no command logn (did you mean login?); it has login, logout, status"
        ],
        [["call"], "zett: Missing argument <tool>"],
        [["task"], "zett: missing command: task get or cancel (see zett task --help)"],
        [["task", "gte", "s", "t"], "zett: zett task has no command gte (did you mean get?); it has get, cancel"],
        [["task", "get", "s"], "zett: Missing argument <task-id>"],
        [
          ["task", "cancel", "s", "t", "--wait"],
          "zett: unknown option --wait for zett task cancel; see zett task cancel --help"
        ],
        [
          ["tools", "--config", "/dev/zero"],
          "zett: /dev/zero: not a regular file (a device); --config names an mcp.json"
        ],
        [["tools", "--config", dir], `zett: ${dir}: not a regular file (a directory); --config names an mcp.json`],
        [["tools", "--config", fifo], `zett: ${fifo}: not a regular file (a FIFO); --config names an mcp.json`],
        [
          ["call", "x", "--call-timeout", "nan"],
          "zett: --call-timeout expects a number of seconds, 0 or more, got 'nan'"
        ],
        [
          ["call", "x", "--call-timeout", "-5"],
          "zett: --call-timeout expects a number of seconds, 0 or more, got '-5'"
        ],
        [
          ["tools", "--connect-timeout", "Infinity"],
          "zett: --connect-timeout expects a number of seconds, 0 or more, got 'Infinity'"
        ],
        [
          ["tools", "--discovery-concurrency", "0"],
          "zett: --discovery-concurrency expects a whole number, 1 or more, got '0'"
        ],
        // not a number at all: refused by the option's type, still worded with the option's name
        [
          ["tools", "--connect-timeout=abc"],
          "zett: --connect-timeout expects a number of seconds, 0 or more, got 'abc'"
        ],
        [
          ["tools", "--discovery-concurrency", "1.5"],
          "zett: --discovery-concurrency expects a whole number, 1 or more, got '1.5'"
        ],
        [["auth", "login", "s", "--port", "http"], "zett: --port expects a whole number, got 'http'"]
      ]
      for (const [args, line] of cases) {
        const result = yield* zett(args)
        assert.strictEqual(result.code, 2, args.join(" "))
        assert.strictEqual(result.stderr, `${line}\n`, args.join(" "))
        assert.strictEqual(result.stdout, "", args.join(" "))
      }
    }))

  it.effect("--version is the package's version (the installed bin answers it from package.json)", () =>
    Effect.gen(function*() {
      const pkg = JSON.parse(Fs.readFileSync(Path.join(import.meta.dirname, "..", "package.json"), "utf8"))
      const result = yield* zett(["--version"])
      assert.strictEqual(result.code, 0)
      assert.include(result.stdout, pkg.version)
      assert.strictEqual(Cli.version, pkg.version)
    }))

  it.effect("the help, loaded without the commands' modules, states the library's defaults", () =>
    Effect.gen(function*() {
      const tools = yield* zett(["tools", "--help"])
      assert.strictEqual(tools.code, 0)
      assert.include(
        tools.stdout,
        `How many servers are discovered at once (default ${McpExtension.defaultDiscoveryConcurrency}).`
      )
      const run = yield* zett(["run", "--help"])
      assert.include(run.stdout, `the model named in ${EnvironmentModel.variable}`)
    }))

  it.effect("--help shows each numeric option's type: float for seconds, integer for counts and ports", () =>
    Effect.gen(function*() {
      const tools = (yield* zett(["tools", "--help"])).stdout
      assert.include(tools, "[--connect-timeout float]")
      assert.include(tools, "[--discovery-concurrency integer]")
      assert.match(tools, /^--connect-timeout float\n\n {2}A floating point number\.$/m)
      assert.match(tools, /^--discovery-concurrency integer\n\n {2}An integer\.$/m)
      const call = (yield* zett(["call", "--help"])).stdout
      assert.match(call, /^--call-timeout float$/m)
      const login = (yield* zett(["auth", "login", "--help"])).stdout
      assert.match(login, /^--port integer$/m)
      for (const help of [tools, call, login]) assert.notMatch(help, /(timeout|concurrency|port) text/)
    }))

  it.effect("--help is laid out for 80 columns, a repeated option shown as optional", () =>
    Effect.gen(function*() {
      for (const command of [[], ["tools"], ["call"], ["run"], ["auth", "login"]]) {
        const help = (yield* zett([...command, "--help"])).stdout
        // only a usage group that is longer on its own (the choices of --server-log-level) may pass the edge
        const long = help.split("\n").filter((line) => line.length > 80 && !/^ {4}\[[^\]]*\]$/.test(line))
        assert.deepStrictEqual(long, [], command.join(" "))
      }
      const tools = (yield* zett(["tools", "--help"])).stdout
      assert.include(tools, "[--config text]...")
      assert.notMatch(tools, /(^|\s)--config text\.\.\. /m)
      // a paragraph wraps at a space and keeps its indent
      assert.match(
        tools,
        /^ {2}The configuration file to use \(default: ~\/\.zett\/mcp\.json\): any client's\n {2}mcp\.json/m
      )
      // what is not a help page is printed as it is: a completion script stays a script bash reads
      const script = (yield* zett(["--completions", "bash"])).stdout
      assert.isTrue(script.split("\n").some((line) => line.length > 80))
      assert.strictEqual(ChildProcess.spawnSync("bash", ["-n"], { input: script }).status, 0)
    }))

  it.effect("--help prints the commands and exits 0", () =>
    Effect.gen(function*() {
      const result = yield* zett(["--help"])
      assert.strictEqual(result.code, 0)
      for (const command of ["tools", "call", "run", "demo"]) assert.include(result.stdout, command)
      assert.notMatch(result.stdout, terminalControl)
    }))
})

describe("zett call", () => {
  const setup = Effect.gen(function*() {
    const dir = yield* tempDir
    const config = httpConfig(dir, ["demo", "other"])
    const fake = fakeFactory({ demo: { tools: demoTools, call: demoCall }, other: { tools: [tool("x")] } })
    return { config, ...fake }
  })

  it.scoped("calls the tool with the JSON arguments and prints the mapped result; only its server connects", () =>
    Effect.gen(function*() {
      const { config, factory, stats } = yield* setup
      const result = yield* zett(["call", "demo__add", "{\"a\": 1, \"b\": 2}", "--config", config], {
        clientFactory: factory
      })
      assert.strictEqual(result.code, 0, result.stderr)
      // structuredContent is the result (E7)
      assert.deepStrictEqual(JSON.parse(result.stdout), { sum: 3 })
      assert.deepStrictEqual(stats.calls, [{ server: "demo", name: "add", args: { a: 1, b: 2 } }])
      assert.deepStrictEqual([stats.opened, stats.closed], [1, 1])
    }))

  it.scoped("without structured content the content blocks are printed as JSON; no arguments means {}", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["s"])
      const { factory, stats } = fakeFactory({ s: { tools: [tool("hello")], call: () => text("hi") } })
      const result = yield* zett(["call", "--config", config, "s__hello"], { clientFactory: factory })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(JSON.parse(result.stdout), [{ type: "text", text: "hi" }])
      assert.deepStrictEqual(stats.calls[0]!.args, {})
    }))

  it.scoped("--arg key=value builds the arguments from the tool's schema; after JSON arguments it sets keys of its own", () =>
    Effect.gen(function*() {
      const { config, factory, stats } = yield* setup
      const result = yield* zett(["call", "demo__add", "--arg", "a=2", "--arg", "b=40", "--config", config], {
        clientFactory: factory
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(JSON.parse(result.stdout), { sum: 42 })
      const mixed = yield* zett(["call", "demo__add", "{\"a\": 1, \"b\": 1}", "--arg", "b=2.5", "--config", config], {
        clientFactory: factory
      })
      assert.strictEqual(mixed.code, 0, mixed.stderr)
      assert.deepStrictEqual(stats.calls.map((call) => call.args), [{ a: 2, b: 40 }, { a: 1, b: 2.5 }])
    }))

  it.scoped("--arg with an unknown or ill-typed key: exit 2, one line naming it, nothing called", () =>
    Effect.gen(function*() {
      const { config, factory, stats } = yield* setup
      const unknown = yield* zett(["call", "demo__add", "--arg", "aa=1", "--config", config], {
        clientFactory: factory
      })
      assert.strictEqual(unknown.code, 2)
      assert.strictEqual(unknown.stderr, "zett: demo__add has no argument 'aa'; it takes a, b\n")
      const typed = yield* zett(["call", "demo__add", "--arg", "a=two", "--config", config], { clientFactory: factory })
      assert.strictEqual(typed.code, 2)
      assert.strictEqual(typed.stderr, "zett: --arg a expects a number, got 'two'\n")
      assert.deepStrictEqual(stats.calls, [])
    }))

  it.scoped("invalid JSON arguments: exit 2, one line, nothing called", () =>
    Effect.gen(function*() {
      const { config, factory, stats } = yield* setup
      const result = yield* zett(["call", "demo__add", "{\"a\": 1,", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stdout, "")
      assert.strictEqual(lines(result.stderr).length, 1)
      assert.match(result.stderr, /^zett: the tool.s arguments are not valid JSON \(/)
      const array = yield* zett(["call", "demo__add", "[1, 2]", "--config", config], { clientFactory: factory })
      assert.strictEqual(array.code, 2)
      assert.include(array.stderr, "must be a JSON object")
      assert.strictEqual(stats.opened, 0)
    }))

  it.scoped("an unknown tool is bad usage (exit 2) and lists what exists", () =>
    Effect.gen(function*() {
      const { config, factory, stats } = yield* setup
      const result = yield* zett(["call", "demo__nope", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stderr, "zett: no tool named demo__nope; available: demo__add, demo__fail\n")
      assert.strictEqual(stats.closed, stats.opened)
    }))

  it.scoped("a tool that fails (isError): exit 1 with the tool's text (A10)", () =>
    Effect.gen(function*() {
      const { config, factory } = yield* setup
      const result = yield* zett(["call", "demo__fail", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(result.stdout, "")
      assert.strictEqual(result.stderr, "zett: demo__fail failed: this tool always fails\n")
    }))

  it.scoped("the tool's server is unavailable: exit 1 naming the server and why", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { connectError: "HTTP 503 Service Unavailable" } })
      const result = yield* zett(["call", "demo__add", "{}", "--config", config], { clientFactory: factory })
      assert.strictEqual(result.code, 1)
      assert.strictEqual(
        result.stderr,
        "zett: cannot call demo__add: unavailable MCP server: demo (HTTP 503 Service Unavailable)\n"
      )
    }))
})

describe("zett run", () => {
  const toolResult = (request: { readonly messages: ReadonlyArray<Message.Message> }) =>
    request.messages.findLast((m): m is Message.ToolMessage => m._tag === "ToolMessage")

  it.scoped("streams the model's text and shows each tool call and its outcome", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory, stats } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const model = ScriptedModel.layer([
        { text: "Adding.", toolCalls: [{ name: "demo__add", arguments: { a: 2, b: 40 } }, { name: "demo__fail" }] },
        (request) => ({ text: `The sum is ${JSON.stringify(toolResult(request)?.status)} and done.` })
      ])
      const result = yield* zett(["run", "What is 2 + 40?", "--config", config], { clientFactory: factory, model })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(lines(result.stdout), [
        "Adding.",
        "→ demo__add {\"a\":2,\"b\":40}",
        "← demo__add: {\"sum\":42}",
        "→ demo__fail {}",
        "← demo__fail failed: ToolFailed: this tool always fails",
        "The sum is \"TOOL_FAILED\" and done."
      ])
      assert.deepStrictEqual([stats.opened, stats.closed], [1, 1])
    }))

  it.scoped("a server given on the command line (--url, or a command after --) is the run's only server", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const model = () =>
        ScriptedModel.layer([
          { toolCalls: [{ name: "demo__add", arguments: { a: 2, b: 40 } }] },
          (request) => ({ text: `The sum is ${JSON.stringify(toolResult(request)?.content)}.` })
        ])
      const byUrl = yield* zett(["run", "What is 2 + 40?", "--url", "http://127.0.0.1:9/mcp", "--name", "demo"], {
        clientFactory: factory,
        model: model()
      })
      assert.strictEqual(byUrl.code, 0, byUrl.stderr)
      assert.include(byUrl.stdout, "← demo__add: {\"sum\":42}")
      const byCommand = yield* zett(["run", "What is 2 + 40?", "--name", "demo", "--", "node", "server.js"], {
        clientFactory: factory,
        model: model()
      })
      assert.strictEqual(byCommand.code, 0, byCommand.stderr)
      assert.include(byCommand.stdout, "The sum is {\"sum\":42}.")
      assert.deepStrictEqual(stats.calls.map((call) => call.server), ["demo", "demo"])
    }))

  it.scoped("text streamed in several deltas is shown as it arrives, on one line", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, [])
      const model = Layer.succeed(Model.Model, {
        stream: () =>
          Stream.fromIterable([
            Model.textDelta("Hel"),
            Model.textDelta("lo"),
            Model.textDelta("!"),
            Model.finish("stop")
          ])
      })
      const result = yield* zett(["run", "Hi", "--config", config], { model })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stdout, "Hello!\n")
    }))

  it.scoped("no model configured: exit 2 with one line saying how to configure one", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const result = yield* zett(["run", "Hi", "--config", config])
      assert.strictEqual(result.code, 2)
      assert.strictEqual(lines(result.stderr).length, 1)
      assert.include(result.stderr, "ZETT_MODEL")
    }))

  it.scoped("a failed run (the model fails): exit 1 with one line", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, [])
      const result = yield* zett(["run", "Hi", "--config", config], { model: ScriptedModel.layer([]) })
      assert.strictEqual(result.code, 1)
      assert.deepStrictEqual(lines(result.stderr).length, 1)
      assert.include(result.stderr, "the script has no step for request 1")
    }))

  it.scoped("an unavailable server is logged on stderr and the run goes on without it (D5)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["down"])
      const { factory } = fakeFactory({ down: { connectError: "refused" } })
      const model = ScriptedModel.layer([(request) => ({ text: `tools: ${request.tools.length}` })])
      const result = yield* zett(["run", "Hi", "--config", config], { clientFactory: factory, model })
      assert.strictEqual(result.code, 0)
      assert.strictEqual(result.stdout, "tools: 0\n")
      assert.strictEqual(result.stderr, "zett: warning: MCP server down is unavailable: refused\n")
    }))
})

describe("zett demo (in-process, scripted model)", () => {
  it.scoped("with a replaced model and an in-memory demo server: table, transcript, answer, connections closed", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const result = yield* zett(["demo"], { clientFactory: factory })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.match(result.stdout, /^demo\s+stdio\s+\S+\s+\d+ ms\s+2\s+\d+\s+ok$/m)
      assert.include(result.stdout, "→ demo__add {\"a\":2,\"b\":40}\n← demo__add: {\"sum\":42}\n2 + 40 = 42\n")
      assert.include(result.stdout, "Answer: 2 + 40 = 42")
      assert.include(result.stdout, "MCP connections: 2 opened, 2 closed; no server process left (0 started).")
      assert.deepStrictEqual([stats.opened, stats.closed], [2, 2])
    }))

  it.scoped("a demo whose tool does not answer 42 fails (exit 1)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: () => text("no sum here") } })
      const result = yield* zett(["demo"], { clientFactory: factory })
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, "zett: the demo expected the sum 42 from demo__add, and received null")
    }))

  it.scoped("the demo checks the tool result it received, not the wording of the answer", () =>
    Effect.gen(function*() {
      // the server says 41; the scripted model's answer quotes the sum, and the check reads the tool result
      const { factory } = fakeFactory({
        demo: {
          tools: demoTools,
          call: () => ({ content: [{ type: "text", text: "41" }], structuredContent: { sum: 41 } })
        }
      })
      const result = yield* zett(["demo"], { clientFactory: factory })
      assert.strictEqual(result.code, 1)
      assert.include(result.stderr, "zett: the demo expected the sum 42 from demo__add, and received 41")
    }))
})
