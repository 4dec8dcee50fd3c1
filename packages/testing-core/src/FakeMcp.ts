/**
 * Fake MCP servers for the core's tests: a client factory over `McpClient.make` drivers (every delay an Effect
 * sleep, so `TestClock` drives it) that counts connects, closes and calls, an agent with the MCP extension and a
 * scripted model that records every model request, and readers of a recorded request's system and tool messages.
 *
 * It imports only the core (`@zett/mcp`) and the agent: no driver, no SDK, no server. The same agent over the
 * Node driver and a configuration file is `McpLayers.agentWith`.
 */
import * as Agent from "@zett/agent/Agent"
import type * as Message from "@zett/agent/Message"
import type * as Model from "@zett/agent/Model"
import * as ScriptedModel from "@zett/agent/ScriptedModel"
import * as McpClient from "@zett/mcp/McpClient"
import * as McpClientFactory from "@zett/mcp/McpClientFactory"
import * as McpError from "@zett/mcp/McpError"
import * as McpExtension from "@zett/mcp/McpExtension"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as McpServers from "@zett/mcp/McpServers"
import * as McpToolCache from "@zett/mcp/McpToolCache"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A tool as a server lists it. */
export type Tool = McpClient.ListToolsPage["tools"][number]

/** A `tools/call` result as a server answers it. */
export type CallToolResult = Effect.Effect.Success<ReturnType<McpClient.McpClient["callTool"]>>

/** How a fake server behaves; every delay is an Effect sleep, so TestClock drives it. */
export interface FakeServer {
  readonly tools?: ReadonlyArray<Tool>
  /** pages of tools with explicit cursors (and a caching hint each, if any); overrides `tools` */
  readonly pages?: (
    cursor: string | undefined
  ) => { tools: ReadonlyArray<Tool>; nextCursor?: string; cache?: McpClient.CacheHint }
  /** The caching hint every page of `tools` carries (a server of 2026-07-28). */
  readonly cache?: McpClient.CacheHint | undefined
  readonly connectDelay?: Duration.DurationInput | undefined
  readonly listDelay?: Duration.DurationInput
  readonly connectError?: string | undefined
  /** What the server says of itself when connected to (`instructions`). */
  readonly instructions?: string | undefined
  readonly call?: (
    name: string,
    args: Record<string, unknown>,
    options?: McpClient.CallOptions
  ) => Effect.Effect<CallToolResult, McpError.McpRequestError>
  /** The rest of the driver, as `McpClient.make` takes it: list changes, other requests, notifications, skills. */
  readonly driver?: Omit<McpClient.Driver, "server" | "listTools" | "callTool" | "instructions"> | undefined
}

export const tool = (
  name: string,
  inputSchema: Record<string, unknown> = { type: "object" },
  description = `the ${name} tool`
): Tool => ({ name, description, inputSchema: inputSchema as Tool["inputSchema"] })

export const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] })

/** A client factory over fake servers that counts connects, closes and calls per server. */
export const fakeFactory = (servers: Record<string, FakeServer>) => {
  const stats = {
    connects: {} as Record<string, number>,
    closes: {} as Record<string, number>,
    calls: [] as Array<{ server: string; name: string; args: unknown }>,
    open: () => Object.keys(stats.connects).reduce((n, k) => n + stats.connects[k]! - (stats.closes[k] ?? 0), 0)
  }
  const factory = McpClientFactory.of((server: McpServerConfig.McpServerConfig) =>
    Effect.gen(function*() {
      const fake = servers[server.name]
      stats.connects[server.name] = (stats.connects[server.name] ?? 0) + 1
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => void (stats.closes[server.name] = (stats.closes[server.name] ?? 0) + 1))
      )
      if (fake === undefined) {
        return yield* new McpError.McpConnectError({
          server: server.name,
          reason: "Start",
          description: "unknown server"
        })
      }
      if (fake.connectDelay !== undefined) yield* Effect.sleep(fake.connectDelay)
      if (fake.connectError !== undefined) {
        return yield* new McpError.McpConnectError({
          server: server.name,
          reason: "Network",
          description: fake.connectError
        })
      }
      const client = McpClient.make({
        ...fake.driver,
        server: server.name,
        instructions: fake.instructions,
        listTools: (cursor) =>
          Effect.gen(function*() {
            if (fake.listDelay !== undefined) yield* Effect.sleep(fake.listDelay)
            if (fake.pages !== undefined) {
              const page = fake.pages(cursor)
              return { tools: page.tools, nextCursor: page.nextCursor, cache: page.cache }
            }
            return { tools: fake.tools ?? [], nextCursor: undefined, cache: fake.cache }
          }),
        callTool: (name, args, options) =>
          Effect.suspend(() => {
            stats.calls.push({ server: server.name, name, args })
            return fake.call?.(name, args, options) ?? Effect.succeed(text(`${name} called`))
          })
      })
      return client
    })
  )
  return { factory, stats }
}

