/**
 * Verify the MCP integration offline (F1), on Effect 4: an in-memory client supplied through the client factory, a
 * scripted model, one server named `demo`. Checks registration, dispatch, structured results and transport cleanup
 * without starting a server. The Effect 4 line of the 3 line's `packages/mcp/examples/offline.ts`.
 *
 *   npm run example:offline
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Agent, type Message, ScriptedModel } from "@zett/agent"
import { McpClientFactory, McpExtension, McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import * as McpClient from "@zett/mcp/McpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A client that answers in memory, as a server named `demo` would. */
const local = McpClient.make({
  server: "demo",
  listTools: () =>
    Effect.succeed({
      tools: [{ name: "answer", description: "The answer to everything", inputSchema: { type: "object" } }],
      nextCursor: undefined
    }),
  callTool: () => Effect.succeed({ content: [{ type: "text", text: "42" }], structuredContent: { answer: 42 } })
})

/** The model calls `demo__answer`, then reports what the tool returned. */
const model = ScriptedModel.layer([
  { toolCalls: [{ name: "demo__answer", arguments: {} }] },
  (request) => {
    const result = request.messages.findLast((m): m is Message.ToolMessage => m._tag === "ToolMessage")
    return { text: `MCP tool result: ${(result?.content as { answer?: unknown } | undefined)?.answer}` }
  }
])

export const program = Effect.gen(function*() {
  let closed = false
  const clientFactory = McpClientFactory.of((server) =>
    Effect.gen(function*() {
      if (server.name !== "demo") return yield* Effect.die(new Error(`unexpected server ${server.name}`))
      yield* Effect.addFinalizer(() => Effect.sync(() => (closed = true)))
      return local
    })
  )
  const AgentLive = Agent.layer({ extensions: [Effect.service(McpExtension.McpExtension)] }).pipe(
    Layer.provide(McpExtension.layer()),
    Layer.provide(Layer.mergeAll(
      McpServers.layer([McpServerConfig.http({ name: "demo", url: "https://unused.example/mcp" })]),
      McpToolCache.layerMemory(),
      Layer.succeed(McpClientFactory.McpClientFactory, clientFactory)
    )),
    Layer.provide(model)
  )
  const reply = yield* Agent.run("Get the answer.").pipe(Effect.provide(AgentLive))
  if (reply.content !== "MCP tool result: 42") return yield* Effect.die(new Error(`unexpected reply: ${reply.content}`))
  if (!closed) return yield* Effect.die(new Error("the MCP connection was not closed"))
  yield* Console.log(reply.content)
  yield* Console.log("MCP connection closed.")
})

if (import.meta.url === `file://${process.argv[1]}`) {
  NodeRuntime.runMain(program)
}
