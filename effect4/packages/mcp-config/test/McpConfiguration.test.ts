import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpError, McpServerConfig } from "@zett/mcp"
import type { McpServers } from "@zett/mcp"
import { McpConfiguration, McpInputs } from "@zett/mcp-config"
import * as ByteSize from "effect/ByteSize"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as Utils from "./utils.js"

// the Effect 3 line's fixtures: the files are the same for both lines, so they live once
const fixtures = NodePath.resolve(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "..",
  "packages",
  "mcp-config",
  "test",
  "fixtures",
  "config"
)
const fixture = (name: string) => NodePath.join(fixtures, name)

// Every secret written in the fixtures, so that a test can grep any text for all of them.
const fixtureSecrets = [
  "ghp-fixture-secret-0001",
  "cursor-fixture-secret-0002",
  "vscode-fixture-secret-0003",
  "claude-code-fixture-secret-0004",
  "invalid-fixture-secret-0005",
  "notjson-fixture-secret-0006"
]

const assertNoSecret = (text: string, secrets: ReadonlyArray<string> = fixtureSecrets) => {
  for (const secret of secrets) assert.notInclude(text, secret)
}

const captureLogs = () => {
  const lines: Array<string> = []
  return { lines, layer: Utils.logfmtLayer(lines) }
}

/** A real file system that counts the calls this module cares about (C10). */
const countingFileSystem = () => {
  const counts = { stat: 0, read: 0 }
  const layer = Layer.effect(
    FileSystem.FileSystem,
    Effect.map(FileSystem.FileSystem, (fs): FileSystem.FileSystem => ({
      ...fs,
      stat: (path) => Effect.suspend(() => (counts.stat++, fs.stat(path))),
      readFileString: (path, encoding) => Effect.suspend(() => (counts.read++, fs.readFileString(path, encoding))),
      readFile: (path) => Effect.suspend(() => (counts.read++, fs.readFile(path)))
    }))
  ).pipe(Layer.provide(NodeFileSystem.layer))
  return { counts, layer }
}

/** Writes a file and gives it an explicit modification time, so that tests never depend on clock resolution. */
const write = (path: string, text: string, mtimeSeconds: number) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    yield* fs.writeFileString(path, text)
    yield* fs.utimes(path, mtimeSeconds, mtimeSeconds)
  })

const tempDir = Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped())

const names = (servers: ReadonlyArray<McpServerConfig.McpServerConfig>) => servers.map((server) => server.name)

const configError = <A, R>(effect: Effect.Effect<A, McpError.McpConfigError, R>) =>
  Effect.flip(effect).pipe(
    Effect.tap((error) => Effect.sync(() => assert.strictEqual(error._tag, "McpConfigError")))
  )

/** The error a fixture gives in strict and in lenient mode. */
const inBothModes = (name: string) =>
  Effect.forEach([true, false], (strict) => configError(McpConfiguration.fromFile(fixture(name), { strict })))

const withHome = (home: string) => Utils.withEnv(Object.fromEntries([["HOME", home]]))

