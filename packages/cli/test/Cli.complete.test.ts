/**
 * `zett complete`: argument completion (`completion/complete`) against server-everything over stdio (its
 * completable-prompt and its dynamic resource templates complete), given by a configuration file or after `--`,
 * and against the in-repo recording server, which offers no completions. `zett` runs in-process with its real
 * client factory.
 */
import { assert, describe, it } from "@effect/vitest"
import * as RecordingServer from "@zett/testing/RecordingServer"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { tempDir, writeFile, zett } from "./utils/zett.js"

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)
const node = process.execPath
const afterDashes = ["--", node, everything, "stdio"]
const template = "demo://resource/dynamic/text/{resourceId}"

describe("zett complete", () => {
  it.scoped("a prompt's argument: the server's values for what is typed, one a line", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", {
        mcpServers: { everything: { command: node, args: [everything, "stdio"] } }
      })
      const result = yield* zett([
        "complete",
        "everything",
        "--prompt",
        "completable-prompt",
        "--argument",
        "department=S",
        "--config",
        config
      ])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.strictEqual(result.stdout, "Sales\nSupport\n")
      assert.strictEqual(result.stderr, "")
    }))

  it.scoped(
    "--context gives the arguments already chosen; --json prints the completion as the server sent it",
    () =>
      Effect.gen(function*() {
        const result = yield* zett([
          "complete",
          "--prompt",
          "completable-prompt",
          "--argument",
          "name=",
          "--context",
          "department=Engineering",
          "--json",
          ...afterDashes
        ])
        assert.strictEqual(result.code, 0, result.stderr)
        assert.deepStrictEqual(JSON.parse(result.stdout), {
          server: "node",
          ref: { type: "ref/prompt", name: "completable-prompt" },
          argument: "name",
          values: ["Alice", "Bob", "Charlie"],
          total: 3,
          hasMore: false
        })
        const sales = yield* zett([
          "complete",
          "--prompt",
          "completable-prompt",
          "--argument",
          "name=",
          "--context",
          "department=Sales",
          ...afterDashes
        ])
        assert.strictEqual(sales.stdout, "David\nEve\nFrank\n")
      })
  )

  it.scoped(
    "a resource template's variable: the value the server accepts, none for one it refuses",
    () =>
      Effect.gen(function*() {
        const accepted = yield* zett([
          "complete",
          "--resource",
          template,
          "--argument",
          "resourceId=12",
          ...afterDashes
        ])
        assert.strictEqual(accepted.code, 0, accepted.stderr)
        assert.strictEqual(accepted.stdout, "12\n")
        const refused = yield* zett(["complete", "--resource", template, "--argument", "resourceId=x", ...afterDashes])
        assert.strictEqual(refused.code, 0, refused.stderr)
        assert.strictEqual(refused.stdout, "")
        assert.strictEqual(refused.stderr, "zett: node proposes no value for resourceId\n")
      })
  )

  it.scoped(
    "a server without completions, and a prompt the server does not have, are a failed run (exit 1) saying so",
    () =>
      Effect.gen(function*() {
        const recording = yield* RecordingServer.make()
        const none = yield* zett([
          "complete",
          "--prompt",
          "p",
          "--argument",
          "a=b",
          "--url",
          recording.url("/mcp"),
          "--name",
          "rec"
        ])
        assert.strictEqual(none.code, 1)
        assert.strictEqual(
          none.stderr,
          "zett: MCP server rec offers no completions (completion/complete: method not found)\n"
        )
        const unknown = yield* zett(["complete", "--prompt", "nope", "--argument", "a=b", ...afterDashes])
        assert.strictEqual(unknown.code, 1)
        assert.match(unknown.stderr, /^zett: cannot complete argument a on node: .*Prompt nope not found.*\n$/)
      })
  )

  it.scoped("bad usage is one line, exit 2", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = writeFile(dir, "mcp.json", {
        mcpServers: { everything: { command: node, args: [everything, "stdio"] } }
      })
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
        [
          ["complete", "everything", "--argument", "a=b", "--config", config],
          "say what to complete: --prompt NAME or --resource URI_TEMPLATE (one of them)"
        ],
        [
          ["complete", "everything", "--prompt", "p", "--resource", "r", "--argument", "a=b", "--config", config],
          "say what to complete: --prompt NAME or --resource URI_TEMPLATE (one of them)"
        ],
        [
          ["complete", "everything", "--prompt", "p", "--argument", "ab", "--config", config],
          "--argument expects NAME=VALUE (VALUE may be empty), got 'ab'"
        ],
        [
          ["complete", "--prompt", "p", "--argument", "a=b", "--config", config],
          "name the server: zett complete SERVER ... (or give one with --url URL or after --)"
        ],
        [
          ["complete", "other", "--prompt", "p", "--argument", "a=b", "--config", config],
          `no MCP server named other in ${config}; configured: everything`
        ],
        [["complete", "everything", "--prompt", "p", "--config", config], "Expected to find option: '--argument'"]
      ]
      for (const [args, line] of cases) {
        const result = yield* zett(args)
        assert.strictEqual(result.code, 2, args.join(" "))
        assert.strictEqual(result.stderr, `zett: ${line}\n`, args.join(" "))
      }
    }))
})
