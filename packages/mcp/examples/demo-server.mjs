// The bundled example MCP server: a real SDK server (`@modelcontextprotocol/server` 2.x) over stdio, used by
// `npm start` (the offline demo), the README and the benchmarks. It speaks the 2026-07-28 revision and the 2025
// ones (a dual-era server). Run it with `node packages/mcp/examples/demo-server.mjs`.
import { McpServer } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import * as z from "zod/v4"

const makeServer = () => {
  // its tools are the same for every user and every run: clients of the 2026-07-28 revision may keep the list
  // (without a hint, the SDK says `ttlMs: 0`, and a client that follows it lists the tools for every request)
  const server = new McpServer({ name: "zett-demo", version: "0.1.0" }, {
    cacheHints: { "tools/list": { ttlMs: 300_000, cacheScope: "public" } }
  })

  server.registerTool("add", {
    title: "Add",
    description: "Adds two numbers and returns their sum",
    inputSchema: z.object({ a: z.number().describe("the first number"), b: z.number().describe("the second number") }),
    outputSchema: z.object({ sum: z.number() })
  }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
    structuredContent: { sum: a + b }
  }))

  server.registerTool("weather", {
    title: "Weather",
    description: "Today's (made-up) weather for a city",
    inputSchema: z.object({ city: z.string().min(1).describe("the city") })
  }, async ({ city }) => ({
    content: [{ type: "text", text: `${city}: 21°C and sunny` }]
  }))

  server.registerTool("fail", {
    description: "Always fails, to show how a tool failure reaches the model",
    inputSchema: z.object({})
  }, async () => ({ content: [{ type: "text", text: "this tool always fails" }], isError: true }))

  return server
}

serveStdio(makeServer)
