/**
 * The configuration reader, entry by entry, on a file system of virtual files: what each shape of entry loads
 * as, and the entry and description of each refusal (found by mutation testing of internal/config.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpConfiguration, McpInputs } from "@zett/mcp-config"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as PlatformError from "effect/PlatformError"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import * as Utils from "./utils.js"

interface Setup {
  readonly vars?: Record<string, string>
  /** Other files, by absolute path; "bad-argument" makes reading it fail with BadArgument. */
  readonly files?: Record<string, string>
  readonly inputs?: Layer.Layer<never>
  readonly strict?: boolean
}

/** Loads `text` as the file at `path`; returns the exit and the log lines (debug included). */
const loadText = (path: string, text: string, setup: Setup = {}) => {
  const files: Record<string, string> = { ...setup.files, [path]: text }
  const read = (file: string) =>
    files[file] === "bad-argument"
      ? Effect.fail(PlatformError.badArgument({ module: "FileSystem", method: "readFileString", description: "bad" }))
      : files[file] !== undefined
      ? Effect.succeed(files[file])
      : Effect.fail(
        PlatformError.systemError({
          module: "FileSystem",
          method: "readFileString",
          _tag: "NotFound",
          pathOrDescriptor: file
        })
      )
  const virtual = Utils.virtualFile(text, read)
  const lines = virtual.lines
  const layer = Layer.merge(virtual.layer, setup.inputs ?? Layer.empty)
  const exit = Effect.runSyncExit(
    McpConfiguration.fromFile(path, { strict: setup.strict ?? true }).pipe(
      Effect.provideService(References.MinimumLogLevel, "Debug"),
      Utils.withEnv(setup.vars ?? {}),
      Effect.provide(layer)
    )
  )
  return { exit, lines }
}

const load = (root: unknown, setup?: Setup, path = "/p/mcp.json") => loadText(path, JSON.stringify(root), setup)

/** The one server of `{ mcpServers: { s: entry } }`. */
const serverOf = (entry: unknown, setup?: Setup, path?: string): McpServerConfig.McpServerConfig => {
  const { exit } = load({ mcpServers: { s: entry } }, setup, path)
  assert(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "")
  assert.strictEqual(exit.value.servers.length, 1)
  return exit.value.servers[0]!
}

/** `[entry, description]` of the error a file gives. */
const refusal = (root: unknown, setup?: Setup, path?: string) => {
  const { exit } = load(root, setup, path)
  assert(Exit.isFailure(exit), "loaded")
  const error = Option.getOrThrow(Cause.findErrorOption(exit.cause))
  return [error.entry, error.description]
}
const refusalOf = (entry: unknown, setup?: Setup, path?: string) => refusal({ mcpServers: { s: entry } }, setup, path)

const stdio = (server: McpServerConfig.McpServerConfig) => {
  assert(server._tag === "McpStdioServer")
  return server
}
const http = (server: McpServerConfig.McpServerConfig) => {
  assert(server._tag === "McpHttpServer")
  return server
}
const values = (record: Readonly<Record<string, Redacted.Redacted<string>>>) =>
  Object.fromEntries(Object.entries(record).map(([key, value]) => [key, Redacted.value(value)]))

