/**
 * Variables in configuration values, as a property. Any mix of set, unset, empty and defaulted
 * variables, in every form, with stray `$` and braces, either expands exactly as the reference expander below
 * says, or fails with an `McpConfigError` that names the variable: never a defect, never a value in a message.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpConfiguration } from "@zett/mcp-config"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fc from "fast-check"
import * as Utils from "./utils.js"

const SECRET = "var-secret-K9"

type Form = "env" | "braced" | "default" | "dollar" | "predefined"

// the dialects by where their files live, with the forms each expands (the table)
const dialects: ReadonlyArray<{ readonly path: string; readonly forms: ReadonlySet<Form> }> = [
  { path: "/work/project/mcp.json", forms: new Set(["env", "braced", "default", "dollar", "predefined"]) },
  { path: "/work/project/.mcp.json", forms: new Set(["braced", "default"]) },
  { path: "/work/project/.vscode/mcp.json", forms: new Set(["env", "predefined"]) },
  { path: "/home/u/.gemini/settings.json", forms: new Set(["dollar", "braced"]) },
  { path: "/home/u/Claude/claude_desktop_config.json", forms: new Set() }
]

const workspace = "/work/project"
const predefined: Record<string, string> = { workspaceFolder: workspace, pathSeparator: "/", "/": "/" }

/** The reference: the table read literally, one regular expression per form, tried in order at each `$`. */
const reference = (
  text: string,
  forms: ReadonlySet<Form>,
  vars: ReadonlyMap<string, string>
): { readonly value: string } | { readonly unset: string } => {
  const name = "([A-Za-z_][A-Za-z0-9_]*)"
  const patterns: Array<readonly [Form, RegExp]> = [
    ["env", new RegExp(`^\\$\\{env:${name}\\}`)],
    ["predefined", /^\$\{(workspaceFolder|pathSeparator|\/)\}/],
    ["braced", new RegExp(`^\\$\\{${name}\\}`)],
    ["default", new RegExp(`^\\$\\{${name}:-([^}]*)\\}`)],
    ["dollar", new RegExp(`^\\$${name}`)]
  ]
  let out = ""
  let i = 0
  while (i < text.length) {
    if (text[i] !== "$") {
      out += text[i++]
      continue
    }
    const rest = text.slice(i)
    let matched = false
    for (const [form, pattern] of patterns) {
      if (!forms.has(form)) continue
      const m = pattern.exec(rest)
      if (m === null) continue
      matched = true
      i += m[0].length
      if (form === "predefined") {
        out += predefined[m[1]!]
      } else {
        const value = vars.get(m[1]!)
        const fallback = form === "default" ? m[2]! : undefined
        if (value !== undefined && (value !== "" || fallback === undefined)) out += value
        else if (fallback !== undefined) out += fallback
        else return { unset: m[1]! }
      }
      break
    }
    if (!matched) {
      out += "$"
      i++
    }
  }
  return { value: out }
}

const names = ["A", "B_2", "HOME_X"] as const
const piece = fc.oneof(
  fc.constantFrom("x", "/", ":", "-", "{", "}", " ", "ab", "$", "${", "$}", "${}", "$5", ":-"),
  fc.constantFrom(...names).chain((n) =>
    fc.oneof(
      fc.constant(`\${${n}}`),
      fc.constant(`$${n}`),
      fc.constant(`\${env:${n}}`),
      fc.constantFrom("", "d", "x-y", "$A", "{").map((d) => `\${${n}:-${d}}`)
    )
  ),
  fc.constantFrom("${workspaceFolder}", "${pathSeparator}", "${/}", "${userHomeX}", "${input}")
)
const value = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""))
const environment = fc.record({
  A: fc.option(fc.constantFrom("", `${SECRET}a`, "a b"), { nil: undefined }),
  B_2: fc.option(fc.constantFrom("", `${SECRET}b`), { nil: undefined }),
  HOME_X: fc.option(fc.constant(`${SECRET}h`), { nil: undefined })
})

const load = (path: string, text: string, vars: ReadonlyMap<string, string>) => {
  const { layer, lines } = Utils.virtualFile(text)
  const exit = Effect.runSyncExit(
    McpConfiguration.fromFile(path).pipe(
      Utils.withEnv(Object.fromEntries(vars)),
      Effect.provide(layer)
    )
  )
  return { exit, lines }
}

