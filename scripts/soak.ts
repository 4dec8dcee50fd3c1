/**
 * Soak: many agent requests against a mix of healthy and faulty MCP servers (in-process, stdio and Streamable
 * HTTP), each ended at random by success, failure (the model fails), interruption at a random point, or a
 * compaction pass (compaction inside the run, then `Agent.compact`). At the end it checks that nothing is
 * left: no server process, no socket, no running fiber, heap growth under 10 MB after a forced GC, and every
 * request accounted for. It prints the counts, and exits with 1 when anything leaked.
 *
 *   npm run soak -- --count 2000 [--concurrency 8] [--seed 1] [--burst 100] [--json]
 *
 * With `--burst N` it first runs N requests at once on a fresh layer, each calling a stdio server that writes
 * the time of its answer into the result, and counts the calls that ended more than a second after their
 * server had answered (an answer read late because this process was busy with other connections).
 *
 * (`npm run soak` runs `node --expose-gc --import tsx scripts/soak.ts`.)
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Agent, Message, Model } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { factoryLayer, httpFault, newSockets, sockets, stdioFault, withMarker } from "@zett/testing/Faults"
import * as McpLayers from "@zett/testing/McpLayers"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Supervisor from "effect/Supervisor"
import * as Crypto from "node:crypto"
import * as Path from "node:path"
import * as Util from "node:util"

// -----------------------------------------------------------------------------
// options
// -----------------------------------------------------------------------------

/** The command line, strictly: an unknown flag or a value that is not a whole number is an error, not ignored. */
const commandLine = () => {
  const { values } = Util.parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      count: { type: "string", default: "2000" },
      concurrency: { type: "string", default: "8" },
      seed: { type: "string", default: "1" },
      burst: { type: "string", default: "0" },
      json: { type: "boolean", default: false }
    }
  })
  const whole = (name: string, text: string) => {
    if (!/^\d+$/.test(text)) throw new Error(`--${name} expects a whole number, got '${text}'`)
    return Number(text)
  }
  return {
    count: whole("count", values.count),
    concurrency: whole("concurrency", values.concurrency),
    seed: whole("seed", values.seed),
    burst: whole("burst", values.burst),
    json: values.json
  }
}

/** What one soak run found. */
export interface SoakReport {
  readonly count: number
  readonly seed: number
  readonly planned: Record<Ending, number>
  /** how each request actually ended */
  readonly outcomes: { succeeded: number; failed: number; interrupted: number; compacted: number; hung: number }
  /** requests started, and requests that ended (however they ended): every one of `count` must do both */
  readonly requests: { readonly started: number; readonly ended: number }
  /** tool results the model saw, by status */
  readonly toolCalls: { ok: number; failed: number }
  /** servers named unavailable to the model, summed over requests */
  readonly unavailable: number
  /** compaction passes inside runs */
  readonly compactions: number
  /** With `--burst`: the calls of the burst, and those that ended more than `lateAfterMs` after their server answered. */
  readonly burst?: {
    readonly requests: number
    readonly calls: number
    readonly late: number
    readonly maxLateMs: number
  }
  readonly leaks: {
    readonly processes: number
    readonly sockets: number
    readonly fibers: number
    readonly heapGrowthMB: number
  }
  readonly ms: number
  readonly ok: boolean
}

type Ending = "success" | "failure" | "interruption" | "compaction"
const endings: ReadonlyArray<Ending> = ["success", "failure", "interruption", "compaction"]

// -----------------------------------------------------------------------------
// randomness (seeded, so a failing run can be repeated)
// -----------------------------------------------------------------------------

const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

interface Plan {
  readonly ending: Ending
  readonly seed: number
  /** for interruption: when, after the start */
  readonly interruptAfterMs: number
}

// -----------------------------------------------------------------------------
// servers
// -----------------------------------------------------------------------------

