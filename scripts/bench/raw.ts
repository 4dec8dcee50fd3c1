// The baseline: the raw `@modelcontextprotocol/sdk` Client, one per server, opened with a user-side
// Promise.all; the echo tool is `client.callTool`. Resolved from the root workspace, like Zett's.
import { type Adapter, benchDir, packageVersion } from "./common.js"

export const raw: Adapter = {
  label: "raw SDK Client (baseline)",
  packages: () => [packageVersion("@modelcontextprotocol/sdk", benchDir)],
  load: async () => ({
    ...(await import("@modelcontextprotocol/sdk/client/index.js")),
    ...(await import("@modelcontextprotocol/sdk/client/stdio.js")),
    ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js"))
  }),
  open: async (lib, servers) => {
    const { Client, StdioClientTransport, StreamableHTTPClientTransport } = lib
    const clients = await Promise.all(servers.map(async (s) => {
      const client = new Client({ name: "bench", version: "1.0.0" })
      await client.connect(
        s.transport === "stdio"
          ? new StdioClientTransport({ command: s.command, args: [...s.args] })
          : new StreamableHTTPClientTransport(new URL(s.url))
      )
      const { tools } = await client.listTools()
      return { client, tools }
    }))
    const first = clients[0]!.client
    const echoName = `${servers[0]!.prefix}echo`
    return {
      tools: clients.reduce((n, c) => n + c.tools.length, 0),
      echo: (text) => first.callTool({ name: echoName, arguments: { text } }),
      // a long-lived app without a cache lists again on its open connections
      again: async () => ({
        tools: (await Promise.all(clients.map((c) => c.client.listTools()))).reduce((n, r) => n + r.tools.length, 0)
      }),
      close: async () => {
        await Promise.all(clients.map((c) => c.client.close()))
      }
    }
  }
}
