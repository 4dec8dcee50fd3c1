// Effect 4's own MCP client (`effect/ai/McpClient`, experimental since 4.0.6) as an app uses it: one client per
// server in one scope, each over `McpClient.stdio` (a child process through `@effect/platform-node`'s spawner) or
// `McpClient.http` (Streamable HTTP on `FetchHttpClient`, as its documentation's example), at the 2025-11-25
// revision (the benchmark's SDK 1.32 servers speak it; Effect's client pins one revision and has no fallback),
// connected all at once and listed with `listTools` (the tools in its own format, `McpSchema.Tool`, as the raw
// lane keeps the SDK's). The echo tool is `callTool` of the listed tool; the calls case runs its calls in a loop in
// one fiber, the way an Effect program calls it.
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as McpClient from "effect/ai/McpClient"
import * as McpProtocol from "effect/ai/McpProtocol"
import type * as McpSchema from "effect/ai/McpSchema"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as ChildProcess from "effect/process/ChildProcess"
import * as Scope from "effect/Scope"
import { join } from "node:path"
import { type Adapter, packageVersion, rootDir, type ServerSpec, type Session } from "../../scripts/bench/common.js"

const effect4Dir = join(rootDir, "effect4")

const protocol = McpProtocol.v2025_11_25

const connect = (s: ServerSpec) =>
  Effect.gen(function*() {
    const transport = s.transport === "stdio"
      ? yield* McpClient.stdio({ command: ChildProcess.make(s.command, [...s.args]), protocol })
      : yield* McpClient.http({ url: s.url, protocol })
    const client = yield* McpClient.make({ name: "bench", version: "1.0.0" }).pipe(
      Effect.provideService(McpClient.Transport, transport)
    )
    const tools = yield* client.listTools()
    return { client, tools }
  })

/** `n` sequential echo calls in one fiber: each one's ms. */
const callsInFiber = (call: (text: string) => Effect.Effect<unknown, unknown>, n: number, prefix = "") =>
  Effect.gen(function*() {
    const samples: Array<number> = []
    for (let i = 0; i < n; i++) {
      const start = performance.now()
      yield* call(`${prefix}hello ${i}`)
      samples.push(performance.now() - start)
    }
    return samples
  })

export const effectMcpClient: Adapter = {
  label: "Effect 4 effect/ai McpClient",
  packages: () => [packageVersion("effect", effect4Dir), packageVersion("@effect/platform-node", effect4Dir)],
  load: async () => ({}),
  open: async (_lib, servers): Promise<Session> => {
    // the platform's services an app provides once: the child process spawner, the HTTP client
    const runtime = ManagedRuntime.make(Layer.merge(NodeServices.layer, FetchHttpClient.layer))
    const scope = await runtime.runPromise(Scope.make())
    const clients = await runtime.runPromise(
      Effect.forEach(servers, connect, { concurrency: "unbounded" }).pipe(Scope.provide(scope))
    )
    const first = clients[0]!
    const echoTool = first.tools.find((tool) => tool.name === `${servers[0]!.prefix}echo`) as McpSchema.Tool
    const call = (text: string) => first.client.callTool({ tool: echoTool, arguments: { text } })
    return {
      tools: clients.reduce((n, c) => n + c.tools.length, 0),
      echo: (text) => runtime.runPromise(call(text)),
      timeCalls: (n, prefix) => runtime.runPromise(callsInFiber(call, n, prefix)),
      again: async () => ({
        tools: (await runtime.runPromise(Effect.forEach(clients, (c) => c.client.listTools()))).reduce(
          (n, tools) => n + tools.length,
          0
        )
      }),
      close: async () => {
        await runtime.runPromise(Scope.close(scope, Exit.void))
        await runtime.dispose()
      }
    }
  }
}