/** An in-process server: `echo`, `slow` (sleeps, honours cancellation), `fail` (an isError result). */
const memoryServer = () => {
  const server = new Server({ name: "mem", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: "echo", description: "echoes", inputSchema: { type: "object" } },
      {
        name: "slow",
        description: "sleeps ms",
        inputSchema: { type: "object", properties: { ms: { type: "number" } } }
      },
      { name: "fail", description: "fails", inputSchema: { type: "object" } }
    ]
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {}
    if (request.params.name === "slow") {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Number(args.ms ?? 10))
        extra.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true })
      })
    }
    if (request.params.name === "fail") return { content: [{ type: "text", text: "it failed" }], isError: true }
    return { content: [{ type: "text", text: `mem ${request.params.name}: ${JSON.stringify(args)}` }] }
  })
  return server
}

// -----------------------------------------------------------------------------
// the model: reads its plan from the user message
// -----------------------------------------------------------------------------

const finish = (calls: number) => ({
  _tag: "Finish" as const,
  reason: calls > 0 ? ("tool_calls" as const) : ("stop" as const),
  usage: new Message.Usage({ inputTokens: 0, outputTokens: 0 })
})

const planOf = (request: Model.ModelRequest): { readonly plan: Plan; readonly turn: number } => {
  let user = -1
  request.messages.forEach((m, i) => {
    if (m._tag === "UserMessage") user = i
  })
  const plan = JSON.parse((request.messages[user] as Message.UserMessage).content) as Plan
  const turn = request.messages.slice(user).filter((m) => m._tag === "AssistantMessage").length
  return { plan, turn }
}

/** What the model saw: tool results by status, and servers named unavailable in the system message. */
const seen = { ok: 0, failed: 0, unavailable: 0 }

const countSeen = (request: Model.ModelRequest, turn: number) => {
  if (turn === 0) {
    const system = request.messages[0]?._tag === "SystemMessage" ? request.messages[0].content : ""
    const list = /Unavailable MCP servers \(their tools are missing\): (.*)\.$/m.exec(system)?.[1]
    if (list !== undefined) seen.unavailable += list.split("; ").length
    return
  }
  let last = -1
  request.messages.forEach((m, i) => {
    if (m._tag === "AssistantMessage") last = i
  })
  for (const m of request.messages.slice(last + 1)) {
    if (m._tag === "ToolMessage") {
      if (m.status === "ok") seen.ok++
      else seen.failed++
    }
  }
}

const soakModel = Model.Model.of({
  stream: (request) =>
    Stream.unwrap(Effect.suspend(() => {
      const { plan, turn } = planOf(request)
      countSeen(request, turn)
      if (turn === 0) {
        const random = mulberry32(plan.seed)
        const names = request.tools.map((t) => t.name).filter((n) =>
          !n.endsWith("__report") && (plan.ending === "interruption" || !n.endsWith("__wait"))
        )
        const picked = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
          names[Math.floor(random() * names.length)]!)
        const events: Array<Model.ModelEvent> = picked.map((name, i) => ({
          _tag: "ToolCall" as const,
          call: new Message.ToolCall({
            id: `call_${i}`,
            name,
            arguments: { text: "soak", ms: Math.floor(random() * 40) }
          })
        }))
        return Effect.succeed(Stream.fromIterable([...events, finish(events.length)]))
      }
      if (plan.ending === "failure") {
        return new Model.ModelError({ reason: "Unknown", description: "the model gave up (planned)" })
      }
      return Effect.succeed(Stream.fromIterable([{ _tag: "TextDelta" as const, text: "done" }, finish(0)]))
    }))
})

// -----------------------------------------------------------------------------
// the burst: many requests at once on a fresh layer
// -----------------------------------------------------------------------------

/** A call that ends later than this after its server answered was kept waiting by this process. */
export const lateAfterMs = 1_000

// A stdio server whose `echo` answers with the time it answered (its module resolves from the repository).
const stampServerSource = `
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
const server = new Server({ name: "stamp", version: "1.0.0" }, { capabilities: { tools: {} } })
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "echo", inputSchema: { type: "object" } }] }))
server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: "text", text: "answered at " + Date.now() }] }))
await server.connect(new StdioServerTransport())
process.stdin.once("end", () => process.exit(0))
`
const root = Path.join(import.meta.dirname, "..")

