// Peer libraries, each driven the way its documentation shows: discovery into the library's own tool
// objects, then the echo tool through the path an agent of that library would take. Imported lazily by
// ../lane.ts so that a lane loads only its own library (import time is measured).
//
// Every adapter: open(servers) -> { tools, echo(text), again() -> { tools }, close() }
//   servers: [{ name, transport: "stdio" | "http", command, args, url, prefix }]
//   echo: the first server's `<prefix>echo` tool; again: the tools of an already-open client, as a second
//   request of a long-lived app gets them ({ tools: count }).
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const version = (name) => {
  for (let dir = here;; dir = dirname(dir)) {
    const file = join(dir, "node_modules", name, "package.json")
    if (existsSync(file)) return `${name}@${JSON.parse(readFileSync(file, "utf8")).version}`
    if (dirname(dir) === dir) return `${name}@?`
  }
}

const textOf = (result) => JSON.stringify(result)

export const langchain = {
  label: "LangChain MultiServerMCPClient",
  packages: () => [version("@langchain/mcp-adapters"), version("@langchain/core")],
  load: () => import("@langchain/mcp-adapters"),
  open: async ({ MultiServerMCPClient }, servers) => {
    const mcpServers = Object.fromEntries(servers.map((s) => [
      s.name,
      s.transport === "stdio"
        ? { transport: "stdio", command: s.command, args: s.args, restart: { enabled: false } }
        : { transport: "http", url: s.url, automaticSSEFallback: false }
    ]))
    const client = new MultiServerMCPClient({ mcpServers, throwOnLoadError: true })
    const tools = await client.getTools()
    const echo = tools.find((t) => t.name === `${servers[0].prefix}echo`)
    let id = 0
    return {
      tools: tools.length,
      // what a LangGraph ToolNode does with a model's tool call
      echo: async (text) =>
        textOf(await echo.invoke({ name: echo.name, args: { text }, id: `call_${++id}`, type: "tool_call" })),
      again: async () => ({ tools: (await client.getTools()).length }),
      close: () => client.close()
    }
  }
}

export const aisdk = {
  label: "AI SDK createMCPClient",
  packages: () => [version("@ai-sdk/mcp")],
  load: async () => ({ ...(await import("@ai-sdk/mcp")), ...(await import("@ai-sdk/mcp/mcp-stdio")) }),
  open: async ({ Experimental_StdioMCPTransport, createMCPClient }, servers) => {
    // no multi-server helper: user-side Promise.all, as its docs show
    const clients = await Promise.all(servers.map(async (s) => {
      const client = await createMCPClient({
        transport: s.transport === "stdio"
          ? new Experimental_StdioMCPTransport({ command: s.command, args: s.args })
          : { type: "http", url: s.url }
      })
      return { client, tools: await client.tools() }
    }))
    const echo = clients[0].tools[`${servers[0].prefix}echo`]
    let id = 0
    return {
      tools: clients.reduce((n, c) => n + Object.keys(c.tools).length, 0),
      // what generateText runs after it has parsed a tool call
      echo: async (text) => textOf(await echo.execute({ text }, { toolCallId: `call_${++id}`, messages: [] })),
      again: async () => ({
        tools: (await Promise.all(clients.map((c) => c.client.tools()))).reduce((n, t) => n + Object.keys(t).length, 0)
      }),
      close: () => Promise.all(clients.map((c) => c.client.close()))
    }
  }
}

export const openai = {
  label: "OpenAI Agents MCPServer*",
  packages: () => [version("@openai/agents-core"), version("@modelcontextprotocol/client")],
  load: () => import("@openai/agents-core"),
  open: async (lib, servers) => {
    const { MCPServerStdio, MCPServerStreamableHttp, RunContext, connectMcpServers, getAllMcpTools } = lib
    const list = servers.map((s) =>
      s.transport === "stdio"
        ? new MCPServerStdio({ name: s.name, command: s.command, args: s.args })
        : new MCPServerStreamableHttp({ name: s.name, url: s.url })
    )
    // the library's defaults, as Agent/Runner use them
    const managed = await connectMcpServers(list, { strict: true })
    const tools = await getAllMcpTools({ mcpServers: managed.active })
    const echo = tools.find((t) => t.name === `${servers[0].prefix}echo`)
    const context = new RunContext()
    return {
      tools: tools.length,
      echo: async (text) => textOf(await echo.invoke(context, JSON.stringify({ text }))),
      again: async () => ({ tools: (await getAllMcpTools({ mcpServers: managed.active })).length }),
      close: () => managed.close()
    }
  }
}

let mastraId = 0

export const mastra = {
  label: "Mastra MCPClient",
  packages: () => [version("@mastra/mcp"), version("@mastra/core")],
  load: () => import("@mastra/mcp"),
  open: async ({ MCPClient }, servers) => {
    const client = new MCPClient({
      id: `bench-${process.pid}-${++mastraId}`,
      servers: Object.fromEntries(servers.map((s) => [
        s.name,
        s.transport === "stdio" ? { command: s.command, args: s.args } : { url: new URL(s.url) }
      ]))
    })
    const tools = await client.getTools()
    const echo = tools[`${servers[0].name}_${servers[0].prefix}echo`]
    return {
      tools: Object.keys(tools).length,
      // validates the input with the converted zod schema, as a Mastra agent does
      echo: async (text) => textOf(await echo.execute({ context: { text } })),
      again: async () => ({ tools: Object.keys(await client.getTools()).length }),
      close: () => client.disconnect()
    }
  }
}
