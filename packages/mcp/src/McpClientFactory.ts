/**
 * The service that connects to a server definition: the seam between the core and a driver. `@zett/mcp-node`
 * provides the SDK's (`NodeMcpClientFactory`); tests and hosts may provide their own (`of`).
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Context from "effect/Context"
import type * as Scope from "effect/Scope"
import type * as McpClient from "./McpClient.js"
import type { McpConnectError } from "./McpError.js"
import type * as McpServerConfig from "./McpServerConfig.js"

/**
 * Connects to a server definition; the connection is closed when the surrounding `Scope` closes.
 *
 * @since 0.1.0
 * @category tags
 */
export class McpClientFactory extends Context.Tag("@zett/mcp/McpClientFactory")<McpClientFactory, {
  readonly connect: (server: McpServerConfig.McpServerConfig) => Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope>
}>() {}

/**
 * A factory from a connect function: the way to supply your own clients (the original's `client_factory`).
 * `connect` should register its cleanup in the `Scope` it is given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = (
  connect: (server: McpServerConfig.McpServerConfig) => Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope>
): McpClientFactory["Type"] => McpClientFactory.of({ connect })

