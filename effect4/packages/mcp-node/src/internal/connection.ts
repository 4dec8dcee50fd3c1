/**
 * What every request of a connection built on the SDK's `Client` shares: the client, the server's name, the
 * scrubber of the server's secrets, the spans' attributes, and the trace context in `_meta`.
 *
 * @internal
 */
import type { Client } from "@modelcontextprotocol/client"
import type { Scrubber } from "@zett/agent"
import * as Errors from "./errors.js"

/** @internal */
export interface Connection {
  readonly client: Client
  readonly server: string
  readonly scrubber: Scrubber.Scrubber
}

/**
 * The longest timeout `setTimeout` accepts (about 24.8 days), given to every request: the SDK arms a 60 s timer on
 * every request unless given a `timeout`, and anything larger than this would overflow and fire at once.
 *
 * @internal
 */
export const sdkTimeoutDisabled = 2_147_483_647

/** A failed request of `method` as the core's `McpRequestError`, scrubbed. @internal */
export const requestError = (connection: Connection, method: string) => (cause: unknown) =>
  Errors.requestError({ server: connection.server, method, cause, scrubber: connection.scrubber })

/** OpenTelemetry's MCP conventions: the method, the session (Streamable HTTP), the server. @internal */
export const spanAttributes = (connection: Connection, method: string): Record<string, unknown> => {
  const session = connection.client.transport?.sessionId
  return {
    "mcp.method.name": method,
    "mcp.server": connection.server,
    ...(session !== undefined ? { "mcp.session.id": session } : {})
  }
}

/** @internal */
export const toolCallAttributes = (connection: Connection, name: string) => ({
  ...spanAttributes(connection, "tools/call"),
  "gen_ai.operation.name": "execute_tool",
  "gen_ai.tool.name": name
})

/** The W3C trace context of the request's span travels in `_meta` (a key the protocol reserves for it). @internal */
export const withTrace = <P extends Record<string, unknown>>(params: P, traceparent: string | undefined): P =>
  traceparent === undefined
    ? params
    : { ...params, _meta: { ...(params._meta as Record<string, unknown> | undefined), traceparent } }
