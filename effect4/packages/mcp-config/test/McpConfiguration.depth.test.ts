/**
 * Configuration files nested thousands of levels deep, on disk: the reader measures the depth before anything
 * recursive reads the file, and refuses it with a typed error that names the file, the entry and the position,
 * at start (the extension's layer) and while running (the last valid list is kept).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpConfiguration } from "@zett/mcp-config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Utils from "./utils.js"

const arrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`
const objects = (levels: number) => `${"{\"k\":".repeat(levels)}1${"}".repeat(levels)}`

// a valid server beside the deep entry (that the driver starts nothing for it is checked through the driver, in
// mcp-node/test/McpConfiguration.depth.test.ts: this package cannot depend on the driver)
const healthy = JSON.stringify({ command: process.execPath, args: ["server.js", "stdio"] })

/** The files of each case: the text, and the entry and column the refusal names. */
const cases = (levels: number) => [
  {
    name: "an array in args",
    text: `{"mcpServers":{"live":${healthy},"s":{"command":"node","args":${arrays(levels)}}}}`,
    entry: "mcpServers.s.args"
  },
  {
    name: "an object in env",
    text: `{"mcpServers":{"live":${healthy},"s":{"command":"node","env":{"A":${objects(levels)}}}}}`,
    entry: "mcpServers.s.env"
  },
  {
    name: "an unknown key of an entry",
    text: `{"mcpServers":{"live":${healthy},"s":{"command":"node","extra":${arrays(levels)}}}}`,
    entry: "mcpServers.s.extra"
  },
  {
    name: "an unknown key at the root",
    text: `{"mcpServers":{"live":${healthy}},"other":${objects(levels)}}`,
    entry: "other"
  },
  { name: "the root", text: arrays(levels), entry: undefined },
  // the parser skips a closing bracket of the other kind, and so does the count: each `[` is one level more;
  // the first problem told is the first in the file
  {
    name: "closing brackets that close nothing",
    text: `[${"[},".repeat(levels)}]`,
    entry: undefined,
    reason: "not valid JSON (line 1, column 3: expected a value)"
  }
]

/** The column of the first value 129 levels down: the 129th opening bracket. */
const columnOf = (text: string) => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "[" || text[i] === "{") depth++
    else if (text[i] === "]" || text[i] === "}") depth--
    if (depth === 129) return i + 1
  }
  return -1
}

describe("a configuration file nested too deep", () => {
  for (const levels of [5_000, 100_000]) {
    it.effect(
      `${
        levels.toLocaleString("en-US")
      } levels: McpConfiguration.layer fails with an McpConfigError naming the file, the entry and the line`,
      () =>
        Effect.gen(function*() {
          const dir = yield* Utils.tempDir("zett-deep-")
          for (const { entry, name, reason, text } of cases(levels)) {
            const configPath = Path.join(dir, "mcp.json")
            Fs.writeFileSync(configPath, text)
            // lenient or not: a file that cannot be read is refused whole, as one with a syntax error is
            const exit = yield* Layer.build(McpConfiguration.layer({ configPath, strictConfig: levels > 5_000 })).pipe(
              Effect.provide(NodeServices.layer),
              Effect.scoped,
              Effect.exit
            )
            assert(exit._tag === "Failure", name)
            const error = yield* Effect.flip(exit)
            assert(error._tag === "McpConfigError", name)
            assert.strictEqual(error.path, configPath, name)
            assert.strictEqual(error.entry, entry, name)
            assert.strictEqual(error.reason, "Malformed", name)
            assert.strictEqual(
              error.description,
              reason ?? `nested deeper than 128 levels (line 1, column ${columnOf(text)})`,
              name
            )
          }
        })
    )
  }

  it.effect("while running: a file that turns too deep is refused with a warning, and the last valid list stays", () =>
    Effect.gen(function*() {
      const dir = yield* Utils.tempDir("zett-deep-")
      const configPath = Path.join(dir, "mcp.json")
      Fs.writeFileSync(configPath, `{"mcpServers":{"s":{"command":"node","args":["a.js"]}}}`)
      const logs = Utils.captureLogs()
      const configuration = yield* McpConfiguration.make({ configPath }).pipe(Effect.provide(NodeServices.layer))
      for (const levels of [5_000, 100_000]) {
        const text = `{"mcpServers":{"s":{"command":"node","args":${arrays(levels)}}}}`
        Fs.writeFileSync(configPath, text)
        // a size of its own, so the change is seen whatever the clock's resolution
        const snapshot = yield* configuration.current.pipe(Effect.provide(logs.layer))
        assert.deepStrictEqual(snapshot.servers.map((server) => server.name), ["s"])
        assert.deepStrictEqual(
          logs.lines.map((line) => [line.level, line.message]),
          [[
            "WARN",
            `${configPath}: mcpServers.s.args: nested deeper than 128 levels (line 1, column ${
              columnOf(text)
            }); keeping the last valid configuration`
          ]]
        )
        logs.lines.length = 0
      }
    }))

  it.effect("brackets in strings, escaped quotes and comments are not levels: the file loads", () =>
    Effect.gen(function*() {
      const dir = yield* Utils.tempDir("zett-deep-")
      const configPath = Path.join(dir, "mcp.json")
      const many = "[{".repeat(200)
      Fs.writeFileSync(
        configPath,
        [
          `// ${many}`,
          `/* ${many} */`,
          `{"mcpServers": {"s": {"command": "node", "args": ["${many}", "\\"${many}", "\\\\", "${many}\\""]}},`,
          `/* a comment ending in a star ** ${many} **/ "${"{".repeat(200)}": ${arrays(120)}}`
        ].join("\n")
      )
      const snapshot = yield* McpConfiguration.fromFile(configPath).pipe(Effect.provide(NodeServices.layer))
      const server = snapshot.servers[0]!
      assert(server._tag === "McpStdioServer")
      assert.deepStrictEqual(server.args, [many, `"${many}`, "\\", `${many}"`])
    }))
})