/**
 * `requests` requests at once on a fresh layer whose servers are a stamping stdio server and two calm ones: each
 * request lists the tools (one of them discovers for all) and calls `stamp__echo` on a connection of its own.
 */
const burst = (requests: number, marker: string) =>
  Effect.gen(function*() {
    const stamp = McpServerConfig.stdio({
      name: "stamp",
      command: process.execPath,
      args: ["--input-type=module", "--eval", stampServerSource],
      cwd: root,
      env: { ZETT_TEST_MARKER: marker }
    })
    // how late each call ended after its server's answer, as the model saw the result
    const lateness: Array<number> = []
    const usage = new Message.Usage({ inputTokens: 0, outputTokens: 0 })
    const model = Model.Model.of({
      stream: (request) =>
        Stream.unwrap(Effect.sync((): Stream.Stream<Model.ModelEvent> => {
          const result = request.messages.find((m): m is Message.ToolMessage => m._tag === "ToolMessage")
          if (result === undefined) {
            return Stream.make<Array<Model.ModelEvent>>(
              { _tag: "ToolCall", call: new Message.ToolCall({ id: "call_0", name: "stamp__echo", arguments: {} }) },
              { _tag: "Finish", reason: "tool_calls", usage }
            )
          }
          const answered = /answered at (\d+)/.exec(JSON.stringify(result.content))?.[1]
          if (answered !== undefined) lateness.push(Date.now() - Number(answered))
          return Stream.make<Array<Model.ModelEvent>>({ _tag: "TextDelta", text: "done" }, {
            _tag: "Finish",
            reason: "stop",
            usage
          })
        }))
    })
    const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(McpLayers.layer({
        servers: [stamp, stdioFault("calm", marker, ["none"]), stdioFault("calm2", marker, ["none"])],
        connectTimeout: "60 seconds",
        callTimeout: "60 seconds"
      })),
      Layer.provide(factoryLayer({})),
      Layer.provide(NodeContext.layer),
      Layer.provide(Layer.succeed(Model.Model, model))
    )
    yield* Effect.forEach(Array.from({ length: requests }), () => Effect.exit(Agent.run("go")), {
      concurrency: "unbounded",
      discard: true
    }).pipe(Effect.provide(layer))
    return {
      requests,
      calls: lateness.length,
      late: lateness.filter((ms) => ms > lateAfterMs).length,
      maxLateMs: Math.max(0, ...lateness)
    }
  })

// -----------------------------------------------------------------------------
// the run
// -----------------------------------------------------------------------------

const quietLogs = Layer.merge(Logger.remove(Logger.defaultLogger), Logger.minimumLogLevel(LogLevel.None))

/**
 * Runs the soak and reports; never throws for a leak (that is in the report).
 */
