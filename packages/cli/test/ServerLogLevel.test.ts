/**
 * `--server-log-level`: each command that connects asks its servers for that level (`logging/setLevel`) right
 * after connecting. The server is a real stdio process (fixtures/logging-server.mjs) that writes down every
 * level it is set to; `zett` runs in-process with its real client factory.
 */
import { assert, describe, it } from "@effect/vitest"
import { ScriptedModel } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { tempDir, writeFile, zett } from "./utils/zett.js"

const server = Path.join(import.meta.dirname, "fixtures", "logging-server.mjs")
const node = process.execPath

/** The levels the server received, in order. */
const received = (record: string): ReadonlyArray<string> =>
  Fs.existsSync(record) ? Fs.readFileSync(record, "utf8").split("\n").filter((line) => line !== "") : []

describe("zett --server-log-level", () => {
  it.scoped(
    "every command that connects sends logging/setLevel with the level given, once per connection",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const cases: ReadonlyArray<readonly [string, (record: string) => ReadonlyArray<string>]> = [
          ["debug", (record) => ["tools", "--", node, server, `--record=${record}`]],
          ["info", (record) => ["call", "levels", "--", node, server, `--record=${record}`]],
          ["notice", (record) => ["resources", "--", node, server, `--record=${record}`]],
          ["warning", (record) => ["prompts", "--", node, server, `--record=${record}`]],
          ["error", (record) => ["read", "lg", "test://levels", "--config", configFor(dir, record)]],
          ["critical", (record) => ["prompt", "lg", "hello", "--config", configFor(dir, record)]],
          ["alert", (record) => ["run", "Hi", "--config", configFor(dir, record)]],
          [
            "emergency",
            (record) => ["complete", "--prompt", "hello", "--argument", "x=", "--", node, server, `--record=${record}`]
          ]
        ]
        for (const [level, args] of cases) {
          const record = Path.join(dir, `${level}.log`)
          // before the command's name, so that it stays out of the server's command after --
          const result = yield* zett(["--server-log-level", level, ...args(record)], {
            model: ScriptedModel.layer([{ text: "ok" }])
          })
          assert.strictEqual(result.code, 0, `${level}: ${result.stderr}`)
          assert.deepStrictEqual(received(record), [level], args(record)[0])
        }
      })
  )

  it.scoped(
    "the server answers knowing the level: its tool reports the level set before the call",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const record = Path.join(dir, "call.log")
        const result = yield* zett([
          "--server-log-level",
          "emergency",
          "call",
          "levels",
          "--",
          node,
          server,
          `--record=${record}`
        ])
        assert.strictEqual(result.code, 0, result.stderr)
        assert.deepStrictEqual(JSON.parse(result.stdout), [{ type: "text", text: `["emergency"]` }])
      })
  )

  it.scoped("without the option no level is sent: the server decides", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const record = Path.join(dir, "none.log")
      const result = yield* zett(["tools", "--", node, server, `--record=${record}`])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.match(result.stdout, /^node\s+stdio\s+.*ok$/m)
      assert.deepStrictEqual(received(record), [])
    }))

  it.effect("a level MCP does not have is a usage error listing the levels", () =>
    Effect.gen(function*() {
      const result = yield* zett(["tools", "--server-log-level", "verbose"])
      assert.strictEqual(result.code, 2)
      assert.strictEqual(
        result.stderr,
        "zett: Expected one of the following cases: debug, info, notice, warning, error, critical, alert, emergency\n"
      )
    }))
})

/** A configuration file naming the logging server as `lg`, recording into `record`. */
const configFor = (dir: string, record: string) =>
  writeFile(dir, `${Path.basename(record)}.json`, {
    mcpServers: { lg: { command: node, args: [server, `--record=${record}`] } }
  })
