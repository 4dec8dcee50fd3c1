// What every lane shares: server definitions, counting spawned processes and opened sockets, statistics.
import * as Effect from "effect/Effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as diagnostics from "node:diagnostics_channel"
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

const here = dirname(fileURLToPath(import.meta.url))
/** scripts/bench, also when this runs from the bundle in scripts/bench/.build */
export const benchDir = here.endsWith(".build") ? dirname(here) : here
export const rootDir = join(benchDir, "..", "..")
export const serverScript = join(benchDir, "server.mjs")

/** One MCP server as every adapter receives it. Tool names on server `s<i>` are prefixed `s<i>_`. */
export interface ServerSpec {
  readonly name: string
  readonly transport: "stdio" | "http"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly url: string
  readonly prefix: string
}

/** A discovered set of servers in one library's own format. */
export interface Session {
  /** How many tools the library produced. */
  readonly tools: number
  /** Calls the first server's echo tool through the library's tool-execution path. */
  readonly echo: (text: string) => Promise<unknown>
  /** Times `n` sequential echo calls (ms each), each text after `prefix`; defaults to a loop over `echo`. */
  readonly timeCalls?: (n: number, prefix?: string) => Promise<Array<number>>
  /** A second request's tools on the same app: returns the tool count and, if known, the registration ms. */
  readonly again: () => Promise<
    { readonly tools: number; readonly registrationMs?: number; readonly requestMs?: number }
  >
  /** Ends the current request (Zett closes its request-scoped connections; others keep theirs). */
  readonly endRequest?: () => Promise<void>
  readonly close: () => Promise<void>
}

export interface Adapter {
  readonly label: string
  readonly packages: () => ReadonlyArray<string>
  readonly load: () => Promise<unknown>
  readonly open: (lib: any, servers: ReadonlyArray<ServerSpec>) => Promise<Session>
}

/** `name@version` of the package that `from` (a directory) resolves `name` to, by node_modules lookup. */
export const packageVersion = (name: string, from: string): string => {
  for (let dir = from;; dir = dirname(dir)) {
    const file = join(dir, "node_modules", name, "package.json")
    if (existsSync(file)) return `${name}@${JSON.parse(readFileSync(file, "utf8")).version}`
    if (dirname(dir) === dir) return `${name}@?`
  }
}

/** `--name=value` flags, strictly: a flag not in `names`, a flag without a value or a positional is an error. */
export const flags = (argv: ReadonlyArray<string>, names: ReadonlyArray<string>): Record<string, string | undefined> =>
  parseArgs({
    args: [...argv],
    strict: true,
    options: Object.fromEntries(names.map((name) => [name, { type: "string" as const }]))
  }).values as Record<string, string | undefined>

/** A file the servers append "spawn <pid>" / "conn" lines to, and a tag that marks their processes. */
export const makeProbe = () => {
  const tag = `zbench${process.pid}x${Date.now()}`
  const spawnlog = join(tmpdir(), `${tag}.log`)
  writeFileSync(spawnlog, "")
  // a lane is one process: its log goes with it
  process.once("exit", () => rmSync(spawnlog, { force: true }))
  const lines = () => readFileSync(spawnlog, "utf8").split("\n")
  return {
    tag,
    spawnlog,
    spawns: () => lines().filter((l) => l.startsWith("spawn")).length,
    conns: () => lines().filter((l) => l === "conn").length,
    /** tools/list requests answered by the stdio servers of this probe: discoveries */
    lists: () => lines().filter((l) => l === "list").length,
    /** stdio server processes of this probe that are still alive (zombies excluded). */
    alive: () => {
      let n = 0
      for (const pid of readdirSync("/proc")) {
        if (!/^\d+$/.test(pid)) continue
        try {
          const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8")
          if (!cmdline.includes(tag) || !cmdline.includes("server.mjs") || cmdline.includes("--transport=http")) {
            continue
          }
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
          if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z") n++
        } catch {
          // gone meanwhile
        }
      }
      return n
    }
  }
}
export type Probe = ReturnType<typeof makeProbe>

/** Counts TCP connections this process opens (undici's fetch and http both go through net.connect). */
export const socketCounter = () => {
  let count = 0
  diagnostics.subscribe("net.client.socket", () => count++)
  return () => count
}

