// Case 12, `protocol`: cold discovery of N stdio servers of the 2026-07-28 revision, all at once: each lane connects
// to the N servers concurrently and lists their tools; timed until all N lists are in hand. The servers are the
// project's own fixture, packages/testing/servers/modern-server.mjs (SDK v2 `McpServer`, `serveStdio`; dual-era by
// default, `--variant=modern-only` starts it with `--legacy=reject`), started with `node <path>`, 5 tools each.
//
// Lanes (`--lib`):
// - `raw-pin`: the raw SDK v2 `Client` + `StdioClientTransport`, `versionNegotiation: { mode: { pin: "2026-07-28" } }` (the baseline)
// - `raw-auto`: the same in `mode: "auto"`
// - `zett-cold`: Zett's agent path (an `Agent.run` with the McpExtension until the model is called with the tools),
//   each run on a fresh layer: a new `NodeMcpClientFactory`, no verdict known (default `protocol: "auto"`)
// - `zett-verdict`: the same path, each run on a new McpExtension (a new, empty McpToolCache) over one
//   `NodeMcpClientFactory` kept for the process: the factory knows each definition's verdict from the warm-up
//
// Each lane process runs one untimed discovery first (modules loaded, code warmed; for `zett-verdict` it is the one
// that leaves the verdicts in the factory), then `--reps` timed ones; every discovery is closed (and its server
// processes gone) before the next starts, outside the timing.
//
// Spawns are counted by the servers: started with `--record=<file>`, each process appends `{"event":"ready"}` as
// it starts and one line per message it receives (method, protocol version of its `_meta`). That also tells
// which processes only answered the probe (`server/discover` and nothing else: the SDK's disposable sibling).
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpLayers from "@zett/testing/McpLayers"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { benchDir, cpuMs, median, packageVersion, rootDir, sleep } from "./common.js"
import { makeApp } from "./zett.js"

export const modernScript = join(rootDir, "packages", "testing", "servers", "modern-server.mjs")
/** The fixture's tools: echo, wait, confirm, region, cut, write, grow. */
const toolsPerServer = 7
const revision = "2026-07-28"

export type ProtocolLane = "raw-pin" | "raw-auto" | "zett-cold" | "zett-verdict"
export const protocolLanes: ReadonlyArray<ProtocolLane> = ["raw-pin", "raw-auto", "zett-cold", "zett-verdict"]

const labels: Record<ProtocolLane, string> = {
  "raw-pin": `raw SDK v2 Client, pin ${revision} (baseline)`,
  "raw-auto": "raw SDK v2 Client, auto",
  "zett-cold": "Zett cold, no verdict known (fresh NodeMcpClientFactory)",
  "zett-verdict": "Zett, verdict known (same factory, empty McpToolCache)"
}

const timed: Record<ProtocolLane, string> = {
  "raw-pin": "Promise.all over the servers of new Client + connect + listTools",
  "raw-auto": "Promise.all over the servers of new Client + connect + listTools",
  "zett-cold":
    "Agent.run on a fresh app (its layers built in the run) until the model is called with every tool registered",
  "zett-verdict": "Agent.run on a fresh app over the kept factory until the model is called with every tool registered"
}

interface Server {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/** One discovery of all servers: the tools it has in hand, and how to close it. */
interface Discovered {
  readonly tools: number
  readonly close: () => Promise<void>
}

interface Lane {
  readonly discover: () => Promise<Discovered>
  readonly dispose: () => Promise<void>
}

const rawLane = async (mode: "auto" | { readonly pin: string }, servers: ReadonlyArray<Server>): Promise<Lane> => {
  const { Client } = await import("@modelcontextprotocol/client")
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio")
  return {
    discover: async () => {
      const clients = await Promise.all(servers.map(async (s) => {
        const client = new Client({ name: "bench", version: "1.0.0" }, { versionNegotiation: { mode } })
        await client.connect(new StdioClientTransport({ command: s.command, args: [...s.args] }))
        const { tools } = await client.listTools()
        return { client, tools: tools.length }
      }))
      return {
        tools: clients.reduce((n, c) => n + c.tools, 0),
        close: async () => {
          await Promise.all(clients.map((c) => c.client.close()))
        }
      }
    },
    dispose: async () => {}
  }
}

const zettLane = async (keepFactory: boolean, servers: ReadonlyArray<Server>): Promise<Lane> => {
  const definitions = servers.map((s) => McpServerConfig.stdio({ name: s.name, command: s.command, args: [...s.args] }))
  // the factory of `zett-verdict`, built once: its verdicts live as long as it does
  const factoryRuntime = keepFactory ? ManagedRuntime.make(NodeMcpClientFactory.layer()) : undefined
  const factory = factoryRuntime === undefined
    ? undefined
    : await factoryRuntime.runPromise(McpClientFactory.McpClientFactory)
  return {
    discover: async () => {
      // every tool reaches the model, as the case counts (tool search is on past 40 tools by default)
      const app = makeApp(McpLayers.layerNode(
        factory === undefined
          ? { servers: definitions, toolSearch: { mode: "off" } }
          : { servers: definitions, clientFactory: factory, toolSearch: { mode: "off" } }
      ))
      const opened = await app.startRequest()
      return { tools: opened.tools, close: app.dispose }
    },
    dispose: async () => {
      await factoryRuntime?.dispose()
    }
  }
}

interface Entry {
  readonly event: string
  readonly pid: number
  readonly method?: string
  readonly protocolVersion?: string
}

/** What the servers of one discovery recorded: spawns, probe-only processes, messages by method, list revisions. */
const tally = (entries: ReadonlyArray<Entry>) => {
  const methods = new Map<number, Set<string>>()
  const byMethod: Record<string, number> = {}
  const listVersions = new Set<string>()
  let spawns = 0
  for (const e of entries) {
    if (e.event === "ready") spawns++
    if (e.event !== "message" || e.method === undefined) continue
    byMethod[e.method] = (byMethod[e.method] ?? 0) + 1
    if (!methods.has(e.pid)) methods.set(e.pid, new Set())
    methods.get(e.pid)!.add(e.method)
    if (e.method === "tools/list") listVersions.add(e.protocolVersion ?? "none")
  }
  const probeOnly = [...methods.values()].filter((m) => m.size === 1 && m.has("server/discover")).length
  return { spawns, probeOnly, byMethod, listVersions: [...listVersions] }
}

/** Fixture processes still running with this record file in their command line (zombies excluded). */
const alive = (record: string) => {
  let n = 0
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      if (!cmdline.includes(record) || !cmdline.includes("modern-server.mjs")) continue
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z") n++
    } catch {
      // gone meanwhile
    }
  }
  return n
}