export const soak = (
  options: { readonly count: number; readonly concurrency?: number; readonly seed?: number; readonly burst?: number }
) =>
  Effect.gen(function*() {
    const count = options.count
    const seed = options.seed ?? 1
    const random = mulberry32(seed)
    const marker = Crypto.randomUUID()
    const startedAt = Date.now()
    const bursted = (options.burst ?? 0) > 0 ? yield* burst(options.burst!, marker) : undefined

    // HTTP servers live for the whole soak (they are the network, not the request's)
    const servers = yield* Scope.make()
    const [web, broken, amnesiac] = yield* Effect.all(
      [
        httpFault(`${marker}-http`, ["none"]),
        httpFault(`${marker}-http`, ["http-500"]),
        httpFault(`${marker}-http`, ["forget-session"])
      ],
      { concurrency: "unbounded" }
    ).pipe(Scope.extend(servers))

    const factory = factoryLayer({ mem: memoryServer })
    const mem = McpServerConfig.http({ name: "mem", url: "http://127.0.0.1:9/mcp" })
    const calm = stdioFault("calm", marker, ["none"])

    let compactions = 0
    const compaction: Agent.Compaction = {
      shouldCompact: (messages) =>
        messages.some((m) => m._tag === "UserMessage" && m.content.includes("\"compaction\"")) &&
        messages.some((m) => m._tag === "ToolMessage"),
      compact: (messages) => Effect.sync(() => (compactions++, messages))
    }

    // agents live for the whole soak, as in an application; requests come and go
    const profiles = [
      {
        weight: 6,
        options: {
          servers: [
            mem,
            calm,
            stdioFault("crash", marker, ["exit-during-call"]),
            stdioFault("noisy", marker, ["garbage-stdout"]),
            McpServerConfig.http({ name: "web", url: web }),
            McpServerConfig.http({ name: "broken", url: broken }),
            McpServerConfig.http({ name: "amnesiac", url: amnesiac })
          ],
          connectTimeout: "3 seconds",
          callTimeout: "1 second"
        }
      },
      // a cold cache: every request discovers, so a stdio server starts for each one
      {
        weight: 1,
        options: { servers: [mem, calm], cache: { ttl: 0 }, connectTimeout: "3 seconds", callTimeout: "1 second" }
      },
      // a server that never answers initialize: every request waits for connectTimeout
      {
        weight: 1,
        options: {
          servers: [mem, stdioFault("mute", marker, ["silent-initialize"])],
          connectTimeout: "300 millis",
          callTimeout: "1 second"
        }
      }
    ] as const
    const layers = yield* Scope.make()
    const agents = yield* Effect.forEach(profiles, (profile) =>
      Layer.buildWithScope(
        Agent.layer({ extensions: [McpExtension.McpExtension], compaction }).pipe(
          Layer.provide(McpLayers.layer(profile.options)),
          Layer.provide(factory),
          Layer.provide(NodeContext.layer),
          Layer.provide(Layer.succeed(Model.Model, soakModel))
        ),
        layers
      ).pipe(Effect.map((context) => ({ weight: profile.weight, agent: Context.get(context, Agent.Agent) }))))
    const totalWeight = agents.reduce((n, a) => n + a.weight, 0)

    const plans = Array.from({ length: count }, (): { readonly plan: Plan; readonly agent: number } => {
      let pick = random() * totalWeight
      let agent = 0
      while (pick >= agents[agent]!.weight) pick -= agents[agent++]!.weight
      return {
        plan: {
          ending: endings[Math.floor(random() * endings.length)]!,
          seed: Math.floor(random() * 2 ** 31),
          interruptAfterMs: Math.floor(random() * 150)
        },
        agent
      }
    })

    const planned = { success: 0, failure: 0, interruption: 0, compaction: 0 }
    const outcomes = { succeeded: 0, failed: 0, interrupted: 0, compacted: 0, hung: 0 }
    seen.ok = 0
    seen.failed = 0
    seen.unavailable = 0
    const supervisor = yield* Supervisor.track

    // every request started is counted, and every request that ended, however it ended
    let started = 0
    let ended = 0
    const one = ({ agent: index, plan }: { readonly plan: Plan; readonly agent: number }) =>
      Effect.gen(function*() {
        started++
        planned[plan.ending]++
        const agent = agents[index]!.agent
        const run = agent.run(JSON.stringify(plan))
        let exit: Exit.Exit<Message.AssistantMessage, unknown>
        if (plan.ending === "interruption") {
          const fiber = yield* Effect.fork(run)
          yield* Effect.sleep(Duration.millis(plan.interruptAfterMs))
          exit = yield* Fiber.interrupt(fiber)
        } else {
          exit = yield* Effect.exit(run)
        }
        if (plan.ending === "compaction") yield* Effect.ignore(agent.compact)
        if (Exit.isSuccess(exit)) {
          if (plan.ending === "compaction") outcomes.compacted++
          else outcomes.succeeded++
        } else if (Exit.isInterrupted(exit)) {
          outcomes.interrupted++
        } else {
          outcomes.failed++
        }
      }).pipe(
        // a request that does not end within 30 s is a hang: counted, and cut off so the soak goes on
        Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => "hung" as const }),
        Effect.catchAll(() => Effect.sync(() => void outcomes.hung++)),
        Effect.ensuring(Effect.sync(() => void ended++))
      )

    const heapNow = () => {
      globalThis.gc?.()
      globalThis.gc?.()
      return process.memoryUsage().heapUsed
    }
    const socketsBefore = sockets()
    const warmup = Math.min(plans.length, Math.max(10, Math.floor(count / 20)))
    const concurrency = options.concurrency ?? 8
    yield* Effect.forEach(plans.slice(0, warmup), one, { concurrency, discard: true }).pipe(
      Effect.supervised(supervisor)
    )
    const heapBefore = heapNow()
    yield* Effect.forEach(plans.slice(warmup), one, { concurrency, discard: true }).pipe(Effect.supervised(supervisor))

    // every request has ended: what is left now was left by a request
    const liveFibers = (yield* supervisor.value).filter((fiber) => fiber.unsafePoll() === null)
    const processes = withMarker(marker)
    const leftSockets = newSockets(socketsBefore)
    const heapGrowth = (heapNow() - heapBefore) / 1024 / 1024

    yield* Scope.close(layers, Exit.void)
    yield* Scope.close(servers, Exit.void)

    const leaks = {
      processes: processes.length,
      sockets: leftSockets.length,
      fibers: liveFibers.length,
      heapGrowthMB: Math.round(heapGrowth * 100) / 100
    }
    const report: SoakReport = {
      count,
      seed,
      planned,
      outcomes,
      requests: { started, ended },
      toolCalls: { ok: seen.ok, failed: seen.failed },
      unavailable: seen.unavailable,
      compactions,
      ...(bursted !== undefined ? { burst: bursted } : {}),
      leaks,
      ms: Date.now() - startedAt,
      // every planned request started, and every started one ended
      ok: started === count && ended === started && outcomes.hung === 0 && leaks.processes === 0 &&
        leaks.sockets === 0 &&
        leaks.fibers === 0 && heapGrowth < 10 &&
        (bursted === undefined || (bursted.calls === bursted.requests && bursted.late === 0))
    }
    return report
  }).pipe(Effect.provide(quietLogs))

