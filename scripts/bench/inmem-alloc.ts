// scratch: allocation per warm call, by allocating function (inspector sampling heap profiler), raw vs Zett in memory
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpClientFactory, McpExtension, McpServer } from "@zett/mcp"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { Session } from "node:inspector"
import { makeServer } from "./testServer.mjs"

const N = Number(process.argv[2] ?? 3000)
const which = process.argv[3] ?? "zett"
const session = new Session()
session.connect()
const post = (m: string, p?: object) => new Promise<any>((res, rej) => session.post(m, p ?? {}, (e, r) => e ? rej(e) : res(r)))
let started = false
const start = () => {
  started = true
  session.post("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
}
const stop = async () => {
  const { profile } = await post("HeapProfiler.stopSampling")
  const self = new Map<string, number>()
  let total = 0
  const walk = (n: any) => {
    const size = n.selfSize as number
    total += size
    const f = n.callFrame
    const key = `${f.functionName || "(anon)"} ${String(f.url).replace(/.*node_modules\//, "").replace(/.*\/work\/main\//, "")}:${f.lineNumber + 1}:${f.columnNumber + 1}`
    self.set(key, (self.get(key) ?? 0) + size)
    for (const c of n.children) walk(c)
  }
  walk(profile.head)
  console.log(`${which}: ${(total / N / 1024).toFixed(2)} KB per call`)
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${(v / N).toFixed(0).padStart(7)} B  ${k}`)
}

if (which === "raw") {
  const server = makeServer({ k: 10, prefix: "" })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await server.connect(b)
  const client = new Client({ name: "raw", version: "1" })
  await client.connect(a)
  await client.listTools()
  for (let i = 0; i < 500; i++) await client.callTool({ name: "echo", arguments: { text: `warm ${i}` } })
  start()
  for (let i = 0; i < N; i++) await client.callTool({ name: "echo", arguments: { text: `call ${i}` } })
  await stop()
  await client.close()
} else {
  const batch = (n: number) => ({ toolCalls: Array.from({ length: n }, (_, i) => ({ name: "demo__echo", arguments: { text: `call ${i}` } })) })
  const mcp = McpExtension.layer({ servers: [McpServer.http({ name: "demo", url: "http://127.0.0.1:9/in-memory" })] }).pipe(
    Layer.provide(McpClientFactory.layerInMemory({ demo: () => makeServer({ k: 10, prefix: "" }) })),
    Layer.provide(NodeContext.layer)
  )
  let done: Promise<void> = Promise.resolve()
  const runtime = ManagedRuntime.make(
    Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(mcp),
      Layer.provide(ScriptedModel.layer([batch(500), () => {
        start()
        return batch(N)
      }, () => {
        done = stop()
        return { text: "done" }
      }]))
    )
  )
  await runtime.runPromise(Agent.run("go"))
  await done
  await runtime.dispose()
}
