/**
 * Tool output schemas are checked by the SDK's validator, which each connection makes only when a listed tool
 * has an output schema: structured content that does not match fails the call, and every server's schemas are
 * its own (two servers may use one `$id` for different shapes).
 */
import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as Effect from "effect/Effect"

/** A server with a tool `result` whose output schema (`$id` https://example.com/result.json) requires `field` to be a `type`. */
const server = (name: string, field: string, type: string, answer: unknown) => () => {
  const sdk = new Server({ name, version: "1.0.0" }, { capabilities: { tools: {} } })
  sdk.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{
      name: "result",
      inputSchema: { type: "object" },
      outputSchema: {
        $id: "https://example.com/result.json",
        type: "object",
        properties: { [field]: { type } },
        required: [field]
      }
    }]
  }))
  sdk.setRequestHandler(CallToolRequestSchema, () => ({
    content: [{ type: "text", text: JSON.stringify(answer) }],
    structuredContent: answer as Record<string, unknown>
  }))
  return sdk
}

const call = (name: string) =>
  McpClientFactory.McpClientFactory.pipe(
    Effect.flatMap((factory) => factory.connect(McpServerConfig.stdio({ name, command: "unused" }))),
    Effect.tap((client) => client.listTools()),
    Effect.flatMap((client) => client.callTool("result", {})),
    Effect.scoped
  )

describe("tool output schemas", () => {
  it.effect("structured content is checked against each server's own schema", () =>
    Effect.gen(function*() {
      const numbers = yield* call("numbers")
      assert.deepStrictEqual(numbers.structuredContent, { sum: 42 })
      const words = yield* call("words")
      assert.deepStrictEqual(words.structuredContent, { word: "forty-two" })
      const wrong = yield* Effect.flip(call("wrong"))
      assert.strictEqual(wrong._tag, "McpRequestError")
      assert.include(wrong.message, "does not match the tool's output schema")
    }).pipe(Effect.provide(NodeMcpClientFactory.layerInMemory({
      numbers: server("numbers", "sum", "number", { sum: 42 }),
      words: server("words", "word", "string", { word: "forty-two" }),
      wrong: server("wrong", "sum", "number", { sum: "forty-two" })
    }))))
})
