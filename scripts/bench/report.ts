// Turns the lanes' results into docs/benchmarks.md: one table per case, ratios to the raw SDK of the same
// run, the goals of the per-call rework (and the earlier performance goals still open) marked met or not, and a closing note
// for every goal not met. Every lane records the load average at its start and end; runs taken with a load
// above the number of cores are counted as "under load".
import { median } from "./common.js"

export type Result = Record<string, any> & { readonly case: string; readonly lib: string; readonly ok?: boolean }

const labels: Record<string, string> = {
  raw: "raw SDK v2 Client (baseline)",
  raw1: "raw SDK v1 Client",
  "raw-effect": "raw SDK v2 Client, each call one Effect.async in one fiber",
  zett: "**Zett** (McpExtension + Agent)",
  "zett-handler": "Zett, the tool handler in one fiber",
  "zett-pool": "Zett with connectionPool",
  langchain: "LangChain MultiServerMCPClient",
  aisdk: "AI SDK createMCPClient",
  openai: "OpenAI Agents MCPServer*",
  mastra: "Mastra MCPClient",
  "zett-toolkit": "McpToolkit (a generateText step)",
  "ai-local": "@effect/ai alone (a generateText step, local tool)",
  "ai-raw": "@effect/ai with the raw SDK call as the tool (a generateText step)"
}
const order = Object.keys(labels)

const f = (x: number | undefined, digits = 0) =>
  x === undefined || Number.isNaN(x)
    ? "–"
    : x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
const ratio = (x: number | undefined, base: number | undefined) =>
  x === undefined || base === undefined || Number.isNaN(x) || Number.isNaN(base) || base === 0
    ? "–"
    : `${(x / base).toFixed(2)}×`
const med = (rs: ReadonlyArray<Result>, key: string) => {
  const values = rs.map((r) => r[key]).filter((v): v is number => typeof v === "number" && !Number.isNaN(v))
  return values.length === 0 ? undefined : median(values)
}
const max = (rs: ReadonlyArray<Result>, key: string) => {
  const values = rs.map((r) => r[key]).filter((v): v is number => typeof v === "number")
  return values.length === 0 ? undefined : Math.max(...values)
}
const min = (rs: ReadonlyArray<Result>, key: string) => {
  const values = rs.map((r) => r[key]).filter((v): v is number => typeof v === "number")
  return values.length === 0 ? undefined : Math.min(...values)
}
const table = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join(
    "\n"
  )

interface Goal {
  /** a goal set before the per-call rework (its own table, "Other goals") */
  readonly earlier?: true
  readonly goal: string
  readonly measured: string
  readonly met: boolean | undefined
  readonly why?: string
}

/** "2/5 (load 3.1–9.8)": runs whose 1-minute load average exceeded the cores, and the range of the load. */
const loadNote = (rs: ReadonlyArray<Result>) => {
  const loads = rs.flatMap((r) => (Array.isArray(r.load) ? r.load as Array<number> : []))
  if (loads.length === 0) return "–"
  return `${rs.filter((r) => r.underLoad === true).length}/${rs.length} (load ${f(Math.min(...loads), 1)}–${
    f(Math.max(...loads), 1)
  })`
}

/** CPU profiles of the warm stdio call (profile.ts), made at the end of a full run. */
export interface Profiles {
  readonly calls: number
  readonly zett: { readonly result: Record<string, unknown>; readonly summary: string }
  readonly raw: { readonly result: Record<string, unknown>; readonly summary: string }
  /** the stored profile of the same lane before the per-call rework (scripts/bench/profile-before.md) */
  readonly before: string | undefined
}

const profileSection = (profiles: Profiles): Array<string> => {
  const line = (label: string, result: Record<string, unknown>) =>
    `${label}: mean ${f(Number(result.meanMs) * 1000)} µs per call, client CPU ${
      f(Number(result.cpuPerCallUs))
    } µs per call, ` +
    `load average ${Array.isArray(result.load) ? (result.load as Array<number>).join(" → ") : "–"}.`
  return [
    "## Profile of the warm stdio call",
    "",
    `Each profile is one process of the \`calls\` case under \`node --cpu-prof\` (\`npx tsx --conditions=@zett/source ` +
    `scripts/bench/profile.ts --calls=${profiles.calls} --markdown --top=25 [--lib=raw]\`): ${
      f(profiles.calls)
    } calls after 200 ` +
    "warm-up calls, summarised by scripts/bench/profile-top.mjs. Self time of each frame over the whole process (its start-up " +
    "included, about 1 s), divided by the calls; by owner, then the top frames. Sampled in wall time: a frame in a " +
    "system call (`writeUtf8String`, the write of a request to the server's stdin) is counted while the process waits in " +
    "it, so its figure grows when the process is descheduled (the call lanes record preemptions per call in " +
    "benchmarks.json).",
    "",
    `### After: Zett, the agent's path (this run)`,
    "",
    line("Timed", profiles.zett.result),
    "",
    profiles.zett.summary.trim(),
    "",
    `### The raw SDK client (this run)`,
    "",
    line("Timed", profiles.raw.result),
    "",
    profiles.raw.summary.trim(),
    "",
    "### Before: Zett, the agent's path, before the per-call rework",
    "",
    profiles.before?.trim() ?? "(scripts/bench/profile-before.md is missing)",
    ""
  ]
}

/**
 * What McpToolkit adds to a tool call: its handle, less @effect/ai's own work around a tool that waits for the raw
 * SDK's call (the bridge's handle less that call).
 */
const toolkitPart = (toolkit: number | undefined, bridge: number | undefined, raw: number | undefined) =>
  toolkit === undefined || bridge === undefined || raw === undefined ? undefined : toolkit - (bridge - raw)

const effect4Labels: Record<string, string> = {
  raw: "raw SDK v2 Client (baseline)",
  zett: "Zett 3 (McpExtension + Agent, Effect 3)",
  zett4: "**Zett 4** (`NodeMcpExtension.layerAgent` + Agent, Effect 4)",
  "effect4-mcpclient": "Effect 4's `effect/ai` McpClient"
}

/**
 * The Effect 4 batch (`--only=effect4`): the 4 line's Zett and Effect 4's own McpClient beside the raw SDK v2 client
 * and the 3 line's Zett, all on Node 22 in one interleaved batch; every ratio to the raw client of that batch.
 */
