/**
 * What the mutation run of `McpExtension.ts` found untested in the MCP features: server requests, checked through
 * the agent as the model and the extensions see it, with an SDK server over the Node driver's in-memory factory.
 * The other features on fake servers: packages/mcp/test/McpExtension.features.test.ts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { Extension, Message } from "@zett/agent"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpExtension, McpSampling, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as McpLayers from "./utils/mcpLayers.js"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

describe("server requests", () => {
  it.live("a sampling request during a call is answered by the agent's model, also when an extension in front answers the agent's own model requests", () =>
    Effect.gen(function*() {
      const errors: Array<string> = []
      const asking = () => {
        const server = new SdkMcpServer({ name: "asking", version: "1.0.0" })
        server.registerTool("ask", { description: "asks the client's model", inputSchema: {} }, async () => {
          try {
            const sampled = await server.server.createMessage({
              messages: [{ role: "user", content: { type: "text", text: "hi" } }],
              maxTokens: 10
            })
            return {
              content: [{
                type: "text",
                text: `sampled: ${sampled.content.type === "text" ? sampled.content.text : "?"}`
              }]
            }
          } catch (error) {
            errors.push(String(error))
            return { content: [{ type: "text", text: "no sample" }], isError: true }
          }
        })
        return server
      }
      const mcp = McpLayers.layer({ servers: [http("asking")] }).pipe(
        Layer.provide(
          NodeMcpClientFactory.layerInMemory({ asking }).pipe(
            Layer.provide(McpSampling.layer({ maxTokens: 100, maxCallsPerRequest: 5 }))
          )
        ),
        Layer.provide(NodeServices.layer)
      )
      // in front of the MCP extension, answering every model request itself: the agent's model is never reached
      const replayed = ScriptedModel.make([
        { toolCalls: [{ name: "asking__ask" }] },
        (request) => ({ text: JSON.stringify((request.messages.at(-1) as Message.ToolMessage).content) })
      ])
      const replay: Extension.Extension = {
        name: "replay",
        onModelRequest: (_context, request) => replayed.stream(request)
      }
      const model = ScriptedModel.layer([{ text: "the agent's model" }])
      const layer = Agent.layer({ extensions: [replay, McpExtension.McpExtension] }).pipe(
        Layer.provide(mcp),
        Layer.provide(model)
      )
      const reply = yield* Agent.run("go").pipe(Effect.provide(layer))
      assert.deepStrictEqual(errors, [])
      assert.strictEqual(reply.content, JSON.stringify([{ type: "text", text: "sampled: the agent's model" }]))
    }))
})
