/**
 * Helpers for the fault suite: the fault-injecting server (stdio or Streamable HTTP), a healthy in-process
 * server, and one agent request run under a fiber supervisor with the leaks it left behind: live processes
 * carrying the test's marker, sockets of this process, and fibers still running.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Agent, type Message, type Model, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import type { NodeMcpClientFactory } from "@zett/mcp-node"
import { captureLogs, type LogLine } from "@zett/testing-core/CapturedLogs"
import * as Faults from "@zett/testing/Faults"
import * as McpLayers from "@zett/testing/McpLayers"
import type * as Processes from "@zett/testing/Processes"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Supervisor from "effect/Supervisor"
import * as Path from "node:path"

export {
  faultyServer,
  httpFault,
  newSockets,
  node,
  sockets,
  stdioFault,
  withMarker,
  wrapper
} from "@zett/testing/Faults"
export const fixtures = Path.join(import.meta.dirname, "..", "fixtures", "servers")

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
export const factoryLayer = (options?: NodeMcpClientFactory.Options) =>
  Faults.factoryLayer({ healthy: healthyServer }, options)

export { captureLogs, type LogLine } from "@zett/testing-core/CapturedLogs"

export interface RequestReport {
  readonly exit: Exit.Exit<Message.AssistantMessage, unknown>
  /** every request the model received */
  readonly requests: ReadonlyArray<Model.ModelRequest>
  /** fibers forked during the request that still run after it */
  readonly fibers: ReadonlyArray<Fiber.RuntimeFiber<unknown, unknown>>
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
  readonly connectTimeout?: Duration.DurationInput | undefined
  readonly callTimeout?: Duration.DurationInput | undefined
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
      Layer.provide(factoryLayer(options.factory)),
      Layer.provide(NodeContext.layer),
      Layer.provide(ScriptedModel.layer(steps)),
      Layer.provide(logs.layer)
    )
    const before = Faults.sockets()
    const supervisor = yield* Supervisor.track
    const start = Date.now()
    const exit = yield* Agent.run("go").pipe(
      Effect.provide(layer),
      Effect.provide(logs.layer),
      Effect.supervised(supervisor),
      Effect.exit
    )
    const ms = Date.now() - start
    const fibers = yield* supervisor.value
    return {
      exit,
      requests,
      fibers: fibers.filter((fiber) => fiber.unsafePoll() === null),
      processes: Faults.withMarker(options.marker),
      sockets: Faults.newSockets(before),
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
