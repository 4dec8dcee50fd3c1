/**
 * The connections of one request: at most one per server, opened on first use in the request's `Scope`
 * and closed when that scope closes, whatever the exit (D1, D4).
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import type { McpClient } from "./McpClient.js"
import type { McpClientFactory } from "./McpClientFactory.js"
import type { McpConnectError } from "./McpError.js"
import { McpTimeoutError } from "./McpError.js"
import type { McpServer } from "./McpServer.js"
import { within } from "./internal/within.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface McpConnections {
  /**
   * The request's connection to `server`, connecting on first use. Concurrent first uses share one connect;
   * a failed connect is remembered for the rest of the request.
   */
  readonly get: (server: McpServer) => Effect.Effect<McpClient, McpConnectError | McpTimeoutError>
  /** How many connections this request has opened. */
  readonly opened: () => number
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: {
  readonly factory: McpClientFactory["Type"]
  readonly scope: Scope.Scope
  readonly connectTimeout: Option.Option<Duration.Duration>
}): Effect.Effect<McpConnections> =>
  // Connections close in parallel, so closing N slow servers takes the time of one.
  Effect.map(Scope.fork(options.scope, ExecutionStrategy.parallel), (parent) => {
    const connections = new Map<string, Effect.Effect<McpClient, McpConnectError | McpTimeoutError>>()
    let opened = 0
    const connect = (server: McpServer): Effect.Effect<McpClient, McpConnectError | McpTimeoutError> => {
      // The connection lives in a child of the request scope, so it also closes when its own connect fails.
      const attempt = Effect.flatMap(Scope.fork(parent, ExecutionStrategy.sequential), (scope) =>
        options.factory.connect(server).pipe(
          Scope.extend(scope),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        ))
      return within(attempt, options.connectTimeout, (timeout) =>
        new McpTimeoutError({ server: server.name, operation: "connect", timeout: Duration.format(timeout) }))
    }
    return {
      get: (server) =>
        Effect.suspend(() => {
          let connection = connections.get(server.name)
          if (connection === undefined) {
            opened++
            connection = Effect.runSync(Effect.cached(connect(server)))
            connections.set(server.name, connection)
          }
          return connection
        }),
      opened: () => opened
    }
  })
