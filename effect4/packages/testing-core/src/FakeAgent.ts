/**
 * An agent with the MCP extension over fake servers (`FakeMcp`) and a scripted model that records every model
 * request, and readers of a recorded request's system and tool messages: the 3 line's `@zett/testing-core/FakeMcp`
 * `agentWith` on Effect 4. It imports only the core and the agent: no driver, no SDK, no server.
 */
import * as Agent from "@zett/agent/Agent"
import type * as Extension from "@zett/agent/Extension"
import type * as Message from "@zett/agent/Message"
import type * as Model from "@zett/agent/Model"
import * as ScriptedModel from "@zett/agent/ScriptedModel"
import * as McpClientFactory from "@zett/mcp/McpClientFactory"
import * as McpError from "@zett/mcp/McpError"
import * as McpExtension from "@zett/mcp/McpExtension"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as McpServers from "@zett/mcp/McpServers"
import * as McpToolCache from "@zett/mcp/McpToolCache"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** The agent's MCP extension on fake servers: the extension's options, flat, and the services it needs. */
export interface Options extends McpExtension.Options {
  /** The servers: a list written in code, or any `McpServers` layer (e.g. `servers` below, edited by a test). */
  readonly servers?: ReadonlyArray<McpServerConfig.McpServerConfig> | Layer.Layer<McpServers.McpServers> | undefined
  /** The client factory, usually a `fakeFactory`'s; without it every connect fails. */
  readonly clientFactory?: McpClientFactory.McpClientFactory["Service"] | undefined
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
export const servers = (initial: ReadonlyArray<McpServerConfig.McpServerConfig>, path?: string) => {
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

/** A recorded model request, as the model got it. */
export type Recorded = Model.ModelRequest

/** Records every model request of `steps` in `requests`. */
export const recording = (steps: ReadonlyArray<ScriptedModel.Step>) => {
  const requests: Array<Recorded> = []
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
  agentOptions: Agent.Options<ReadonlyArray<Extension.Any>> = {}
) => {
  const { recorded, requests } = recording(steps)
  const agent = Agent.layer({
    ...agentOptions,
    extensions: [Effect.service(McpExtension.McpExtension), ...(agentOptions.extensions ?? [])]
  }).pipe(
    Layer.provide(layer(options)),
    Layer.provide(ScriptedModel.layer(recorded))
  )
  return { layer: agent, requests }
}

/** The system message of a recorded request. */
export const systemOf = (request: { readonly messages: ReadonlyArray<Message.Message> }): string =>
  request.messages[0]?._tag === "SystemMessage" ? request.messages[0].content : ""

/** The tool messages of a recorded request. */
export const toolMessages = (
  request: { readonly messages: ReadonlyArray<Message.Message> }
): ReadonlyArray<Message.ToolMessage> =>
  request.messages.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
