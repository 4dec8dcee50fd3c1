// The bundled example MCP server: a real SDK server over stdio, used by `npm start` (the offline demo),
// the README and the benchmarks. Run it with `node packages/mcp/examples/demo-server.mjs`.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import * as z from "zod"

const server = new McpServer({ name: "zett-demo", version: "0.1.0" })

server.registerTool("add", {
  title: "Add",
  description: "Adds two numbers and returns their sum",
  inputSchema: { a: z.number().describe("the first number"), b: z.number().describe("the second number") },
  outputSchema: { sum: z.number() }
}, async ({ a, b }) => ({
  content: [{ type: "text", text: String(a + b) }],
  structuredContent: { sum: a + b }
}))

server.registerTool("weather", {
  title: "Weather",
  description: "Today's (made-up) weather for a city",
  inputSchema: { city: z.string().min(1).describe("the city") }
}, async ({ city }) => ({
  content: [{ type: "text", text: `${city}: 21°C and sunny` }]
}))

server.registerTool("fail", {
  description: "Always fails, to show how a tool failure reaches the model",
  inputSchema: {}
}, async () => ({ content: [{ type: "text", text: "this tool always fails" }], isError: true }))

await server.connect(new StdioServerTransport())