export const protocolCase = async (
  lib: string,
  options: { readonly n: number; readonly reps: number; readonly era: "dual" | "modern-only" }
): Promise<Record<string, unknown>> => {
  if (!(protocolLanes as ReadonlyArray<string>).includes(lib)) {
    throw new Error(`unknown lib ${lib} for the protocol case`)
  }
  const lane = lib as ProtocolLane
  const { era, n, reps } = options
  const record = join(tmpdir(), `zbench-protocol-${process.pid}-${Date.now()}.jsonl`)
  writeFileSync(record, "")
  // the same definitions for every run of the process: the factory keeps its verdicts by definition
  const servers: Array<Server> = Array.from({ length: n }, (_, i) => ({
    name: `m${i}`,
    command: process.execPath,
    args: [modernScript, `--name=m${i}`, `--legacy=${era === "dual" ? "serve" : "reject"}`, `--record=${record}`]
  }))
  const made = lane === "raw-pin"
    ? await rawLane({ pin: revision }, servers)
    : lane === "raw-auto"
    ? await rawLane("auto", servers)
    : await zettLane(lane === "zett-verdict", servers)
  let offset = 0
  const runs: Array<{
    readonly ms: number
    readonly cpuMs: number
    readonly tools: number
    readonly aliveAfterClose: number
    readonly tally: ReturnType<typeof tally>
  }> = []
  try {
    for (let i = 0; i <= reps; i++) {
      const cpu = process.cpuUsage()
      const start = performance.now()
      const discovered = await made.discover()
      const ms = performance.now() - start
      const runCpuMs = cpuMs(cpu)
      await discovered.close()
      // every server process of this run gone before the next starts (up to 5 s)
      let left = alive(record)
      for (let waited = 0; left > 0 && waited < 5_000; waited += 20) {
        await sleep(20)
        left = alive(record)
      }
      const lines = readFileSync(record, "utf8").slice(offset)
      offset += lines.length
      const entries = lines.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Entry)
      runs.push({ ms, cpuMs: runCpuMs, tools: discovered.tools, aliveAfterClose: left, tally: tally(entries) })
    }
  } finally {
    await made.dispose()
    rmSync(record, { force: true })
  }
  const [first, ...measured] = runs
  const perServer = (x: number) => x / n
  const spawnsPerServer = measured.map((r) => perServer(r.tally.spawns))
  const expected = n * toolsPerServer
  return {
    label: labels[lane],
    timed: timed[lane],
    packages: lane.startsWith("raw")
      ? [packageVersion("@modelcontextprotocol/client", benchDir)]
      : ["@zett/mcp (this repo)", packageVersion("@modelcontextprotocol/client", benchDir)],
    server: packageVersion("@modelcontextprotocol/server", join(rootDir, "packages", "testing")),
    era,
    servers: n,
    reps,
    msRuns: measured.map((r) => r.ms),
    medianMs: median(measured.map((r) => r.ms)),
    minMs: Math.min(...measured.map((r) => r.ms)),
    maxMs: Math.max(...measured.map((r) => r.ms)),
    cpuMs: median(measured.map((r) => r.cpuMs)),
    // the untimed first discovery of the process (process-cold: modules loaded and compiled on the way)
    firstMs: first!.ms,
    firstSpawnsPerServer: perServer(first!.tally.spawns),
    spawnsPerServer: median(spawnsPerServer),
    spawnsPerServerMax: Math.max(...spawnsPerServer),
    spawnsPerServerMin: Math.min(...spawnsPerServer),
    probeOnlyPerServer: median(measured.map((r) => perServer(r.tally.probeOnly))),
    discoverPerServer: median(measured.map((r) => perServer(r.tally.byMethod["server/discover"] ?? 0))),
    initialize: measured.reduce((x, r) => x + (r.tally.byMethod["initialize"] ?? 0), 0),
    listsPerRun: measured.map((r) => r.tally.byMethod["tools/list"] ?? 0),
    listVersions: [...new Set(measured.flatMap((r) => r.tally.listVersions))],
    aliveAfterClose: Math.max(...runs.map((r) => r.aliveAfterClose)),
    tools: measured[0]?.tools ?? 0,
    expected,
    ok: runs.every((r) =>
      r.tools === expected && r.aliveAfterClose === 0 && (r.tally.byMethod["tools/list"] ?? 0) === n &&
      (r.tally.byMethod["initialize"] ?? 0) === 0 && r.tally.listVersions.length === 1 &&
      r.tally.listVersions[0] === revision
    )
  }
}
