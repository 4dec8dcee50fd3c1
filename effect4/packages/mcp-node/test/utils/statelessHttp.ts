/**
 * An SDK server in this process on 127.0.0.1, over stateless Streamable HTTP at `/mcp`: every POST gets a fresh
 * server from `makeServer` and a transport of its own, both closed with the response. For the lifetime of a scope.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** Answers one POST with a fresh server from `makeServer` on a transport of its own, both closed with the response. */
export const handle = (
  makeServer: () => Server | McpServer,
  req: Http.IncomingMessage,
  res: Http.ServerResponse
): void => {
  const transport = new StreamableHTTPServerTransport({})
  const server = makeServer()
  res.on("close", () => {
    void transport.close()
    void server.close()
  })
  void server.connect(transport).then(() => transport.handleRequest(req, res))
}

/** The URL of the `/mcp` endpoint. */
export const serve = (makeServer: () => Server): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly http: Http.Server; readonly url: string }>((resume) => {
      const http = Http.createServer((req, res) => {
        if (req.url !== "/mcp" || req.method !== "POST") return void res.writeHead(405).end()
        handle(makeServer, req, res)
      })
      http.listen(0, "127.0.0.1", () => {
        resume(Effect.succeed({ http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` }))
      })
    }),
    ({ http }) =>
      Effect.callback<void>((resume) => {
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ url }) => url))
