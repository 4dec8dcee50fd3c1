// The baselines: the raw MCP SDK Client, one per server, opened with a user-side Promise.all; the echo tool is
// `client.callTool`. `raw` is the v2 client (`@modelcontextprotocol/client`, what Zett's driver is on, in its
// default negotiation: the 2025 handshake, as the benchmark's servers speak); `raw1` is SDK v1
// (`@modelcontextprotocol/sdk`). Resolved from the root workspace, like Zett's. `raw-effect` is the v2 client
// again, each call one `Effect.async` in one Effect fiber: what any Effect caller of this client pays, and so the
// floor under an Effect library's call (Zett's handler and agent run their calls in a fiber in the same way).
import * as Effect from "effect/Effect"
import { type Adapter, benchDir, callsInFiber, packageVersion } from "./common.js"

interface SdkClient {
  connect(transport: unknown): Promise<void>
  listTools(): Promise<{ readonly tools: ReadonlyArray<unknown> }>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
  close(): Promise<void>
}

interface Sdk {
  readonly Client: new(info: { name: string; version: string }) => SdkClient
  readonly StdioClientTransport: new(options: { command: string; args: Array<string> }) => unknown
  readonly StreamableHTTPClientTransport: new(url: URL) => unknown
}

const adapter = (label: string, name: string, load: () => Promise<Sdk>, inFiber = false): Adapter => ({
  label,
  packages: () => [packageVersion(name, benchDir)],
  load,
  open: async (lib, servers) => {
    const { Client, StdioClientTransport, StreamableHTTPClientTransport } = lib as Sdk
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
    const call = (text: string) =>
      Effect.async<unknown>((resume) => {
        first.callTool({ name: echoName, arguments: { text } }).then(
          (result) => resume(Effect.succeed(result)),
          (error) => resume(Effect.die(error))
        )
      })
    return {
      tools: clients.reduce((n, c) => n + c.tools.length, 0),
      echo: (text) => first.callTool({ name: echoName, arguments: { text } }) as never,
      ...(inFiber
        ? { timeCalls: (n: number, prefix?: string) => Effect.runPromise(callsInFiber(n, call, prefix)) }
        : {}),
      // a long-lived app without a cache lists again on its open connections
      again: async () => ({
        tools: (await Promise.all(clients.map((c) => c.client.listTools()))).reduce((n, r) => n + r.tools.length, 0)
      }),
      close: async () => {
        await Promise.all(clients.map((c) => c.client.close()))
      }
    }
  }
})

const loadV2 = async () =>
  ({
    ...(await import("@modelcontextprotocol/client")),
    ...(await import("@modelcontextprotocol/client/stdio"))
  }) as unknown as Sdk

export const raw: Adapter = adapter("raw SDK v2 Client (baseline)", "@modelcontextprotocol/client", loadV2)

export const rawEffect: Adapter = adapter(
  "raw SDK v2 Client, each call one Effect.async in one fiber",
  "@modelcontextprotocol/client",
  loadV2,
  true
)

export const raw1: Adapter = adapter("raw SDK v1 Client", "@modelcontextprotocol/sdk", async () =>
  ({
    ...(await import("@modelcontextprotocol/sdk/client/index.js")),
    ...(await import("@modelcontextprotocol/sdk/client/stdio.js")),
    ...(await import("@modelcontextprotocol/sdk/client/streamableHttp.js"))
  }) as unknown as Sdk)
