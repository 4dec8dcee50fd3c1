/**
 * The service that connects to a server definition: the seam between the core and a driver. `@zett/mcp-node`
 * provides the SDK's (`NodeMcpClientFactory`); tests and hosts may provide their own (`of`).
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as McpClient from "./McpClient.js"
import type { McpConnectError } from "./McpError.js"
import type * as McpServerConfig from "./McpServerConfig.js"

/**
 * What a connect may be told beyond the definition.
 *
 * @since 1.0.0
 * @category models
 */
export interface ConnectOptions {
  /**
   * What an earlier connection to the same definition found out about the server's revisions (`McpClient.verdict`,
   * as a tool cache keeps it): the connect skips the question. A driver asks again, once, if it no longer holds.
   */
  readonly verdict?: McpClient.Verdict | undefined
}

/**
 * Connects to a server definition; the connection is closed when the surrounding `Scope` closes.
 *
 * @since 1.0.0
 * @category tags
 */
export class McpClientFactory extends Context.Service<McpClientFactory, {
  readonly connect: (
    server: McpServerConfig.McpServerConfig,
    options?: ConnectOptions | undefined
  ) => Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope>
}>()("@zett/mcp/McpClientFactory") {}

/**
 * A factory from a connect function: the way to supply your own clients (the original's `client_factory`).
 * `connect` should register its cleanup in the `Scope` it is given.
 *
 * @since 1.0.0
 * @category constructors
 */
export const of = (
  connect: (
    server: McpServerConfig.McpServerConfig,
    options?: ConnectOptions | undefined
  ) => Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope>
): McpClientFactory["Service"] => McpClientFactory.of({ connect })