describe("McpConfiguration variables (property)", () => {
  it("expands as the reference says in every dialect, or fails naming the unset variable; never a defect or a value", () => {
    fc.assert(
      fc.property(fc.constantFrom(...dialects), value, value, environment, (dialect, envValue, arg, env) => {
        const vars = new Map(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined))
        const root = dialect.path.endsWith("mcp.json") && dialect.path.includes(".vscode") ? "servers" : "mcpServers"
        const text = JSON.stringify({ [root]: { s: { command: "node", args: [arg], env: { V: envValue } } } })
        const { exit, lines } = load(dialect.path, text, vars)
        const expectedArg = reference(arg, dialect.forms, vars)
        const expectedEnv = reference(envValue, dialect.forms, vars)
        if (Exit.isFailure(exit)) {
          const failure = Cause.findErrorOption(exit.cause)
          assert.isTrue(Option.isSome(failure), `a defect: ${Cause.pretty(exit.cause)}`)
          const error = Option.getOrThrow(failure)
          assert.strictEqual(error._tag, "McpConfigError")
          const unset = "unset" in expectedArg
            ? expectedArg.unset
            : "unset" in expectedEnv
            ? expectedEnv.unset
            : undefined
          assert.isDefined(unset, `failed although the reference expands it: ${error.message}`)
          assert.strictEqual(error.description, `the variable ${unset} is not set and has no default`)
          assert.strictEqual(error.entry, "unset" in expectedArg ? `${root}.s.args[0]` : `${root}.s.env.V`)
          assert.notInclude(error.message, SECRET)
        } else {
          assert.isTrue("value" in expectedArg && "value" in expectedEnv, "loaded although a variable is unset")
          const server = exit.value.servers[0]!
          assert(server._tag === "McpStdioServer")
          assert.strictEqual(server.args[0], (expectedArg as { value: string }).value)
          assert.strictEqual(Redacted.value(server.env.V!), (expectedEnv as { value: string }).value)
        }
        for (const line of lines) assert.notInclude(line, SECRET)
      }),
      { numRuns: 400 }
    )
  })
})

/** The arguments a one-server file at `path` loads with, or the reason it is refused. */
const argsOf = (path: string, args: ReadonlyArray<string>, vars: ReadonlyMap<string, string> = new Map()) => {
  const root = path.includes(".vscode") ? "servers" : "mcpServers"
  const { exit } = load(path, JSON.stringify({ [root]: { s: { command: "node", args } } }), vars)
  if (Exit.isFailure(exit)) {
    const error = Option.getOrThrow(Cause.findErrorOption(exit.cause))
    return `${error.entry}: ${error.description}`
  }
  const server = exit.value.servers[0]!
  assert(server._tag === "McpStdioServer")
  return server.args
}

describe("McpConfiguration variables: the edges of each form", () => {
  const vars = new Map([["A", "a"], ["AB", "ab"]])

  it("${input:} without an id is text, not an input", () => {
    assert.deepStrictEqual(argsOf("/work/project/.vscode/mcp.json", ["${input:}", "x${input:}y"]), [
      "${input:}",
      "x${input:}y"
    ])
  })

  it("${VAR:-default} needs a name before :- and the :- itself", () => {
    assert.deepStrictEqual(
      argsOf("/work/project/.mcp.json", ["${:-d}", "${A-}", "${AB-x}", "${A:-d}", "${C:-d}"], vars),
      ["${:-d}", "${A-}", "${AB-x}", "a", "d"]
    )
  })

  it("a ${ that is never closed is text, and the value goes on being read after it", () => {
    assert.deepStrictEqual(
      argsOf("/work/project/mcp.json", ["${A", "x${env:A", "$A${A", "${A}${AB"], vars),
      ["${A", "x${env:A", "a${A", "a${AB"]
    )
  })
})

// every form once: which of them a file expands tells its dialect
const probeArgs = [
  "${env:A}",
  "${A}",
  "${A:-d}",
  "$A",
  "${workspaceFolder}",
  "${workspaceFolderBasename}",
  "${userHome}",
  "${pathSeparator}",
  "${/}"
]
// the predefined names are set as variables too: a dialect that reads them as variables tells itself apart
const probeVars = new Map([
  ["A", "a"],
  ["HOME", "/home/u"],
  ["workspaceFolder", "WF"],
  ["workspaceFolderBasename", "WB"],
  ["userHome", "UH"],
  ["pathSeparator", "PS"]
])

/** The command, arguments and cwd a one-server file at `path`, under `root`, loads with. */
const probe = (path: string, root: string) => {
  const entry = { command: "node${A}", args: probeArgs, cwd: "/w/${A}" }
  const { exit } = load(path, JSON.stringify({ [root]: { s: entry } }), probeVars)
  assert(Exit.isSuccess(exit), Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "")
  const server = exit.value.servers[0]!
  assert(server._tag === "McpStdioServer")
  return { command: server.command, args: server.args, cwd: server.cwd }
}

