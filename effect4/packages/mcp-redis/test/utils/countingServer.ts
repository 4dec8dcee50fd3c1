/**
 * A real MCP server of the SDK, in this process, on 127.0.0.1 (Streamable HTTP at `/mcp`, stateless), that counts
 * the `tools/list` requests it answers and answers each after `delay`: the slow server of a fleet test, where the
 * count is the number of discoveries. The n-th listing describes its tools as `discovery <n>`, so a client that
 * shows a description tells which discovery it came from. The 3 line's `@zett/testing/CountingServer` on Effect 4.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as StatelessHttp from "./statelessHttp.js"

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
  Effect.suspend(() => {
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
    return Effect.map(StatelessHttp.serve(makeServer), (url) => ({ url, listings: () => listings }))
  })
