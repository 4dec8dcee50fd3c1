// Zett as an application uses it: an Agent with the McpExtension (McpExtension.layer, default services) and
// a ScriptedModel. "Open" is one request up to the moment the model is called with the tools registered;
// the model's first step then waits until the benchmark releases it, so the request (and its connections)
// stays open while calls are timed through the registered tools' handlers (the path the agent takes).
import { Agent, type Extension, Message, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpLayers from "@zett/testing/McpLayers"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import {
  type Adapter,
  benchDir,
  callsInFiber,
  contextSwitches,
  packageVersion,
  type ServerSpec,
  type Session
} from "./common.js"
// : a plain ES module without types
import * as NodeContext from "@effect/platform-node/NodeContext"
import { makeServer } from "./testServer.mjs"

interface RequestHandle {
  readonly startedAt: number
  openedAt: number
  t0: number
  t1: number
  tools: number
  context: Extension.RunContext | undefined
  services: Context.Context<never> | undefined
  readonly opened: Promise<void>
  readonly onOpened: () => void
  readonly released: Promise<void>
  readonly release: () => void
  done: Promise<unknown>
}

const deferred = () => {
  let resolve!: () => void
  const promise = new Promise<void>((r) => (resolve = r))
  return { promise, resolve }
}

export const toMcpServer = (s: ServerSpec): McpServerConfig.McpServerConfig =>
  s.transport === "stdio"
    ? McpServerConfig.stdio({ name: s.name, command: s.command, args: [...s.args] })
    : McpServerConfig.http({ name: s.name, url: s.url })

export interface AppOptions {
  /** Whether a request waits in its first model step until released (default true). */
  readonly block?: boolean | undefined
  readonly extra?: Partial<McpExtension.Options> | undefined
  /** Layers that set the runtime's logger or log level (the fleet members log to stderr). */
  readonly logging?: Layer.Layer<never> | undefined
}

/** An agent app over a ready McpExtension layer; requests are started and released one at a time. */
export const makeApp = (mcp: Layer.Layer<McpExtension.McpExtension, unknown>, options: AppOptions = {}) => {
  const block = options.block ?? true
  let current: RequestHandle | undefined
  const t0: Extension.Extension = {
    name: "bench-before-mcp",
    onTool: () => Effect.sync(() => void (current !== undefined && (current.t0 = performance.now())))
  }
  const t1: Extension.Extension = {
    name: "bench-after-mcp",
    // the request's run context, and its services (the MCP extension's request state among them), for calls
    // made from outside the request's fiber as the agent makes them inside it
    onTool: (context) =>
      Effect.flatMap(Effect.context<never>(), (services) =>
        Effect.sync(() => {
          if (current === undefined) return
          current.t1 = performance.now()
          current.context = context
          current.services = services
        }))
  }
  const model = ScriptedModel.layer([
    (request) =>
      Effect.suspend(() => {
        const h = current
        if (!block || h === undefined) return Effect.succeed({ text: "done" })
        h.openedAt = performance.now()
        h.tools = request.tools.length
        h.onOpened()
        return Effect.as(Effect.promise(() => h.released), { text: "done" })
      })
  ], { loop: true })
  const runtime = ManagedRuntime.make(
    Layer.merge(
      Agent.layer({ extensions: [t0, McpExtension.McpExtension, t1] }).pipe(Layer.provide(mcp), Layer.provide(model)),
      options.logging ?? Layer.empty
    )
  )

  const startRequest = async () => {
    const opened = deferred()
    const released = deferred()
    const h: RequestHandle = {
      startedAt: performance.now(),
      openedAt: 0,
      t0: 0,
      t1: 0,
      tools: 0,
      context: undefined,
      services: undefined,
      opened: opened.promise,
      onOpened: opened.resolve,
      released: released.promise,
      release: released.resolve,
      done: Promise.resolve()
    }
    current = h
    h.done = runtime.runPromise(Agent.run("go"))
    await Promise.race([
      h.opened,
      h.done.then(() => {
        throw new Error("the request ended before the model was called")
      })
    ])
    return { tools: h.tools, openMs: h.openedAt - h.startedAt, registrationMs: h.t1 - h.t0 }
  }

  const endRequest = async () => {
    const h = current
    if (h === undefined) return
    h.release()
    await h.done
    current = undefined
  }

  const toolOf = (name: string) => {
    const h = current
    const tool = h?.context?.tools.get(name)
    if (h === undefined || h.context === undefined || h.services === undefined || tool === undefined) {
      throw new Error(`no tool ${name} in this request`)
    }
    return { tool, context: h.context, services: h.services }
  }

  let callId = 0
  const call = (name: string, text: string) => {
    const { context, tool } = toolOf(name)
    return tool.handle({ text }, new Message.ToolCall({ id: `call_${++callId}`, name, arguments: { text } }), context)
  }
  // as the agent runs a request: with the request's services, provided once around what runs in it
  const inRequest = <A, E>(name: string, effect: Effect.Effect<A, E>) => Effect.provide(effect, toolOf(name).services)

  return {
    runtime,
    startRequest,
    endRequest,
    /** One call through the registered tool's handler, as the agent runs it. */
    echo: (name: string, text: string) => runtime.runPromise(inRequest(name, call(name, text))),
    /** `n` sequential calls inside one fiber, as a turn's tool calls run inside the agent's fiber. */
    timeCalls: (name: string, n: number, prefix?: string) =>
      runtime.runPromise(inRequest(name, callsInFiber(n, (text) => call(name, text), prefix))),
    /** A whole request that answers at once (for concurrency cases). */
    run: () => runtime.runPromise(Agent.run("go")),
    dispose: async () => {
      await endRequest()
      await runtime.dispose()
    }
  }
}

// every tool reaches the model, as the cases count: tool search (on past 40 tools by default) is measured by
// scripts/toolsearch
export const zettLayer = (servers: ReadonlyArray<ServerSpec>, extra?: Omit<McpLayers.Options, "servers">) =>
  McpLayers.layerNode({ servers: servers.map(toMcpServer), toolSearch: { mode: "off" }, ...extra })

export const echoName = (s: ServerSpec) => `${s.name}__${s.prefix}echo`

export const zettAdapter = (label: string, extra?: Omit<McpLayers.Options, "servers">): Adapter => ({
  label,
  packages: () => [
    "@zett/mcp (this repo)",
    packageVersion("effect", benchDir),
    packageVersion("@modelcontextprotocol/client", benchDir)
  ],
  load: async () => ({}),
  open: async (_lib, servers): Promise<Session> => {
    const app = makeApp(zettLayer(servers, extra))
    const first = await app.startRequest()
    const name = echoName(servers[0]!)
    return {
      tools: first.tools,
      echo: (text) => app.echo(name, text),
      timeCalls: (n, prefix) => app.timeCalls(name, n, prefix),
      again: async () => {
        await app.endRequest()
        const second = await app.startRequest()
        await app.endRequest()
        return { tools: second.tools, registrationMs: second.registrationMs, requestMs: second.openMs }
      },
      endRequest: app.endRequest,
      close: app.dispose
    }
  }
})

export const zett = zettAdapter("Zett (McpExtension + Agent)")

/** The agent with an in-memory server (NodeMcpClientFactory.layerInMemory): no process, no socket. */
export const inMemoryApp = (options: {
  readonly k: number
  readonly toolCall: boolean
  readonly pool: boolean
}) => {
  const mcp = McpLayers.layer({
    servers: [McpServerConfig.http({ name: "demo", url: "http://127.0.0.1:9/in-memory" })],
    ...(options.pool ? { connectionPool: { idleTimeToLive: "5 minutes" } } : {})
  }).pipe(
    Layer.provide(NodeMcpClientFactory.layerInMemory({ demo: () => makeServer({ k: options.k, prefix: "" }) })),
    Layer.provide(NodeContext.layer)
  )
  const steps: Array<ScriptedModel.Step> = options.toolCall
    ? [{ toolCalls: [{ name: "demo__echo", arguments: { text: "hi" } }] }, { text: "done" }]
    : [{ text: "done" }]
  const runtime = ManagedRuntime.make(
    Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(mcp),
      Layer.provide(ScriptedModel.layer(steps, { loop: true }))
    )
  )
  return { runtime, run: Effect.flatMap(Agent.Agent, (agent) => agent.run("go")) }
}

