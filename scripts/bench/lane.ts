// One measurement in a fresh process: `node --expose-gc --import tsx lane.ts --case=... --lib=... [params]`.
// Prints one line `RESULT <json>`. run.ts starts these; running one by hand is fine too.
import { McpRedis, RedisToolCache } from "@zett/mcp-redis"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import {
  type Adapter,
  benchDir,
  contextSwitches,
  cpuMs,
  flags as parseFlags,
  gcHeap,
  makeProbe,
  median,
  quantile,
  type Session,
  sleep,
  socketCounter,
  startHttp,
  stdioServers
} from "./common.js"

const flags = parseFlags(process.argv.slice(2), [
  "case",
  "lib",
  "variant",
  "transport",
  "stubborn",
  "n",
  "k",
  "delay",
  "tools",
  "reps",
  "calls",
  "warmup",
  "runs",
  "chunks",
  "chunk",
  "textBytes",
  "requests",
  "processes",
  "opTimeout"
])
const num = (key: string, fallback: number) => (flags[key] === undefined ? fallback : Number(flags[key]))
const lib = flags.lib ?? "raw"
const kase = flags.case ?? "discovery"

const loadAdapter = async (): Promise<{ adapter: Adapter; lib: unknown; importMs: number }> => {
  const start = performance.now()
  let adapter: Adapter
  if (lib === "raw") adapter = (await import("./raw.js")).raw
  else if (lib === "raw1") adapter = (await import("./raw.js")).raw1
  else if (lib === "raw-effect") adapter = (await import("./raw.js")).rawEffect
  else if (lib === "zett") adapter = (await import("./zett.js")).zett
  else if (lib === "zett-handler") {
    adapter = (await import("./zett.js")).zettAdapter("Zett, the tool handler in one fiber")
  } else if (lib === "zett-pool") {
    adapter = (await import("./zett.js")).zettAdapter("Zett with connectionPool", {
      connectionPool: { idleTimeToLive: "5 minutes" }
    })
  } else {
    // resolved at run time, so that a bundle of this file leaves the peers (and their node_modules) alone
    const peers = await import(pathToFileURL(join(benchDir, "peers", "adapters.mjs")).href)
    adapter = peers[lib]
    if (adapter === undefined) throw new Error(`unknown lib ${lib}`)
  }
  const loaded = await adapter.load()
  // from process start: a bundled lane loads raw and Zett statically, before `start`
  void start
  return { adapter, lib: loaded, importMs: performance.now() }
}

const switchesPerCall = (switched: ReturnType<typeof contextSwitches>, n: number) => ({
  ...(switched.mainUs === undefined ? {} : { mainThreadCpuPerCallUs: switched.mainUs / n }),
  waitsPerCall: switched.voluntary / n,
  preemptionsPerCall: switched.involuntary / n,
  // the timed window, for `profile-top.mjs --window=` on a `--cpu-prof` of the lane
  ...(switched.sinceUs === undefined ? {} : { windowUs: [switched.sinceUs, switched.atUs] })
})

/** The call cases' one server with 10 tools and echo, over `--transport` (stdio by default), and their counts. */
const callSetup = async () => {
  const transport = flags.transport ?? "stdio"
  const probe = makeProbe()
  const http = transport === "http" ? await startHttp(probe, 1, { k: 10 }) : undefined
  const servers = http?.servers ?? stdioServers(probe, 1, { k: 10 })
  const curve = kase === "curve" || kase === "toolkit-curve"
  const chunk = flags.chunk === undefined && !curve ? undefined : num("chunk", 500)
  return { transport, n: num("calls", 500), warmup: num("warmup", curve ? 0 : 200), chunk, http, servers }
}