if (process.argv[1]?.endsWith("soak.ts")) {
  let line: ReturnType<typeof commandLine>
  try {
    line = commandLine()
  } catch (error) {
    process.stderr.write(`soak: ${(error as Error).message}\n`)
    process.exit(2)
  }
  const report = await Effect.runPromise(
    soak({ count: line.count, concurrency: line.concurrency, seed: line.seed, burst: line.burst })
  )
  if (line.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`)
  } else {
    const { leaks, outcomes, planned } = report
    process.stdout.write(
      [
        `soak: ${report.count} requests (seed ${report.seed}) in ${(report.ms / 1000).toFixed(1)} s`,
        `planned:   success ${planned.success}, failure ${planned.failure}, interruption ${planned.interruption}, compaction ${planned.compaction}`,
        `ended:     succeeded ${outcomes.succeeded}, failed ${outcomes.failed}, interrupted ${outcomes.interrupted}, compacted ${outcomes.compacted}, hung ${outcomes.hung}`,
        `requests:  ${report.requests.started} of ${report.count} started, ${report.requests.ended} ended`,
        `seen:      tool results ok ${report.toolCalls.ok}, failed ${report.toolCalls.failed}; unavailable servers ${report.unavailable}; compactions ${report.compactions}`,
        ...(report.burst === undefined ? [] : [
          `burst:     ${report.burst.requests} requests at once on a fresh layer, ${report.burst.calls} calls: ` +
          `${report.burst.late} ended more than ${lateAfterMs} ms after their server answered (at most ${report.burst.maxLateMs} ms)`
        ]),
        `left:      processes ${leaks.processes}, sockets ${leaks.sockets}, fibers ${leaks.fibers}, heap growth ${leaks.heapGrowthMB} MB`,
        report.ok ? "OK: zero leaks" : "LEAKS OR LOST REQUESTS",
        ""
      ].join("\n")
    )
  }
  process.exitCode = report.ok ? 0 : 1
}
