/**
 * A real MCP server of the SDK, in this process, on 127.0.0.1 (Streamable HTTP at `/mcp`, stateless), that
 * counts the `tools/list` requests it answers and answers each after `delay`: the slow server of a fleet
 * test, where the count is the number of discoveries. The n-th listing describes its tools as `discovery
 * <n>`, so a client that shows a description tells which discovery it came from.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface CountingServer {
  readonly url: string
  /** The `tools/list` requests received so far. */
  readonly listings: () => number
}

export const make = (options: {
  readonly name: string
  readonly delay: number
  readonly tools?: number | undefined
}): Effect.Effect<CountingServer, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly http: Http.Server; readonly server: CountingServer }>((resume) => {
      let listings = 0
      const makeServer = () => {
        const server = new Server({ name: options.name, version: "1.0.0" }, { capabilities: { tools: {} } })
        server.setRequestHandler(ListToolsRequestSchema, async () => {
          const n = ++listings
          await new Promise((resolve) => setTimeout(resolve, options.delay))
          return {
            tools: Array.from({ length: options.tools ?? 2 }, (_, i) => ({
              name: `tool_${i}`,
              description: `discovery ${n}`,
              inputSchema: { type: "object" as const, properties: { q: { type: "string" } } }
            }))
          }
        })
        return server
      }
      const http = Http.createServer((req, res) => {
        if (req.url !== "/mcp" || req.method !== "POST") return void res.writeHead(405).end()
        const transport = new StreamableHTTPServerTransport({})
        const server = makeServer()
        res.on("close", () => {
          void transport.close()
          void server.close()
        })
        void server.connect(transport).then(() => transport.handleRequest(req, res))
      })
      http.listen(0, "127.0.0.1", () => {
        const port = (http.address() as AddressInfo).port
        resume(Effect.succeed({ http, server: { url: `http://127.0.0.1:${port}/mcp`, listings: () => listings } }))
      })
    }),
    ({ http }) =>
      Effect.async<void>((resume) => {
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ server }) => server))