/** The mean of each run of `chunk` consecutive samples: how a call's cost moves over a process's life. */
const chunkMeans = (samples: ReadonlyArray<number>, chunk: number) =>
  Array.from({ length: Math.ceil(samples.length / chunk) }, (_, i) => {
    const part = samples.slice(i * chunk, (i + 1) * chunk)
    return part.reduce((a, b) => a + b, 0) / part.length
  })

const textOk = (result: unknown, text: string) => JSON.stringify(result).includes(text)

// `--textBytes=N`: each call's text starts with N bytes more (the echo tool returns it), for calls of some size
const prefix = "x".repeat(num("textBytes", 0))

const timeCalls = async (session: Session, n: number) => {
  if (session.timeCalls !== undefined) return session.timeCalls(n, prefix)
  const samples: Array<number> = []
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await session.echo(`${prefix}hello ${i}`)
    samples.push(performance.now() - start)
  }
  return samples
}

const cases: Record<string, () => Promise<Record<string, unknown>>> = {
  /** Case 1: cold discovery of N stdio servers (K tools each, tools/list delayed by D ms). */
  discovery: async () => {
    const n = num("n", 1)
    const k = num("k", 10)
    const probe = makeProbe()
    const servers = stdioServers(probe, n, { k, delay: num("delay", 0) })
    const { adapter, importMs, lib: loaded } = await loadAdapter()
    const switches = contextSwitches()
    const cpu = process.cpuUsage()
    const start = performance.now()
    const session = await adapter.open(loaded, servers)
    const openMs = performance.now() - start
    const openCpuMs = cpuMs(cpu)
    // the timed window, for `profile-top.mjs --window=` on a `--cpu-prof` of the lane
    const { atUs, mainUs, sinceUs } = contextSwitches(switches)
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
      ...(sinceUs === undefined ? {} : { windowUs: [sinceUs, atUs] }),
      tools: session.tools,
      expected: n * (k + 1),
      spawns,
      ok
    }
  },

  /** Case 2: a warm request on 20 servers (10 stdio, 10 HTTP) with 1,000 tools in all. */
  warm: async () => {
    const n = num("n", 20)
    const perServer = num("tools", 50)
    const reps = num("reps", 20)
    const probe = makeProbe()
    const sockets = socketCounter()
    const stdioCount = Math.ceil(n / 2)
    const http = await startHttp(probe, n - stdioCount, { k: perServer - 1, offset: stdioCount })
    const servers = [...stdioServers(probe, stdioCount, { k: perServer - 1 }), ...http.servers]
    const { adapter, importMs, lib: loaded } = await loadAdapter()
    const start = performance.now()
    const session = await adapter.open(loaded, servers)
    const coldMs = performance.now() - start
    await session.endRequest?.()
    await sleep(300)
    const aliveBetween = probe.alive()
    const before = { spawns: probe.spawns(), conns: probe.conns(), sockets: sockets() }
    // every request of this fresh process, in order (the cold one excluded)
    const wall: Array<number> = []
    const request: Array<number> = []
    const registration: Array<number> = []
    let tools = 0
    for (let i = 0; i < reps; i++) {
      const t = performance.now()
      const again = await session.again()
      wall.push(performance.now() - t)
      if (again.requestMs !== undefined) request.push(again.requestMs)
      if (again.registrationMs !== undefined) registration.push(again.registrationMs)
      tools = again.tools
    }
    const after = { spawns: probe.spawns(), conns: probe.conns(), sockets: sockets() }
    await session.close()
    http.stop()
    const early = (xs: ReadonlyArray<number>) => (xs.length === 0 ? undefined : median(xs.slice(0, 50)))
    const late = (xs: ReadonlyArray<number>) => (xs.length > 300 ? median(xs.slice(299)) : undefined)
    const whole = request.length > 0 ? request : wall
    return {
      label: adapter.label,
      importMs,
      coldMs,
      tools,
      expected: n * perServer,
      // Zett: from `Agent.run` to the model called with the tools; the others: the call that gets the tools again
      requestMeasured: request.length > 0 ? "Agent.run to the model call" : "whole call",
      requestMs: median(whole.slice(Math.floor(whole.length / 10))),
      first50RequestMs: early(whole),
      from300RequestMs: late(whole),
      registrationMs: registration.length > 0
        ? median(registration.slice(Math.floor(registration.length / 10)))
        : undefined,
      first50RegistrationMs: early(registration),
      from300RegistrationMs: late(registration),
      spawns: after.spawns - before.spawns,
      sockets: after.sockets - before.sockets,
      serverConnections: after.conns - before.conns,
      aliveBetween,
      reps,
      ok: tools === n * perServer
    }
  },

  /**
   * Case 3: sequential echo round trips on a warm session. `zett`: the agent's own path (a scripted model
   * returns the calls, `Agent.run` runs them); `zett-handler`: the registered tool's handler called in a loop
   * inside one fiber; the others: each library's tool-execution path in a loop.
   */
  calls: async () => {
    const { chunk, http, n, servers, transport, warmup } = await callSetup()
    if (lib === "zett") {
      const { agentCalls } = await import("./zett.js")
      const importMs = performance.now()
      const run = await agentCalls(servers, { warmup, calls: n, chunk, prefix })
      http?.stop()
      return {
        label: "Zett, the agent's path (Agent.run, scripted model)",
        importMs,
        transport,
        calls: n,
        warmup,
        timed: "Agent.run: from the model's step that returns the calls to the next model request",
        meanMs: run.ms / n,
        cpuPerCallUs: run.cpuUs / n,
        ...switchesPerCall(run.switched, n),
        callsPerSecond: (n * 1000) / run.ms,
        ...(chunk === undefined ? {} : { chunk, chunkMeansMs: run.chunkMeansMs }),
        ok: run.ok
      }
    }
    const { adapter, importMs, lib: loaded } = await loadAdapter()
    const session = await adapter.open(loaded, servers)
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
      importMs,
      transport,
      calls: n,
      warmup,
      timed: lib === "zett-handler"
        ? "the tool's handler, in a loop in one fiber"
        : lib === "raw-effect"
        ? "the raw client's callTool in an Effect.async, in a loop in one fiber"
        : "the library's tool call, in a loop",
      meanMs: totalMs / n,
      medianMs: median(samples),
      p99Ms: quantile(samples, 0.99),
      cpuPerCallUs,
      ...switchesPerCall(switched, n),
      callsPerSecond: (n * 1000) / totalMs,
      ...(chunk === undefined ? {} : { chunk, chunkMeansMs: chunkMeans(samples, chunk) }),
      ok
    }
  },

  /**
   * A call's cost over a process's life: the `calls` case from the process's first call on (`--warmup=0` unless
   * given), the mean of every `--chunk` calls (500 unless given) reported apart.
   */
  curve: () => cases.calls!(),
  /**
   * The headline of a warm call: the `calls` case over a process's first `--calls` (200) calls, no warm-up (what
   * one agent run does in a fresh process).
   */
  first: () => cases.calls!(),
  /** The same for the toolkit case (`--variant=handle` for the toolkit's part). */
  "toolkit-curve": () => cases.toolkit!(),

  /**
   * Case 10: one warm `LanguageModel.generateText` step in which the model calls the echo tool, or (`--variant=
   * handle`) the toolkit's handle for that call alone. `zett-toolkit`: through McpToolkit; `ai-raw`: the same
   * tools, the echo tool calling the raw SDK client (the bridge an app writes by hand); `ai-local`: the same tools
   * answered at once by local handlers; `raw`: the raw SDK's `callTool`. The toolkit's part is `zett-toolkit` -
   * (`ai-raw` - `raw`): what McpToolkit adds to the raw call, @effect/ai's own work around a waiting tool taken out.
   */
  toolkit: async () => {
    const { chunk, http, n, servers, transport, warmup } = await callSetup()
    const measure = async (
      label: string,
      ok: boolean,
      time: (n: number) => Promise<Array<number>>,
      close: () => Promise<void>
    ) => {
      await time(warmup)
      const switches = contextSwitches()
      const start = performance.now()
      const samples = await time(n)
      const totalMs = performance.now() - start
      const switched = contextSwitches(switches)
      await close()
      http?.stop()
      return {
        label,
        transport,
        calls: n,
        warmup,
        variant: lib === "raw" ? undefined : flags.variant ?? "step",
        timed: lib === "raw"
          ? "the raw SDK's callTool, in a loop"
          : flags.variant === "handle"
          ? "the toolkit's handle for one tool call (what generateText runs per call), in a loop in one fiber"
          : "one generateText step with one tool call, in a loop in one fiber",
        meanMs: totalMs / n,
        medianMs: median(samples),
        p99Ms: quantile(samples, 0.99),
        ...switchesPerCall(switched, n),
        ...(chunk === undefined ? {} : { chunk, chunkMeansMs: chunkMeans(samples, chunk) }),
        ok
      }
    }
    if (lib === "raw") {
      const { adapter, lib: loaded } = await loadAdapter()
      const session = await adapter.open(loaded, servers)
      const ok = textOk(await session.echo("toolkit-ok"), "toolkit-ok")
      return measure(adapter.label, ok, (count) => timeCalls(session, count), () => session.close())
    }
    const { localLane, toolkitLane } = await import("./toolkit.js")
    const bridge = async () => {
      const { raw } = await import("./raw.js")
      const session = await raw.open(await raw.load(), servers)
      return { echo: session.echo, close: session.close }
    }
    const stepLane = lib === "zett-toolkit"
      ? await toolkitLane(servers)
      : await localLane(servers, lib === "ai-raw" ? await bridge() : undefined)
    const handle = flags.variant === "handle"
    return measure(
      handle ? `${stepLane.label}: toolkit.handle alone` : stepLane.label,
      await stepLane.step(),
      handle ? stepLane.timeHandles : stepLane.timeSteps,
      stepLane.close
    )
  },

  /** Case 4: one stdio server with K tools: open time, client CPU and heap kept while the session lives. */
  large: async () => {
    const k = num("k", 1000)
    const probe = makeProbe()
    const servers = stdioServers(probe, 1, { k })
    const { adapter, importMs, lib: loaded } = await loadAdapter()
    const heap0 = gcHeap()
    const cpu = process.cpuUsage()
    const start = performance.now()
    const session = await adapter.open(loaded, servers)
    const openMs = performance.now() - start
    const openCpuMs = cpuMs(cpu)
    const heap1 = gcHeap()
    const ok = textOk(await session.echo("large-ok"), "large-ok") && session.tools === k + 1
    await session.close()
    return { label: adapter.label, importMs, k, openMs, openCpuMs, heapDelta: heap1 - heap0, tools: session.tools, ok }
  },

  /** Case 5: agent runs against an in-memory server on a warm cache: time per run and heap growth. */
  agent: async () => {
    const { inMemoryApp } = await import("./zett.js")
    const Effect = await import("effect/Effect")
    const runs = num("runs", 10_000)
    const warmup = num("warmup", 1_000)
    const chunks = num("chunks", 10)
    const variant = flags.variant ?? "registration"
    const app = inMemoryApp({ k: num("k", 10), toolCall: variant !== "registration", pool: variant === "pooled-call" })
    const check = await app.runtime.runPromise(app.run)
    const ok = check.content === "done"
    for (let i = 0; i < warmup; i++) await app.runtime.runPromise(app.run)
    const heaps = [gcHeap()]
    const perRun: Array<number> = []
    const per = Math.max(1, Math.floor(runs / chunks))
    const cpu = process.cpuUsage()
    let totalMs = 0
    for (let c = 0; c < chunks; c++) {
      const chunkStart = performance.now()
      for (let i = 0; i < per; i++) {
        const t = performance.now()
        await app.runtime.runPromise(app.run)
        perRun.push(performance.now() - t)
      }
      totalMs += performance.now() - chunkStart
      heaps.push(gcHeap())
    }
    const cpuUs = (cpuMs(cpu) * 1000) / (per * chunks)
    await app.runtime.dispose()
    void Effect
    // least-squares slope of heap over runs, in bytes per run
    // the first chunk still grows code space and caches, so the slope starts after it
    const tail = heaps.slice(1)
    const xs = tail.map((_, i) => i * per)
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length
    const my = tail.reduce((a, b) => a + b, 0) / tail.length
    const slope = xs.reduce((a, x, i) => a + (x - mx) * (tail[i]! - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0)
    return {
      label: `Zett agent run (${variant})`,
      variant,
      runs: per * chunks,
      warmup,
      medianUs: median(perRun) * 1000,
      p99Us: quantile(perRun, 0.99) * 1000,
      meanUs: (totalMs / (per * chunks)) * 1000,
      cpuPerRunUs: cpuUs,
      heapStart: heaps[0],
      heapEnd: heaps.at(-1),
      heapGrowth: heaps.at(-1)! - heaps[0]!,
      heapMax: Math.max(...heaps),
      heapSlopeBytesPerRun: slope,
      heaps,
      ok
    }
  },

  /** Case 6: R concurrent requests on a cold cache against the same N stdio servers: processes spawned. */
  concurrent: async () => {
    const n = num("n", 5)
    const requests = num("requests", 50)
    const probe = makeProbe()
    const servers = stdioServers(probe, n, { k: 10 })
    const { adapter, importMs, lib: loaded } = await loadAdapter()
    const start = performance.now()
    let ok: boolean
    if (lib === "zett") {
      const { makeApp, zettLayer } = await import("./zett.js")
      const app = makeApp(zettLayer(servers), { block: false })
      const replies = await Promise.all(Array.from({ length: requests }, () => app.run()))
      ok = replies.every((r) => r.content === "done")
      const ms = performance.now() - start
      const spawns = probe.spawns()
      await app.dispose()
      return {
        label: adapter.label,
        importMs,
        requests,
        servers: n,
        ms,
        spawns,
        perRequest: spawns / requests,
        aliveAfter: probe.alive(),
        ok
      }
    }
    // every request discovers with its own clients, as a request-scoped integration without a shared cache does
    const sessions = await Promise.all(Array.from({ length: requests }, () => adapter.open(loaded, servers)))
    const ms = performance.now() - start
    const spawns = probe.spawns()
    ok = sessions.every((s) => s.tools === n * 11)
    await Promise.all(sessions.map((s) => s.close()))
    return {
      label: adapter.label,
      importMs,
      requests,
      servers: n,
      ms,
      spawns,
      perRequest: spawns / requests,
      aliveAfter: probe.alive(),
      ok
    }
  },

  /** Case 7: closing a request's N stubborn servers (they ignore stdin EOF): parallel or one after another. */
  closing: async () => {
    const n = num("n", 5)
    const probe = makeProbe()
    const servers = stdioServers(probe, n, { k: 2, stubborn: flags.stubborn ?? "eof" })
    const { adapter, importMs, lib: loaded } = await loadAdapter()
    const session = await adapter.open(loaded, servers)
    // with the pool, the request ends and leaves its connections in the pool: closing the layer is timed
    const pooled = lib === "zett-pool"
    if (pooled) await session.endRequest?.()
    const aliveOpen = probe.alive()
    const start = performance.now()
    if (session.endRequest !== undefined && !pooled) await session.endRequest()
    else await session.close()
    const closeMs = performance.now() - start
    const aliveAfter = probe.alive()
    await session.close()
    return {
      label: adapter.label,
      importMs,
      servers: n,
      stubborn: flags.stubborn ?? "eof",
      timed: pooled
        ? "closing the layer (the pool)"
        : session.endRequest !== undefined
        ? "the end of the request"
        : "Promise.all of client.close()",
      aliveOpen,
      closeMs,
      aliveAfter,
      ok: aliveOpen === n && aliveAfter === 0
    }
  },

  /** Case 8: with the connection pool, a request's first call (no spawn), and closing the layer. */
  pool: async () => {
    const reps = num("reps", 30)
    const probe = makeProbe()
    const servers = stdioServers(probe, 1, { k: 10 })
    const { makeApp, zettLayer } = await import("./zett.js")
    const name = `${servers[0]!.name}__${servers[0]!.prefix}echo`
    const measure = async (pool: boolean, count: number) => {
      const app = makeApp(zettLayer(servers, pool ? { connectionPool: { idleTimeToLive: "5 minutes" } } : {}))
      // the first request discovers (and, with the pool, leaves its connection in the pool)
      await app.startRequest()
      await app.timeCalls(name, 1)
      await app.endRequest()
      const spawnsBefore = probe.spawns()
      const firstCalls: Array<number> = []
      const secondCalls: Array<number> = []
      const gaps: Array<number> = []
      let lastCallEnd = performance.now()
      for (let i = 0; i < count; i++) {
        await app.startRequest()
        gaps.push(performance.now() - lastCallEnd)
        const [first, second] = await app.timeCalls(name, 2)
        lastCallEnd = performance.now()
        firstCalls.push(first!)
        secondCalls.push(second!)
        await app.endRequest()
      }
      const spawns = probe.spawns() - spawnsBefore
      const aliveBeforeDispose = probe.alive()
      await app.dispose()
      await sleep(100)
      return {
        firstCallMs: median(firstCalls),
        secondCallMs: median(secondCalls),
        idleGapMs: median(gaps),
        spawns,
        requests: count,
        aliveBeforeDispose,
        aliveAfterDispose: probe.alive()
      }
    }
    const pooled = await measure(true, reps)
    const scoped = await measure(false, Math.min(5, reps))
    // the raw SDK on the same kind of server: back-to-back calls, and a call after the same idle gap as
    // between two pooled requests (an idle server process answers its first message more slowly)
    const { raw } = await import("./raw.js")
    const session = await raw.open(await raw.load(), stdioServers(probe, 1, { k: 10, offset: 1 }))
    for (let i = 0; i < 50; i++) await session.echo("warm")
    const back: Array<number> = []
    for (let i = 0; i < 200; i++) {
      const t = performance.now()
      await session.echo("warm")
      back.push(performance.now() - t)
    }
    const afterGap: Array<number> = []
    for (let i = 0; i < reps; i++) {
      await sleep(pooled.idleGapMs)
      const t = performance.now()
      await session.echo("gap")
      afterGap.push(performance.now() - t)
    }
    await session.close()
    return {
      label: "Zett first call of a request",
      pooled,
      scoped,
      raw: { warmMs: median(back), afterIdleGapMs: median(afterGap) },
      ok: pooled.spawns === 0 && pooled.aliveAfterDispose === 0 && pooled.aliveBeforeDispose === 1
    }
  },

  /**
   * Case 9, the fleet: P processes of a Zett app, all cold, each running R requests one after another against
   * the same N slow stdio servers; `variant=shared` shares the tool cache through a real Redis
   * (RedisToolCache.layer), `unshared` keeps it per process. Counts server spawns and tools/list calls
   * (discoveries) and times each process's first model call from the common start.
   */
  fleet: async () => {
    const n = num("n", 5)
    const processes = num("processes", 8)
    const requests = num("requests", 3)
    const shared = flags.variant !== "unshared"
    const probe = makeProbe()
    const servers = stdioServers(probe, n, { k: 10, delay: num("delay", 200) })
    const redis = shared ? await startRedis() : undefined
    try {
      const members = Array.from({ length: processes }, () => {
        const child = spawn(process.execPath, [
          process.argv[1]!,
          "--case=fleet-member",
          "--lib=zett",
          `--requests=${requests}`
        ], {
          env: {
            ...process.env,
            FLEET_SERVERS: JSON.stringify(servers),
            ...(redis === undefined ? {} : { REDIS_URL: redis.url }),
            // a smaller operationTimeout than McpRedis's default, to provoke the fallbacks (--opTimeout=ms)
            ...(flags.opTimeout === undefined ? {} : { FLEET_OPERATION_TIMEOUT_MS: String(flags.opTimeout) })
          },
          stdio: ["pipe", "pipe", "pipe"]
        })
        let out = ""
        let err = ""
        child.stdout.on("data", (d) => (out += String(d)))
        child.stderr.on("data", (d) => (err += String(d)))
        const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
        return { child, out: () => out, err: () => err, exited }
      })
      while (!members.every((m) => m.out().includes("READY"))) {
        if (members.some((m) => m.child.exitCode !== null)) {
          throw new Error(`a member exited early: ${members.map((m) => m.err()).join("")}`)
        }
        await sleep(10)
      }
      const start = performance.now()
      for (const m of members) m.child.stdin.end("go\n")
      await Promise.all(members.map((m) => m.exited))
      const ms = performance.now() - start
      const results = members.map((m) => {
        const line = m.out().split("\n").find((l) => l.startsWith("RESULT "))
        if (line === undefined) throw new Error(`a member failed: ${m.err().slice(-500)}`)
        return JSON.parse(line.slice(7)) as { goAt: number; firstModelAt: number; tools: number; ok: boolean }
      })
      const firstModel = results.map((r) => r.firstModelAt - r.goAt)
      const spawns = probe.spawns()
      const lists = probe.lists()
      // what the shared cache logged in each member (stderr): which fallback made a second discovery
      const logLines = members.flatMap((m, i) =>
        m.err().split("\n").filter((l) => l.includes("shared tool cache")).map((l) => `member ${i}: ${l}`)
      )
      const fallbacks = classifyFallbacks(logLines)
      if (shared && lists !== n) {
        process.stderr.write(
          `fleet: ${lists} tools/list calls for ${n} servers; fallbacks: ${
            Object.entries(fallbacks).map(([k, v]) => `${k} ×${v}`).join(", ") || "none logged"
          }\n${logLines.filter((l) => !l.includes("found in the store")).join("\n")}\n`
        )
      }
      return {
        label: shared ? "Zett, tool cache shared through Redis" : "Zett, tool cache per process",
        shared,
        processes,
        requests,
        servers: n,
        ms,
        spawns,
        lists,
        firstModelMedianMs: median(firstModel),
        firstModelMaxMs: Math.max(...firstModel),
        aliveAfter: probe.alive(),
        fallbacks,
        holders: logLines.filter((l) => l.includes("for the fleet")).length,
        fallbackLog: lists === n ? [] : logLines.filter((l) => !l.includes("found in the store")).slice(0, 40),
        ok: results.every((r) => r.ok && r.tools === n * 11) && probe.alive() === 0 && (!shared || lists === n)
      }
    } finally {
      redis?.stop()
    }
  },

  /**
   * Case 12: cold discovery of N stdio servers of the 2026-07-28 revision (the project's modern-server fixture), all
   * at once: the raw SDK v2 client pinned (`raw-pin`, the baseline) and in auto mode (`raw-auto`), Zett on a fresh
   * factory (`zett-cold`) and on one that knows each server's verdict (`zett-verdict`); spawns counted (protocol.ts).
   */
  protocol: async () => {
    const { protocolCase } = await import("./protocol.js")
    const era = flags.variant ?? "dual"
    if (era !== "dual" && era !== "modern-only") throw new Error(`--variant=${era}: dual or modern-only`)
    return protocolCase(lib, { n: num("n", 20), reps: num("reps", 3), era })
  },

  /** One process of the fleet case: waits for a line on stdin, then runs its requests. */
  "fleet-member": async () => {
    const requests = num("requests", 3)
    const { makeApp, zettLayer } = await import("./zett.js")
    const Layer = await import("effect/Layer")
    const servers = JSON.parse(process.env.FLEET_SERVERS ?? "[]") as Array<Parameters<typeof zettLayer>[0][number]>
    const Logger = await import("effect/Logger")
    const LogLevel = await import("effect/LogLevel")
    const url = process.env.REDIS_URL
    // warnings and debug lines to stderr, where the fleet case reads which fallback fired
    const stderrLogger = Logger.make(({ logLevel, message }) => {
      const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
      process.stderr.write(`${logLevel.label} ${text}\n`)
    })
    const app = makeApp(
      zettLayer(
        servers,
        url === undefined ? {} : {
          cache: RedisToolCache.layer({
            ttl: "5 minutes",
            ...(process.env.FLEET_OPERATION_TIMEOUT_MS === undefined
              ? {}
              : { operationTimeout: Number(process.env.FLEET_OPERATION_TIMEOUT_MS) })
          }).pipe(Layer.provide(McpRedis.layer({ url })))
        }
      ),
      {
        logging: Layer.merge(Logger.replace(Logger.defaultLogger, stderrLogger), Logger.minimumLogLevel(LogLevel.Debug))
      }
    )
    // the layers (and the Redis connection) are built before the start, as in a running service
    await app.runtime.runtime()
    process.stdout.write("READY\n")
    await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()))
    const goAt = performance.now()
    let firstModelAt = 0
    let tools = 0
    for (let i = 0; i < requests; i++) {
      const opened = await app.startRequest()
      if (i === 0) {
        firstModelAt = performance.now()
        tools = opened.tools
      }
      await app.endRequest()
    }
    await app.dispose()
    return { goAt, firstModelAt, tools, ok: true }
  }
}

