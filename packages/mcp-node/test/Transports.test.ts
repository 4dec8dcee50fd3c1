/**
 * What the SDK-backed factory adds to its transports: the close ladder of a stdio server (end of input, then
 * SIGTERM to its process group, then SIGKILL) and the sockets of an HTTP connection, which close with it.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type * as Net from "node:net"
import { captureLogs, stdioFault, withMarker } from "./utils/faults.js"

const sigterm = "the server process did not exit after the end of its input: SIGTERM"
const sigkill = "the server process did not exit after SIGTERM: SIGKILL"

/**
 * Connects to the fault server, checks that `McpClient.pid` is the server's own pid, and closes the connection;
 * then returns every log line (debug included) and the processes of the server still alive.
 */
const connectAndClose = (
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string>,
  closeTimeout: Duration.DurationInput
) =>
  Effect.gen(function*() {
    const marker = Crypto.randomUUID()
    const logs = captureLogs(LogLevel.Debug)
    yield* Effect.scoped(Effect.gen(function*() {
      const factory = yield* McpClientFactory.McpClientFactory
      const client = yield* factory.connect(stdioFault("ladder", marker, faults, extra))
      const report = yield* client.callTool("report", {})
      assert.strictEqual(client.pid, (report.structuredContent as { readonly pid: number }).pid)
      assert.strictEqual(withMarker(marker).length, 1)
    })).pipe(
      Effect.provide(NodeMcpClientFactory.layer({ closeTimeout }).pipe(Layer.provide(NodeContext.layer))),
      Effect.provide(logs.layer)
    )
    const server = logs.lines.filter((line) => line.annotations["mcp.server"] === "ladder")
    return { messages: server.map((line) => line.message), left: withMarker(marker) }
  })

describe("the close ladder of a stdio server", () => {
  it.live("a server that exits at the end of its input gets no signal", () =>
    Effect.gen(function*() {
      const { left, messages } = yield* connectAndClose(["linger"], ["--linger=100"], "10 seconds")
      assert.include(messages, "stdin ended, lingering")
      assert.notInclude(messages, "got SIGTERM")
      assert.notInclude(messages, sigterm)
      assert.deepStrictEqual(left, [])
    }))

  it.live("a server that outlives the end of its input is ended by SIGTERM, without SIGKILL", () =>
    Effect.gen(function*() {
      const { left, messages } = yield* connectAndClose(["linger"], ["--linger=600000"], "200 millis")
      assert.includeMembers(messages, ["stdin ended, lingering", sigterm, "got SIGTERM"])
      assert.isBelow(messages.indexOf(sigterm), messages.indexOf("got SIGTERM"))
      assert.notInclude(messages, sigkill)
      assert.deepStrictEqual(left, [])
    }))

  it.live("a server that ignores SIGTERM is SIGKILLed", () =>
    Effect.gen(function*() {
      const { left, messages } = yield* connectAndClose(["stubborn"], [], "200 millis")
      assert.includeMembers(messages, ["ignoring the end of stdin", sigterm, "ignoring SIGTERM", sigkill])
      assert.deepStrictEqual(left, [])
    }))

  // The ladder waits in wall-clock time: with the TestClock of `it.effect`, nobody advances it, and a ladder on
  // the caller's clock would wait for ever.
  it.effect("a TestClock in the caller does not hold a closing server open", () =>
    Effect.gen(function*() {
      const { left, messages } = yield* connectAndClose(["stubborn"], [], "200 millis")
      assert.include(messages, sigkill)
      assert.deepStrictEqual(left, [])
    }))
})

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
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as Net.AddressInfo).port)))
    }),
    () =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  /** Waits until the server has seen every socket close. */
  const allClosed = Effect.async<void>((resume) => {
    const check = () => {
      if (open.size === 0) resume(Effect.void)
    }
    for (const socket of open) socket.once("close", check)
    check()
  })
  return { url: `http://127.0.0.1:${port}/mcp`, open, accepted: () => accepted, allClosed }
})

describe("an HTTP connection", () => {
  it.scopedLive("has sockets of its own, which close when the connection closes (seen by the server)", () =>
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
      })).pipe(Effect.provide(NodeMcpClientFactory.layer().pipe(Layer.provide(NodeContext.layer))))
      // closed by the client when the connection closed, not by a keep-alive timeout (10 minutes)
      yield* server.allClosed
      assert.strictEqual(server.open.size, 0)
    }))
})