/**
 * The agent's own path for tool calls: one `Agent.run` whose scripted model answers the first request with
 * `warmup` calls of `echo`, the second with `calls` calls, the third with text. The agent runs each call as
 * it runs any (hooks, the MCP tool handler under `callTimeout`, the tool message), one after another
 * (`toolConcurrency` 1, the default). Timed: from the model's second step (the `calls` calls are being
 * handed to the agent) to its third (every result appended, the next model request built), wall clock and
 * this process's CPU.
 */
export const agentCalls = async (
  servers: ReadonlyArray<ServerSpec>,
  options: {
    readonly warmup: number
    readonly calls: number
    /** the timed calls as model steps of this many calls each, each step timed (the process's warm-up curve) */
    readonly chunk?: number | undefined
    /** put before each call's text (a larger request and result) */
    readonly prefix?: string | undefined
    readonly extra?: Partial<McpExtension.Options>
  }
) => {
  const name = echoName(servers[0]!)
  const batch = (n: number, label: string, from = 0) => ({
    toolCalls: Array.from(
      { length: n },
      (_, i) => ({ name, arguments: { text: `${options.prefix ?? ""}${label} ${from + i}` } })
    )
  })
  const warm = batch(options.warmup, "warm")
  const chunk = options.chunk ?? options.calls
  const steps = Array.from(
    { length: Math.ceil(options.calls / chunk) },
    (_, i) => batch(Math.min(chunk, options.calls - i * chunk), "hello", i * chunk)
  )
  let start = 0
  let cpu: NodeJS.CpuUsage | undefined
  let ms = 0
  let cpuUs = 0
  let switches = contextSwitches()
  let switched = switches
  let results: ReadonlyArray<Message.Message> = []
  const chunkMs: Array<number> = []
  let stepStart = 0
  const model = ScriptedModel.layer([
    // a step without calls would end the run
    ...(options.warmup > 0 ? [warm] : []),
    () => {
      switches = contextSwitches()
      cpu = process.cpuUsage()
      start = performance.now()
      stepStart = start
      return steps[0]!
    },
    ...steps.slice(1).map((step) => () => {
      const now = performance.now()
      chunkMs.push(now - stepStart)
      stepStart = now
      return step
    }),
    (request) => {
      const now = performance.now()
      chunkMs.push(now - stepStart)
      ms = now - start
      const used = process.cpuUsage(cpu)
      cpuUs = used.user + used.system
      switched = contextSwitches(switches)
      results = request.messages
      return { text: "done" }
    }
  ])
  const runtime = ManagedRuntime.make(
    Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(zettLayer(servers, options.extra)),
      Layer.provide(model)
    )
  )
  const reply = await runtime.runPromise(Agent.run("go"))
  await runtime.dispose()
  const tools = results.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
  const last = tools.at(-1)
  return {
    ms,
    cpuUs,
    switched,
    chunkMeansMs: chunkMs.map((total, i) => total / steps[i]!.toolCalls.length),
    ok: reply.content === "done" && tools.length === options.warmup + options.calls &&
      tools.every((m) => m.status === "ok") && JSON.stringify(last?.content).includes(`hello ${options.calls - 1}`)
  }
}
