// `npx tsx --conditions=@zett/source scripts/bench/steps.ts [--runs=2000] [--calls=2000]`: counts the Effect steps
// (ops the fiber run loop evaluates, through an op-supervising `Supervisor`) and the fibers started, per agent run
// on a warm cache (registration only: the in-memory server, a scripted model answering at once) and per warm tool
// call over stdio (the registered tool's handler in one fiber). Counts, not timings: they do not depend on the
// machine's load, and say where an Effect path spends its steps (by op kind, and by fiber).
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpLayers from "@zett/testing/McpLayers"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import * as Supervisor from "effect/Supervisor"
import { parseArgs } from "node:util"
import { makeProbe, stdioServers } from "./common.js"
// : a plain ES module without types
import { makeServer } from "./testServer.mjs"
import { echoName, makeApp, zettLayer } from "./zett.js"

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: "string", default: "2000" }, calls: { type: "string", default: "2000" } }
})

let counting = false
const ops = new Map<string, number>()
const perFiber = new Map<number, number>()
let fibers = 0
class Counter extends Supervisor.AbstractSupervisor<void> {
  readonly value = Supervisor.none.value
  override onStart() {
    if (counting) fibers++
  }
  override onEffect(fiber: { id: () => { id: number } }, effect: { _op?: string }) {
    if (!counting) return
    const kind = effect._op ?? "?"
    ops.set(kind, (ops.get(kind) ?? 0) + 1)
    const id = fiber.id().id
    perFiber.set(id, (perFiber.get(id) ?? 0) + 1)
  }
}
const counted = Layer.merge(Supervisor.addSupervisor(new Counter() as never), RuntimeFlags.enableOpSupervision)

const report = (what: string, n: number) => {
  let total = 0
  for (const count of ops.values()) total += count
  console.log(
    `${what}: ${(total / n).toFixed(1)} Effect steps and ${(fibers / n).toFixed(2)} fibers started, per ${
      what.split(" ")[0]
    }`
  )
  // long-lived fibers (the caller, a connection's own); a run's root fiber is new each time
  if (perFiber.size <= 8) {
    console.log(`  by fiber: ${[...perFiber.values()].map((count) => (count / n).toFixed(1)).join(", ")}`)
  }
  console.log(
    `  by kind: ${
      [...ops].sort((a, b) => b[1] - a[1]).map(([kind, count]) => `${kind} ${(count / n).toFixed(1)}`).join(", ")
    }`
  )
  ops.clear()
  perFiber.clear()
  fibers = 0
}

// an agent run, registration only
const runs = Number(values.runs)
const mcp = McpLayers.layer({ servers: [McpServerConfig.http({ name: "demo", url: "http://127.0.0.1:9/in-memory" })] })
  .pipe(
    Layer.provide(NodeMcpClientFactory.layerInMemory({ demo: () => makeServer({ k: 10, prefix: "" }) })),
    Layer.provide(NodeContext.layer)
  )
const runtime = ManagedRuntime.make(Layer.merge(
  Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
    Layer.provide(mcp),
    Layer.provide(ScriptedModel.layer([{ text: "done" }], { loop: true }))
  ),
  counted
))
const run = Agent.run("go")
for (let i = 0; i < 500; i++) await runtime.runPromise(run)
counting = true
for (let i = 0; i < runs; i++) await runtime.runPromise(run)
counting = false
report("run (registration only, 11 tools)", runs)
await runtime.dispose()

// a warm stdio call through the registered tool's handler
const calls = Number(values.calls)
const servers = stdioServers(makeProbe(), 1, { k: 10 })
const app = makeApp(zettLayer(servers), { logging: counted })
await app.startRequest()
const name = `${servers[0]!.name}__${servers[0]!.prefix}echo`
await app.timeCalls(name, 300)
counting = true
await app.timeCalls(name, calls)
counting = false
report("call (warm, stdio, the handler)", calls)
await app.endRequest()
await app.dispose()

// the agent's path: one run whose scripted model returns `calls` calls of echo after 300 warm-up calls
const batch = (n: number) => ({
  toolCalls: Array.from({ length: n }, (_, i) => ({ name: echoName(servers[0]!), arguments: { text: `call ${i}` } }))
})
const agent = ManagedRuntime.make(Layer.merge(
  Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
    Layer.provide(zettLayer(servers)),
    Layer.provide(ScriptedModel.layer([batch(300), () => {
      counting = true
      return batch(calls)
    }, () => {
      counting = false
      return { text: "done" }
    }]))
  ),
  counted
))
await agent.runPromise(Agent.run("go"))
report("call (warm, stdio, the agent's path: model step to model step)", calls)
await agent.dispose()
