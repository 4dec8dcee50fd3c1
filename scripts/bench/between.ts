// `npx tsx scripts/bench/between.ts [--rounds=5] [--calls=3000] [--work=0,50,150]`: what the raw SDK v2 client's
// own warm stdio `callTool` costs when its caller does other work between calls, as an agent does (its model
// step, its messages). One process, one benchmark server (server.mjs, K = 10); after 5,000 warm-up calls, each
// round runs `--calls` sequential `echo` calls for every amount of work in turn (interleaved), the work being a
// busy loop of that many µs after each call. Timed: the loop's wall time and its process CPU time (user + system),
// each minus the time spent in the busy loop, per call: the call's own cost. Printed: the median of the rounds
// for each amount of work, and its ratio to no work in the same run.
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { parseArgs } from "node:util"
import { cpuMs, median, serverScript } from "./common.js"

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    rounds: { type: "string", default: "5" },
    calls: { type: "string", default: "3000" },
    work: { type: "string", default: "0,50,150" }
  }
})
const rounds = Number(values.rounds)
const calls = Number(values.calls)
const works = values.work.split(",").map(Number)

const client = new Client({ name: "bench", version: "1.0.0" })
await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverScript, "--k=10"] }))
await client.listTools()

const busy = (us: number) => {
  const end = performance.now() + us / 1000
  while (performance.now() < end);
}

const run = async (n: number, workUs: number) => {
  let worked = 0
  const cpu = process.cpuUsage()
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    await client.callTool({ name: "echo", arguments: { text: "hi" } })
    if (workUs > 0) {
      const s = performance.now()
      busy(workUs)
      worked += performance.now() - s
    }
  }
  const wall = performance.now() - start
  return { wallUs: ((wall - worked) * 1000) / n, cpuUs: ((cpuMs(cpu) - worked) * 1000) / n }
}

await run(5000, 0)
const results = new Map(works.map((w) => [w, { wall: [] as Array<number>, cpu: [] as Array<number> }]))
for (let r = 0; r < rounds; r++) {
  for (const w of works) {
    const { cpuUs, wallUs } = await run(calls, w)
    results.get(w)!.wall.push(wallUs)
    results.get(w)!.cpu.push(cpuUs)
  }
}
await client.close()

const base = results.get(works[0]!)!
const baseWall = median(base.wall)
const baseCpu = median(base.cpu)
process.stdout.write(
  `raw SDK v2 callTool over stdio, ${rounds} interleaved rounds of ${calls} calls; per call, the work between calls ` +
    `subtracted (median of rounds; ratio to ${works[0]} µs of work)\n`
)
for (const w of works) {
  const { cpu, wall } = results.get(w)!
  process.stdout.write(
    `  work ${String(w).padStart(4)} µs: wall ${median(wall).toFixed(1)} µs (${
      (median(wall) / baseWall).toFixed(2)
    }×), ` +
      `client CPU ${median(cpu).toFixed(1)} µs (${(median(cpu) / baseCpu).toFixed(2)}×)\n`
  )
}
