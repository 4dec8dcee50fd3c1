/**
 * The MCP extension on Node: `McpExtension.layer` with the SDK's client factory, the services that answer
 * servers' requests (elicitation, sampling, roots) installed on that factory, the tool cache, and
 * `NodePath.layer` for the roots' paths. Each service takes its
 * own options (`Options`: `extension`, `factory`, `cache`, ...). The servers come from an `McpServers` layer:
 * `McpServers.layer([...])` for servers written in code, `McpConfiguration.layer` of `@zett/mcp-config` for
 * config files.
 *
 * @since 1.0.0
 */
import * as NodePath from "@effect/platform-node/NodePath"
import type { AgentError, Model } from "@zett/agent"
import * as Agent from "@zett/agent/Agent"
import type * as McpClientFactory from "@zett/mcp/McpClientFactory"
import { McpClientFactory as ClientFactory } from "@zett/mcp/McpClientFactory"
import * as McpElicitation from "@zett/mcp/McpElicitation"
import type { McpConfigError } from "@zett/mcp/McpError"
import * as McpExtension from "@zett/mcp/McpExtension"
import * as McpRoots from "@zett/mcp/McpRoots"
import * as McpSampling from "@zett/mcp/McpSampling"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as McpServers from "@zett/mcp/McpServers"
import * as McpToolCache from "@zett/mcp/McpToolCache"
import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
import * as NodeMcpClientFactory from "./NodeMcpClientFactory.js"

// Only `Path` is needed (the roots): Effect 4's `@effect/platform-node` has a module per service, so the 3 line's
// lazily imported `NodeContext.layer` (command executor, file system, terminal, worker) is `NodePath.layer` here
const nodeContext: Layer.Layer<Path.Path> = NodePath.layer

/**
 * The tool cache of a one-layer constructor: a layer of its own (`RedisToolCache.layer(...)` of `@zett/mcp-redis`
 * to share tool lists across a fleet, or any `McpToolCache` layer), or the options of the in-memory cache
 * (`McpToolCache.MemoryOptions`: `ttl`, default 5 minutes, and `cacheHints`).
 *
 * @since 1.0.0
 * @category models
 */
export type CacheOption = Layer.Layer<McpToolCache.McpToolCache> | McpToolCache.MemoryOptions

/**
 * The options of the one-layer constructors, one group per service: each group is the options of that service's
 * own layer.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** The extension's options (`McpExtension.Options`: names, timeouts, tool filter and search, pool, ...). */
  readonly extension?: McpExtension.Options | undefined
  /** The SDK's client factory (`NodeMcpClientFactory.Options`: close timeout, message size, logins, probes, ...). */
  readonly factory?: NodeMcpClientFactory.Options | undefined
  /** The tool cache: a layer, or the in-memory cache's options (default: in memory, 5 minutes). */
  readonly cache?: CacheOption | undefined
  /** Replaces the SDK's client factory (the original's `client_factory`), mainly for tests; `factory` is then unused. */
  readonly clientFactory?: McpClientFactory.McpClientFactory["Service"] | undefined
  /**
   * Answers servers' elicitation requests (and declares the capability). With a `clientFactory` of your own,
   * provide an `McpElicitation` to that factory instead: these three are installed on the SDK's factory only.
   */
  readonly elicitation?: McpElicitation.Handler | undefined
  /**
   * Opt-in: lets servers' sampling requests run through a model (by default the agent's), at most
   * `maxCallsPerRequest` per agent request.
   */
  readonly sampling?: McpSampling.Options | undefined
  /** Opt-in: the roots servers get from `roots/list` (paths or `file://` URIs). */
  readonly roots?: ReadonlyArray<McpRoots.Input> | undefined
}

/**
 * The tool cache of `cache`: its layer, or an in-memory one with its options.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerCache = (cache: CacheOption | undefined): Layer.Layer<McpToolCache.McpToolCache> =>
  isCacheLayer(cache) ? cache : McpToolCache.layerMemory(cache)

const isCacheLayer = (cache: CacheOption | undefined): cache is Layer.Layer<McpToolCache.McpToolCache> =>
  cache !== undefined && Layer.isLayer(cache)

/** The client factory: the one given, or the SDK's with the services that answer servers' requests. */
const factoryLayer = (
  options: Omit<Options, "extension" | "cache">
): Layer.Layer<McpClientFactory.McpClientFactory, McpRoots.InvalidRoot, Path.Path> =>
  options.clientFactory !== undefined
    ? Layer.succeed(ClientFactory, options.clientFactory)
    : NodeMcpClientFactory.layer(options.factory).pipe(Layer.provide(serverRequestsLayer(options)))

