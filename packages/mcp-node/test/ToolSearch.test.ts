/**
 * Tool search against real servers from npm (everything, filesystem, memory: 36 tools), each started with `node`,
 * read from what the scripted model was given at each step: the tools offered, the search's result, the tool
 * loaded and called on its server.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServer } from "@modelcontextprotocol/server"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import { systemOf, toolMessages } from "@zett/testing-core/FakeMcp"
import * as McpLayers from "@zett/testing/McpLayers"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Os from "node:os"
import * as Path from "node:path"

const require = createRequire(import.meta.url)
const entry = (name: string) => Path.join(Path.dirname(require.resolve(`${name}/package.json`)), "dist", "index.js")

const stdio = (
  name: string,
  pkg: string,
  args: ReadonlyArray<string> = [],
  extra: McpServerConfig.Extra & { readonly env?: Record<string, string> } = {}
) => McpServerConfig.stdio({ name, command: process.execPath, args: [entry(pkg), ...args], ...extra })

type Request = Parameters<Extract<ScriptedModel.Step, Function>>[0]

describe.sequential("tool search with real servers", () => {
  it.live(
    "the model searches, the found tool is offered and called on its server, a known tool is called without search",
    () =>
      Effect.gen(function*() {
        const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-toolsearch-"))
        Fs.writeFileSync(Path.join(dir, "notes.txt"), "remember the milk")
        const servers = [
          stdio("everything", "@modelcontextprotocol/server-everything", ["stdio"]),
          stdio("filesystem", "@modelcontextprotocol/server-filesystem", [dir], {
            alwaysLoad: ["list_allowed_directories"]
          }),
          stdio("memory", "@modelcontextprotocol/server-memory", [], {
            env: { MEMORY_FILE_PATH: Path.join(dir, "memory.json") }
          })
        ]
        const requests: Array<Request> = []
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(McpLayers.layerNode({ servers, toolSearch: { mode: "always" } })),
          Layer.provide(ScriptedModel.layer([
            (
              r
            ) => (requests.push(r),
              { toolCalls: [{ name: "search_tools", arguments: { query: "read a text file" } }] }),
            (r) => (requests.push(r), {
              toolCalls: [{ name: "filesystem__read_text_file", arguments: { path: Path.join(dir, "notes.txt") } }]
            }),
            // a tool the model knows by name, never searched: it is loaded and run
            (r) => (requests.push(r), { toolCalls: [{ name: "everything__get-sum", arguments: { a: 2, b: 40 } }] }),
            (r) => (requests.push(r), { text: "done" })
          ]))
        )
        yield* Agent.run("what do my notes say?").pipe(Effect.provide(layer))
        Fs.rmSync(dir, { recursive: true, force: true })

        const names = (request: Request) => request.tools.map((t) => t.name)
        assert.deepStrictEqual(names(requests[0]!), ["search_tools", "filesystem__list_allowed_directories"])
        assert.match(
          systemOf(requests[0]!),
          /Tool search is on: \d+ tools of the MCP servers everything, filesystem, memory/
        )

        const found = toolMessages(requests[1]!)[0]!.content as { tools: Array<{ name: string; description: string }> }
        assert.strictEqual(found.tools[0]!.name, "filesystem__read_text_file")
        assert.isTrue(found.tools.every((t) => !t.description.includes("\n")))
        assert.includeMembers(names(requests[1]!), found.tools.map((t) => t.name))

        const read = toolMessages(requests[2]!).at(-1)!
        assert.strictEqual(read.status, "ok")
        assert.include(JSON.stringify(read.content), "remember the milk")

        const sum = toolMessages(requests[3]!).at(-1)!
        assert.strictEqual(sum.status, "ok")
        assert.include(JSON.stringify(sum.content), "42")
        assert.include(names(requests[3]!), "everything__get-sum")
      })
  )

  it.scoped("the driver gives the server's instructions, which tool search reads as its tools' context", () =>
    Effect.gen(function*() {
      const instructions = "Keeps the company's invoices and refunds."
      const factory = yield* NodeMcpClientFactory.makeInMemory({
        ledger: () => new McpServer({ name: "ledger", version: "1.0.0" }, { instructions }),
        plain: () => new McpServer({ name: "plain", version: "1.0.0" })
      })
      const ledger = yield* factory.connect(McpServerConfig.http({ name: "ledger", url: "http://127.0.0.1:9/unused" }))
      const plain = yield* factory.connect(McpServerConfig.http({ name: "plain", url: "http://127.0.0.1:9/unused" }))
      assert.strictEqual(ledger.instructions, instructions)
      assert.strictEqual(plain.instructions, undefined)
    }))
})
