/**
 * The 3 line's `@zett/testing/Faults` on Effect 4. The fault-injecting MCP server (servers/faulty-server.mjs: one fault per `--fault=<name>`, over stdio or
 * Streamable HTTP) and its server definitions, the client factory the fault runs use, a naive npx-style
 * wrapper, and what a fault test checks afterwards: processes carrying the test's marker and sockets of this
 * process. Shared by the test suites and the soak.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Agent, type Message, type Model, ScriptedModel } from "@zett/agent"
import { McpClientFactory, McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { captureLogs, type LogLine } from "@zett/testing-core/CapturedLogs"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as McpLayers from "./mcpLayers.js"
import * as Processes from "./processes.js"
import { faultyServer, node } from "./servers.js"

export { faultyServer, node, wrapper } from "./servers.js"

/** Live processes whose environment carries `ZETT_TEST_MARKER=<marker>`. */
export const withMarker = (marker: string): Array<Processes.ProcessInfo> =>
  Processes.list().filter((p) => {
    if (!Processes.isLive(p)) return false
    try {
      return Fs.readFileSync(`/proc/${p.pid}/environ`, "latin1").split("\0").includes(`ZETT_TEST_MARKER=${marker}`)
    } catch {
      return false
    }
  })

/** The socket inodes this process holds open (`/proc/self/fd` links `socket:[n]`). */
export const sockets = (): Set<string> => {
  const out = new Set<string>()
  for (const fd of Fs.readdirSync("/proc/self/fd")) {
    try {
      const link = Fs.readlinkSync(`/proc/self/fd/${fd}`)
      if (link.startsWith("socket:")) out.add(link)
    } catch {
      // closed meanwhile
    }
  }
  return out
}

/** The sockets open now that were not open in `before`. */
export const newSockets = (before: ReadonlySet<string>): Array<string> => [...sockets()].filter((s) => !before.has(s))

/** The command line of the fault server over stdio, for a server definition or a configuration entry. */
export const stdioArgs = (
  name: string,
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string> = []
): Array<string> => [faultyServer, ...faults.map((f) => `--fault=${f}`), `--name=${name}`, ...extra]

/** A stdio server definition of the fault server, its process marked with `marker`. */
export const stdioFault = (
  name: string,
  marker: string,
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string> = []
): McpServerConfig.McpStdioServer =>
  McpServerConfig.stdio({
    name,
    command: node,
    args: stdioArgs(name, faults, extra),
    env: { ZETT_TEST_MARKER: marker }
  })

/**
 * The SDK-backed client factory (short close steps unless `options` say otherwise), except for the servers
 * named in `inMemory`, which are reached in-process whatever their definition says.
 */
export const factoryLayer = (
  inMemory: Readonly<
    Record<string, () => NodeMcpClientFactory.InMemoryServer | Promise<NodeMcpClientFactory.InMemoryServer>>
  >,
  options: NodeMcpClientFactory.Options = { closeTimeout: "300 millis" }
): Layer.Layer<McpClientFactory.McpClientFactory> =>
  Layer.effect(
    McpClientFactory.McpClientFactory,
    Effect.gen(function*() {
      const sdk = yield* NodeMcpClientFactory.make(options)
      const memory = yield* NodeMcpClientFactory.makeInMemory(inMemory)
      return McpClientFactory.of((
        server
      ) => (Object.hasOwn(inMemory, server.name) ? memory.connect(server) : sdk.connect(server)))
    })
  ).pipe(Layer.provide(ProcessGroups.layer))

/** Starts the fault server over Streamable HTTP for the length of the scope; its `/mcp` URL. */
export const httpFault = (
  marker: string,
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string> = []
): Effect.Effect<string, Error, Scope.Scope> =>
  Effect.map(
    Processes.spawnScoped({
      command: node,
      args: [faultyServer, "--http", "--port=0", ...faults.map((f) => `--fault=${f}`), ...extra],
      env: { ZETT_TEST_MARKER: marker },
      ready: /listening on (\S+)/
    }),
    (p) => /listening on (\S+)/.exec(p.output())![1]!
  )

/** One line of a fault server's own record (`--record=<file>`). */
export interface RecordEntry {
  readonly event: "ready" | "SIGTERM" | "wait-started" | "wait-cancelled"
  readonly pid: number
  /** SIGTERM: the servers of the same record that had not exited when this one received it */
  readonly alive?: ReadonlyArray<number>
}

