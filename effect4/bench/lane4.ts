// One measurement of an Effect 4 lane in a fresh process, as scripts/bench/lane.ts is for the others: bundled by
// scripts/bench/build.ts (`buildLane4`) into scripts/bench/.build/lane4.mjs with its dependencies resolved from
// effect4/ (its own `effect` 4.1.5), run on Node 22 by bench.ts (`--only=effect4`):
//
//   node --expose-gc .build/lane4.mjs --case=calls|discovery|large --lib=zett4|effect4-mcpclient [params]
//
// Prints one line `RESULT <json>` with the load average at its start and end; the fields are lane.ts's of the same
// case, so that a figure reads the same against the raw SDK's lane of the same batch.
import { cpus, loadavg } from "node:os"
import {
  type Adapter,
  contextSwitches,
  cpuMs,
  flags as parseFlags,
  gcHeap,
  makeProbe,
  median,
  quantile,
  type Session,
  startHttp,
  stdioServers
} from "../../scripts/bench/common.js"

const flags = parseFlags(process.argv.slice(2), ["case", "lib", "transport", "n", "k", "delay", "calls", "warmup"])
const num = (key: string, fallback: number) => (flags[key] === undefined ? fallback : Number(flags[key]))
const lib = flags.lib ?? "zett4"
const kase = flags.case ?? "discovery"

const loadAdapter = async (): Promise<{ adapter: Adapter; importMs: number }> => {
  let adapter: Adapter
  if (lib === "zett4") adapter = (await import("./zett4.js")).zett4
  else if (lib === "effect4-mcpclient") adapter = (await import("./mcpClient.js")).effectMcpClient
  else throw new Error(`unknown lib ${lib}: zett4 or effect4-mcpclient`)
  // from process start, as lane.ts reports it
  return { adapter, importMs: performance.now() }
}

const textOk = (result: unknown, text: string) => JSON.stringify(result).includes(text)

const switchesPerCall = (switched: ReturnType<typeof contextSwitches>, n: number) => ({
  ...(switched.mainUs === undefined ? {} : { mainThreadCpuPerCallUs: switched.mainUs / n }),
  waitsPerCall: switched.voluntary / n,
  preemptionsPerCall: switched.involuntary / n
})

const timeCalls = async (session: Session, n: number) => {
  if (session.timeCalls !== undefined) return session.timeCalls(n)
  const samples: Array<number> = []
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await session.echo(`hello ${i}`)
    samples.push(performance.now() - start)
  }
  return samples
}

const cases: Record<string, () => Promise<Record<string, unknown>>> = {
  /** Cold discovery of N stdio servers (K tools each, tools/list delayed by D ms): lane.ts's case 1. */
  discovery: async () => {
    const n = num("n", 20)
    const k = num("k", 10)
    const probe = makeProbe()
    const servers = stdioServers(probe, n, { k, delay: num("delay", 0) })
    const { adapter, importMs } = await loadAdapter()
    const switches = contextSwitches()
    const cpu = process.cpuUsage()
    const start = performance.now()
    const session = await adapter.open(undefined, servers)
    const openMs = performance.now() - start
    const openCpuMs = cpuMs(cpu)
    const { mainUs } = contextSwitches(switches)
    const spawns = probe.spawns()
    const ok = textOk(await session.echo("discovery-ok"), "discovery-ok")
    await session.close()
    return {
      label: adapter.label,
      packages: adapter.packages(),
      importMs,
      openMs,
      openCpuMs,
      ...(mainUs === undefined ? {} : { openMainThreadCpuMs: mainUs / 1000 }),
      tools: session.tools,
      expected: n * (k + 1),
      spawns,
      ok: ok && session.tools === n * (k + 1)
    }
  },

  /**
   * Sequential echo round trips on a warm connection (one server, 10 tools and echo, over --transport): `zett4` is
   * the agent's own path (one `Agent.run`, the scripted model returns the calls); `effect4-mcpclient` is `callTool`
   * in a loop in one fiber. lane.ts's case 3.
   */
  calls: async () => {
    const transport = flags.transport ?? "stdio"
    const n = num("calls", 500)
    const warmup = num("warmup", 200)
    const probe = makeProbe()
    const http = transport === "http" ? await startHttp(probe, 1, { k: 10 }) : undefined
    const servers = http?.servers ?? stdioServers(probe, 1, { k: 10 })
    if (lib === "zett4") {
      const { agentCalls, packages } = await import("./zett4.js")
      const importMs = performance.now()
      const run = await agentCalls(servers, { warmup, calls: n })
      http?.stop()
      return {
        label: "Zett 4, the agent's path (Agent.run, scripted model)",
        packages: packages(),
        importMs,
        transport,
        calls: n,
        warmup,
        timed: "Agent.run: from the model's step that returns the calls to the next model request",
        meanMs: run.ms / n,
        cpuPerCallUs: run.cpuUs / n,
        ...switchesPerCall(run.switched, n),
        callsPerSecond: (n * 1000) / run.ms,
        ok: run.ok
      }
    }
    const { adapter, importMs } = await loadAdapter()
    const session = await adapter.open(undefined, servers)
    const ok = textOk(await session.echo("calls-ok"), "calls-ok")
    await timeCalls(session, warmup)
    const switches = contextSwitches()
    const cpu = process.cpuUsage()
    const start = performance.now()
    const samples = await timeCalls(session, n)
    const totalMs = performance.now() - start
    const cpuPerCallUs = (cpuMs(cpu) * 1000) / n
    const switched = contextSwitches(switches)
    await session.close()
    http?.stop()
    return {
      label: adapter.label,
      packages: adapter.packages(),
      importMs,
      transport,
      calls: n,
      warmup,
      timed: "callTool, in a loop in one fiber",
      meanMs: totalMs / n,
      medianMs: median(samples),
      p99Ms: quantile(samples, 0.99),
      cpuPerCallUs,
      ...switchesPerCall(switched, n),
      callsPerSecond: (n * 1000) / totalMs,
      ok
    }
  },

  /** One stdio server with K tools: open time, client CPU and heap kept while the session lives (lane.ts's case 4). */
  large: async () => {
    const k = num("k", 1000)
    const probe = makeProbe()
    const servers = stdioServers(probe, 1, { k })
    const { adapter, importMs } = await loadAdapter()
    const heap0 = gcHeap()
    const cpu = process.cpuUsage()
    const start = performance.now()
    const session = await adapter.open(undefined, servers)
    const openMs = performance.now() - start
    const openCpuMs = cpuMs(cpu)
    const heap1 = gcHeap()
    const ok = textOk(await session.echo("large-ok"), "large-ok") && session.tools === k + 1
    await session.close()
    return {
      label: adapter.label,
      packages: adapter.packages(),
      importMs,
      k,
      openMs,
      openCpuMs,
      heapDelta: heap1 - heap0,
      tools: session.tools,
      ok
    }
  }
}

const run = cases[kase]
if (run === undefined) throw new Error(`unknown case ${kase}: calls, discovery or large`)
let result: Record<string, unknown>
const loadStart = loadavg()[0]!
try {
  result = await run()
  const loadEnd = loadavg()[0]!
  result = { ...result, load: [loadStart, loadEnd], underLoad: Math.max(loadStart, loadEnd) > cpus().length }
} catch (error) {
  process.stderr.write(`lane ${kase} ${lib} failed: ${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
}
process.stdout.write(`RESULT ${JSON.stringify({ case: kase, lib, ...flags, ...result })}\n`)
// a library that leaves handles open must not keep the lane alive
process.exit(0)
