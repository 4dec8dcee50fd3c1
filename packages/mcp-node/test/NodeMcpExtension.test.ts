/**
 * The one-layer constructors of the common cases, against the bundled example server over stdio: an agent with
 * MCP tools (`layerAgent`), and what `McpToolkit.make` needs for an `@effect/ai` loop (`layerToolkit`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, type Message, ScriptedModel } from "@zett/agent"
import { McpServerConfig, McpServers } from "@zett/mcp"
import { NodeMcpExtension } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"
import * as Path from "node:path"

const demo = Path.join(
  Path.dirname(createRequire(import.meta.url).resolve("@zett/mcp/package.json")),
  "examples",
  "demo-server.mjs"
)
const servers = [McpServerConfig.stdio({ name: "demo", command: process.execPath, args: [demo] })]

describe("NodeMcpExtension, one layer for the common case", () => {
  it.live("layerAgent: an agent with the servers' tools from one layer and a model", () =>
    Effect.gen(function*() {
      let seen: unknown
      const AgentLive = NodeMcpExtension.layerAgent(servers, { agent: { systemPrompt: "You add." } }).pipe(
        Layer.provide(ScriptedModel.layer([
          (request) => {
            assert.include(request.tools.map((tool) => tool.name), "demo__add")
            return { toolCalls: [{ name: "demo__add", arguments: { a: 2, b: 40 } }] }
          },
          (request) => (seen = (request.messages.at(-1) as Message.ToolMessage).content, { text: "42" })
        ]))
      )
      const reply = yield* Agent.run("What is 2 + 40?").pipe(Effect.provide(AgentLive))
      assert.strictEqual(reply.content, "42")
      assert.deepStrictEqual(seen, { sum: 42 })
    }))

  it.live("layerAgent takes the servers as a layer too (a config file's)", () =>
    Effect.gen(function*() {
      const AgentLive = NodeMcpExtension.layerAgent(McpServers.layer(servers)).pipe(
        Layer.provide(
          ScriptedModel.layer([{ toolCalls: [{ name: "demo__add", arguments: { a: 1, b: 1 } }] }, { text: "2" }])
        )
      )
      assert.strictEqual((yield* Agent.run("1 + 1?").pipe(Effect.provide(AgentLive))).content, "2")
    }))

  it.live("layerToolkit: McpToolkit.make has all it needs from one layer", () =>
    Effect.gen(function*() {
      const result = yield* Effect.scoped(Effect.gen(function*() {
        const mcp = yield* McpToolkit.make()
        const { result } = yield* mcp.toolkit.handle("demo__add", { a: 2, b: 3 })
        return result
      })).pipe(Effect.provide(NodeMcpExtension.layerToolkit(servers)))
      assert.deepStrictEqual(result, { sum: 5 })
    }))
})