describe("McpConfiguration entries", () => {
  it("reasons say what a value is without showing it: null, an object, a long string cut at 40", () => {
    const long = "t".repeat(41)
    const cases: ReadonlyArray<readonly [unknown, string, string]> = [
      [{ command: "node", args: null }, "mcpServers.s.args", "expected an array of strings, got null"],
      [{ command: "node", args: {} }, "mcpServers.s.args", "expected an array of strings, got an object"],
      [
        { type: long, command: "node" },
        "mcpServers.s.type",
        `unsupported type "${"t".repeat(40)}..."; expected "stdio", "http", "streamable-http" or "sse"`
      ],
      [
        { type: "t".repeat(40), command: "node" },
        "mcpServers.s.type",
        `unsupported type "${"t".repeat(40)}"; expected "stdio", "http", "streamable-http" or "sse"`
      ],
      [{ type: "stdio" }, "mcpServers.s.command", "missing"],
      [{ command: "node", env: { "": "v" } }, "mcpServers.s.env[\"\"]", "not a valid environment variable name"],
      [{ command: "node", env: { "A=B": "v" } }, "mcpServers.s.env[\"A=B\"]", "not a valid environment variable name"],
      [
        { command: "node", env: { "A\u0000": "v" } },
        "mcpServers.s.env[\"A\\u0000\"]",
        "not a valid environment variable name"
      ],
      [{ command: "node", envFil: "x" }, "mcpServers.s.envFil", "unknown key (did you mean \"envFile\"?)"],
      [{ command: "node", argz: [] }, "mcpServers.s.argz", "unknown key (did you mean \"args\"?)"],
      [{ command: "node", ab: 1 }, "mcpServers.s.ab", "unknown key"],
      [{ command: "node", ar: [] }, "mcpServers.s.ar", "unknown key (did you mean \"args\"?)"]
    ]
    for (const [entry, where, reason] of cases) {
      assert.deepStrictEqual(refusalOf(entry), [where, reason], JSON.stringify(entry))
    }
    // a long server name is quoted and cut in the entry's path
    const name = `${"n".repeat(41)} x`
    assert.deepStrictEqual(refusal({ mcpServers: { [name]: { command: "" } } }), [
      `mcpServers["${"n".repeat(40)}..."].command`,
      "expected a non-empty string, got an empty string"
    ])
  })

  it("the file as a whole: not an object, a mapping that is not one, a root key written twice, invalid inputs", () => {
    const file = (text: string) => {
      const { exit } = loadText("/p/mcp.json", text)
      assert(Exit.isFailure(exit))
      const error = Option.getOrThrow(Cause.findErrorOption(exit.cause))
      return [error.entry, error.reason, error.description]
    }
    assert.deepStrictEqual(file("[]"), [undefined, "Malformed", "expected a JSON object at the root, got an array"])
    assert.deepStrictEqual(file("{\"mcpServers\": []}"), [
      "mcpServers",
      "Malformed",
      "expected an object mapping server names to entries, got an array"
    ])
    assert.deepStrictEqual(file("{\"mcpServers\": {}, \"mcpServers\": {}}"), [
      "mcpServers",
      "Malformed",
      "duplicate key"
    ])
    assert.deepStrictEqual(file("{\"mcpServers\": {\"s\": {\"command\": \"x\", \"command\": \"y\"}}}"), [
      "mcpServers.s.command",
      "InvalidEntry",
      "duplicate key"
    ])
    assert.deepStrictEqual(
      file("{\"mcpServers\": {\"s\": {\"command\": \"x\", \"env\": {\"K\": \"1\", \"K\": \"2\"}}}}"),
      [
        "mcpServers.s.env.K",
        "InvalidEntry",
        "duplicate key"
      ]
    )
    assert.deepStrictEqual(refusal({ mcpServers: {}, inputs: [{ id: "" }] }), [
      "inputs[0].id",
      "expected a non-empty string, got an empty string"
    ])
    // a key written twice elsewhere, or inside another entry, concerns neither the file nor this entry
    const { exit } = loadText(
      "/p/mcp.json",
      "{\"other\": 1, \"other\": 2, \"mcpServers\": {\"a\": {\"command\": \"x\"}, \"b\": {\"command\": \"x\", \"args\": [], \"args\": []}}}",
      { strict: false }
    )
    assert(Exit.isSuccess(exit))
    assert.deepStrictEqual(exit.value.servers.map((server) => server.name), ["a"])
    assert.deepStrictEqual(exit.value.skipped, [{ entry: "mcpServers.b.args", server: "b", reason: "duplicate key" }])
    const twice = loadText(
      "/p/mcp.json",
      "{\"mcpServers\": {\"a\": {\"command\": \"x\"}, \"b\": {\"command\": \"x\"}, \"b\": {\"command\": \"y\"}}}",
      { strict: false }
    )
    assert(Exit.isSuccess(twice.exit))
    assert.deepStrictEqual(twice.exit.value.servers.map((server) => server.name), ["a"])
  })

  it("Zed's command object: path, args and env; disabled and enabled: false are left out, and logged at debug", () => {
    const zed = (entry: unknown) => {
      const { exit } = load({ context_servers: { z: entry } }, {}, "/home/u/.config/zed/settings.json")
      assert(Exit.isSuccess(exit))
      return exit.value.servers.map(stdio)
    }
    const [full] = zed({ command: { path: "zed-mcp", args: ["a"], env: { K: "v" } }, enabled: true })
    assert.deepStrictEqual([full!.command, full!.args, values(full!.env)], ["zed-mcp", ["a"], { K: "v" }])
    const [bare] = zed({ command: { path: "zed-mcp" } })
    assert.deepStrictEqual([bare!.command, bare!.args, values(bare!.env)], ["zed-mcp", [], {}])
    assert.deepStrictEqual(zed({ command: "zed-mcp", enabled: false }), [])
    const { exit, lines } = load({ mcpServers: { on: { command: "x" }, off: { command: "y", disabled: true } } })
    assert(Exit.isSuccess(exit))
    assert.deepStrictEqual(exit.value.servers.map((server) => server.name), ["on"])
    assert.isTrue(lines.some((line) => line.includes("disabled entries left out: off\"")), lines.join("\n"))
    const none = load({ mcpServers: { on: { command: "x" } } })
    assert.isFalse(none.lines.some((line) => line.includes("disabled entries")), none.lines.join("\n"))
  })

  it("timeout, includeTools and excludeTools reach the definition; without them it has none", () => {
    const server = serverOf({ command: "node", timeout: 1500, includeTools: ["a"], excludeTools: ["b"] })
    assert.deepStrictEqual([server.timeout, server.includeTools, server.excludeTools], [Duration.millis(1500), ["a"], [
      "b"
    ]])
    const plain = stdio(serverOf({ command: "node" }))
    assert.deepStrictEqual([plain.timeout, plain.args, plain.secrets], [undefined, [], []])
  })

  it("each expanded field names itself when its variable is unset", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ command: "${U}" }, "mcpServers.s.command"],
      [{ command: "node", cwd: "${U}" }, "mcpServers.s.cwd"],
      [{ command: "node", envFile: "${U}" }, "mcpServers.s.envFile"],
      [{ url: "https://x/${U}" }, "mcpServers.s.url"],
      [{ httpUrl: "https://x/${U}" }, "mcpServers.s.httpUrl"]
    ]
    for (const [entry, where] of cases) {
      assert.deepStrictEqual(
        refusalOf(entry),
        [where, "the variable U is not set and has no default"],
        JSON.stringify(entry)
      )
    }
    assert.deepStrictEqual(refusalOf({ command: "${E}" }, { vars: { E: "" } }), [
      "mcpServers.s.command",
      "is empty once its variables are expanded"
    ])
  })

  it("envFile: expanded, read from the workspace, overridden by env; a failed read says why when it can", () => {
    const server = stdio(serverOf(
      { command: "node", envFile: "${D}/.env", env: { B: "env-b" } },
      { vars: { D: "conf" }, files: { "/p/conf/.env": "A=file-a\nB=file-b\n" } }
    ))
    assert.deepStrictEqual(values(server.env), { A: "file-a", B: "env-b" })
    assert.deepStrictEqual(server.secrets.map(Redacted.value), ["conf", "file-a", "file-b"])
    assert.deepStrictEqual(refusalOf({ command: "node", envFile: ".env" }, { files: { "/p/.env": "bad-argument" } }), [
      "mcpServers.s.envFile",
      "cannot read the file"
    ])
  })

  it("secrets: every non-empty value that came from a variable, and nothing else", () => {
    const server = stdio(
      serverOf({ command: "node", args: ["${A}${E}"], env: { K: "${E}" } }, { vars: { A: "a", E: "" } })
    )
    assert.deepStrictEqual(server.secrets.map(Redacted.value), ["a"])
  })

  it("the transport: sse for type sse and for Gemini CLI's url, Streamable HTTP otherwise", () => {
    const gemini = "/home/u/.gemini/settings.json"
    const cases: ReadonlyArray<readonly [unknown, string | undefined, string]> = [
      [{ type: "sse", url: "https://x" }, undefined, "sse"],
      [{ url: "https://x" }, gemini, "sse"],
      [{ url: "https://x" }, undefined, "streamable-http"],
      [{ httpUrl: "https://x" }, gemini, "streamable-http"],
      [{ type: "http", url: "https://x" }, gemini, "streamable-http"],
      [{ serverUrl: "https://x" }, undefined, "streamable-http"]
    ]
    for (const [entry, path, transport] of cases) {
      assert.strictEqual(http(serverOf(entry, {}, path)).transport, transport, JSON.stringify([entry, path]))
    }
  })

  it("${input:ID}: only an input the file defines, asked with its password flag", () => {
    const asked: Array<McpInputs.Input> = []
    const inputs = Layer.effect(
      McpInputs.McpInputs,
      McpInputs.make((input) => Effect.sync(() => (asked.push(input), Redacted.make(`v-${input.id}`))))
    )
    assert.deepStrictEqual(refusalOf({ command: "node", args: ["${input:k}"] }, { inputs }, "/p/.vscode/mcp.json"), [
      "mcpServers.s.args[0]",
      "the input \"k\" has no value: no such input in the file's inputs"
    ])
    const { exit } = load(
      {
        servers: { s: { command: "node", args: ["${input:k}", "${input:p}"] } },
        inputs: [{ id: "k" }, { id: "p", password: true }]
      },
      { inputs },
      "/p/.vscode/mcp.json"
    )
    assert(Exit.isSuccess(exit))
    assert.deepStrictEqual(stdio(exit.value.servers[0]!).args, ["v-k", "v-p"])
    assert.deepStrictEqual(asked.map((input) => [input.id, input.password]), [["k", false], ["p", true]])
  })

  it("the text: a byte order mark is skipped; nesting is cut at 128 levels, at the line and column of the 129th", () => {
    const bom = loadText("/p/mcp.json", "\uFEFF{\"mcpServers\": {\"s\": {\"command\": \"x\"}}}")
    assert(Exit.isSuccess(bom.exit))
    assert.deepStrictEqual(bom.exit.value.servers.map((server) => server.name), ["s"])
    const nested = (arrays: number) => `{\n"a": ${"[".repeat(arrays)}${"]".repeat(arrays)}, "mcpServers": {}}`
    assert(Exit.isSuccess(loadText("/p/mcp.json", nested(127)).exit))
    const { exit } = loadText("/p/mcp.json", nested(128))
    assert(Exit.isFailure(exit))
    const error = Option.getOrThrow(Cause.findErrorOption(exit.cause))
    assert.strictEqual(error.entry, "a")
    assert.strictEqual(error.reason, "Malformed")
    assert.strictEqual(error.description, "nested deeper than 128 levels (line 2, column 133)")
  })

  it("a syntax error reads as its line, column and a fixed reason, the first error only", () => {
    const reason = (text: string) => {
      const { exit } = loadText("/p/mcp.json", text)
      assert(Exit.isFailure(exit), text)
      const error = Option.getOrThrow(Cause.findErrorOption(exit.cause))
      assert.strictEqual(error.entry, undefined)
      assert.strictEqual(error.reason, "Malformed", text)
      return error.description
    }
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["#{}", "line 1, column 1: unexpected character"],
      ["{1: 2}", "line 1, column 2: expected a property name in double quotes"],
      ["{\"a\": }", "line 1, column 7: expected a value"],
      ["{\"a\" 1}", "line 1, column 6: expected ':' after a property name"],
      ["{\"a\": 1 \"b\": 2}", "line 1, column 9: expected ','"],
      ["{\"a\": 1", "line 1, column 8: expected '}' at the end of an object"],
      ["[1", "line 1, column 3: expected ']' at the end of an array"],
      ["{} {}", "line 1, column 4: unexpected text after the end of the JSON value"],
      ["{} /*", "line 1, column 4: unterminated comment"],
      ["{\"a", "line 1, column 2: unterminated string"],
      ["{\"a\": 1.}", "line 1, column 7: unexpected end of a number"],
      ["{\"a\": \"\\u12\"}", "line 1, column 7: invalid \\u escape"],
      ["{\"a\": \"\\q\"}", "line 1, column 7: invalid escape in a string"],
      ["{\"a\": \"\u0001\"}", "line 1, column 7: control character in a string"],
      ["\n\n  {\"mcpServers\": {}} x", "line 3, column 22: unexpected character"],
      // nothing is built after the first error: neither the object after it nor a nesting limit reached later
      ["#{\"mcpServers\": {\"s\": {\"command\": \"x\"}}}", "line 1, column 1: unexpected character"],
      [`#\n${"[".repeat(200)}${"]".repeat(200)}`, "line 1, column 1: unexpected character"],
      // no value at all: empty, blank, or comments only
      ["", "line 1, column 1: the file is empty"],
      ["\uFEFF \n\t", "line 1, column 1: the file is empty"],
      ["// mcp.json\n/* nothing yet */\n", "line 1, column 1: the file is empty"]
    ]
    for (const [text, issue] of cases) {
      assert.strictEqual(reason(text), `not valid JSON (${issue})`, JSON.stringify(text))
    }
  })

  it("a key written twice in an object inside an array is named with the array's index", () => {
    const { exit } = loadText(
      "/p/mcp.json",
      "{\"mcpServers\": {\"s\": {\"command\": \"x\", \"extra\": [{}, [{\"k\": 1, \"k\": 2}]]}}}"
    )
    assert(Exit.isFailure(exit))
    const error = Option.getOrThrow(Cause.findErrorOption(exit.cause))
    assert.deepStrictEqual([error.entry, error.reason, error.description], [
      "mcpServers.s.extra[1][0].k",
      "InvalidEntry",
      "duplicate key"
    ])
  })

  it("combine: a later file wins a name, with a warning naming both; paths joined; skipped kept", () => {
    const server = (name: string, command = "node") => McpServerConfig.stdio({ name, command })
    const skipped = { entry: "mcpServers.bad", server: "bad", reason: "missing" }
    const lines: Array<string> = []
    const logger = Logger.make(({ message }) => void lines.push(String(Array.isArray(message) ? message[0] : message)))
    const combined = Effect.runSync(
      McpConfiguration.combine([
        { path: "/a.json", servers: [server("x", "old"), server("y")], skipped: [skipped] },
        { path: undefined, servers: [server("z")], skipped: [] },
        { path: "/b.json", servers: [server("x", "new")], skipped: [] }
      ]).pipe(Effect.provide(Logger.layer([logger])))
    )
    assert.strictEqual(combined.path, "/a.json, /b.json")
    assert.deepStrictEqual(combined.servers.map((s) => [s.name, stdio(s).command]), [
      ["y", "node"],
      ["z", "node"],
      ["x", "new"]
    ])
    assert.deepStrictEqual(combined.skipped, [skipped])
    assert.strictEqual(lines[0], "/b.json: the server \"x\" is also configured in /a.json; the later entry is used")
    const code = Effect.runSync(
      McpConfiguration.combine([
        { path: undefined, servers: [server("x")], skipped: [] },
        { path: undefined, servers: [server("x")], skipped: [] }
      ]).pipe(Effect.provide(Logger.layer([logger])))
    )
    assert.strictEqual(code.path, undefined)
    assert.strictEqual(
      lines[1],
      "servers option: the server \"x\" is also configured in the servers option; the later entry is used"
    )
  })

  it("a root key of one letter (serverKeys) and a server name of one letter load, with no duplicate", () => {
    const virtual = Utils.virtualFile(JSON.stringify({ S: { t: { command: "node" } } }))
    const snapshot = Effect.runSync(
      McpConfiguration.fromFile("/p/mcp.json", { serverKeys: ["S"] }).pipe(Effect.provide(virtual.layer))
    )
    assert.deepStrictEqual(snapshot.servers.map((server) => [server.name, stdio(server).command]), [["t", "node"]])
    assert.deepStrictEqual(snapshot.skipped, [])
  })

  it("${userHome} is HOME, else USERPROFILE", () => {
    const server = stdio(
      serverOf({ command: "node", args: ["${userHome}"] }, { vars: { USERPROFILE: "C:\\Users\\u" } })
    )
    assert.deepStrictEqual(server.args, ["C:\\Users\\u"])
  })
})