// what each form of probeArgs gives in each dialect
const all = ["a", "a", "a", "a", "/p", "p", "/home/u", "/", "/"]
const none = probeArgs
const vscode = ["a", "${A}", "${A:-d}", "$A", "/p", "${workspaceFolderBasename}", "/home/u", "/", "/"]
const expanded = { command: "nodea", args: all, cwd: "/w/a" }
const literal = { command: "node${A}", args: none, cwd: "/w/${A}" }

describe("McpConfiguration variables: the dialect of a file, by its path and root key", () => {
  it("each client's file expands its client's forms; any other file every form", () => {
    const cases: ReadonlyArray<readonly [string, string, ReturnType<typeof probe>]> = [
      ["/p/.vscode/mcp.json", "mcpServers", { command: "node${A}", args: vscode, cwd: "/w/${A}" }],
      ["/p/mcp.json", "servers", { command: "node${A}", args: vscode, cwd: "/w/${A}" }],
      ["/p/.cursor/mcp.json", "mcpServers", {
        command: "node${A}",
        args: ["a", "${A}", "${A:-d}", "$A", "/p", "p", "/home/u", "/", "${/}"],
        cwd: "/w/${A}"
      }],
      // Gemini CLI: $VAR and ${VAR}, where a predefined name is just a variable, and neither command nor cwd
      ["/home/u/.gemini/settings.json", "mcpServers", {
        command: "node${A}",
        args: ["${env:A}", "a", "${A:-d}", "a", "WF", "WB", "UH", "PS", "${/}"],
        cwd: "/w/${A}"
      }],
      ["/home/u/.codeium/windsurf/mcp_config.json", "mcpServers", {
        command: "node${A}",
        args: ["a", ...probeArgs.slice(1)],
        cwd: "/w/${A}"
      }],
      ["/p/.mcp.json", "mcpServers", {
        command: "nodea",
        args: ["${env:A}", "a", "a", "$A", "WF", "WB", "UH", "PS", "${/}"],
        cwd: "/w/a"
      }],
      ["/p/cline_mcp_settings.json", "mcpServers", literal],
      ["/p/claude_desktop_config.json", "mcpServers", literal],
      ["/home/u/.config/zed/settings.json", "context_servers", literal],
      // not quite a client's file: every form
      ["/p/mcp.json", "mcpServers", expanded],
      ["/p/settings.json", "mcpServers", expanded],
      ["/p/mcp_config.json", "mcpServers", expanded],
      ["/p/.vscode/settings.json", "mcpServers", expanded],
      ["/p/.cursor/other.json", "mcpServers", expanded],
      ["/p/windsurf/config.json", "mcpServers", {
        ...expanded,
        args: ["a", "a", "a", "a", "/p/windsurf", "windsurf", "/home/u", "/", "/"]
      }],
      ["/home/u/.gemini/other.json", "mcpServers", {
        ...expanded,
        args: ["a", "a", "a", "a", "/home/u/.gemini", ".gemini", "/home/u", "/", "/"]
      }]
    ]
    for (const [path, root, expected] of cases) assert.deepStrictEqual(probe(path, root), expected, `${path} (${root})`)
  })

  it("Gemini CLI expands the url and the headers of a remote entry", () => {
    const text = JSON.stringify({ mcpServers: { s: { httpUrl: "https://x.example/$A", headers: { H: "${A}" } } } })
    const { exit } = load("/home/u/.gemini/settings.json", text, probeVars)
    assert(Exit.isSuccess(exit))
    const server = exit.value.servers[0]!
    assert(server._tag === "McpHttpServer")
    assert.strictEqual(server.url, "https://x.example/a")
    assert.strictEqual(Redacted.value(server.headers.H!), "a")
  })

  it("Effect 4's default provider reads an empty variable as unset: ${VAR} is refused, ${VAR:-x} is the default", () => {
    // the provider an app gets unless it provides its own (fromEnv, empty strings not kept); the 3 line's kept them
    const provider = ConfigProvider.fromEnv({ env: { EMPTY: "" } })
    const run = (arg: string) =>
      Effect.runSyncExit(
        McpConfiguration.fromFile("/work/project/.mcp.json").pipe(
          Effect.provideService(ConfigProvider.ConfigProvider, provider),
          Effect.provide(
            Utils.virtualFile(JSON.stringify({ mcpServers: { s: { command: "node", args: [arg] } } })).layer
          )
        )
      )
    const refused = run("${EMPTY}")
    assert(Exit.isFailure(refused))
    const error = Option.getOrThrow(Cause.findErrorOption(refused.cause))
    assert.strictEqual(error.description, "the variable EMPTY is not set and has no default")
    const defaulted = run("${EMPTY:-x}")
    assert(Exit.isSuccess(defaulted))
    const server = defaulted.value.servers[0]
    assert(server?._tag === "McpStdioServer")
    assert.deepStrictEqual(server.args, ["x"])
  })
})