/**
 * The fallbacks of the shared tool cache named from its log lines (RedisToolCache), counted: each one
 * may make a second discovery of a server.
 */
export const classifyFallbacks = (lines: ReadonlyArray<string>): Record<string, number> => {
  const counts: Record<string, number> = {}
  const add = (name: string) => void (counts[name] = (counts[name] ?? 0) + 1)
  for (const line of lines) {
    const failed = /shared tool cache: (\w+) for .* failed \((.*)\);/.exec(line)
    if (failed !== null) {
      add(failed[2] === "no answer in time" ? `Redis ${failed[1]} over operationTimeout` : `Redis ${failed[1]} failed`)
    } else if (line.includes("is still discovering")) add("waitTimeout reached")
    else if (line.includes("could not be renewed")) add("lock lost/expired (renewal failed)")
    else if (line.includes("had expired before its release")) add("lock expired before release")
  }
  for (const line of lines) if (line.includes("discovering it in this process")) add("fallback: discovering alone")
  return counts
}

/** A redis-server on a free port of 127.0.0.1, its data in a temporary folder, for the fleet case. */
const startRedis = async () => {
  const port = await new Promise<number>((resolve) => {
    const server = createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
  const dir = mkdtempSync(join(tmpdir(), "zbench-redis-"))
  const child = spawn("redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    "no"
  ], {
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += String(d)
      if (out.includes("Ready to accept connections")) resolve()
    })
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`redis-server exited with ${code}: ${out}`)))
  })
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () => {
      child.kill("SIGKILL")
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

const run = cases[kase]
if (run === undefined) throw new Error(`unknown case ${kase}`)
let result: Record<string, unknown>
// the 1-minute load average at the start and the end of the measurement; above the number of cores, the
// run shared the machine with other work and is flagged in the report
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
