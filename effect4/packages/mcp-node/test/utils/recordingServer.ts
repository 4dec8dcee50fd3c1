/**
 * The 3 line's `@zett/testing/RecordingServer` on Effect 4. A real MCP server of the SDK, in this process, on 127.0.0.1: Streamable HTTP at `/mcp` (stateless), and the
 * legacy HTTP+SSE transport at `/sse` (GET) and `/messages` (POST). It records every HTTP request it receives
 * (method, path with query, headers), so a test can assert what a configuration made the client send.
 * `legacyOnly` answers the Streamable HTTP POST with 405, as a server from before 2025-03-26 would.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as StatelessHttp from "./statelessHttp.js"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
}

export interface RecordingServer {
  readonly port: number
  readonly url: (path: string) => string
  readonly received: ReadonlyArray<Received>
}

const makeServer = () => {
  const server = new McpServer({ name: "recording", version: "1.0.0" })
  server.registerTool("echo", { description: "Echoes its text", inputSchema: {} }, async (args) => ({
    content: [{ type: "text", text: `echo: ${JSON.stringify(args)}` }]
  }))
  server.registerTool("secret_tool", { description: "Never for the model", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: "secret" }]
  }))
  return server
}

export const make = (
  options?: { readonly legacyOnly?: boolean | undefined }
): Effect.Effect<RecordingServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly http: Http.Server; readonly recording: RecordingServer }>((resume) => {
      const received: Array<Received> = []
      const sse = new Map<string, SSEServerTransport>()
      const http = Http.createServer((req, res) => {
        received.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers })
        const path = new URL(req.url ?? "/", "http://x").pathname
        const fail = (status: number) => {
          res.writeHead(status).end()
        }
        if (path === "/mcp" && req.method === "POST") {
          if (options?.legacyOnly === true) return fail(405)
          return StatelessHttp.handle(makeServer, req, res)
        }
        if (path === "/mcp") return fail(405)
        if (path === "/sse" && req.method === "GET") {
          const transport = new SSEServerTransport("/messages", res)
          sse.set(transport.sessionId, transport)
          res.on("close", () => sse.delete(transport.sessionId))
          void makeServer().connect(transport)
          return
        }
        if (path === "/messages" && req.method === "POST") {
          const session = new URL(req.url ?? "/", "http://x").searchParams.get("sessionId") ?? ""
          const transport = sse.get(session)
          if (transport === undefined) return fail(404)
          void transport.handlePostMessage(req, res)
          return
        }
        fail(404)
      })
      http.listen(0, "127.0.0.1", () => {
        const port = (http.address() as AddressInfo).port
        resume(Effect.succeed({
          http,
          recording: { port, url: (path) => `http://127.0.0.1:${port}${path}`, received }
        }))
      })
    }),
    ({ http }) =>
      Effect.callback<void>((resume) => {
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ recording }) => recording))