/** What the fault servers wrote to a record file (`--record=<file>`), in order. */
export const readRecord = (file: string): Array<RecordEntry> =>
  Fs.existsSync(file)
    ? Fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as RecordEntry
    )
    : []

// the 3 line's helpers of the driver's fault suite (its test/utils/faults.ts)

/** A healthy in-process server (`echo`), reached through the in-memory client factory as `healthy`. */
export const healthyServer = (): Server => {
  const server = new Server({ name: "healthy", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: "echo", description: "echoes", inputSchema: { type: "object" } }]
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: `healthy echo: ${String(request.params.arguments?.text ?? "")}` }]
  }))
  return server
}

export const healthy = McpServerConfig.http({ name: "healthy", url: "http://127.0.0.1:9/mcp" })

/** The SDK-backed factory (short close steps), except `healthy`, which is in-process. */
export const faultFactoryLayer = (options?: NodeMcpClientFactory.Options) =>
  factoryLayer({ healthy: healthyServer }, options)

export interface RequestReport {
  readonly exit: Exit.Exit<Message.AssistantMessage, unknown>
  /** every request the model received */
  readonly requests: ReadonlyArray<Model.ModelRequest>
  /** fibers forked during the request that still run after it */
  readonly fibers: number
  /** live processes with the marker, right after the request */
  readonly processes: ReadonlyArray<Processes.ProcessInfo>
  /** sockets of this process opened during the request and still open */
  readonly sockets: ReadonlyArray<string>
  readonly logs: ReadonlyArray<LogLine>
  readonly ms: number
}

/**
 * Runs one agent request with the MCP extension over `servers` and a scripted model, then reports what
 * the request left behind. The tool cache starts cold (a fresh layer per request).
 */
export const runRequest = (options: {
  readonly marker: string
  readonly servers: ReadonlyArray<McpServerConfig.McpServerConfig>
  readonly steps: ReadonlyArray<ScriptedModel.Step>
  readonly connectTimeout?: Duration.Input | undefined
  readonly callTimeout?: Duration.Input | undefined
  readonly factory?: NodeMcpClientFactory.Options | undefined
}): Effect.Effect<RequestReport> =>
  Effect.gen(function*() {
    const requests: Array<Model.ModelRequest> = []
    const steps = options.steps.map((step): ScriptedModel.Step => (request) => {
      requests.push(request)
      return typeof step === "function" ? step(request) : step
    })
    const logs = captureLogs()
    const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(McpLayers.layer({
        servers: options.servers,
        // generous unless a test is about a timeout: on a loaded machine a healthy server may take seconds to start
        connectTimeout: options.connectTimeout ?? "10 seconds",
        callTimeout: options.callTimeout ?? "10 seconds",
        // the model is offered every tool: the tests read the tools a faulty server's listing gave
        toolSearch: { mode: "off" }
      })),
      Layer.provide(faultFactoryLayer(options.factory)),
      Layer.provide(NodeServices.layer),
      Layer.provide(ScriptedModel.layer(steps)),
      Layer.provide(logs.layer)
    )
    const before = sockets()
    const start = Date.now()
    // Effect 4 has no `Supervisor` (the 3 line's `Supervisor.track`): the runtime tells this service of every fiber
    // started and ended under the request, the layer's own among them
    let fibers = 0
    const counting: Metric.FiberRuntimeMetricsService = {
      recordFiberStart: () => void fibers++,
      recordFiberEnd: () => void fibers--
    }
    const exit = yield* Agent.run("go").pipe(
      Effect.provide(layer.pipe(Layer.provideMerge(logs.layer))),
      Effect.exit,
      Effect.provideService(Metric.FiberRuntimeMetrics, counting)
    )
    const ms = Date.now() - start
    return {
      exit,
      requests,
      fibers,
      processes: withMarker(options.marker),
      sockets: newSockets(before),
      logs: logs.lines,
      ms
    }
  })

/** The system message of a model request. */
export const systemOf = (request: Model.ModelRequest | undefined): string =>
  request?.messages[0]?._tag === "SystemMessage" ? request.messages[0].content : ""

/** The tool messages of a model request, by tool name. */
export const toolResults = (request: Model.ModelRequest | undefined): Record<string, Message.ToolMessage> =>
  Object.fromEntries(
    (request?.messages ?? [])
      .filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
      .map((m) => [m.name, m])
  )