export const effect4Section = (results: ReadonlyArray<Result>, meta: Record<string, unknown>): Array<string> => {
  const lanes = Object.keys(effect4Labels).filter((lib) => results.some((r) => r.lib === lib))
  const of = (kase: string, lib: string, where: (r: Result) => boolean = () => true) =>
    results.filter((r) => r.case === kase && r.lib === lib && r.ok === true && where(r))
  const all = (kase: string, lib: string, where: (r: Result) => boolean = () => true) =>
    results.filter((r) => r.case === kase && r.lib === lib && where(r))
  const loads = results.flatMap((r) => (Array.isArray(r.load) ? r.load as Array<number> : []))
  const out: Array<string> = []
  out.push("## The Effect 4 line beside the 3 line, the raw SDK v2 client and Effect 4's own McpClient")
  out.push("")
  out.push(
    `\`npm run bench -- --only=effect4\` (scripts/bench/bench.ts, the lanes in effect4/bench), ${meta.date}: every lane ` +
      `on Node ${meta.effect4Node ?? "22"}, which the 4 line needs, each measurement a fresh \`node --expose-gc\` ` +
      "process, the four lanes interleaved in one batch with their order rotated each round; every ratio is to the " +
      "raw SDK v2 client measured in the same batch, of the medians of the runs. 1-minute load average " +
      `${loads.length === 0 ? "–" : `${f(Math.min(...loads), 1)}–${f(Math.max(...loads), 1)}`} over the batch ` +
      `(${results.filter((r) => r.underLoad === true).length} of ${results.length} runs above the number of cores). ` +
      "The servers are the benchmark's own (scripts/bench/server.mjs: an SDK 1.32 `McpServer` with K filler tools and " +
      "`echo`, stdio or stateful Streamable HTTP on 127.0.0.1, SSE-framed responses)."
  )
  out.push("")
  out.push(
    "The lanes. *raw*: the `@modelcontextprotocol/client` 2.4.0 `Client`, one per server, opened with a " +
      "`Promise.all` (the 4 line's driver pins the same version). *Zett 3*: the 3 line (`McpExtension` + `Agent`, " +
      "Effect 3, the lane.mjs bundle). *Zett 4*: the 4 line (`NodeMcpExtension.layerAgent` + `Agent` with a " +
      "`ScriptedModel`, `effect` 4.1.5, the lane4.mjs bundle; tool search off, as in the 3 line's lanes). *Effect 4's " +
      "McpClient*: `effect/ai`'s own client (experimental), `McpClient.make` on `McpClient.stdio` (a child process " +
      "through `@effect/platform-node`'s spawner) or `McpClient.http` (on `FetchHttpClient`, as its documentation's " +
      "example), at the 2025-11-25 revision (it pins one revision; the servers speak it), tools listed with `listTools` " +
      "and called with `callTool`."
  )
  out.push("")
  const imports = lanes.map((lib) => {
    const rs = results.filter((r) => r.lib === lib && r.ok === true)
    const packages = rs.find((r) => Array.isArray(r.packages))?.packages as Array<string> | undefined
    return [effect4Labels[lib]!, packages?.join(", ") ?? "", f(med(rs, "importMs"))]
  })
  out.push(table(["lane", "packages", "process start to library loaded, ms (median)"], imports))
  out.push("")

  if (results.some((r) => r.case === "calls")) {
    const sample = results.find((r) => r.case === "calls")!
    out.push("### A warm call (sequential `echo`), over stdio and Streamable HTTP")
    out.push("")
    out.push(
      `One server (10 tools and echo); ${sample.calls} timed calls after ${sample.warmup} warm-up calls in each ` +
        "process. *raw*: `callTool` awaited in a loop. *Zett 3* and *Zett 4*: the agent's own path, one `Agent.run` " +
        "whose scripted model returns the warm-up calls in one step and the timed calls in the next, timed from that " +
        "step to the next model request (every call run as the agent runs any: hooks, the MCP tool under its " +
        "timeout, the tool message appended). *Effect 4's McpClient*: `callTool` of the listed echo tool in a loop in " +
        "one fiber (one `runPromise` for the loop), the way an Effect program calls it. *mean* = the timed window / " +
        "calls, median of the runs [fastest run]; client CPU = the lane process's user + system time over the window " +
        "per call (all threads); main thread = that thread's alone (Linux `/proc`, 10 ms ticks)."
    )
    out.push("")
    for (const transport of ["stdio", "http"]) {
      const cell = (lib: string) => of("calls", lib, (r) => r.transport === transport)
      const base = med(cell("raw"), "meanMs")
      const baseCpu = med(cell("raw"), "cpuPerCallUs")
      const baseMain = med(cell("raw"), "mainThreadCpuPerCallUs")
      out.push(`**${transport === "stdio" ? "stdio" : "Streamable HTTP"}**`)
      out.push("")
      out.push(table(
        [
          "lane",
          "mean ms/call, median [min]",
          "ratio",
          "client CPU µs/call, median [min]",
          "CPU ratio",
          "main thread CPU µs/call",
          "ratio",
          "runs ok",
          "runs under load"
        ],
        lanes.map((lib) => [
          effect4Labels[lib]!,
          `${f(med(cell(lib), "meanMs"), 3)} [${f(min(cell(lib), "meanMs"), 3)}]`,
          ratio(med(cell(lib), "meanMs"), base),
          `${f(med(cell(lib), "cpuPerCallUs"))} [${f(min(cell(lib), "cpuPerCallUs"))}]`,
          ratio(med(cell(lib), "cpuPerCallUs"), baseCpu),
          f(med(cell(lib), "mainThreadCpuPerCallUs")),
          ratio(med(cell(lib), "mainThreadCpuPerCallUs"), baseMain),
          `${cell(lib).length}/${all("calls", lib, (r) => r.transport === transport).length}`,
          loadNote(all("calls", lib, (r) => r.transport === transport))
        ])
      ))
      out.push("")
    }
  }

  if (results.some((r) => r.case === "discovery")) {
    const sample = results.find((r) => r.case === "discovery")!
    out.push(`### Cold discovery of ${sample.n} stdio servers`)
    out.push("")
    out.push(
      `${sample.n} stdio servers of K = ${sample.k} tools and echo each, \`tools/list\` not delayed, all started ` +
        "at once in a fresh process. *open* = from the library's modules loaded to every tool in its own format. " +
        "*raw*: a `Promise.all` of connect and `listTools` per server. *Zett 3* and *Zett 4*: an `Agent.run` on a " +
        "fresh app until the model is called with every tool registered (the layers built, each server discovered " +
        "through the tool cache and the client factory, `discoveryConcurrency` 16). *Effect 4's McpClient*: in one " +
        "scope, `Effect.forEach` with unbounded concurrency of `McpClient.stdio`, `McpClient.make` and `listTools` " +
        "(`McpSchema.Tool`s; the platform's layers built in the window). Client CPU is the lane process's over the " +
        "window; spawns are counted by the servers."
    )
    out.push("")
    const cell = (lib: string) => of("discovery", lib)
    const base = med(cell("raw"), "openMs")
    const baseCpu = med(cell("raw"), "openCpuMs")
    const baseMain = med(cell("raw"), "openMainThreadCpuMs")
    out.push(table(
      [
        "lane",
        "open ms, median [min]",
        "ratio",
        "client CPU ms",
        "CPU ratio",
        "main thread CPU ms",
        "ratio",
        "spawns",
        "tools",
        "runs ok",
        "runs under load"
      ],
      lanes.map((lib) => [
        effect4Labels[lib]!,
        `${f(med(cell(lib), "openMs"))} [${f(min(cell(lib), "openMs"))}]`,
        ratio(med(cell(lib), "openMs"), base),
        f(med(cell(lib), "openCpuMs")),
        ratio(med(cell(lib), "openCpuMs"), baseCpu),
        f(med(cell(lib), "openMainThreadCpuMs")),
        ratio(med(cell(lib), "openMainThreadCpuMs"), baseMain),
        f(med(cell(lib), "spawns")),
        f(med(cell(lib), "tools")),
        `${cell(lib).length}/${all("discovery", lib).length}`,
        loadNote(all("discovery", lib))
      ])
    ))
    out.push("")
  }

  if (results.some((r) => r.case === "large")) {
    const sample = results.find((r) => r.case === "large")!
    out.push(`### One stdio server with ${f(Number(sample.k))} tools`)
    out.push("")
    out.push(
      "*open* as in the discovery above, for one server of K tools and echo (its listing computed once by the " +
        "server, so the figure is the client's). Client CPU over the open; heap = `heapUsed` after forced GCs before " +
        "and after the open, the session kept (Zett: the request still open, so its tool cache and the request's " +
        "registry both hold the tools)."
    )
    out.push("")
    const cell = (lib: string) => of("large", lib)
    const base = med(cell("raw"), "openMs")
    const baseCpu = med(cell("raw"), "openCpuMs")
    const baseHeap = med(cell("raw"), "heapDelta")
    out.push(table(
      [
        "lane",
        "open ms, median [max]",
        "ratio",
        "client CPU ms",
        "CPU ratio",
        "heap Δ MB",
        "heap ratio",
        "runs ok",
        "runs under load"
      ],
      lanes.map((lib) => [
        effect4Labels[lib]!,
        `${f(med(cell(lib), "openMs"))} [${f(max(cell(lib), "openMs"))}]`,
        ratio(med(cell(lib), "openMs"), base),
        f(med(cell(lib), "openCpuMs")),
        ratio(med(cell(lib), "openCpuMs"), baseCpu),
        f((med(cell(lib), "heapDelta") ?? NaN) / 1e6, 1),
        ratio(med(cell(lib), "heapDelta"), baseHeap),
        `${cell(lib).length}/${all("large", lib).length}`,
        loadNote(all("large", lib))
      ])
    ))
    out.push("")
  }
  const failed = results.filter((r) => r.ok !== true)
  if (failed.length > 0) {
    out.push(
      `Lanes that failed in this batch: ${failed.map((r) => `${r.case}/${r.lib} (${r.error ?? "not ok"})`).join("; ")}.`
    )
    out.push("")
  }
  return out
}

