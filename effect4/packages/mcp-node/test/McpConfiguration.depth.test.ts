/**
 * Configuration files nested thousands of levels deep, on disk, through the driver: the extension's layer
 * (`NodeMcpExtension` over `McpConfiguration`) refuses the file with a typed error that names the file, the entry and
 * the position, and starts nothing for the file's other server. The 3 line's test of `@zett/mcp-config`
 * (`McpConfiguration.depth.test.ts`), here because that package cannot depend on the driver; the reader's own
 * checks (at start without the driver, while running, what is not a level) are in this line's
 * `mcp-config/test/McpConfiguration.depth.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as McpLayers from "./utils/mcpLayers.js"
import * as Processes from "./utils/processes.js"
import { npmServer } from "./utils/servers.js"

const arrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`
const objects = (levels: number) => `${"{\"k\":".repeat(levels)}1${"}".repeat(levels)}`

// a live server beside the deep entry: refusing the file starts nothing
const everything = npmServer("@modelcontextprotocol/server-everything")
const healthy = JSON.stringify({ command: process.execPath, args: [everything, "stdio"] })

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
      } levels: McpExtension.layerNode fails with an McpConfigError naming the file, the entry and the line`,
      () =>
        Effect.gen(function*() {
          const dir = yield* TempDir.make("zett-deep-")
          for (const { entry, name, reason, text } of cases(levels)) {
            const configPath = Path.join(dir, "mcp.json")
            Fs.writeFileSync(configPath, text)
            // lenient or not: a file that cannot be read is refused whole, as one with a syntax error is
            const exit = yield* Layer.build(McpLayers.layerNode({ configPath, strictConfig: levels > 5_000 })).pipe(
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
            // nothing was started for the file's other server
            assert.deepStrictEqual(Processes.liveChildren().filter((p) => p.command.includes(everything)), [], name)
          }
        })
    )
  }
})
