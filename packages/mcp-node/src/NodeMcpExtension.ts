/**
 * The MCP extension on Node: `McpExtension.layer` with the SDK's client factory, the services that answer
 * servers' requests (elicitation, sampling, roots) installed on that factory, and `NodeContext.layer` for the
 * file system, the path and the processes of stdio servers. The servers come from an `McpServers` layer:
 * `McpServers.layer([...])` for servers written in code, `McpConfiguration.layer` of `@zett/mcp-config` for
 * config files.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import type * as Path from "@effect/platform/Path"
import type * as McpClientFactory from "@zett/mcp/McpClientFactory"
import { McpClientFactory as ClientFactory } from "@zett/mcp/McpClientFactory"
import * as McpElicitation from "@zett/mcp/McpElicitation"
import * as McpExtension from "@zett/mcp/McpExtension"
import * as McpRoots from "@zett/mcp/McpRoots"
import * as McpSampling from "@zett/mcp/McpSampling"
import type * as McpServers from "@zett/mcp/McpServers"
import * as Layer from "effect/Layer"
import * as NodeMcpClientFactory from "./NodeMcpClientFactory.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends McpExtension.Options, NodeMcpClientFactory.Options {
  /** Replaces the SDK's client factory (the original's `client_factory`), mainly for tests. */
  readonly clientFactory?: McpClientFactory.McpClientFactory["Type"] | undefined
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
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<McpExtension.McpExtension, McpRoots.InvalidRoot, McpServers.McpServers> =>
  McpExtension.layer(options).pipe(
    Layer.provide(
      options.clientFactory !== undefined
        ? Layer.succeed(ClientFactory, options.clientFactory)
        : NodeMcpClientFactory.layer(options).pipe(Layer.provide(serverRequestsLayer(options)))
    ),
    Layer.provide(NodeContext.layer)
  )

/**
 * The services that answer servers' requests, from the options `elicitation`, `sampling` and `roots`: each only
 * when given, so that one provided around this layer instead still reaches the factory (they are references: the
 * factory reads each, and declares the capabilities of those that are not the default `none`).
 */
const serverRequestsLayer = (
  options: Pick<Options, "elicitation" | "sampling" | "roots">
): Layer.Layer<never, McpRoots.InvalidRoot, Path.Path> =>
  Layer.mergeAll(
    options.elicitation !== undefined ? McpElicitation.layer(options.elicitation) : Layer.empty,
    options.sampling !== undefined ? McpSampling.layer(options.sampling) : Layer.empty,
    options.roots !== undefined ? McpRoots.layer(options.roots) : Layer.empty
  )
