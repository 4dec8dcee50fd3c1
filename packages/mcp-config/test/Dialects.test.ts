/**
 * The configuration files of every popular client, written the way that client writes them
 * (`fixtures/dialects`), loaded where that client keeps them and run against real servers: server-everything
 * over stdio (its `get-env` tool reports the environment it received) and in its SSE mode,
 * server-filesystem (which reports the folder it was given), and an SDK server in this process that records
 * the headers and paths it received. Each test asserts what the servers actually received.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import type { Message } from "@zett/agent"
import { McpExtension } from "@zett/mcp"
import { McpInputs } from "@zett/mcp-config"
import { systemOf, toolMessages } from "@zett/testing-core/FakeMcp"
import * as McpLayers from "@zett/testing/McpLayers"
import * as Processes from "@zett/testing/Processes"
import * as RecordingServer from "@zett/testing/RecordingServer"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"

const require = createRequire(import.meta.url)
const entry = (name: string) => Path.join(Path.dirname(require.resolve(`${name}/package.json`)), "dist", "index.js")
const everything = entry("@modelcontextprotocol/server-everything")
const filesystem = entry("@modelcontextprotocol/server-filesystem")
const fixture = (name: string) => Fs.readFileSync(Path.join(import.meta.dirname, "fixtures", "dialects", name), "utf8")

const tokens = {
  GITHUB_TOKEN: "gh-dialect-secret-1111",
  CURSOR_TOKEN: "cursor-dialect-secret-2222",
  CLAUDE_TOKEN: "claude-dialect-secret-3333",
  GEMINI_TOKEN: "gemini-dialect-secret-4444",
  WINDSURF_TOKEN: "windsurf-dialect-secret-5555"
}
const apiKey = "input-dialect-secret-6666"
const dotenvSecret = "dotenv-dialect-secret-7777"
const secrets = [...Object.values(tokens), apiKey, dotenvSecret]

/** A workspace and a home folder, and the fixture written where its client keeps it. */
const place = (
  name: string,
  where: (dirs: { readonly workspace: string; readonly home: string }) => string,
  port: number
) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-dialect-"))
      const workspace = Path.join(root, "my-project")
      const home = Path.join(root, "home")
      Fs.mkdirSync(Path.join(workspace, "data"), { recursive: true })
      Fs.mkdirSync(home)
      Fs.writeFileSync(Path.join(workspace, ".env"), `FROM_DOTENV=${dotenvSecret}\n# a comment\nQUOTED="a b"\n`)
      const file = where({ workspace, home })
      Fs.mkdirSync(Path.dirname(file), { recursive: true })
      Fs.writeFileSync(
        file,
        fixture(name).replaceAll("__NODE__", process.execPath).replaceAll("__PORT__", String(port)).replaceAll(
          "__EVERYTHING__",
          everything
        )
      )
      return { root, workspace, home, file }
    }),
    ({ root }) => Effect.sync(() => Fs.rmSync(root, { recursive: true, force: true }))
  )

interface Outcome {
  /** What each live stdio server was started with, by the word after the server's entry ("stdio") or its entry. */
  readonly started: ReadonlyArray<{ readonly command: string; readonly env: Record<string, string> }>
  readonly tools: ReadonlyArray<string>
  readonly system: string
  readonly results: Record<string, Message.ToolMessage>
  readonly logs: string
}

/** One request: the model calls `calls` (with no arguments); what it saw and got back. */
const request = (
  configPath: string,
  home: string,
  calls: ReadonlyArray<string>,
  options?: { readonly inputs?: Layer.Layer<McpInputs.McpInputs> }
): Effect.Effect<Outcome> => {
  const seen: Array<{ messages: ReadonlyArray<Message.Message>; tools: ReadonlyArray<{ name: string }> }> = []
  const logs: Array<string> = []
  const started: Array<{ readonly command: string; readonly env: Record<string, string> }> = []
  const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
    Layer.provide(McpLayers.layerNode({ configPath })),
    Layer.provide(ScriptedModel.layer([
      (r) => (seen.push(r), { toolCalls: calls.map((name) => ({ name, arguments: {} })) }),
      (r) => {
        seen.push(r)
        // the request's stdio servers are still running: read what they were started with
        for (const p of Processes.liveChildren()) started.push({ command: p.command, env: Processes.environ(p.pid) })
        return { text: "done" }
      }
    ])),
    Layer.provide(options?.inputs ?? Layer.empty)
  )
  return Agent.run("go").pipe(
    Effect.provide(layer),
    Effect.withConfigProvider(ConfigProvider.fromMap(
      new Map([...Object.entries(tokens), ["HOME", home], [
        "EVERYTHING_ENTRY",
        everything
      ], ["FILESYSTEM_ENTRY", filesystem]])
    )),
    Effect.provide(
      Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void logs.push(line)))
    ),
    Effect.orDie,
    Effect.map(() => ({
      started,
      tools: seen[0]!.tools.map((tool) => tool.name),
      system: systemOf(seen[0]!),
      results: Object.fromEntries(toolMessages(seen[1]!).map((message) => [message.name, message])),
      logs: logs.join("\n")
    }))
  )
}