/** The agent's MCP extension on fake servers: the extension's options, flat, and the services it needs. */
export interface Options extends McpExtension.Options {
  /** The servers: a list written in code, or any `McpServers` layer (e.g. `servers` below, edited by a test). */
  readonly servers?: ReadonlyArray<McpServerConfig.McpServerConfig> | Layer.Layer<McpServers.McpServers> | undefined
  /** The client factory, usually a `fakeFactory`'s; without it every connect fails. */
  readonly clientFactory?: McpClientFactory.McpClientFactory["Type"] | undefined
  /** The tool cache: a layer, or the in-memory cache's options (default: in memory, 5 minutes). */
  readonly cache?: Layer.Layer<McpToolCache.McpToolCache> | McpToolCache.MemoryOptions | undefined
}

const noFactory = McpClientFactory.of((server) =>
  Effect.fail(new McpError.McpConnectError({ server: server.name, reason: "Start", description: "no client factory" }))
)

/**
 * `McpExtension.layer` over fake servers, with no driver: the servers written in code (or the `McpServers` layer
 * given), the client factory given and the tool cache (`cache`).
 */
export const layer = (options: Options = {}): Layer.Layer<McpExtension.McpExtension, McpError.McpConfigError> => {
  const { cache, clientFactory, servers, ...extension } = options
  const serversLayer = servers === undefined
    ? McpServers.layer([])
    : Layer.isLayer(servers)
    ? servers as Layer.Layer<McpServers.McpServers>
    : McpServers.layer(servers as ReadonlyArray<McpServerConfig.McpServerConfig>)
  const cacheLayer = cache !== undefined && Layer.isLayer(cache)
    ? cache as Layer.Layer<McpToolCache.McpToolCache>
    : McpToolCache.layerMemory(cache as McpToolCache.MemoryOptions | undefined)
  return McpExtension.layer(extension).pipe(
    Layer.provide(Layer.mergeAll(
      serversLayer,
      cacheLayer,
      Layer.succeed(McpClientFactory.McpClientFactory, clientFactory ?? noFactory)
    ))
  )
}

/**
 * The servers of a configuration that a test edits between requests, as a file re-read would give them: `set`
 * replaces the list (`current` gives it from then on), `path` is the configuration's path the extension names.
 */
export const servers = (
  initial: ReadonlyArray<McpServerConfig.McpServerConfig>,
  path?: string
) => {
  let list = initial
  const snapshot = (): McpServers.Snapshot => ({ path, servers: list, skipped: [] })
  const service = McpServers.McpServers.of({
    path,
    get servers() {
      return list
    },
    skipped: [],
    current: Effect.sync(snapshot)
  })
  return {
    layer: Layer.succeed(McpServers.McpServers, service),
    set: (next: ReadonlyArray<McpServerConfig.McpServerConfig>) => void (list = next)
  }
}

/** Records every model request of `steps` (its messages and tools) in `requests`. */
export const recording = (steps: ReadonlyArray<ScriptedModel.Step>) => {
  const requests: Array<Model.ModelRequest> = []
  const recorded = steps.map((step): ScriptedModel.Step => (request) => {
    requests.push(request)
    return typeof step === "function" ? step(request) : step
  })
  return { recorded, requests }
}

/** An agent with the MCP extension over fake servers (`layer`) and a scripted model, recording every model request. */
export const agentWith = (
  options: Options,
  steps: ReadonlyArray<ScriptedModel.Step>,
  agentOptions: Agent.Options = {}
) => {
  const { recorded, requests } = recording(steps)
  const agent = Agent.layer({
    ...agentOptions,
    extensions: [McpExtension.McpExtension, ...(agentOptions.extensions ?? [])]
  }).pipe(
    Layer.provide(layer(options)),
    Layer.provide(ScriptedModel.layer(recorded))
  )
  return { layer: agent, requests }
}

/** The system message of a recorded request. */
export const systemOf = (request: { messages: ReadonlyArray<Message.Message> }) =>
  request.messages[0]?._tag === "SystemMessage" ? request.messages[0].content : ""

/** The tool messages of a recorded request. */
export const toolMessages = (request: { messages: ReadonlyArray<Message.Message> }) =>
  request.messages.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