export const report = (all: ReadonlyArray<Result>, meta: Record<string, unknown>, profiles?: Profiles): string => {
  // the Effect 4 batch has a section of its own: its lanes run on another Node
  const effect4 = all.filter((r) => r.set === "effect4")
  const results = all.filter((r) => r.set === undefined)
  if (results.length === 0 && effect4.length > 0) {
    return [
      "# Benchmarks: the Effect 4 batch",
      "",
      `Generated by \`npm run bench -- --only=effect4${
        meta.mode === "quick" ? " --quick" : ""
      }\` (scripts/bench) on ${meta.date}: ` +
      `orchestrator Node ${meta.node}, lanes Node ${meta.effect4Node ?? "22"}, ${meta.cpus}, load average at the end ` +
      `${JSON.stringify(meta.loadAverageAtEnd)}, ${meta.durationSeconds} s.`,
      "",
      ...effect4Section(effect4, meta)
    ].join("\n")
  }
  const of = (kase: string, lib?: string, where: (r: Result) => boolean = () => true) =>
    results.filter((r) => r.case === kase && (lib === undefined || r.lib === lib) && r.ok === true && where(r))
  const present = (kase: string) => order.filter((lib) => results.some((r) => r.case === kase && r.lib === lib))
  const failed = results.filter((r) => r.ok !== true)
  const goals: Array<Goal> = []
  const out: Array<string> = []

  out.push("# Benchmarks")
  out.push("")
  out.push(
    `Generated by \`npm run bench${
      meta.mode === "quick" ? ":quick" : meta.mode === "light" ? " -- --light" : ""
    }\` (scripts/bench) on ${meta.date}: Node ${meta.node}, ` +
      `${meta.cpus}, load average at the end ${
        JSON.stringify(meta.loadAverageAtEnd)
      }, ${meta.durationSeconds} s. Raw numbers: ` +
      `\`${meta.mode === "full" ? "docs/benchmarks.json" : `bench-results/${meta.mode}.json`}\`.`
  )
  out.push("")
  out.push(
    "Every measurement runs in its own fresh `node --expose-gc` process (Zett bundled from its TypeScript sources, " +
      "no loader); repeats are interleaved with the library order rotated. Ratios are to the raw " +
      "`@modelcontextprotocol/sdk` Client measured in the same run. Medians are the headline; on a shared 2-core " +
      "host p99 mostly shows GC and scheduler noise. The test server (scripts/bench/server.mjs) is an SDK 1.32 " +
      "`McpServer` with K filler tools and `echo`, over stdio or stateful Streamable HTTP on 127.0.0.1. Each lane records " +
      "the 1-minute load average at its start and end; \"under load\" counts the runs where it exceeded the number of " +
      "cores (the machine was shared, so the figures are slower and noisier than on a quiet one)."
  )
  out.push("")
  const flagged = results.filter((r) => r.underLoad === true).length
  out.push(`Runs under load in this run: ${flagged} of ${results.filter((r) => Array.isArray(r.load)).length}.`)
  out.push("")

  // versions and import time
  const versions = new Map<string, string>()
  for (const r of results) {
    if (Array.isArray(r.packages) && !versions.has(r.lib)) versions.set(r.lib, r.packages.join(", "))
  }
  const importRows = order.filter((lib) => results.some((r) => r.lib === lib && typeof r.importMs === "number")).map((
    lib
  ) => [
    labels[lib]!,
    versions.get(lib) ?? "",
    f(med(results.filter((r) => r.lib === lib && r.ok === true), "importMs"))
  ])
  out.push("## Libraries")
  out.push("")
  out.push(table(["lane", "packages", "process start to library loaded, ms (median)"], importRows))
  out.push("")

  // 1. discovery
  const discovery = results.filter((r) => r.case === "discovery")
  if (discovery.length > 0) {
    out.push("## 1. Cold discovery of N stdio servers (K = 10 tools each)")
    out.push("")
    out.push(
      "`open` = from nothing (modules imported) to every tool in the library's own format; Zett: an `Agent.run` " +
        "until the model is called with the tools registered. \"list rounds\" = (fastest D=200 run − fastest D=0 run) " +
        "/ 200 ms: about 1 (or less) means the N `tools/list` calls overlap, about N means one after another. " +
        "Spawns are counted by the servers themselves."
    )
    out.push("")
    const ns = [...new Set(discovery.map((r) => Number(r.n)))].sort((a, b) => a - b)
    const delays = [...new Set(discovery.map((r) => Number(r.delay)))].sort((a, b) => b - a)
    const top = delays[0]!
    for (const n of ns) {
      const cell = (lib: string, delay: number) =>
        of("discovery", lib, (r) => Number(r.n) === n && Number(r.delay) === delay)
      const base = med(cell("raw", top), "openMs")
      const rows = present("discovery").map((lib) => {
        const hi = cell(lib, top)
        const lo = cell(lib, 0)
        const rounds = delays.length > 1 && hi.length > 0 && lo.length > 0
          ? (min(hi, "openMs")! - min(lo, "openMs")!) / top
          : undefined
        const all = results.filter((r) => r.case === "discovery" && r.lib === lib && Number(r.n) === n)
        return [
          labels[lib]!,
          `${f(med(hi, "openMs"))} [${f(max(hi, "openMs"))}]`,
          delays.length > 1 ? `${f(med(lo, "openMs"))}` : "–",
          rounds === undefined ? "–" : f(rounds, 2),
          ratio(med(hi, "openMs"), base),
          f(med(hi, "openCpuMs")),
          f(med(hi, "spawns")),
          `${all.filter((r) => r.ok === true).length}/${all.length}`
        ]
      })
      out.push(`**N = ${n}**`)
      out.push("")
      out.push(table([
        "lane",
        `open D=${top} median [max] ms`,
        delays.length > 1 ? "open D=0 median ms" : "–",
        "list rounds",
        `ratio to raw (D=${top})`,
        `client CPU ms (D=${top})`,
        "spawns",
        "runs ok"
      ], rows))
      out.push("")
    }
    const n20 = ns.at(-1)!
    const z = of("discovery", "zett", (r) => Number(r.n) === n20 && Number(r.delay) === top)
    const raw = of("discovery", "raw", (r) => Number(r.n) === n20 && Number(r.delay) === top)
    const zLo = of("discovery", "zett", (r) => Number(r.n) === n20 && Number(r.delay) === 0)
    const rounds = z.length > 0 && zLo.length > 0 && top > 0
      ? (min(z, "openMs")! - min(zLo, "openMs")!) / top
      : undefined
    const r = (med(z, "openMs") ?? NaN) / (med(raw, "openMs") ?? NaN)
    const spawns = med(z, "spawns")
    goals.push({
      earlier: true,
      goal:
        `Cold discovery of ${n20} servers within 1.1× of the raw SDK, every server in parallel, one spawn per server`,
      measured: `${f(med(z, "openMs"))} ms vs ${f(med(raw, "openMs"))} ms = ${r.toFixed(2)}×; list rounds ${
        f(rounds, 2)
      }; ${f(spawns)} spawns for ${n20} servers`,
      met: r <= 1.1 && spawns === n20 && (rounds === undefined || rounds < 2),
      why:
        "Discovery of 20 Node servers on 2 cores is CPU-bound by the servers' own start-up (about 3 s even at D=0); " +
        "Zett's extra work per server (Effect fibers, the tool cache, naming and schema cleanup) competes for the same cores."
    })
  }

  // 2. warm request
  const warm = results.filter((r) => r.case === "warm")
  if (warm.length > 0) {
    const n = Number(warm[0]!.n)
    out.push(`## 2. A warm request: ${n} servers (half stdio, half HTTP), ${f(Number(warm[0]!.expected))} tools in all`)
    out.push("")
    out.push(
      "After one cold request, the next requests of the same process. Zett: the whole request up to the model, from " +
        "the call of `Agent.run` (`ManagedRuntime.runPromise`) to the model's stream being called with every tool " +
        "registered (hooks, configuration check, cache hit, registration, system message, request build), with two " +
        "bench extensions that each take a timestamp in `onTool`; its connections are request-scoped, so no server " +
        "process lives between requests. Each Zett run is a fresh process of 350 requests: the first 50 and the " +
        "300th on are reported apart (a young process is slower: JIT, inline caches, heap growth); the `onTool` " +
        "row is the extension's hook alone (between the two timestamps). The others keep their clients (and server " +
        "processes) open and get the tools again the way a second request of a long-lived app does (LangChain returns " +
        "its cached list; the AI SDK, OpenAI and Mastra list again; raw SDK: `listTools` on every open client), 60 " +
        "times. Sockets = TCP connections the client opened; spawns = server processes started, both during the warm " +
        "requests. Figures are medians over runs of each run's median; [min] is the smallest run median."
    )
    out.push("")
    const both = (rs: ReadonlyArray<Result>, key: string) => `${f(med(rs, key), 2)} [${f(min(rs, key), 2)}]`
    const rows: Array<Array<string>> = []
    for (const lib of present("warm")) {
      const rs = of("warm", lib)
      const r0 = rs[0]
      const counts = r0 === undefined
        ? ["–", "–", "–", "–"]
        : [f(max(rs, "spawns")), f(max(rs, "sockets")), f(max(rs, "aliveBetween")), `${r0.tools}/${r0.expected}`]
      if (lib === "zett") {
        rows.push([
          labels[lib]!,
          "whole request, Agent.run to the model call",
          both(rs, "first50RequestMs"),
          both(rs, "from300RequestMs"),
          ...counts,
          loadNote(rs)
        ])
        rows.push([
          labels[lib]!,
          "`onTool` alone",
          both(rs, "first50RegistrationMs"),
          both(rs, "from300RegistrationMs"),
          ...counts,
          loadNote(rs)
        ])
      } else {
        rows.push([
          labels[lib]!,
          "whole call",
          r0 === undefined ? "FAILED" : both(rs, "requestMs"),
          "–",
          ...counts,
          loadNote(rs)
        ])
      }
    }
    out.push(table([
      "lane",
      "what is timed",
      "requests 1-50 ms, median [min]",
      "requests 300+ ms, median [min]",
      "spawns",
      "sockets opened",
      "server processes alive between requests",
      "tools",
      "runs under load"
    ], rows))
    out.push("")
    out.push("For the peers, the first column is the median of requests 7-60 of the one run.")
    out.push("")
    const z = of("warm", "zett")
    const early = med(z, "first50RequestMs")
    goals.push({
      goal: `Warm request with ${n} servers and ${
        f(Number(warm[0]!.expected))
      } tools: whole request under 2 ms median over a fresh process's first 50 requests; 0 spawns, 0 sockets`,
      measured: z.length === 0
        ? "lane failed"
        : `requests 1-50: ${f(early, 2)} ms (median of ${z.length} processes; min ${
          f(min(z, "first50RequestMs"), 2)
        }); requests 300+: ${f(med(z, "from300RequestMs"), 2)} ms; onTool alone ${
          f(med(z, "first50RegistrationMs"), 2)
        } / ${f(med(z, "from300RegistrationMs"), 2)} ms; ${f(max(z, "spawns"))} spawns, ${
          f(max(z, "sockets"))
        } sockets`,
      met: z.length > 0 && early !== undefined && early < 2 && max(z, "spawns") === 0 && max(z, "sockets") === 0,
      why:
        "A young process is slower than a warm one (compare requests 300+): JIT and inline caches are still cold for " +
        "the hooks, the cache lookups and the registration of every tool. The profile in this file is of the call " +
        "path, not of this case."
    })
  }

  // 3. calls
  const calls = results.filter((r) => r.case === "calls")
  if (calls.length > 0) {
    out.push("## 3. Warm tool-call round trip (sequential `echo`)")
    out.push("")
    out.push(
      `${calls[0]!.calls} calls per run after ${calls[0]!.warmup} warm-up calls${
        calls[0]!.textBytes === undefined
          ? ""
          : `, each call's text ${f(Number(calls[0]!.textBytes))} bytes longer (the echo tool returns it)`
      }, each run a fresh process, the lanes ` +
        "interleaved. *Zett (agent's path)*: one `Agent.run` whose scripted model returns the warm-up calls, then the " +
        "timed calls, then text; the agent runs them one after another through its normal path (hooks, the MCP tool " +
        "handler under `callTimeout` 300 s, the tool messages). Timed from the model step that returns the calls to the " +
        "next model request, divided by the number of calls. *Zett, the tool handler in one fiber*: the registered " +
        "tool's handler called in a loop inside one fiber (the method of the earlier runs of this benchmark). *raw SDK " +
        "v2 Client, each call one Effect.async in one fiber*: the baseline's `callTool` inside `Effect.async`, in a loop " +
        "inside one fiber: what any Effect caller of that client pays, the floor under an Effect library. The " +
        "others: each library's tool-execution path in a loop. *mean per call* = a run's whole loop time / calls, " +
        "reported as the median of the runs [the fastest run]; *within-run median* = the median of the single calls " +
        "of a run (not available for the agent's path, which is timed as a whole), median of the runs. Client CPU = " +
        "this process's user+system time per call (all threads); main thread = that thread's alone (Linux, in 10 ms " +
        "ticks), the rest being V8's optimising compiler and GC helpers. Ratios are of the medians."
    )
    out.push("")
    const fixed = ["raw", "raw1", "raw-effect", "zett", "zett-handler"]
    const callLanes = [...fixed, ...order.filter((l) => ![...fixed, "zett-pool"].includes(l))]
    for (const transport of ["stdio", "http"]) {
      const cell = (lib: string) => of("calls", lib, (r) => r.transport === transport)
      const base = med(cell("raw"), "meanMs")
      const baseCpu = med(cell("raw"), "cpuPerCallUs")
      const rows = callLanes.filter((lib) => calls.some((r) => r.lib === lib)).map((lib) => [
        lib === "zett" ? "**Zett (agent's path)**" : labels[lib]!,
        `${f(med(cell(lib), "meanMs"), 3)} [${f(min(cell(lib), "meanMs"), 3)}]`,
        f(med(cell(lib), "medianMs"), 3),
        ratio(med(cell(lib), "meanMs"), base),
        `${f(med(cell(lib), "cpuPerCallUs"))} [${f(min(cell(lib), "cpuPerCallUs"))}]`,
        ratio(med(cell(lib), "cpuPerCallUs"), baseCpu),
        f(med(cell(lib), "mainThreadCpuPerCallUs")),
        `${cell(lib).length}/${
          results.filter((r) => r.case === "calls" && r.lib === lib && r.transport === transport).length
        }`,
        loadNote(cell(lib))
      ])
      out.push(`**${transport === "stdio" ? "stdio" : "Streamable HTTP (stateful, SSE-framed responses)"}**`)
      out.push("")
      out.push(table([
        "lane",
        "mean ms/call, median [min] of runs",
        "within-run median ms",
        "ratio (mean)",
        "client CPU µs/call, median [min]",
        "CPU ratio",
        "main thread CPU µs/call",
        "runs ok",
        "runs under load"
      ], rows))
      out.push("")
      const zm = med(cell("zett"), "meanMs")
      const zc = med(cell("zett"), "cpuPerCallUs")
      const am = med(cell("aisdk"), "meanMs")
      const limit = transport === "stdio" ? 1.15 : 1.05
      const known = zm !== undefined && base !== undefined
      goals.push({
        goal: `${transport === "stdio" ? "A stdio" : "A Streamable HTTP"} call through the agent, calls ${
          f(Number(calls[0]!.warmup) + 1)
        }–${f(Number(calls[0]!.warmup) + Number(calls[0]!.calls))} of a fresh process: at most ${
          transport === "stdio" ? "1.15× median, at most 1.5× client CPU" : "1.05×"
        } (the per-call rework's goal)`,
        measured: `mean per call ${f(zm, 3)} ms vs ${f(base, 3)} ms (${ratio(zm, base)}); CPU ${f(zc)} µs vs ${
          f(baseCpu)
        } µs (${ratio(zc, baseCpu)}); one-fiber handler ${
          ratio(med(cell("zett-handler"), "meanMs"), base)
        }; the raw call in one Effect.async per call ${ratio(med(cell("raw-effect"), "meanMs"), base)}`,
        met: known && zm! <= limit * base! &&
          (transport !== "stdio" || (zc !== undefined && baseCpu !== undefined && zc <= 1.5 * baseCpu)),
        why: "See \"Profile of the warm stdio call\": the per-call costs of Zett's own path. The raw call in one " +
          "Effect.async per call, in one fiber, is the floor under any Effect caller of that client."
      })
      if (transport === "stdio") {
        goals.push({
          goal: "Stretch: warm stdio call through the agent at or below the AI SDK's ratio in the same run",
          measured: `${ratio(zm, base)} vs AI SDK ${ratio(am, base)}`,
          met: zm !== undefined && am !== undefined && zm <= am,
          why: "The AI SDK calls its own minimal JSON-RPC client, with no Effect runtime in between."
        })
      }
    }
  }

  // 3a. the headline of a warm call: a process's first calls through Agent.run
  const first = results.filter((r) => r.case === "first")
  if (first.length > 0) {
    const n = Number(first[0]!.calls)
    out.push(`## 3a. The headline of a warm call: a process's first ${f(n)} calls`)
    out.push("")
    out.push(
      `Each run is a fresh process that opens the session, then makes ${f(n)} sequential \`echo\` calls with no ` +
        "warm-up: what one agent run does. *Zett (agent's path)*: one `Agent.run` whose scripted model returns the " +
        `${f(n)} calls in one step, timed from that step to the next model request; *raw*: the raw SDK v2 client's ` +
        "`callTool` in a loop; *the floor*: that call in one `Effect.async` per call, in a loop in one fiber. Wall = " +
        "the timed window / calls; main-thread CPU = the main thread's CPU time over the window / calls (Linux " +
        "`/proc`, 10 ms ticks: a run's figure is coarse, the median of the runs is not); client CPU = the " +
        "process's, all threads. Medians of the runs, interleaved with the order rotated; ratios to raw."
    )
    out.push("")
    for (const transport of ["stdio", "http"]) {
      const cell = (lib: string) => of("first", lib, (r) => r.transport === transport)
      const base = med(cell("raw"), "meanMs")
      const baseMain = med(cell("raw"), "mainThreadCpuPerCallUs")
      const baseCpu = med(cell("raw"), "cpuPerCallUs")
      const lanes = ["raw", "raw-effect", "zett"].filter((lib) => first.some((r) => r.lib === lib))
      out.push(`**${transport === "stdio" ? "stdio" : "Streamable HTTP"}**`)
      out.push("")
      out.push(table(
        [
          "lane",
          "wall ms/call, median [min]",
          "ratio",
          "main-thread CPU µs/call",
          "ratio",
          "client CPU µs/call",
          "ratio",
          "runs ok",
          "runs under load"
        ],
        lanes.map((lib) => [
          lib === "zett" ? "**Zett (agent's path)**" : labels[lib]!,
          `${f(med(cell(lib), "meanMs"), 3)} [${f(min(cell(lib), "meanMs"), 3)}]`,
          ratio(med(cell(lib), "meanMs"), base),
          f(med(cell(lib), "mainThreadCpuPerCallUs")),
          ratio(med(cell(lib), "mainThreadCpuPerCallUs"), baseMain),
          f(med(cell(lib), "cpuPerCallUs")),
          ratio(med(cell(lib), "cpuPerCallUs"), baseCpu),
          `${cell(lib).length}/${
            results.filter((r) => r.case === "first" && r.lib === lib && r.transport === transport).length
          }`,
          loadNote(cell(lib))
        ])
      ))
      out.push("")
      const zm = med(cell("zett"), "meanMs")
      const zMain = med(cell("zett"), "mainThreadCpuPerCallUs")
      goals.push({
        goal: `Headline: a process's first ${f(n)} ${
          transport === "stdio" ? "stdio" : "Streamable HTTP"
        } calls through \`Agent.run\`, at most 1.15× the raw SDK v2 client in wall time and in main-thread CPU`,
        measured: `${f(zm, 3)} ms vs ${f(base, 3)} ms (${ratio(zm, base)}); main thread ${f(zMain)} µs vs ${
          f(baseMain)
        } µs (${ratio(zMain, baseMain)}); the floor (one Effect.async per call) ${
          ratio(med(cell("raw-effect"), "meanMs"), base)
        }`,
        met: zm !== undefined && base !== undefined && zMain !== undefined && baseMain !== undefined &&
          zm <= 1.15 * base && zMain <= 1.15 * baseMain,
        why: "In a process's first calls Effect's run loop and Zett's path still run unoptimised; the floor column " +
          "is what any Effect caller of the raw client pays there."
      })
    }
  }

  // 3b. a call's cost over a process's life
  const curveSection = (
    kase: string,
    lanes: ReadonlyArray<string>,
    column: (lib: string) => string,
    part?: { readonly label: string; readonly value: (of: (lib: string) => number | undefined) => number | undefined }
  ) => {
    const curve = results.filter((r) => r.case === kase)
    const chunk = Number(curve[0]!.chunk)
    const total = Number(curve[0]!.calls)
    const present = lanes.filter((lib) => curve.some((r) => r.lib === lib))
    const steady = { from: Math.floor(total / 2), to: total }
    const first = { from: 0, to: Math.min(total, 1_000) }
    const summaries: Record<
      string,
      Record<string, { readonly first: number | undefined; readonly steady: number | undefined }>
    > = {}
    for (const transport of ["stdio", "http"]) {
      const rs = (lib: string) => of(kase, lib, (r) => r.transport === transport && Array.isArray(r.chunkMeansMs))
      if (present.every((lib) => rs(lib).length === 0)) continue
      const at = (lib: string, i: number) => {
        const values = rs(lib).map((r) => r.chunkMeansMs[i] as number).filter((x) => typeof x === "number")
        return values.length === 0 ? undefined : median(values)
      }
      // a run's mean per call over calls (from, to], then the median of the runs
      const over = (lib: string, range: { readonly from: number; readonly to: number }) => {
        const perRun = rs(lib).map((r) => {
          const means = (r.chunkMeansMs as Array<number>).slice(range.from / chunk, range.to / chunk)
          return means.reduce((a, b) => a + b, 0) / means.length
        }).filter((x) => Number.isFinite(x))
        return perRun.length === 0 ? undefined : median(perRun)
      }
      const chunks = Math.max(...present.map((lib) => Math.max(0, ...rs(lib).map((r) => r.chunkMeansMs.length))))
      const row = (what: string, value: (lib: string) => number | undefined) => {
        const base = value("raw")
        const cells = present.map((
          lib
        ) => (lib === "raw" ? f(base, 3) : `${f(value(lib), 3)} (${ratio(value(lib), base)})`))
        if (part === undefined) return [what, ...cells]
        const p = part.value(value)
        return [what, ...cells, `${f(p, 3)} (${ratio(p, base)})`]
      }
      const rows = Array.from(
        { length: chunks },
        (_, i) => row(`${f(i * chunk + 1)}–${f(Math.min(total, (i + 1) * chunk))}`, (lib) => at(lib, i))
      )
      rows.push(row(`**first ${f(first.to)}**`, (lib) => over(lib, first)))
      rows.push(row(`**${f(steady.from + 1)}–${f(steady.to)}** (past the JIT's warm-up)`, (lib) => over(lib, steady)))
      const summary: Record<string, { readonly first: number | undefined; readonly steady: number | undefined }> = {}
      for (const lib of present) summary[lib] = { first: over(lib, first), steady: over(lib, steady) }
      if (part !== undefined) {
        summary.part = { first: part.value((lib) => over(lib, first)), steady: part.value((lib) => over(lib, steady)) }
      }
      summaries[transport] = summary
      out.push(
        `**${transport === "stdio" ? "stdio" : "Streamable HTTP"}** (runs ok: ${
          present.map((lib) =>
            `${lib} ${rs(lib).length}/${
              results.filter((r) => r.case === kase && r.lib === lib && r.transport === transport).length
            }`
          ).join(", ")
        }; under load: ${loadNote(present.flatMap(rs))})`
      )
      out.push("")
      out.push(table([
        "calls of the process",
        ...present.map(column),
        ...(part === undefined ? [] : [part.label])
      ], rows))
      out.push("")
    }
    return { steady, first, summaries }
  }
  const describeCurve = (chunk: number, total: number, what: string) =>
    `Each run a fresh process making ${f(total)} calls from its first one (after its connection and one check call), ` +
    `the mean per call of every ${f(chunk)} calls reported apart: a process's first calls run while V8 still ` +
    "interprets and compiles the code on the call path (Zett's, Effect's, the SDK's, Node's streams), its later ones " +
    "on optimised code. Each cell: the median over the interleaved runs of that chunk's mean per call, in ms, and " +
    "its ratio to the raw SDK's for the same calls; the last two rows: each run's mean over those calls, median of the " +
    `runs. ${what}`
  const warmGoal = (
    curve: ReturnType<typeof curveSection>,
    transport: string,
    lib: string,
    goal: string
  ) => {
    const s = curve.summaries[transport]
    const base = s?.raw
    const z = s?.[lib]
    goals.push({
      goal,
      measured: `calls ${f(curve.steady.from + 1)}–${f(curve.steady.to)} of a process: ${f(z?.steady, 3)} ms vs ${
        f(base?.steady, 3)
      } ms (${ratio(z?.steady, base?.steady)}); the process's first ${f(curve.first.to)} calls: ${f(z?.first, 3)} vs ${
        f(base?.first, 3)
      } ms (${ratio(z?.first, base?.first)})`,
      met: z?.steady !== undefined && base?.steady !== undefined && z.steady <= 1.15 * base.steady,
      why:
        "In a process's first calls V8 still interprets the code on the call path; the raw call in one Effect.async " +
        "(section 3b) is the floor under any Effect caller there."
    })
  }
  if (results.some((r) => r.case === "curve")) {
    const sample = results.find((r) => r.case === "curve")!
    out.push("## 3b. A call's cost over a process's life (sequential `echo`, from the process's first call)")
    out.push("")
    out.push(
      describeCurve(
        Number(sample.chunk),
        Number(sample.calls),
        `The lanes of section 3; the agent's path is one \`Agent.run\` whose scripted model returns the calls ${
          f(Number(sample.chunk))
        } per ` +
          "step, each step timed from the model's answer to the next model request."
      )
    )
    out.push("")
    const curve = curveSection(
      "curve",
      ["raw", "raw-effect", "zett", "zett-handler"],
      (lib) => lib === "zett" ? "Zett (agent's path)" : labels[lib]!
    )
    for (const transport of ["stdio", "http"]) {
      warmGoal(
        curve,
        transport,
        "zett",
        `A warm tool call through the agent over ${
          transport === "stdio" ? "stdio" : "Streamable HTTP"
        }, in a process past the JIT's warm-up: at most 1.15× the raw SDK v2 client's callTool`
      )
    }
  }
  if (results.some((r) => r.case === "toolkit-curve")) {
    const sample = results.find((r) => r.case === "toolkit-curve")!
    out.push(
      "## 10c. The toolkit's part over a process's life (McpToolkit's handle for one echo call, from the process's first call)"
    )
    out.push("")
    out.push(
      describeCurve(
        Number(sample.chunk),
        Number(sample.calls),
        "The lanes of section 10, the handle variants: McpToolkit's `handle` for the MCP tool, `@effect/ai`'s own " +
          "`handle` of the same tool answering with the raw SDK's call (the bridge) and answered locally, and the raw " +
          "SDK's `callTool`; the toolkit's part is as in section 10, of the medians."
      )
    )
    out.push("")
    const handles: Record<string, string> = {
      "zett-toolkit": "McpToolkit: handle",
      "ai-raw": "the bridge (@effect/ai with the raw SDK call as the tool): handle",
      "ai-local": "@effect/ai alone: handle"
    }
    const curve = curveSection(
      "toolkit-curve",
      ["raw", "zett-toolkit", "ai-raw", "ai-local"],
      (lib) => handles[lib] ?? labels[lib]!,
      {
        label: "the toolkit's part (McpToolkit handle − (bridge handle − raw call))",
        value: (of) => toolkitPart(of("zett-toolkit"), of("ai-raw"), of("raw"))
      }
    )
    for (const transport of ["stdio", "http"]) {
      warmGoal(
        curve,
        transport,
        "part",
        `A warm call through McpToolkit over ${
          transport === "stdio" ? "stdio" : "Streamable HTTP"
        }, in a process past the JIT's warm-up: the toolkit's part at most 1.15× the raw SDK call`
      )
    }
  }

  // 4. large
  const large = results.filter((r) => r.case === "large")
  if (large.length > 0) {
    const ks = [...new Set(large.map((r) => Number(r.k)))].sort((a, b) => b - a)
    const [hiK, loK] = [ks[0]!, ks[1]]
    out.push(`## 4. One stdio server with K = ${hiK} tools`)
    out.push("")
    out.push(
      "`open` as in case 1. Heap = heapUsed after forced GC, before vs after `open`, the session kept alive (Zett: the " +
        "request still open, so the cache and the request's registry both hold the tools). Per tool = (Δheap(K=" +
        `${hiK}) − Δheap(K=${loK ?? "–"})) / ${
          loK === undefined ? "–" : hiK - loK
        }; extra CPU = client CPU of open(K=${hiK}) − open(K=${loK ?? "–"}).`
    )
    out.push("")
    const cell = (lib: string, k: number | undefined) => of("large", lib, (r) => Number(r.k) === k)
    const extraCpu = (lib: string) =>
      loK === undefined
        ? undefined
        : (med(cell(lib, hiK), "openCpuMs") ?? NaN) - (med(cell(lib, loK), "openCpuMs") ?? NaN)
    const perTool = (lib: string) =>
      loK === undefined
        ? undefined
        : ((med(cell(lib, hiK), "heapDelta") ?? NaN) - (med(cell(lib, loK), "heapDelta") ?? NaN)) / (hiK - loK) / 1024
    const rows = present("large").map((lib) => [
      labels[lib]!,
      `${f(med(cell(lib, hiK), "openMs"))} [${f(max(cell(lib, hiK), "openMs"))}]`,
      f(med(cell(lib, loK), "openMs")),
      `${f(med(cell(lib, hiK), "openCpuMs"))} / ${f(med(cell(lib, loK), "openCpuMs"))}`,
      f(extraCpu(lib)),
      ratio(extraCpu(lib), extraCpu("raw")),
      f((med(cell(lib, hiK), "heapDelta") ?? NaN) / 1e6, 1),
      f(perTool(lib), 2)
    ])
    out.push(table([
      "lane",
      `open K=${hiK} median [max] ms`,
      `open K=${loK ?? "–"} ms`,
      `client CPU ms K=${hiK} / K=${loK ?? "–"}`,
      "extra client CPU ms",
      "CPU ratio",
      `heap Δ K=${hiK} MB`,
      "KB per tool"
    ], rows))
    out.push("")
    const zc = extraCpu("zett")
    const rc = extraCpu("raw")
    const kb = perTool("zett")
    goals.push({
      goal: `${hiK} tools: at most 1.3× the raw SDK's extra client CPU, at most 2 KB heap per tool`,
      measured: `extra CPU ${f(zc)} ms vs ${f(rc)} ms (${ratio(zc, rc)}); ${f(kb, 2)} KB per tool`,
      met: zc !== undefined && rc !== undefined && kb !== undefined && zc <= 1.3 * rc && kb <= 2,
      why:
        "A cold process: most of it runs once, before the JIT has compiled it. Beyond the SDK's own parse (which the " +
        "raw lane pays too), Zett checks every schema's size and depth, names " +
        "every tool (a sanitise check, a hash for invalid names), cleans every input schema (copied only where a " +
        "`title`/`$schema` is dropped), builds an agent tool per cache entry and registers each in the request's registry."
    })
  }

  // 5. agent
  const agent = results.filter((r) => r.case === "agent")
  if (agent.length > 0) {
    out.push("## 5. Agent runs on a warm cache (scripted model, in-memory server)")
    out.push("")
    out.push(
      "`Agent.run` through `ManagedRuntime.runPromise`, the McpExtension on `NodeMcpClientFactory.layerInMemory` (an SDK " +
        "server in the same process, 11 tools). *registration*: the model answers at once (hooks, configuration check, " +
        "cache hit, registration of 11 tools, one model turn, scope close); *pooled-call*: the model calls `echo` once " +
        "over a pooled connection, then answers; *scoped-call*: the same with a request-scoped connection (an in-memory " +
        "connect, initialize and close per run). Heap after forced GC every tenth of the runs; slope = least squares."
    )
    out.push("")
    const rows = agent.map((r) => [
      String(r.variant),
      r.ok === true ? f(r.runs) : "FAILED",
      f(r.medianUs),
      f(r.meanUs),
      f(r.p99Us),
      f(r.cpuPerRunUs),
      `${f((r.heapStart ?? NaN) / 1e6, 1)} → ${f((r.heapEnd ?? NaN) / 1e6, 1)} (max ${f((r.heapMax ?? NaN) / 1e6, 1)})`,
      f(r.heapSlopeBytesPerRun, 1)
    ])
    out.push(
      table([
        "variant",
        "runs",
        "median µs/run",
        "mean µs/run",
        "p99 µs",
        "client CPU µs/run",
        "heap MB start → end",
        "heap slope bytes/run"
      ], rows)
    )
    out.push("")
    const reg = agent.find((r) => r.variant === "registration" && r.ok === true)
    goals.push({
      goal:
        "Agent run overhead, scripted model, registration only: at most 150 µs median, no heap growth over 10,000 runs",
      measured: reg === undefined
        ? "lane failed"
        : `median ${f(reg.medianUs)} µs (mean ${f(reg.meanUs)} µs) over ${f(reg.runs)} runs; heap slope ${
          f(reg.heapSlopeBytesPerRun, 1)
        } bytes/run (${f((reg.heapEnd - reg.heapStart) / 1024)} KB end − start)`,
      // "no growth": under 16 bytes per run, i.e. < 160 KB over 10,000 runs, which GC noise alone can reach
      met: reg !== undefined && reg.medianUs <= 150 && reg.heapSlopeBytesPerRun < 16,
      why:
        "Counted with an op-supervising `Supervisor` (scripts/bench/README.md), a run is about 365 Effect steps in one " +
        "fiber; about 200 of them are the consumption of the model's reply, an Effect `Stream` (`Stream.toPull` in a " +
        "scope, the channel executor), even for the scripted model's one chunk. The rest: the hook points, the " +
        "request's Scope, the configuration check, the tool cache lookup and the registration. Each step costs the " +
        "Effect runtime's per-step time and allocation (the run loop allocates a tracer-context closure per step)."
    })
  }

  // 6. concurrent
  const concurrent = results.filter((r) => r.case === "concurrent")
  if (concurrent.length > 0) {
    out.push("## 6. Concurrent requests on a cold cache, same servers")
    out.push("")
    out.push(
      "Zett: R concurrent `Agent.run`s on a fresh layer (cold tool cache) against the same N stdio servers. Raw SDK: " +
        "every request discovers with its own clients, as a request-scoped integration without a shared cache does " +
        "(measured with 10 requests: 50 would start 250 Node processes at once here)."
    )
    out.push("")
    const rows = concurrent.map((r) => [
      labels[r.lib] ?? r.lib,
      r.ok === true ? f(r.requests) : "FAILED",
      f(r.servers),
      f(r.spawns),
      f(r.perRequest, 2),
      f(r.ms),
      f(r.aliveAfter)
    ])
    out.push(
      table([
        "lane",
        "requests",
        "servers",
        "processes spawned",
        "spawns per request",
        "all requests done ms",
        "alive after close"
      ], rows)
    )
    out.push("")
    const z = concurrent.find((r) => r.lib === "zett" && r.ok === true)
    goals.push({
      earlier: true,
      goal: `Concurrent cold requests share one discovery per server: ${z?.requests ?? 50} requests over ${
        z?.servers ?? 5
      } servers spawn ${z?.servers ?? 5}`,
      measured: z === undefined ?
        "lane failed" :
        `${z.spawns} processes for ${z.requests} requests (raw SDK: ${
          f(concurrent.find((r) => r.lib === "raw")?.perRequest, 0)
        } per request)`,
      met: z !== undefined && z.spawns === z.servers,
      why: "More than one discovery per server means the tool cache's single flight did not hold."
    })
  }

  // fleet: processes of one app sharing the tool cache through Redis
  const fallbackNote = (r: (typeof results)[number]) => {
    const fallbacks = Object.entries((r.fallbacks as Record<string, number> | undefined) ?? {})
    return fallbacks.length === 0
      ? r.shared === true && r.lists !== r.servers ? " (no fallback logged)" : ""
      : ` (${fallbacks.map(([name, count]) => `${name} ×${count}`).join(", ")})`
  }
  const fleet = results.filter((r) => r.case === "fleet")
  if (fleet.length > 0) {
    out.push("## Fleet: processes of one app, cold, with and without a shared tool cache")
    out.push("")
    out.push(
      "P processes of a Zett app, started together and all cold, each run R requests one after another against the " +
        "same N stdio servers (each `tools/list` sleeps `delay` ms). Shared: `McpToolCache.layerRedis` over a real " +
        "`redis-server` on 127.0.0.1; per process: the default in-memory cache. Spawns and `tools/list` calls are " +
        "counted by the servers; the first model call is timed in each process from the common start signal."
    )
    out.push("")
    const rows = fleet.map((r) => [
      String(r.label ?? r.variant),
      r.ok === true ? f(r.processes) : `FAILED${fallbackNote(r)}`,
      f(r.requests),
      f(r.servers),
      f(r.spawns),
      f(r.lists),
      f(r.firstModelMedianMs),
      f(r.firstModelMaxMs),
      f(r.ms),
      f(r.aliveAfter)
    ])
    out.push(table([
      "lane",
      "processes",
      "requests each",
      "servers",
      "processes spawned",
      "tools/list calls",
      "first model call ms (median)",
      "first model call ms (slowest)",
      "all done ms",
      "alive after"
    ], rows))
    out.push("")
    for (const r of fleet.filter((r) => r.shared === true && r.lists !== r.servers)) {
      out.push(
        `A shared round listed ${f(r.lists)} times for ${f(r.servers)} servers${fallbackNote(r)}. The members logged:`
      )
      out.push("")
      out.push("```")
      for (const line of (r.fallbackLog as ReadonlyArray<string> | undefined) ?? []) out.push(line)
      out.push("```")
      out.push("")
    }
    const sharedRun = fleet.find((r) => r.shared === true && r.ok === true)
    goals.push({
      goal: `A fleet discovers each server once: ${sharedRun?.processes ?? 8} cold processes over ${
        sharedRun?.servers ?? 5
      } servers list ${sharedRun?.servers ?? 5} times`,
      measured: sharedRun === undefined ?
        "lane failed" :
        `${sharedRun.lists} tools/list calls, ${sharedRun.spawns} spawns (per process: ${
          f(fleet.find((r) => r.shared === false)?.lists)
        } tools/list calls)`,
      met: sharedRun !== undefined && sharedRun.lists === sharedRun.servers,
      why: "More than one listing per server: the table names the fallback the members logged (a Redis command over " +
        "`operationTimeout` makes that process discover alone, with a warning, as documented); none logged would " +
        "mean the Redis lock did not hold across processes."
    })
  }

  // 8. pool
  const pool = results.find((r) => r.case === "pool")
  if (pool !== undefined) {
    out.push("## 7. Pooled connections (`connectionPool: { idleTimeToLive: \"5 minutes\" }`)")
    out.push("")
    out.push(
      "The first tool call of each new request, after a first request has discovered the server: with the pool the " +
        "connection is borrowed (no spawn, no initialize); by default (request-scoped) it is a spawn + initialize + call. " +
        "Compared with the raw SDK's warm stdio median from case 3 of the same run."
    )
    out.push("")
    const rawWarm = med(of("calls", "raw", (r) => r.transport === "stdio"), "medianMs")
    const p = pool.pooled ?? {}
    const s = pool.scoped ?? {}
    const rawLane = pool.raw ?? {}
    out.push(table([
      "mode",
      "requests",
      "first call of a request, median ms",
      "ratio to a warm raw SDK call (case 3)",
      "second call ms",
      "idle gap before the first call ms",
      "spawns",
      "servers alive before / after closing the layer"
    ], [
      [
        "pooled",
        f(p.requests),
        f(p.firstCallMs, 3),
        ratio(p.firstCallMs, rawWarm),
        f(p.secondCallMs, 3),
        f(p.idleGapMs, 1),
        f(p.spawns),
        `${f(p.aliveBeforeDispose)} / ${f(p.aliveAfterDispose)}`
      ],
      [
        "request-scoped (default)",
        f(s.requests),
        f(s.firstCallMs, 1),
        ratio(s.firstCallMs, rawWarm),
        f(s.secondCallMs, 3),
        f(s.idleGapMs, 1),
        f(s.spawns),
        `${f(s.aliveBeforeDispose)} / ${f(s.aliveAfterDispose)}`
      ]
    ]))
    out.push("")
    out.push(
      `Raw SDK in the same process, same server: ${f(rawLane.warmMs, 3)} ms back to back, ${
        f(rawLane.afterIdleGapMs, 3)
      } ms ` +
        `after the same idle gap (${f(p.idleGapMs, 1)} ms) as between two pooled requests; the pooled first call is ` +
        `${ratio(p.firstCallMs, rawLane.afterIdleGapMs)} of the latter.`
    )
    out.push("")
    goals.push({
      goal: "Pooled first call of a request: at most 1.2× a raw call after the same idle gap",
      measured: `first call ${f(p.firstCallMs, 3)} ms vs ${f(rawLane.afterIdleGapMs, 3)} ms (${
        ratio(p.firstCallMs, rawLane.afterIdleGapMs)
      }); ${f(p.spawns)} spawns over ${f(p.requests)} requests; ${f(p.aliveAfterDispose)} alive after closing`,
      met: pool.ok === true && rawLane.afterIdleGapMs !== undefined && p.firstCallMs <= 1.2 * rawLane.afterIdleGapMs,
      why:
        `Part of it is the machine: an idle server process answers more slowly (raw SDK after the same idle gap: ${
          f(rawLane.afterIdleGapMs, 3)
        } ms). The rest is Zett's: its warm call path (case 3) plus, on the first use in a request, borrowing from the ` +
        "pool: McpConnections forks a child scope and memoizes with `Effect.cached`, `RcMap.get` acquires into the " +
        "request scope (its semaphore and scope), and the request's tool-list watch is registered; a connection the " +
        "pool holds open skips the connect timeout. The second call of the same request: " +
        `${f(p.secondCallMs, 3)} ms.`
    })
  }

  // 7. closing
  const closing = results.filter((r) => r.case === "closing")
  if (closing.length > 0) {
    out.push("## 8. Closing stubborn stdio servers (they ignore the end of stdin)")
    out.push("")
    out.push(
      "The shutdown waits 2 s after the end of stdin (Zett's `closeTimeout` default, the SDK's own wait), then sends " +
        "SIGTERM, which these servers obey. One after another that is 2 s per server; at once, the time of one. Zett: " +
        "the end of the request (its scope closes every connection); Zett with `connectionPool`: the request leaves its " +
        "connections in the pool, and closing the layer is timed; raw SDK: `Promise.all` of `client.close()`. Each lane " +
        "with one server and with N, interleaved; median [min] of the runs."
    )
    out.push("")
    const ns = [...new Set(closing.map((r) => Number(r.n)))].sort((x, y) => x - y)
    const [one, many] = [ns[0]!, ns.at(-1)!]
    const cell = (lib: string, n: number) => of("closing", lib, (r) => Number(r.n) === n)
    const lanes = ["zett", "zett-pool", "raw"].filter((lib) => closing.some((r) => r.lib === lib))
    out.push(table(
      [
        "lane",
        "what is timed",
        `1 server ms`,
        `${many} servers ms`,
        `${many} / 1`,
        "alive after close",
        "runs ok",
        "runs under load"
      ],
      lanes.map((lib) => {
        const all = closing.filter((r) => r.lib === lib)
        return [
          labels[lib]!,
          String(all[0]?.timed ?? "–"),
          `${f(med(cell(lib, one), "closeMs"))} [${f(min(cell(lib, one), "closeMs"))}]`,
          `${f(med(cell(lib, many), "closeMs"))} [${f(min(cell(lib, many), "closeMs"))}]`,
          ratio(med(cell(lib, many), "closeMs"), med(cell(lib, one), "closeMs")),
          f(max(all, "aliveAfter")),
          `${all.filter((r) => r.ok === true).length}/${all.length}`,
          loadNote(all)
        ]
      })
    ))
    out.push("")
    const ratioOf = (lib: string) => (med(cell(lib, many), "closeMs") ?? NaN) / (med(cell(lib, one), "closeMs") ?? NaN)
    goals.push({
      goal: `Closing N stubborn servers, pooled or not: the time of one (${many} servers within 1.2× of one)`,
      measured: `request-scoped ${f(med(cell("zett", many), "closeMs"))} ms for ${many} vs ${
        f(med(cell("zett", one), "closeMs"))
      } ms for one (${ratio(med(cell("zett", many), "closeMs"), med(cell("zett", one), "closeMs"))}); pooled ${
        f(med(cell("zett-pool", many), "closeMs"))
      } vs ${f(med(cell("zett-pool", one), "closeMs"))} ms (${
        ratio(med(cell("zett-pool", many), "closeMs"), med(cell("zett-pool", one), "closeMs"))
      })`,
      met: ratioOf("zett") <= 1.2 && ratioOf("zett-pool") <= 1.2 &&
        closing.every((r) => r.lib === "raw" || (r.ok === true && r.aliveAfter === 0)),
      why:
        "One after another, N servers would take N times one (Closing.test.ts checks the order itself: every server " +
        "gets its SIGTERM while all of them still run). What is left above one is the N processes' exits and the " +
        "close ladder's 20 ms polls competing for the cores."
    })
  }

  // 9. cli start-up
  const cliStart = results.filter((r) => r.case === "cli-start" && r.ok === true)
  if (cliStart.length > 0) {
    out.push("## 9. Start-up of the installed `zett`")
    out.push("")
    out.push(
      "Each figure is one whole process, from spawn to exit, timed by the orchestrator: the installed bin " +
        "(`packages/cli/bin/zett.mjs`, running the bundle of `npm run build`), `node -e 0`, and a process that only " +
        "imports the raw SDK client (`@modelcontextprotocol/sdk/client/index.js`). The five commands are interleaved, " +
        `${cliStart.filter((r) => r.variant === "node -e 0").length} rounds, the order rotated.`
    )
    out.push("")
    const variants = [...new Set(cliStart.map((r) => String(r.variant)))]
    const of = (variant: string) => cliStart.filter((r) => r.variant === variant)
    const node = med(of("node -e 0"), "ms")
    const sdk = med(of("import the raw SDK client"), "ms")
    out.push(table(
      ["process", "runs", "median ms", "min ms", "× node -e 0", "× raw SDK import"],
      variants.map((
        v
      ) => [
        v,
        f(of(v).length),
        f(med(of(v), "ms")),
        f(min(of(v), "ms")),
        ratio(med(of(v), "ms"), node),
        ratio(med(of(v), "ms"), sdk)
      ])
    ))
    out.push("")
    const version = med(of("zett --version"), "ms")
    const tools = med(of("zett tools --config <empty file>"), "ms")
    goals.push({
      earlier: true,
      goal: "`zett --version` within 4× of `node -e 0` (whole processes, medians)",
      measured: `${f(version)} ms against ${f(node)} ms (${ratio(version, node)})`,
      met: version !== undefined && node !== undefined && version <= 4 * node,
      why: "The bin answers --version itself, before loading any module; the rest is Node's own start-up."
    })
    goals.push({
      earlier: true,
      goal: "`zett tools` on an empty configuration within 2× of importing the raw SDK client",
      measured: `${f(tools)} ms against ${f(sdk)} ms (${ratio(tools, sdk)})`,
      met: tools !== undefined && sdk !== undefined && tools <= 2 * sdk,
      why:
        "The bundle's main chunk (Effect, @effect/cli, the agent, the MCP extension and the SDK) is parsed and evaluated whatever the command."
    })
  }

  // importing the packages
  const imports = results.filter((r) => r.case === "import" && r.ok === true)
  if (imports.length > 0) {
    out.push("## 9b. Importing the packages")
    out.push("")
    out.push(
      "Each figure is one whole process (`node --input-type=module -e \"await import(...)\"`), from spawn to exit, " +
        "timed by the orchestrator, and its own CPU time (all threads, `process.cpuUsage()` as it ends): " +
        "`@zett/agent`, `@zett/mcp` and `@zett/mcp-node` imported as an app imports them (their built packages " +
        "through their installed entries, `tsc -b` first), the raw SDK v2 client (`@modelcontextprotocol/client`), " +
        "Effect's own `Effect`, `Layer`, `Stream` and `Context` alone and with `Schema` (the floor under the goal: " +
        `the modules the packages' public values are made of), and \`node -e 0\`. Interleaved, ${
          imports.filter((r) => r.variant === "node -e 0").length
        } rounds, the order rotated; medians.`
    )
    out.push("")
    const variants = [...new Set(imports.map((r) => String(r.variant)))]
    const of = (variant: string) => imports.filter((r) => r.variant === variant)
    const sdk = "import the raw SDK v2 client"
    out.push(table(
      ["process", "runs", "wall ms, median [min]", "× raw SDK import", "CPU ms", "× raw SDK import"],
      variants.map((v) => [
        v,
        f(of(v).length),
        `${f(med(of(v), "ms"))} [${f(min(of(v), "ms"))}]`,
        ratio(med(of(v), "ms"), med(of(sdk), "ms")),
        f(med(of(v), "cpuMs")),
        ratio(med(of(v), "cpuMs"), med(of(sdk), "cpuMs"))
      ])
    ))
    out.push("")
    const zett = "import @zett/agent, @zett/mcp, @zett/mcp-node"
    const zw = med(of(zett), "ms")
    const sw = med(of(sdk), "ms")
    goals.push({
      goal: "Importing `@zett/agent`, `@zett/mcp` and `@zett/mcp-node`: at most 1.5× importing the raw SDK v2 client",
      measured: `${f(zw)} ms against ${f(sw)} ms (${ratio(zw, sw)}); CPU ${f(med(of(zett), "cpuMs"))} ms against ${
        f(med(of(sdk), "cpuMs"))
      } ms (${ratio(med(of(zett), "cpuMs"), med(of(sdk), "cpuMs"))})`,
      met: zw !== undefined && sw !== undefined && zw <= 1.5 * sw,
      why: "Effect's own modules that the packages' public values are built of (`effect/Schema` and the fast-check " +
        "it imports among them) cost more than the whole SDK client does; see docs/benchmarks.md."
    })
  }

  // 10. toolkit
  const toolkit = results.filter((r) => r.case === "toolkit" && r.ok === true)
  if (toolkit.length > 0) {
    out.push("## 10. A generateText step through McpToolkit")
    out.push("")
    out.push(
      "One warm `LanguageModel.generateText` step of `@effect/ai` in which the model calls the echo tool once; the " +
        "language model answers at once from a script (no network), so a step is `@effect/ai`'s own work and the tool " +
        "call. *McpToolkit*: the echo tool of the benchmark's server through `McpToolkit`; *@effect/ai alone*: the " +
        "same step with the same tools (listed from the same server) answered at once by local handlers with the same " +
        "content (`@effect/ai`'s work per step grows with the tools it decodes a response against); *handle*: the " +
        "toolkit's `handle` for the call alone, what a step runs for each tool call (decode the parameters, run the " +
        "handler, validate and encode the result); *raw SDK*: the raw client's `callTool`. Each a loop in one fiber, " +
        `${toolkit[0]!.calls} after ${
          toolkit[0]!.warmup
        } warm-up, 5 interleaved runs; mean = a run's loop time / iterations, median of the runs [the ` +
        "fastest run]. *The bridge*: the same tools, the echo tool's handler calling the raw SDK client's `callTool` in " +
        "an `Effect.async` (what an app writes by hand without McpToolkit). *The toolkit's part* = McpToolkit's handle " +
        "− (the bridge's handle − the raw call): what McpToolkit adds to the raw call, @effect/ai's own work around a " +
        "tool that waits taken out; against the raw call. Until 2026-12-04 the part was McpToolkit's handle − the " +
        "local handle, which leaves in McpToolkit's part the @effect/ai work that only a waiting tool costs (a span " +
        "and a context kept across the wait: about 50 µs of CPU a call on this machine); it is still shown. The " +
        "whole steps are shown for what an app pays."
    )
    out.push("")
    for (const transport of ["stdio", "http"]) {
      const cell = (lib: string, variant: string) =>
        toolkit.filter((r) => r.lib === lib && r.transport === transport && (lib === "raw" || r.variant === variant))
      const lanes: ReadonlyArray<readonly [string, string, string]> = [
        ["raw", "call", "raw SDK callTool (baseline)"],
        ["zett-toolkit", "handle", "McpToolkit: toolkit.handle of the MCP tool"],
        ["ai-raw", "handle", "the bridge: toolkit.handle of the same tool calling the raw SDK"],
        ["ai-local", "handle", "@effect/ai alone: toolkit.handle of the same tool, answered locally"],
        ["zett-toolkit", "step", "McpToolkit: a generateText step calling the MCP tool"],
        ["ai-raw", "step", "the bridge: the same step, the echo tool calling the raw SDK"],
        ["ai-local", "step", "@effect/ai alone: the same step, the same tools answered locally"]
      ]
      const raw = med(cell("raw", "call"), "meanMs")
      out.push(`**${transport === "stdio" ? "stdio" : "Streamable HTTP"}**`)
      out.push("")
      out.push(table(
        ["lane", "mean ms, median [min] of runs", "within-run median ms", "ratio (mean) to raw", "runs ok"],
        lanes.map(([lib, variant, label]) => [
          label,
          `${f(med(cell(lib, variant), "meanMs"), 3)} [${f(min(cell(lib, variant), "meanMs"), 3)}]`,
          f(med(cell(lib, variant), "medianMs"), 3),
          ratio(med(cell(lib, variant), "meanMs"), raw),
          `${cell(lib, variant).length}/${
            results.filter((r) =>
              r.case === "toolkit" && r.lib === lib && r.transport === transport &&
              (lib === "raw" || r.variant === variant)
            ).length
          }`
        ])
      ))
      out.push("")
      const handle = med(cell("zett-toolkit", "handle"), "meanMs")
      const bridge = med(cell("ai-raw", "handle"), "meanMs")
      const local = med(cell("ai-local", "handle"), "meanMs")
      const part = toolkitPart(handle, bridge, raw)
      const localPart = handle === undefined || local === undefined ? undefined : handle - local
      const stepZett = med(cell("zett-toolkit", "step"), "meanMs")
      const stepBridge = med(cell("ai-raw", "step"), "meanMs")
      const stepLocal = med(cell("ai-local", "step"), "meanMs")
      goals.push({
        goal: `A generateText step calling one MCP tool through McpToolkit (${transport}), calls ${
          f(Number(toolkit[0]!.warmup) + 1)
        }–${
          f(Number(toolkit[0]!.warmup) + Number(toolkit[0]!.calls))
        } of a fresh process: the toolkit's part at most 1.15× the raw SDK call`,
        measured: `toolkit's part ${f(part, 3)} ms (handle ${f(handle, 3)} − (bridge handle ${f(bridge, 3)} − raw ${
          f(raw, 3)
        })) vs raw ${f(raw, 3)} ms (${ratio(part, raw)}); handle − local handle ${f(localPart, 3)} ms (${
          ratio(localPart, raw)
        }); whole steps ${f(stepZett, 3)} ms vs ${f(stepBridge, 3)} ms through the bridge, ${
          f(stepLocal, 3)
        } ms with local tools`,
        met: part !== undefined && raw !== undefined && part <= 1.15 * raw,
        why:
          "The toolkit's part is the agent's call path (McpConnections, callTimeout, result mapping) and the toolkit's handler; " +
          "a step's own cost is @effect/ai's (see the whole steps)."
      })
    }
  }

  // 12. protocol lanes
  const protocol = results.filter((r) => r.case === "protocol")
  if (protocol.length > 0) {
    const lanes = ["raw-pin", "raw-auto", "zett-cold", "zett-verdict"].filter((lib) =>
      protocol.some((r) => r.lib === lib)
    )
    const okOf = (lib: string) => of("protocol", lib)
    const allOf = (lib: string) => protocol.filter((r) => r.lib === lib)
    // every timed run of every process of a lane
    const runsOf = (lib: string) => okOf(lib).flatMap((r) => (Array.isArray(r.msRuns) ? r.msRuns as Array<number> : []))
    const medianRuns = (lib: string) => (runsOf(lib).length === 0 ? undefined : median(runsOf(lib)))
    const n = Number(protocol[0]!.servers ?? protocol[0]!.n)
    const reps = Number(protocol[0]!.reps)
    const sample = protocol.find((r) => r.ok === true) ?? protocol[0]!
    out.push(`## 12. Cold discovery of ${n} modern stdio servers (protocol lanes)`)
    out.push("")
    out.push(
      `${n} stdio servers of the 2026-07-28 revision (packages/testing/servers/modern-server.mjs, ` +
        `${String(sample.server ?? "@modelcontextprotocol/server")}, ${
          sample.era === "modern-only" ? "modern-only (`--legacy=reject`)" : "dual-era"
        }, ` +
        `5 tools each, started with \`node <path>\`), all at once; nothing cached, no server running. *Raw*: ` +
        "`Promise.all` over the servers of a new `@modelcontextprotocol/client` `Client` + `StdioClientTransport`, " +
        "`connect`, `listTools`, timed until all lists are in hand; pinned (`versionNegotiation: { mode: { pin: " +
        "\"2026-07-28\" } }`, the baseline) or `mode: \"auto\"`. *Zett*: an `Agent.run` (McpExtension, scripted model) " +
        "on a fresh app, timed until the model is called with every tool registered; *cold*: a fresh layer per run " +
        "(a new `NodeMcpClientFactory`, no verdict known, `protocol: \"auto\"`); *verdict known*: a new McpExtension " +
        "(an empty McpToolCache) over one `NodeMcpClientFactory` kept for the process, which remembers each definition's " +
        `verdict from the process's first discovery. Each lane process runs one untimed discovery first, then ${reps} ` +
        "timed; every discovery is closed, and its processes gone, between runs, outside the timing. The lanes' " +
        "processes are interleaved, the order rotated. *Spawns* are counted by the servers: each process of the fixture " +
        "appends a line to a record file (`--record`) as it starts; *probe-only* processes answered `server/discover` " +
        "and nothing else. Every run checked: all tools in hand, no `initialize`, every `tools/list` on 2026-07-28. " +
        "The load average is mostly this case's own doing (20 to 40 server processes per discovery on the machine's " +
        "cores), so *runs under load* says little about other work here: look at the spread of the runs."
    )
    out.push("")
    const base = medianRuns("raw-pin")
    out.push(table(
      [
        "lane",
        "timed runs",
        "median ms [min–max]",
        "ratio to pin",
        "first discovery of the process ms (untimed warm-up)",
        "client CPU ms",
        "spawns per server",
        "probe-only processes per server",
        "server/discover per server",
        "runs ok",
        "runs under load"
      ],
      lanes.map((lib) => {
        const rs = okOf(lib)
        const runs = runsOf(lib)
        const spawns = `${f(med(rs, "spawnsPerServer"), 2)}${
          max(rs, "spawnsPerServerMax") !== min(rs, "spawnsPerServerMin")
            ? ` (${f(min(rs, "spawnsPerServerMin"), 2)}–${f(max(rs, "spawnsPerServerMax"), 2)})`
            : ""
        }`
        return [
          String(rs[0]?.label ?? allOf(lib)[0]?.label ?? lib),
          f(runs.length),
          runs.length === 0 ? "FAILED" : `${f(medianRuns(lib))} [${f(Math.min(...runs))}–${f(Math.max(...runs))}]`,
          ratio(medianRuns(lib), base),
          f(med(rs, "firstMs")),
          f(med(rs, "cpuMs")),
          spawns,
          f(med(rs, "probeOnlyPerServer"), 2),
          f(med(rs, "discoverPerServer"), 2),
          `${rs.length}/${allOf(lib).length}`,
          loadNote(allOf(lib))
        ]
      })
    ))
    out.push("")
    const spawnsOf = (lib: string) => ({
      lo: min(okOf(lib), "spawnsPerServerMin"),
      hi: max(okOf(lib), "spawnsPerServerMax")
    })
    const auto = spawnsOf("raw-auto")
    const cold = spawnsOf("zett-cold")
    const verdict = spawnsOf("zett-verdict")
    const allOk = (lib: string) => allOf(lib).length > 0 && okOf(lib).length === allOf(lib).length
    const spawnText = (s: { lo: number | undefined; hi: number | undefined }) =>
      s.lo === s.hi ? f(s.lo, 2) : `${f(s.lo, 2)}–${f(s.hi, 2)}`
    goals.push({
      goal:
        `Cold discovery of ${n} modern stdio servers, Zett without a verdict: at most 1.05× the raw SDK pinned to 2026-07-28`,
      measured: `${f(medianRuns("zett-cold"))} ms vs ${f(base)} ms (${ratio(medianRuns("zett-cold"), base)})`,
      met: allOk("zett-cold") && allOk("raw-pin") && medianRuns("zett-cold")! <= 1.05 * base!,
      why: "Zett's own part of a cold discovery: the layers built in the run, the agent's request and the registration."
    })
    goals.push({
      goal:
        `Cold discovery of ${n} modern stdio servers: Zett, with and without a verdict, fewer spawns per server than the raw SDK in auto mode`,
      measured: `spawns per server: Zett cold ${spawnText(cold)}, verdict known ${spawnText(verdict)}, raw auto ${
        spawnText(auto)
      }`,
      met: allOk("zett-cold") && allOk("zett-verdict") && allOk("raw-auto") && cold.hi! < auto.lo! &&
        verdict.hi! < auto.lo!,
      why: "A stdio server Zett asks in place on the session's own process is started once."
    })
    goals.push({
      goal: `Cold discovery of ${n} modern stdio servers, Zett with a verdict known: exactly 1 spawn per server`,
      measured: `${spawnText(verdict)} spawns per server; server/discover per server ${
        f(med(okOf("zett-verdict"), "discoverPerServer"), 2)
      }`,
      met: allOk("zett-verdict") && verdict.lo === 1 && verdict.hi === 1,
      why: "With a kept verdict the factory connects from it (no probe), on the one process of the connection."
    })
    goals.push({
      goal: `Cold discovery of ${n} modern stdio servers, Zett without a verdict: exactly 1 spawn per server`,
      measured: `${spawnText(cold)} spawns per server; probe-only processes per server ${
        f(med(okOf("zett-cold"), "probeOnlyPerServer"), 2)
      }`,
      met: allOk("zett-cold") && cold.lo === 1 && cold.hi === 1,
      why:
        "The probe runs on the connection's own process (Zett's transport is not the SDK's base StdioClientTransport, " +
        "so the SDK probes in place); a second start happens only for a server that exits when asked server/discover."
    })
  }

  const goalTable = (gs: ReadonlyArray<Goal>) =>
    table(
      ["goal", "measured (this run)", "status"],
      gs.map((g) => [g.goal, g.measured, g.met === true ? "**met**" : "not met"])
    )
  out.push("## Goals of the per-call rework")
  out.push("")
  out.push("Ratios are to the raw SDK in the same run, medians.")
  out.push("")
  out.push(goalTable(goals.filter((g) => g.earlier !== true)))
  out.push("")
  const older = goals.filter((g) => g.earlier === true)
  if (older.length > 0) {
    out.push("## Other goals (the earlier performance goals)")
    out.push("")
    out.push(goalTable(older))
    out.push("")
  }
  if (profiles !== undefined) { for (const line of profileSection(profiles)) out.push(line) }
  if (effect4.length > 0) { for (const line of effect4Section(effect4, meta)) out.push(line) }
  const missed = goals.filter((g) => g.met !== true)
  out.push("## Closing note")
  out.push("")
  if (missed.length === 0) out.push("Every goal was met in this run.")
  for (const g of missed) out.push(`- **${g.goal}**: not met (${g.measured}). ${g.why ?? ""}`)
  if (failed.length > 0) {
    out.push("")
    out.push(
      `Lanes that failed in this run: ${failed.map((r) => `${r.case}/${r.lib} (${r.error ?? "not ok"})`).join("; ")}.`
    )
  }
  out.push("")
  return out.join("\n")
}