/** The text of a tool's first content block (get-env, echo), or its structured content as JSON. */
const textOf = (message: Message.ToolMessage | undefined): string => {
  assert.strictEqual(message?.status, "ok", JSON.stringify(message?.content))
  const content = message!.content
  return Array.isArray(content)
    ? (content as ReadonlyArray<{ readonly text: string }>)[0]!.text
    : JSON.stringify(content)
}
/** The environment of the one running server whose environment has `key` set to `value` (e.g. SHAPE=older). */
const envWith = (outcome: Outcome, key: string): Record<string, string> => {
  const found = outcome.started.filter((p) => p.env[key] !== undefined)
  assert.strictEqual(found.length, 1, `one server with ${key}: ${outcome.started.map((p) => p.command).join("; ")}`)
  return found[0]!.env
}

const noSecretIn = (outcome: Outcome) => {
  for (const secret of secrets) {
    assert.notInclude(outcome.system, secret)
    assert.notInclude(outcome.logs, secret)
    assert.notInclude(JSON.stringify(outcome.tools), secret)
  }
}

const withRecording = <A, E>(f: (server: RecordingServer.RecordingServer) => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.scoped(Effect.flatMap(RecordingServer.make(), f)).pipe(Effect.provide(NodeContext.layer))

describe.sequential("configuration files of every client, against real servers", () => {
  it.live(
    "VS Code .vscode/mcp.json: inputs, ${env:}, ${workspaceFolder}, ${userHome}, ${/}, envFile, a dotted name",
    () =>
      withRecording((recording) =>
        Effect.gen(function*() {
          const { file, home, workspace } = yield* place(
            "vscode.jsonc",
            ({ workspace }) => Path.join(workspace, ".vscode", "mcp.json"),
            recording.port
          )
          const outcome = yield* request(file, home, ["everything__get-env", "files__list_allowed_directories"], {
            inputs: McpInputs.layerValues({ "api-key": apiKey })
          })
          const env = envWith(outcome, "API_KEY")
          assert.strictEqual(env.API_KEY, apiKey)
          // what the server echoes of its secrets back to the model is scrubbed
          assert.include(textOf(outcome.results["everything__get-env"]), `"API_KEY": "<redacted>"`)
          assert.strictEqual(env.HOME_FILE, `${home}${Path.sep}notes.txt`)
          assert.strictEqual(env.FROM_DOTENV, dotenvSecret)
          assert.strictEqual(env.QUOTED, "a b")
          assert.include(
            textOf(outcome.results["files__list_allowed_directories"]),
            Fs.realpathSync(Path.join(workspace, "data"))
          )
          // `github.com` is not usable as a tool prefix as it is: the E2 rules give it one, and the system says whose
          const github = outcome.tools.find((name) => name.startsWith("github_com_") && name.endsWith("__echo"))
          assert.match(github ?? "", /^github_com_[0-9a-f]{8}__echo$/)
          assert.include(
            outcome.system,
            `Tools named ${github!.slice(0, -"__echo".length)}__<tool> belong to the MCP server "github.com".`
          )
          const posts = recording.received.filter((r) => r.method === "POST")
          assert.isAbove(posts.length, 0)
          for (const post of posts) assert.strictEqual(post.headers.authorization, `Bearer ${tokens.GITHUB_TOKEN}`)
          noSecretIn(outcome)
        })
      )
  )

  it.live(
    "Cursor .cursor/mcp.json: ${env:}, ${workspaceFolderBasename}, a name with a space",
    () =>
      withRecording((recording) =>
        Effect.gen(function*() {
          const { file, home } = yield* place(
            "cursor.json",
            ({ workspace }) => Path.join(workspace, ".cursor", "mcp.json"),
            recording.port
          )
          const outcome = yield* request(file, home, ["everything__get-env"])
          const env = envWith(outcome, "PROJECT")
          assert.deepStrictEqual([env.PROJECT, env.TOKEN], ["my-project", tokens.CURSOR_TOKEN])
          assert.isTrue(
            outcome.tools.some((name) => /^My_Server_[0-9a-f]{8}__echo$/.test(name)),
            outcome.tools.join()
          )
          assert.isTrue(recording.received.some((r) => r.headers["x-api-key"] === tokens.CURSOR_TOKEN))
          noSecretIn(outcome)
        })
      )
  )

  it.live(
    "Claude Code .mcp.json: ${VAR}, ${VAR:-default} in args, env and url; type sse",
    () =>
      withRecording((recording) =>
        Effect.gen(function*() {
          const { file, home } = yield* place(
            "claude-code.json",
            ({ workspace }) => Path.join(workspace, ".mcp.json"),
            recording.port
          )
          const outcome = yield* request(file, home, ["everything__get-env", "legacy__echo", "remote__echo"])
          const env = envWith(outcome, "REGION")
          assert.deepStrictEqual([env.TOKEN, env.REGION, env.ROOT], [
            tokens.CLAUDE_TOKEN,
            "eu-west-1",
            "/opt/x/server.js"
          ])
          assert.include(textOf(outcome.results["legacy__echo"]), "echo")
          assert.include(textOf(outcome.results["remote__echo"]), "echo")
          // the legacy transport: a GET of the event stream, then POSTs to the endpoint it announced
          const sse = recording.received.filter((r) => r.path === "/sse")
          assert.isAbove(sse.length, 0)
          for (const r of sse) assert.strictEqual(r.headers["x-key"], tokens.CLAUDE_TOKEN)
          assert.isTrue(
            recording.received.some((r) => r.method === "POST" && r.path.startsWith("/messages?sessionId="))
          )
          assert.isTrue(recording.received.some((r) => r.path === "/mcp?region=eu-west-1"))
          noSecretIn(outcome)
        })
      )
  )

  it.live(
    "Gemini CLI settings.json: $VAR and ${VAR}, httpUrl, url as SSE, includeTools/excludeTools, timeout, trust",
    () =>
      withRecording((recording) =>
        Effect.gen(function*() {
          const { file, home } = yield* place(
            "gemini.json",
            ({ home }) => Path.join(home, ".gemini", "settings.json"),
            recording.port
          )
          const outcome = yield* request(file, home, [
            "everything__get-env",
            "everything__echo",
            "streamable__echo",
            "legacy__echo"
          ])
          const env = envWith(outcome, "PRICE")
          assert.deepStrictEqual([env.TOKEN, env.PRICE], [tokens.GEMINI_TOKEN, "$5 a month"])
          // only what includeTools lets through, less what excludeTools removes; a filtered tool is an unknown tool
          assert.deepStrictEqual(
            outcome.tools.filter((name) => name.startsWith("everything__")).sort(),
            ["everything__get-env", "everything__get-sum"]
          )
          assert.notInclude(outcome.tools, "streamable__secret_tool")
          assert.strictEqual(outcome.results["everything__echo"]?.status, "TOOL_FAILED")
          assert.include(JSON.stringify(outcome.results["everything__echo"]?.content), "UnknownTool")
          assert.include(textOf(outcome.results["streamable__echo"]), "echo")
          assert.include(textOf(outcome.results["legacy__echo"]), "echo")
          assert.isTrue(
            recording.received.some((r) =>
              r.path === "/mcp" && r.headers.authorization === `Bearer ${tokens.GEMINI_TOKEN}`
            )
          )
          // `url` in Gemini CLI's file is SSE: no Streamable HTTP attempt at /sse first
          assert.isFalse(recording.received.some((r) => r.path === "/sse" && r.method === "POST"))
          noSecretIn(outcome)
        })
      )
  )

  it.live(
    "Windsurf mcp_config.json: serverUrl with ${env:} in a header",
    () =>
      withRecording((recording) =>
        Effect.gen(function*() {
          const { file, home } = yield* place(
            "windsurf.json",
            ({ home }) => Path.join(home, ".codeium", "windsurf", "mcp_config.json"),
            recording.port
          )
          const outcome = yield* request(file, home, ["remote__echo"])
          assert.include(textOf(outcome.results["remote__echo"]), "echo")
          assert.isTrue(recording.received.some((r) => r.headers.authorization === `Bearer ${tokens.WINDSURF_TOKEN}`))
          noSecretIn(outcome)
        })
      )
  )

  it.live(
    "Claude Desktop and Cline take values literally; Cline's timeout and disabled entries",
    () =>
      withRecording((recording) =>
        Effect.gen(function*() {
          const desktop = yield* place(
            "claude-desktop.json",
            ({ home }) => Path.join(home, "Claude", "claude_desktop_config.json"),
            recording.port
          )
          const fromDesktop = yield* request(desktop.file, desktop.home, ["everything__get-env"])
          assert.strictEqual(envWith(fromDesktop, "LITERAL").LITERAL, "${NOT_EXPANDED} and $ALSO_NOT")
          const cline = yield* place(
            "cline.json",
            ({ home }) => Path.join(home, "cline", "cline_mcp_settings.json"),
            recording.port
          )
          const fromCline = yield* request(cline.file, cline.home, ["everything__get-env", "remote__echo"])
          assert.strictEqual(envWith(fromCline, "LITERAL").LITERAL, "${env:NOT_EXPANDED}")
          assert.include(textOf(fromCline.results["remote__echo"]), "echo")
          assert.isFalse(fromCline.tools.some((name) => name.startsWith("off__")))
        })
      )
  )

  it.live(
    "Zed settings.json: context_servers in both shapes, a disabled one left out",
    () =>
      withRecording((recording) =>
        Effect.gen(function*() {
          const { file, home } = yield* place(
            "zed.jsonc",
            ({ home }) => Path.join(home, ".config", "zed", "settings.json"),
            recording.port
          )
          const outcome = yield* request(file, home, ["older__get-env", "newer__get-env"])
          assert.deepStrictEqual(
            outcome.started.map((p) => p.env.SHAPE).filter((shape) => shape !== undefined).sort(),
            ["newer", "older"]
          )
          assert.include(textOf(outcome.results["older__get-env"]), "SHAPE")
          assert.include(textOf(outcome.results["newer__get-env"]), "SHAPE")
          assert.isFalse(outcome.tools.some((name) => name.startsWith("off__")))
        })
      )
  )

  it.live(
    "a Streamable HTTP entry whose server answers server/discover and the initializing POST with 405 falls back to SSE",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const recording = yield* RecordingServer.make({ legacyOnly: true })
        const { file, home } = yield* place("windsurf.json", ({ home }) =>
          Path.join(home, ".codeium", "windsurf", "mcp_config.json"), recording.port)
        Fs.writeFileSync(file, JSON.stringify({ mcpServers: { old: { serverUrl: recording.url("/sse") } } }))
        const outcome = yield* request(file, home, ["old__echo"])
        assert.include(textOf(outcome.results["old__echo"]), "echo")
        assert.deepStrictEqual(
          recording.received.slice(0, 3).map((r) => [r.method, r.path]),
          [["POST", "/sse"], ["POST", "/sse"], ["GET", "/sse"]]
        )
      })).pipe(Effect.provide(NodeContext.layer))
  )

  it.live(
    "server-everything in its SSE mode, reached through a plain url (Streamable HTTP first, then SSE)",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const port = yield* Processes.freePort
        yield* Processes.spawnScoped({
          command: process.execPath,
          args: [everything, "sse"],
          env: { PORT: String(port) },
          ready: /running on port/
        })
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-sse-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true })))
        const file = Path.join(dir, "mcp.json")
        Fs.writeFileSync(file, JSON.stringify({ mcpServers: { everything: { url: `http://127.0.0.1:${port}/sse` } } }))
        const outcome = yield* request(file, dir, ["everything__get-env"])
        assert.include(textOf(outcome.results["everything__get-env"]), "PORT")
      })).pipe(Effect.provide(NodeContext.layer))
  )
})
