/**
 * An HTTP connection's own sockets (internal/httpFetch): the 3 line's `an HTTP connection` test of
 * Transports.test.ts, every assertion kept, against a stateless Streamable HTTP server in this process.
 */
import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import type * as Net from "node:net"

/** A stateless Streamable HTTP MCP server in this process; it keeps idle sockets open for 10 minutes. */
const httpServer = Effect.gen(function*() {
  const open = new Set<Net.Socket>()
  let accepted = 0
  const server = Http.createServer(async (req, res) => {
    const mcp = new Server({ name: "sockets", version: "1.0.0" }, { capabilities: { tools: {} } })
    mcp.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: "echo", description: "echoes", inputSchema: { type: "object" } }]
    }))
    mcp.setRequestHandler(CallToolRequestSchema, (request) => ({
      content: [{ type: "text", text: `echo: ${String(request.params.arguments?.text ?? "")}` }]
    }))
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
    res.on("close", () => void transport.close())
    await mcp.connect(transport)
    await transport.handleRequest(req, res)
  })
  // The client learns this from the `Keep-Alive` header: a socket left in a pool would stay open for as long
  server.keepAliveTimeout = 600_000
  server.on("connection", (socket: Net.Socket) => {
    accepted++
    open.add(socket)
    socket.once("close", () => open.delete(socket))
  })
  const port = yield* Effect.acquireRelease(
    Effect.callback<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as Net.AddressInfo).port)))
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  /** Waits until the server has seen every socket close. */
  const allClosed = Effect.callback<void>((resume) => {
    const check = () => {
      if (open.size === 0) resume(Effect.void)
    }
    for (const socket of open) socket.once("close", check)
    check()
  })
  return { url: `http://127.0.0.1:${port}/mcp`, open, accepted: () => accepted, allClosed }
})

describe("an HTTP connection", () => {
  it.live("has sockets of its own, which close when the connection closes (seen by the server)", () =>
    Effect.gen(function*() {
      const server = yield* httpServer
      yield* Effect.scoped(Effect.gen(function*() {
        const factory = yield* McpClientFactory.McpClientFactory
        const client = yield* factory.connect(McpServerConfig.http({ name: "sockets", url: server.url }))
        const result = yield* client.callTool("echo", { text: "one" })
        assert.deepStrictEqual(result.content, [{ type: "text", text: "echo: one" }])
        // between requests, the connection keeps its sockets open (keep-alive), and reuses them
        const accepted = server.accepted()
        for (const text of ["two", "three", "four"]) yield* client.callTool("echo", { text })
        assert.strictEqual(server.accepted(), accepted)
        assert.isAtLeast(server.open.size, 1)
      })).pipe(Effect.provide(NodeMcpClientFactory.layer()))
      // closed by the client when the connection closed, not by a keep-alive timeout (10 minutes)
      yield* server.allClosed
      assert.strictEqual(server.open.size, 0)
    }))
})
