// The benchmark server's tools, shared by server.mjs (stdio, HTTP) and the in-memory lanes.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import * as z from "zod"

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * An SDK server with `k` filler tools `<prefix>tool_<i>` and `<prefix>echo`; tools/list sleeps `delay` ms.
 * `onList` is called on every tools/list (the fleet case counts discoveries with it).
 * @param {{ readonly k: number, readonly delay?: number, readonly prefix?: string, readonly onList?: () => void }} options
 */
export const makeServer = ({ delay = 0, k: K, onList, prefix: toolPrefix = "" }) => {
  const server = new McpServer({ name: `bench${toolPrefix}`, version: "1.0.0" })
  for (let i = 0; i < K; i++) {
    server.registerTool(`${toolPrefix}tool_${i}`, {
      description: `Filler tool number ${i}: looks something up in a catalogue and returns what it found`,
      inputSchema: {
        query: z.string().describe("what to look for"),
        limit: z.number().int().min(1).max(100).optional().describe("how many results at most"),
        mode: z.enum(["fast", "thorough", "exact"]).describe("how to search")
      }
    }, async ({ query }) => ({ content: [{ type: "text", text: `${i}:${query}` }] }))
  }
  server.registerTool(`${toolPrefix}echo`, {
    description: "Returns its text",
    inputSchema: { text: z.string() }
  }, async ({ text }) => ({ content: [{ type: "text", text }] }))
  // Wrap tools/list: sleep `delay`, and compute the listing once (zod -> JSON Schema for 1000 tools would
  // otherwise dominate every listing and hide the client's own cost).
  const inner = server.server._requestHandlers.get("tools/list")
  let listing
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    onList?.()
    if (delay > 0) await sleep(delay)
    listing ??= await inner(request, extra)
    return listing
  })
  return server
}