export const stdioServers = (
  probe: Probe,
  n: number,
  options: { readonly k: number; readonly delay?: number; readonly stubborn?: string; readonly offset?: number }
): Array<ServerSpec> =>
  Array.from({ length: n }, (_, j) => {
    const i = j + (options.offset ?? 0)
    return {
      name: `s${i}`,
      transport: "stdio" as const,
      command: process.execPath,
      args: [
        serverScript,
        "--transport=stdio",
        `--k=${options.k}`,
        `--delay=${options.delay ?? 0}`,
        `--prefix=s${i}_`,
        `--spawnlog=${probe.spawnlog}`,
        `--tag=${probe.tag}`,
        ...(options.stubborn === undefined ? [] : [`--stubborn=${options.stubborn}`])
      ],
      url: "",
      prefix: `s${i}_`
    }
  })

/** Starts one HTTP server process serving `count` servers on /s<i>/mcp; resolves with their definitions. */
export const startHttp = async (
  probe: Probe,
  count: number,
  options: { readonly k: number; readonly delay?: number; readonly offset?: number }
): Promise<{ readonly servers: Array<ServerSpec>; readonly stop: () => void; readonly child: ChildProcess }> => {
  const child = spawn(process.execPath, [
    serverScript,
    "--transport=http",
    `--servers=${count + (options.offset ?? 0)}`,
    `--k=${options.k}`,
    `--delay=${options.delay ?? 0}`,
    `--spawnlog=${probe.spawnlog}`,
    `--tag=${probe.tag}`
  ], { stdio: ["ignore", "pipe", "inherit"] })
  process.on("exit", () => child.kill("SIGTERM"))
  const port = await new Promise<number>((resolve, reject) => {
    let out = ""
    child.stdout!.on("data", (d) => {
      out += String(d)
      const m = /PORT (\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
    })
    child.on("exit", (code) => reject(new Error(`http server exited (${code})`)))
  })
  const servers = Array.from({ length: count }, (_, j) => {
    const i = j + (options.offset ?? 0)
    return {
      name: `s${i}`,
      transport: "http" as const,
      command: "",
      args: [],
      url: `http://127.0.0.1:${port}/s${i}/mcp`,
      prefix: `s${i}_`
    }
  })
  return { servers, child, stop: () => void child.kill("SIGTERM") }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const gcHeap = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run with node --expose-gc")
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed
}

/** Client CPU (user + system) in ms since `start`. */
export const cpuMs = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start)
  return (d.user + d.system) / 1000
}

export const quantile = (values: ReadonlyArray<number>, q: number) => {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const pos = (sorted.length - 1) * q
  const lo = Math.floor(pos)
  const hi = Math.ceil(pos)
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
}
export const median = (values: ReadonlyArray<number>) => quantile(values, 0.5)

/** `n` sequential calls inside one fiber, as a turn's tool calls run inside the agent's: each one's ms. */
export const callsInFiber = <E, R>(n: number, call: (text: string) => Effect.Effect<unknown, E, R>, prefix = "") =>
  Effect.gen(function*() {
    const samples: Array<number> = []
    for (let i = 0; i < n; i++) {
      const start = performance.now()
      yield* call(`${prefix}hello ${i}`)
      samples.push(performance.now() - start)
    }
    return samples
  })

/**
 * The CPU time of this process's main thread, in µs, from Linux's /proc (in clock ticks of 10 ms: good to a few
 * percent over a timed window of some hundred ms); undefined elsewhere. The rest of the process's CPU time is its
 * other threads': V8's optimising compiler and GC helpers, libuv's pool.
 */
const mainThreadUs = (): number | undefined => {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "latin1")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10_000
  } catch {
    return undefined
  }
}

export interface Switches {
  readonly voluntary: number
  readonly involuntary: number
  readonly mainUs: number | undefined
  /** when the reading was taken, in µs of the monotonic clock a V8 CPU profile's timestamps use */
  readonly atUs: number
  /** with `since`: when `since` was taken */
  readonly sinceUs?: number
}

/**
 * This process's context switches since `since`: voluntary (it waited) and involuntary (it was preempted), and
 * its main thread's CPU time.
 */
export const contextSwitches = (since?: Switches): Switches => {
  const usage = process.resourceUsage()
  const main = mainThreadUs()
  return {
    voluntary: usage.voluntaryContextSwitches - (since?.voluntary ?? 0),
    involuntary: usage.involuntaryContextSwitches - (since?.involuntary ?? 0),
    // /proc is there for both readings or for neither
    mainUs: main === undefined ? undefined : main - (since?.mainUs ?? 0),
    atUs: Number(process.hrtime.bigint() / 1000n),
    ...(since === undefined ? {} : { sinceUs: since.atUs })
  }
}