describe("McpConfiguration", () => {
  describe("files the ecosystem writes", () => {
    it.effect("Claude Desktop: mcpServers, stdio entries without type, other root keys ignored (C4)", () =>
      Effect.gen(function*() {
        const snapshot = yield* McpConfiguration.fromFile(fixture("claude-desktop.json"))
        // "old-notes" has "disabled": true and is left out on purpose.
        assert.deepStrictEqual(names(snapshot.servers), ["filesystem", "github"])
        const [filesystem, github] = snapshot.servers
        assert(filesystem?._tag === "McpStdioServer" && github?._tag === "McpStdioServer")
        assert.strictEqual(filesystem.command, "npx")
        assert.deepStrictEqual(filesystem.args, [
          "-y",
          "@modelcontextprotocol/server-filesystem",
          "/Users/me/Desktop",
          "/Users/me/My Documents"
        ])
        assert.strictEqual(Redacted.value(github.env.GITHUB_PERSONAL_ACCESS_TOKEN!), "ghp-fixture-secret-0001")
        assert.deepStrictEqual(snapshot.skipped, [])
        assert.strictEqual(snapshot.path, fixture("claude-desktop.json"))
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("Cursor: a remote entry with only a url (and headers) is HTTP (C4)", () =>
      Effect.gen(function*() {
        const snapshot = yield* McpConfiguration.fromFile(fixture("cursor.json"))
        assert.deepStrictEqual(names(snapshot.servers), ["remote-docs", "local-db"])
        const remote = snapshot.servers[0]
        assert(remote?._tag === "McpHttpServer")
        assert.strictEqual(remote.url, "https://docs.example.com/mcp")
        assert.strictEqual(Redacted.value(remote.headers.Authorization!), "Bearer cursor-fixture-secret-0002")
        assert.strictEqual(snapshot.servers[1]?._tag, "McpStdioServer")
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("VS Code: servers root key, type stdio and http, inputs and dev settings ignored (C4)", () =>
      Effect.gen(function*() {
        const snapshot = yield* McpConfiguration.fromFile(fixture("vscode.json"))
        assert.deepStrictEqual(names(snapshot.servers), ["memory", "github"])
        assert.deepStrictEqual(snapshot.servers.map((server) => server._tag), ["McpStdioServer", "McpHttpServer"])
      }).pipe(Effect.provide(Layer.mergeAll(NodeServices.layer, McpInputs.layerValues({ "api-key": "k" })))))

    it.effect("Claude Code and the spec's streamable-http form (C4)", () =>
      Effect.gen(function*() {
        const claude = yield* McpConfiguration.fromFile(fixture("claude-code.json"))
        assert.deepStrictEqual(claude.servers.map(McpServerConfig.describe), [
          "sentry (streamable-http https://mcp.sentry.dev/mcp)",
          "airtable (stdio npx)"
        ])
        const spec = yield* McpConfiguration.fromFile(fixture("spec.json"))
        assert.deepStrictEqual(spec.servers.map(McpServerConfig.describe), [
          "catalog (streamable-http https://your-server.example/mcp)",
          "local (stdio python)"
        ])
      }).pipe(
        Effect.provide(NodeServices.layer),
        Utils.withEnv(Object.fromEntries([["SENTRY_TOKEN", "claude-code-fixture-secret-0004"]]))
      ))

    it.effect("variables are expanded: ${VAR} from the ConfigProvider, ${input:ID} from McpInputs (C9)", () =>
      Effect.gen(function*() {
        const claude = yield* McpConfiguration.fromFile(fixture("claude-code.json"))
        const sentry = claude.servers[0]
        assert(sentry?._tag === "McpHttpServer")
        assert.strictEqual(Redacted.value(sentry.headers.Authorization!), "Bearer t")
        const vscode = yield* McpConfiguration.fromFile(fixture("vscode.json"))
        const memory = vscode.servers[0]
        assert(memory?._tag === "McpStdioServer")
        assert.strictEqual(Redacted.value(memory.env.API_KEY!), "k")
        // unset, and no McpInputs: errors that name the variable and the input, never a value
        const unset = yield* configError(
          McpConfiguration.fromFile(fixture("claude-code.json")).pipe(
            Utils.withEnv({})
          )
        )
        assert.strictEqual(unset.entry, "mcpServers.sentry.headers.Authorization")
        assert.strictEqual(unset.description, "the variable SENTRY_TOKEN is not set and has no default")
        assert.strictEqual(unset.reason, "InvalidEntry")
        const noInputs = yield* configError(
          McpConfiguration.fromFile(fixture("vscode.json")).pipe(Effect.provide(McpInputs.layerValues({})))
        )
        assert.strictEqual(noInputs.entry, "servers.memory.env.API_KEY")
        assert.strictEqual(noInputs.description, "the input \"api-key\" has no value: no value was given for it")
      }).pipe(
        Effect.provide(Layer.mergeAll(NodeServices.layer, McpInputs.layerValues({ "api-key": "k" }))),
        Utils.withEnv(Object.fromEntries([["SENTRY_TOKEN", "t"]]))
      ))
  })

  describe("invalid files", () => {
    it.effect("strict config rejects the whole file, naming the entry and the reason (C5)", () =>
      Effect.gen(function*() {
        const error = yield* configError(McpConfiguration.fromFile(fixture("invalid-entries.json")))
        assert.strictEqual(error.path, fixture("invalid-entries.json"))
        assert.strictEqual(error.entry, "servers.docs.url")
        assert.strictEqual(
          error.message,
          `${fixture("invalid-entries.json")}: servers.docs.url: expected a URL, got 42 (and 2 more invalid entries)`
        )
        assertNoSecret(error.message)
        assertNoSecret(JSON.stringify(error))
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("lenient config logs and lists each invalid entry, and loads the valid ones (C5)", () => {
      const logs = captureLogs()
      return Effect.gen(function*() {
        const snapshot = yield* McpConfiguration.fromFile(fixture("invalid-entries.json"), { strict: false })
        // `"type": "sse"` is the legacy HTTP+SSE transport
        assert.deepStrictEqual(names(snapshot.servers), ["good", "weird", "also-good"])
        assert.deepStrictEqual(snapshot.skipped, [
          { entry: "servers.docs.url", server: "docs", reason: "expected a URL, got 42" },
          {
            entry: "servers.both",
            server: "both",
            reason: "has both command and url; an entry is either stdio or HTTP"
          },
          { entry: "servers.leaky.headers.Authorization", server: "leaky", reason: "expected a string, got an array" }
        ])
        const warnings = logs.lines.filter((line) => line.includes("level=WARN"))
        assert.strictEqual(warnings.length, 3)
        for (const entry of ["servers.docs.url", "servers.both", "servers.leaky.headers"]) {
          assert.isTrue(warnings.some((line) => line.includes(entry) && line.includes("entry skipped")), entry)
        }
        assertNoSecret(logs.lines.join("\n"))
      }).pipe(Effect.provide(Layer.mergeAll(NodeServices.layer, logs.layer)))
    })

    it.effect("a file that is not JSON fails in both modes, without quoting the text (C5)", () =>
      Effect.gen(function*() {
        for (const error of yield* inBothModes("not-json.json")) {
          assert.match(error.description, /^not valid JSON \(line 5, column 1: /)
          assert.strictEqual(error.reason, "Malformed")
          assert.strictEqual(error.entry, undefined)
          assertNoSecret(error.message)
        }
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a file without a server mapping fails in both modes (C5)", () =>
      Effect.gen(function*() {
        for (const error of yield* inBothModes("no-mapping.json")) {
          assert.strictEqual(
            error.description,
            "no server mapping: expected a \"servers\" or \"mcpServers\" or \"context_servers\" key"
          )
        }
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a file with both root keys is an error in both modes (C4)", () =>
      Effect.gen(function*() {
        for (const error of yield* inBothModes("both-root-keys.json")) {
          assert.strictEqual(error.description, "\"servers\" and \"mcpServers\" are both present; use only one")
        }
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("serverKeys is configurable (C4)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "zed.json")
        yield* write(file, JSON.stringify({ context_servers: { zed: { command: "zed-mcp" } } }), 1_700_000_000)
        const zed = yield* McpConfiguration.fromFile(file, { serverKeys: ["context_servers"] })
        assert.deepStrictEqual(names(zed.servers), ["zed"])
        const error = yield* configError(
          McpConfiguration.fromFile(fixture("spec.json"), { serverKeys: ["context_servers"] })
        )
        assert.strictEqual(error.description, "no server mapping: expected a \"context_servers\" key")
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("duplicate server names within the file are rejected (JSON would keep the last silently) (C6)", () =>
      Effect.gen(function*() {
        const error = yield* configError(McpConfiguration.fromFile(fixture("duplicate-names.json")))
        assert.strictEqual(error.entry, "servers.docs")
        assert.strictEqual(error.description, "duplicate server name")
        assert.strictEqual(error.reason, "DuplicateName")
        const lenient = yield* McpConfiguration.fromFile(fixture("duplicate-names.json"), { strict: false })
        assert.deepStrictEqual(lenient.servers, [])
        assert.deepStrictEqual(lenient.skipped.map((s) => s.reason), ["duplicate server name"])
      }).pipe(Effect.provide(Layer.mergeAll(NodeServices.layer, Logger.layer([])))))

    it.effect("comments and trailing commas load, as VS Code and Zed write them; duplicates are still caught (C5)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "mcp.json")
        yield* write(
          file,
          [
            "// .vscode/mcp.json",
            "{",
            "  /* the servers */",
            "  \"servers\": {",
            "    \"docs\": { \"type\": \"http\", \"url\": \"http://127.0.0.1:9/mcp\", }, // trailing comma",
            "    \"local\": { \"command\": \"node\", \"args\": [\"server.js\",], },",
            "  },",
            "}"
          ].join("\n"),
          1_700_000_000
        )
        const config = yield* McpConfiguration.fromFile(file)
        assert.deepStrictEqual(names(config.servers), ["docs", "local"])
        yield* write(
          file,
          "{ \"servers\": { \"a\": { \"command\": \"x\" }, /* again */ \"a\": { \"command\": \"y\" }, } }",
          1_700_000_100
        )
        const error = yield* configError(McpConfiguration.fromFile(file))
        assert.strictEqual(error.description, "duplicate server name")
        yield* write(file, "{ \"servers\": { \"a\": { \"command\": \"x\" } } /* unterminated", 1_700_000_200)
        const broken = yield* configError(McpConfiguration.fromFile(file))
        assert.strictEqual(broken.description, "not valid JSON (line 1, column 42: unterminated comment)")
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a file server with the name of an explicit server is rejected (C6)", () =>
      Effect.gen(function*() {
        const explicit = McpServerConfig.stdio({ name: "catalog", command: "node" })
        const error = yield* configError(
          McpConfiguration.make({ configPath: fixture("spec.json"), servers: [explicit] })
        )
        assert.strictEqual(error.entry, "mcpServers.catalog")
        assert.include(error.description, "duplicate server name")
        assert.strictEqual(error.reason, "DuplicateName")
        // Lenient: the file's entry is skipped, the explicit definition wins.
        const lenient = yield* McpConfiguration.make({
          configPath: fixture("spec.json"),
          servers: [explicit],
          strictConfig: false
        })
        assert.deepStrictEqual(names(lenient.servers), ["local", "catalog"])
        assert.strictEqual(lenient.servers[1], explicit)
        assert.deepStrictEqual(lenient.skipped.map((s) => s.entry), ["mcpServers.catalog"])
      }).pipe(Effect.provide(Layer.mergeAll(NodeServices.layer, Logger.layer([])))))

    it.effect("duplicate names in the explicit list are rejected (C6)", () =>
      Effect.gen(function*() {
        const error = yield* configError(McpConfiguration.make({
          servers: [
            McpServerConfig.stdio({ name: "a", command: "x" }),
            McpServerConfig.stdio({ name: "a", command: "y" })
          ]
        }))
        assert.strictEqual(error.message, "servers option: a: duplicate server name")
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("any name a client allows loads; only the empty name is rejected (B4)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "names.json")
        yield* write(
          file,
          JSON.stringify({
            servers: {
              "": { command: "a" },
              "my server": { command: "b" },
              "github.com": { command: "c" },
              "日本": { command: "d" },
              "ok": { command: "e" }
            }
          }),
          1_700_000_000
        )
        const snapshot = yield* McpConfiguration.fromFile(file, { strict: false })
        assert.deepStrictEqual(names(snapshot.servers), ["my server", "github.com", "日本", "ok"])
        assert.deepStrictEqual(snapshot.skipped, [
          { entry: "servers[\"\"]", server: "", reason: "a server name must not be empty" }
        ])
      }).pipe(Effect.provide(Layer.mergeAll(NodeServices.layer, Logger.layer([])))))

    it.effect("entries are checked strictly: unknown keys, envFile, mixed kinds, wrong types (C5)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const cases: ReadonlyArray<readonly [unknown, string, string]> = [
          [{ command: "node", arg: ["x"] }, "servers.s.arg", "unknown key (did you mean \"args\"?)"],
          [{ command: "node", zzzzz: 1 }, "servers.s.zzzzz", "unknown key"],
          [{ command: "node", envFile: "missing.env" }, "servers.s.envFile", "cannot read the file (NotFound)"],
          [{ command: "node", timeout: 0 }, "servers.s.timeout", "expected a number above 0, got 0"],
          [
            { command: "node", includeTools: "a" },
            "servers.s.includeTools",
            "expected an array of strings, got a string"
          ],
          [
            { url: "https://x.example", httpUrl: "https://y.example" },
            "servers.s",
            "has both url and httpUrl; give one"
          ],
          [
            { type: "websocket", url: "wss://x" },
            "servers.s.type",
            "unsupported type \"websocket\"; expected \"stdio\", \"http\", \"streamable-http\" or \"sse\""
          ],
          [{ command: "node", headers: {} }, "servers.s.headers", "not allowed in a stdio entry"],
          [{ type: "stdio", url: "https://x.example" }, "servers.s.url", "not allowed in a stdio entry"],
          [{ type: "http", command: "node" }, "servers.s.command", "not allowed in an HTTP entry"],
          [{ type: "http" }, "servers.s.url", "missing"],
          [{}, "servers.s", "expected a command (stdio) or a url (HTTP)"],
          [
            { comand: "node" },
            "servers.s",
            "expected a command (stdio) or a url (HTTP); it has \"comand\" (did you mean \"command\"?)"
          ],
          [
            { URL: "https://x.example" },
            "servers.s",
            "expected a command (stdio) or a url (HTTP); it has \"URL\" (did you mean \"url\"?)"
          ],
          [[], "servers.s", "expected an object, got an array"],
          [{ command: "" }, "servers.s.command", "expected a non-empty string, got an empty string"],
          [{ command: "node", args: "--x" }, "servers.s.args", "expected an array of strings, got a string"],
          [{ command: "node", args: ["ok", 3] }, "servers.s.args[1]", "expected a string, got 3"],
          [{ command: "node", env: { K: 1234 } }, "servers.s.env.K", "expected a string, got a number"],
          [{ command: "node", cwd: false }, "servers.s.cwd", "expected a non-empty string, got false"],
          [{ url: "ftp://x.example" }, "servers.s.url", "expected an http(s) URL, got a \"ftp\" URL"],
          [{ url: "nope" }, "servers.s.url", "expected an http(s) URL, got a string that is not a URL"],
          [
            { url: "https://x.example", headers: { "Bad Header": "v" } },
            "servers.s.headers[\"Bad Header\"]",
            "not a valid HTTP header name"
          ],
          [
            { url: "https://x.example", headers: { A: "v\r\nX: y" } },
            "servers.s.headers.A",
            "contains a line break or NUL character"
          ],
          [{ command: "node", disabled: "yes" }, "servers.s.disabled", "expected true or false, got a string"],
          [{ type: 7, command: "node" }, "servers.s.type", "expected a string, got 7"]
        ]
        for (const [index, [entry, where, reason]] of cases.entries()) {
          const file = NodePath.join(dir, `case-${index}.json`)
          yield* write(file, JSON.stringify({ servers: { s: entry } }), 1_700_000_000)
          const error = yield* configError(McpConfiguration.fromFile(file))
          assert.deepStrictEqual(
            [error.entry, error.reason, error.description],
            [where, "InvalidEntry", reason],
            JSON.stringify(entry)
          )
        }
        // Harmless keys that clients write for themselves are accepted.
        const file = NodePath.join(dir, "extras.json")
        yield* write(
          file,
          JSON.stringify({
            servers: {
              s: { command: "node", autoApprove: [], alwaysAllow: [], timeout: 60, description: "d", disabled: false }
            }
          }),
          1_700_000_000
        )
        assert.deepStrictEqual(names((yield* McpConfiguration.fromFile(file)).servers), ["s"])
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a malformed file makes the layer fail with a readable McpConfigError (C8)", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(
          Layer.build(McpConfiguration.layer({ configPath: fixture("invalid-entries.json") })).pipe(Effect.scoped)
        )
        assert(Exit.isFailure(exit))
        const error = yield* Effect.flip(exit)
        assert.strictEqual(error._tag, "McpConfigError")
        assert.isTrue(McpError.isMcpError(error))
        assert.match(error.message, /invalid-entries\.json: servers\.docs\.url: expected a URL, got 42/)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a path that is a directory is an error, not a crash (C8)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const error = yield* configError(McpConfiguration.make({ configPath: dir }))
        assert.strictEqual(error.description, "is a directory, expected a JSON file")
        assert.strictEqual(error.reason, "Unreadable")
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  describe("where the file is", () => {
    it.effect("with neither servers nor configPath, ~/.zett/mcp.json is loaded (C2)", () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const fs = yield* FileSystem.FileSystem
        yield* fs.makeDirectory(NodePath.join(home, ".zett"))
        const file = NodePath.join(home, ".zett", "mcp.json")
        yield* write(file, JSON.stringify({ mcpServers: { home: { command: "node" } } }), 1_700_000_000)
        const config = yield* McpConfiguration.make().pipe(withHome(home))
        assert.strictEqual(config.path, file)
        assert.deepStrictEqual(names(config.servers), ["home"])
        assert.strictEqual(yield* McpConfiguration.defaultPath.pipe(withHome(home)), file)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("with an explicit servers list and no path, no file is looked up (C2)", () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const fs = yield* FileSystem.FileSystem
        yield* fs.makeDirectory(NodePath.join(home, ".zett"))
        yield* write(
          NodePath.join(home, ".zett", "mcp.json"),
          JSON.stringify({ mcpServers: { home: { command: "node" } } }),
          1_700_000_000
        )
        const counting = countingFileSystem()
        const explicit = McpServerConfig.stdio({ name: "mine", command: "node" })
        const config = yield* McpConfiguration.make({ servers: [explicit] }).pipe(
          withHome(home),
          Effect.provide(counting.layer)
        )
        const snapshot = yield* config.current
        assert.strictEqual(config.path, undefined)
        assert.deepStrictEqual(snapshot, { path: undefined, servers: [explicit], skipped: [] })
        assert.deepStrictEqual(counting.counts, { stat: 0, read: 0 })
        // An explicit empty list is still an explicit list.
        const empty = yield* McpConfiguration.make({ servers: [] }).pipe(withHome(home), Effect.provide(counting.layer))
        assert.deepStrictEqual(empty.servers, [])
        assert.deepStrictEqual(counting.counts, { stat: 0, read: 0 })
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("the file's servers keep the order in which they are written, numeric names included (C3)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "order.json")
        yield* write(
          file,
          `{"servers": {"b": {"command": "x"}, "10": {"command": "x"}, "a": {"command": "x"}, "2": {"command": "x"}}}`,
          1_700_000_000
        )
        assert.deepStrictEqual(names((yield* McpConfiguration.fromFile(file)).servers), ["b", "10", "a", "2"])
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("servers lists the servers of the file first, then the explicit ones (C3)", () =>
      Effect.gen(function*() {
        const explicit = [
          McpServerConfig.stdio({ name: "zeta", command: "z" }),
          McpServerConfig.stdio({ name: "alpha", command: "a" })
        ]
        const config = yield* McpConfiguration.make({ configPath: fixture("spec.json"), servers: explicit })
        assert.deepStrictEqual(names(config.servers), ["catalog", "local", "zeta", "alpha"])
        assert.deepStrictEqual(names((yield* config.current).servers), ["catalog", "local", "zeta", "alpha"])
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a missing file is no servers, but path still names it (C7)", () =>
      Effect.gen(function*() {
        const home = yield* tempDir
        const config = yield* McpConfiguration.make().pipe(withHome(home))
        assert.strictEqual(config.path, NodePath.join(home, ".zett", "mcp.json"))
        assert.deepStrictEqual(yield* config.current, { path: config.path, servers: [], skipped: [] })

        const explicit = McpServerConfig.stdio({ name: "mine", command: "node" })
        const withExplicit = yield* McpConfiguration.make({
          configPath: NodePath.join(home, "nowhere.json"),
          servers: [explicit]
        })
        assert.strictEqual(withExplicit.path, NodePath.join(home, "nowhere.json"))
        assert.deepStrictEqual(withExplicit.servers, [explicit])
        assert.deepStrictEqual((yield* McpConfiguration.fromFile(NodePath.join(home, "nowhere.json"))).servers, [])
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a relative configPath is resolved to an absolute path (C7)", () =>
      Effect.gen(function*() {
        const relative = NodePath.relative(process.cwd(), fixture("spec.json"))
        const config = yield* McpConfiguration.make({ configPath: relative })
        assert.strictEqual(config.path, fixture("spec.json"))
        assert.isTrue(NodePath.isAbsolute((yield* McpConfiguration.fromFile(relative)).path!))
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  describe("while running", () => {
    it.effect("an unchanged file costs one stat per request and no read (C10)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "mcp.json")
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" } } }), 1_700_000_000)
        const counting = countingFileSystem()
        const config = yield* McpConfiguration.make({ configPath: file }).pipe(Effect.provide(counting.layer))
        assert.deepStrictEqual(counting.counts, { stat: 1, read: 1 })
        for (let i = 0; i < 3; i++) {
          assert.deepStrictEqual(names((yield* config.current).servers), ["a"])
        }
        assert.deepStrictEqual(counting.counts, { stat: 4, read: 1 })
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("an edit (new mtime or new size) applies to the next request without restart (C10)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "mcp.json")
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" } } }), 1_700_000_000)
        const counting = countingFileSystem()
        const config = yield* McpConfiguration.make({ configPath: file }).pipe(Effect.provide(counting.layer))

        // Same mtime, different size.
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" }, bb: { command: "x" } } }), 1_700_000_000)
        assert.deepStrictEqual(names((yield* config.current).servers), ["a", "bb"])
        assert.deepStrictEqual(names(config.servers), ["a", "bb"])
        assert.strictEqual(counting.counts.read, 2)

        // Same size, different mtime.
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" }, cc: { command: "x" } } }), 1_700_000_100)
        assert.deepStrictEqual(names((yield* config.current).servers), ["a", "cc"])
        assert.strictEqual(counting.counts.read, 3)

        // Same size and same mtime: by design not noticed (no read at all).
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" }, dd: { command: "x" } } }), 1_700_000_100)
        assert.deepStrictEqual(names((yield* config.current).servers), ["a", "cc"])
        assert.strictEqual(counting.counts.read, 3)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("concurrent requests after an edit read the file once (C10)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "mcp.json")
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" } } }), 1_700_000_000)
        const counting = countingFileSystem()
        const config = yield* McpConfiguration.make({ configPath: file }).pipe(Effect.provide(counting.layer))
        yield* write(file, JSON.stringify({ servers: { b: { command: "node" } } }), 1_700_000_100)
        const snapshots = yield* Effect.all(Array.from({ length: 10 }, () => config.current), { concurrency: 10 })
        assert.deepStrictEqual(new Set(snapshots.map((snapshot) => names(snapshot.servers).join())), new Set(["b"]))
        assert.deepStrictEqual(counting.counts, { stat: 11, read: 2 })
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a file that appears later is loaded; one that disappears leaves only the explicit servers (C10)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const fs = yield* FileSystem.FileSystem
        const file = NodePath.join(dir, "mcp.json")
        const explicit = McpServerConfig.stdio({ name: "mine", command: "node" })
        const counting = countingFileSystem()
        const logs = captureLogs()
        const config = yield* McpConfiguration.make({ configPath: file, servers: [explicit] }).pipe(
          Effect.provide(counting.layer)
        )
        assert.deepStrictEqual(names(config.servers), ["mine"])
        assert.deepStrictEqual(names((yield* config.current).servers), ["mine"])
        assert.strictEqual(counting.counts.read, 0)

        yield* write(file, JSON.stringify({ servers: { late: { url: "https://late.example/mcp" } } }), 1_700_000_000)
        assert.deepStrictEqual(names((yield* config.current).servers), ["late", "mine"])

        yield* fs.remove(file)
        const after = yield* config.current.pipe(Effect.provide(logs.layer))
        assert.deepStrictEqual(after, { path: file, servers: [explicit], skipped: [] })
        assert.isTrue(logs.lines.some((line) => line.includes("configuration file removed")))
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a file that turns invalid is logged with the reason and the last valid list stays (C11)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "mcp.json")
        const secret = "c11-secret-9d0e"
        yield* write(
          file,
          JSON.stringify({ servers: { a: { url: "https://a.example/mcp", headers: { Authorization: secret } } } }),
          1_700_000_000
        )
        const counting = countingFileSystem()
        const logs = captureLogs()
        const config = yield* McpConfiguration.make({ configPath: file }).pipe(Effect.provide(counting.layer))

        yield* write(
          file,
          JSON.stringify({ servers: { a: { url: "https://a.example/mcp", headers: { Authorization: [secret] } } } }),
          1_700_000_100
        )
        const first = yield* config.current.pipe(Effect.provide(logs.layer))
        assert.deepStrictEqual(names(first.servers), ["a"])
        assert.strictEqual(first.servers[0], config.servers[0])
        const warnings = logs.lines.filter((line) => line.includes("level=WARN"))
        assert.strictEqual(warnings.length, 1)
        assert.include(warnings[0], "servers.a.headers.Authorization: expected a string, got an array")
        assert.include(warnings[0], "keeping the last valid configuration")
        assertNoSecret(logs.lines.join("\n"), [secret])

        // The invalid version is not read (nor reported) again until it changes.
        yield* config.current.pipe(Effect.provide(logs.layer))
        assert.strictEqual(counting.counts.read, 2)
        assert.strictEqual(logs.lines.filter((line) => line.includes("level=WARN")).length, 1)

        // Not JSON at all: same behaviour.
        yield* write(file, "{ \"servers\": ", 1_700_000_200)
        assert.deepStrictEqual(names((yield* config.current.pipe(Effect.provide(logs.layer))).servers), ["a"])

        // Fixed: the new list is used.
        yield* write(file, JSON.stringify({ servers: { b: { command: "node" } } }), 1_700_000_300)
        assert.deepStrictEqual(names((yield* config.current).servers), ["b"])
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("a file that clashes with an explicit server while running keeps the last valid list (C11)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "mcp.json")
        const explicit = McpServerConfig.stdio({ name: "mine", command: "node" })
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" } } }), 1_700_000_000)
        const config = yield* McpConfiguration.make({ configPath: file, servers: [explicit] })
        yield* write(file, JSON.stringify({ servers: { mine: { command: "node" } } }), 1_700_000_100)
        const snapshot = yield* config.current.pipe(Effect.provide(Logger.layer([])))
        assert.deepStrictEqual(names(snapshot.servers), ["a", "mine"])
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("lenient mode: a new invalid entry is skipped, the valid ones apply (C11)", () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const file = NodePath.join(dir, "mcp.json")
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" } } }), 1_700_000_000)
        const config = yield* McpConfiguration.make({ configPath: file, strictConfig: false })
        yield* write(file, JSON.stringify({ servers: { a: { command: "node" }, b: { url: 1 } } }), 1_700_000_100)
        const snapshot = yield* config.current.pipe(Effect.provide(Logger.layer([])))
        assert.deepStrictEqual(names(snapshot.servers), ["a"])
        assert.deepStrictEqual(snapshot.skipped, [
          { entry: "servers.b.url", server: "b", reason: "expected a URL, got 1" }
        ])
        assert.deepStrictEqual(config.skipped, snapshot.skipped)
      }).pipe(Effect.provide(NodeServices.layer)))

    it.effect("current never fails, even when the file system does (C10)", () =>
      Effect.gen(function*() {
        let broken = false
        const info: FileSystem.File.Info = {
          type: "File",
          mtime: { _tag: "Some", value: new Date(1_700_000_000_000) } as never,
          atime: { _tag: "None" } as never,
          birthtime: { _tag: "None" } as never,
          dev: 0n,
          ino: { _tag: "None" } as never,
          mode: 0,
          nlink: { _tag: "None" } as never,
          uid: { _tag: "None" } as never,
          gid: { _tag: "None" } as never,
          rdev: { _tag: "None" } as never,
          size: ByteSize.bytes(40),
          blksize: { _tag: "None" } as never,
          blocks: { _tag: "None" } as never
        }
        const fsLayer = FileSystem.layerNoop({
          stat: () => (broken ? Effect.die(new Error("disk on fire")) : Effect.succeed(info)),
          readFileString: () => Effect.succeed(JSON.stringify({ servers: { a: { command: "node" } } }))
        })
        const config = yield* McpConfiguration.make({ configPath: "/virtual/mcp.json" }).pipe(Effect.provide(fsLayer))
        broken = true
        const snapshot = yield* config.current.pipe(Effect.provide(Logger.layer([])))
        assert.deepStrictEqual(names(snapshot.servers), ["a"])
      }).pipe(Effect.provide(NodeServices.layer)))
  })

  it.effect("a value expanded into a url or an argument is a secret too; workspaceFolder can be given", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = NodePath.join(dir, "mcp.json")
      yield* write(
        file,
        JSON.stringify({
          mcpServers: {
            remote: { url: "https://x.example/mcp?token=${TOKEN}" },
            local: { command: "node", args: ["--key=${env:TOKEN}", "${workspaceFolder}/server.js"] }
          }
        }),
        1_700_000_000
      )
      const snapshot = yield* McpConfiguration.fromFile(file, { workspaceFolder: "/srv/project" }).pipe(
        Utils.withEnv(Object.fromEntries([["TOKEN", "url-secret-4f2a"]]))
      )
      const [remote, local] = snapshot.servers
      assert(remote?._tag === "McpHttpServer" && local?._tag === "McpStdioServer")
      assert.strictEqual(remote.url, "https://x.example/mcp?token=url-secret-4f2a")
      assert.deepStrictEqual(local.args, ["--key=url-secret-4f2a", "/srv/project/server.js"])
      assert.strictEqual(
        McpServerConfig.describe(remote),
        "remote (streamable-http https://x.example/mcp?token=<redacted>)"
      )
      assert.strictEqual(
        McpServerConfig.scrubberOf(local).scrub("started with --key=url-secret-4f2a"),
        "started with --key=<redacted>"
      )
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("timeout is seconds in Cline's file and milliseconds in Gemini CLI's; a Zed extension's server is left out", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const at = (...parts: ReadonlyArray<string>) => {
        const file = NodePath.join(dir, ...parts)
        Fs.mkdirSync(NodePath.dirname(file), { recursive: true })
        return file
      }
      const cline = at("cline", "cline_mcp_settings.json")
      yield* write(cline, JSON.stringify({ mcpServers: { s: { command: "node", timeout: 60 } } }), 1_700_000_000)
      const gemini = at(".gemini", "settings.json")
      yield* write(gemini, JSON.stringify({ mcpServers: { s: { command: "node", timeout: 30000 } } }), 1_700_000_000)
      const zed = at("zed", "settings.json")
      yield* write(
        zed,
        JSON.stringify({
          context_servers: { ext: { source: "extension", settings: { token: "x" } }, mine: { command: "node" } }
        }),
        1_700_000_000
      )
      const timeoutOf = (snapshot: McpServers.Snapshot) => Duration.toMillis(snapshot.servers[0]!.timeout!)
      assert.strictEqual(timeoutOf(yield* McpConfiguration.fromFile(cline)), 60_000)
      assert.strictEqual(timeoutOf(yield* McpConfiguration.fromFile(gemini)), 30_000)
      assert.deepStrictEqual(names((yield* McpConfiguration.fromFile(zed)).servers), ["mine"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("McpInputs.make asks once per input id, also when asked concurrently", () =>
    Effect.gen(function*() {
      let asked = 0
      const answer = yield* Deferred.make<void>()
      const inputs = yield* McpInputs.make((input) =>
        Effect.andThen(
          Effect.sync(() => asked++),
          Effect.as(Deferred.await(answer), Redacted.make(`value of ${input.id}`))
        )
      )
      const input = { id: "key", password: true }
      const waiting = yield* Effect.forkChild(
        Effect.all([inputs.get(input), inputs.get(input), inputs.get(input)], { concurrency: "unbounded" })
      )
      yield* Deferred.succeed(answer, void 0)
      const values = yield* Fiber.join(waiting)
      yield* inputs.get(input)
      assert.deepStrictEqual(values.map(Redacted.value), ["value of key", "value of key", "value of key"])
      assert.strictEqual(asked, 1)
    }))

  it.effect("no header or env value appears in errors, logs, snapshots' rendering or the layer's failure (B2)", () => {
    const logs = captureLogs()
    return Effect.gen(function*() {
      const texts: Array<string> = []
      for (const name of ["claude-desktop.json", "cursor.json", "vscode.json", "claude-code.json"]) {
        const snapshot = yield* McpConfiguration.fromFile(fixture(name))
        texts.push(
          JSON.stringify(snapshot),
          String(snapshot.servers),
          snapshot.servers.map(McpServerConfig.describe).join()
        )
        yield* Effect.logInfo("loaded", snapshot)
      }
      for (const name of ["invalid-entries.json", "not-json.json"]) {
        const error = yield* Effect.flip(McpConfiguration.fromFile(fixture(name)))
        texts.push(error.message, String(error), JSON.stringify(error))
        yield* Effect.logError("failed", error)
      }
      yield* McpConfiguration.fromFile(fixture("invalid-entries.json"), { strict: false })
      assert.isAbove(logs.lines.length, 6)
      assertNoSecret([...texts, ...logs.lines].join("\n"))
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          NodeServices.layer,
          logs.layer,
          McpInputs.layerValues({ "api-key": "vscode-fixture-secret-0003" })
        )
      ),
      Utils.withEnv(Object.fromEntries([["SENTRY_TOKEN", "claude-code-fixture-secret-0004"]]))
    )
  })
})