/**
 * The extension on Node in one layer: `McpExtension.layer(extension)` with the SDK's client factory (`factory`),
 * the services that answer servers' requests (`elicitation`, `sampling`, `roots`), the tool cache (`cache`) and
 * `NodePath.layer`. The servers come from the `McpServers` in context.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<McpExtension.McpExtension, McpRoots.InvalidRoot, McpServers.McpServers> =>
  McpExtension.layer(options.extension).pipe(
    Layer.provide(Layer.merge(factoryLayer(options), layerCache(options.cache))),
    Layer.provide(nodeContext)
  )

/**
 * The services that answer servers' requests, from the options `elicitation`, `sampling` and `roots`: each only
 * when given, so that one provided around this layer instead still reaches the factory (they are references: the
 * factory reads each, and declares the capabilities of those that say they are `offered`; the defaults are not).
 */
const serverRequestsLayer = (
  options: Pick<Options, "elicitation" | "sampling" | "roots">
): Layer.Layer<never, McpRoots.InvalidRoot, Path.Path> =>
  Layer.mergeAll(
    options.elicitation !== undefined ? McpElicitation.layer(options.elicitation) : Layer.empty,
    options.sampling !== undefined ? McpSampling.layer(options.sampling) : Layer.empty,
    options.roots !== undefined ? McpRoots.layer(options.roots) : Layer.empty
  )

/** The servers' layer: servers written in code, or any `McpServers` layer (a config file's). */
const serversLayer = <E>(
  servers: ReadonlyArray<McpServerConfig.McpServerConfig> | Layer.Layer<McpServers.McpServers, E>
): Layer.Layer<McpServers.McpServers, E | McpConfigError> => isServerList(servers) ? McpServers.layer(servers) : servers

const isServerList = <E>(
  servers: ReadonlyArray<McpServerConfig.McpServerConfig> | Layer.Layer<McpServers.McpServers, E>
): servers is ReadonlyArray<McpServerConfig.McpServerConfig> => Array.isArray(servers)

/**
 * An agent with the tools of `servers`, in one layer: the agent (`agent`: its options, its own extensions
 * before MCP's), the MCP extension on Node (the groups of `Options`: `extension`, `factory`, `cache`, ...) and the
 * servers. The app gives the `Model`.
 *
 * @example
 * ```ts
 * import { Agent, ScriptedModel } from "@zett/agent"
 * import { McpServerConfig } from "@zett/mcp"
 * import { NodeMcpExtension } from "@zett/mcp-node"
 * import * as Effect from "effect/Effect"
 * import * as Layer from "effect/Layer"
import type * as Path from "effect/Path"
 *
 * const AgentLive = NodeMcpExtension.layerAgent([
 *   McpServerConfig.stdio({ name: "demo", command: "node", args: ["demo-server.mjs"] })
 * ], { extension: { callTimeout: "30 seconds" } }).pipe(Layer.provide(ScriptedModel.layer([{ text: "hi" }])))
 *
 * const program = Agent.run("Hello").pipe(Effect.provide(AgentLive))
 * ```
 *
 * @since 1.0.0
 * @category layers
 */
export const layerAgent = <E = never>(
  servers: ReadonlyArray<McpServerConfig.McpServerConfig> | Layer.Layer<McpServers.McpServers, E>,
  options?: Options & {
    readonly agent?:
      | Omit<Agent.Options, "extensions"> & { readonly extensions?: ReadonlyArray<Agent.ExtensionInput> }
      | undefined
  }
): Layer.Layer<Agent.Agent, E | McpConfigError | McpRoots.InvalidRoot | AgentError.DuplicateExtension, Model.Model> =>
  Agent.layer({
    ...options?.agent,
    extensions: [...(options?.agent?.extensions ?? []), McpExtension.McpExtension]
  }).pipe(
    Layer.provide(layer(options).pipe(Layer.provide(serversLayer(servers))))
  ) as Layer.Layer<Agent.Agent, E | McpConfigError | McpRoots.InvalidRoot | AgentError.DuplicateExtension, Model.Model>

/**
 * What `McpToolkit.make` (`@zett/mcp/McpToolkit`) needs, in one layer: the servers, the tool cache (`cache`,
 * default in memory for 5 minutes) and the SDK's client factory on Node (`factory`), with the services that
 * answer servers' requests (`elicitation`, `sampling`, `roots`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerToolkit = <E = never>(
  servers: ReadonlyArray<McpServerConfig.McpServerConfig> | Layer.Layer<McpServers.McpServers, E>,
  options: Omit<Options, "extension"> = {}
): Layer.Layer<
  McpServers.McpServers | McpToolCache.McpToolCache | McpClientFactory.McpClientFactory,
  E | McpConfigError | McpRoots.InvalidRoot
> =>
  Layer.mergeAll(serversLayer(servers), layerCache(options.cache), factoryLayer(options)).pipe(
    Layer.provide(nodeContext)
  ) as Layer.Layer<
    McpServers.McpServers | McpToolCache.McpToolCache | McpClientFactory.McpClientFactory,
    E | McpConfigError | McpRoots.InvalidRoot
  >
