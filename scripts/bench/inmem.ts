// scratch: the JS cost of a warm tool call without I/O (SDK InMemoryTransport), raw Client vs Zett's agent path
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpClientFactory, McpExtension, McpServer } from "@zett/mcp"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { makeServer } from "./testServer.mjs"

const N = Number(process.argv[2] ?? 5000)
const rounds = Number(process.argv[3] ?? 5)

const raw = async () => {
  const server = makeServer({ k: 10, prefix: "" })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await server.connect(b)
  const client = new Client({ name: "raw", version: "1" })
  await client.connect(a)
  await client.listTools()
  for (let i = 0; i < 200; i++) await client.callTool({ name: "echo", arguments: { text: `warm ${i}` } })
  const cpu = process.cpuUsage()
  const t = performance.now()
  for (let i = 0; i < N; i++) await client.callTool({ name: "echo", arguments: { text: `call ${i}` } })
  const ms = performance.now() - t
  const used = process.cpuUsage(cpu)
  await client.close()
  return { us: (ms * 1000) / N, cpu: (used.user + used.system) / N }
}

const zett = async () => {
  const batch = (n: number) => ({ toolCalls: Array.from({ length: n }, (_, i) => ({ name: "demo__echo", arguments: { text: `call ${i}` } })) })
  let t = 0
  let cpu: NodeJS.CpuUsage | undefined
  let out = { us: 0, cpu: 0 }
  const mcp = McpExtension.layer({ servers: [McpServer.http({ name: "demo", url: "http://127.0.0.1:9/in-memory" })] }).pipe(
    Layer.provide(McpClientFactory.layerInMemory({ demo: () => makeServer({ k: 10, prefix: "" }) })),
    Layer.provide(NodeContext.layer)
  )
  const runtime = ManagedRuntime.make(
    Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(mcp),
      Layer.provide(ScriptedModel.layer([batch(200), () => {
        cpu = process.cpuUsage()
        t = performance.now()
        return batch(N)
      }, () => {
        const ms = performance.now() - t
        const used = process.cpuUsage(cpu)
        out = { us: (ms * 1000) / N, cpu: (used.user + used.system) / N }
        return { text: "done" }
      }]))
    )
  )
  await runtime.runPromise(Agent.run("go"))
  await runtime.dispose()
  return out
}

for (let r = 0; r < rounds; r++) {
  const a = process.env.ONLY === "raw" ? await raw() : process.env.ONLY === "zett" ? await zett() : r % 2 === 0 ? await raw() : await zett()
  const b = process.env.ONLY !== undefined ? a : r % 2 === 0 ? await zett() : await raw()
  const [rr, zz] = r % 2 === 0 ? [a, b] : [b, a]
  console.log(`round ${r}: raw ${rr.us.toFixed(1)} µs (cpu ${rr.cpu.toFixed(1)})  zett ${zz.us.toFixed(1)} µs (cpu ${zz.cpu.toFixed(1)})  ratio ${(zz.us / rr.us).toFixed(2)}`)
}
