/**
 * The errors of `@zett/mcp`. Each one says which server (or file) and why, in one readable line,
 * and none carries a secret in its message.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@zett/mcp/McpError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * @since 0.1.0
 * @category refinements
 */
export const isMcpError = (u: unknown): u is McpError => Predicate.hasProperty(u, TypeId)

/**
 * A configuration file (or an explicit server list) that cannot be used: names the file, the entry
 * and the reason, e.g. `mcp.json: servers.docs.url: expected a URL, got 42`.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConfigError extends Schema.TaggedError<McpConfigError>("@zett/mcp/McpConfigError")("McpConfigError", {
  path: Schema.String,
  entry: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.entry === undefined ? `${this.path}: ${this.reason}` : `${this.path}: ${this.entry}: ${this.reason}`
  }
}

/**
 * Why a connection failed, as a kind: the process could not be `Start`ed or `Exited` during initialize, the
 * server answered with an `Http` error status or said `Unauthorized`, the `Network` failed (refused, reset, no
 * such host), the server's answers broke the `Protocol` (an error for `initialize`, invalid JSON or messages),
 * or the connection `Closed` before initialize finished. `NeedsAuthorization`: the server wants an OAuth login,
 * and nothing waits for a browser here.
 *
 * @since 0.1.0
 * @category models
 */
export const ConnectFailure = Schema.Literal(
  "Start",
  "Exited",
  "Http",
  "Unauthorized",
  "NeedsAuthorization",
  "Network",
  "Protocol",
  "Closed"
)

/**
 * The reason of a server that needs a login, as the model and `zett` show it.
 *
 * @since 0.1.0
 * @category utils
 */
export const needsAuthorizationReason = (server: string): string =>
  `needs authorization: run zett auth login ${/^[A-Za-z0-9_.:@/-]+$/.test(server) ? server : JSON.stringify(server)}`

/**
 * @since 0.1.0
 * @category models
 */
export type ConnectFailure = typeof ConnectFailure.Type

/**
 * The JSON-RPC code a driver gives a request whose connection closed before the answer came: the connection
 * is then gone, and the next call connects again.
 *
 * @since 0.1.0
 * @category constants
 */
export const connectionClosedCode = -32000

/**
 * A server that could not be reached, started or initialized. `code` is the JSON-RPC error code when the
 * server answered `initialize` with an error.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConnectError extends Schema.TaggedError<McpConnectError>("@zett/mcp/McpConnectError")("McpConnectError", {
  server: Schema.String,
  reason: Schema.String,
  code: Schema.optional(Schema.Number),
  /** The HTTP status an HTTP server refused the connection with, if that is what happened. */
  httpStatus: Schema.optional(Schema.Number),
  /** The kind of failure, when it is known. */
  failure: Schema.optional(ConnectFailure),
  cause: Schema.optional(Schema.Defect)
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.code === undefined
      ? `${this.server}: ${this.reason}`
      : `${this.server}: ${this.reason} (code ${this.code})`
  }
}

/**
 * A request to a connected server (`tools/list`, `tools/call`) that failed at the protocol or transport
 * level. A tool result with `isError: true` is not this error: it is a value.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpRequestError extends Schema.TaggedError<McpRequestError>("@zett/mcp/McpRequestError")("McpRequestError", {
  server: Schema.String,
  method: Schema.String,
  code: Schema.optional(Schema.Number),
  reason: Schema.String,
  /**
   * Set when the response never arrived and Zett knows why: the server closed the response stream before
   * answering, or the message was over `maxMessageBytes`; or the request was never sent because the
   * `McpClient` does not implement it (`Unsupported`, e.g. a user's client without `request`). The reason is
   * then Zett's own text, safe to show.
   */
  kind: Schema.optional(Schema.Literal("StreamClosed", "MessageTooLarge", "Unsupported")),
  cause: Schema.optional(Schema.Defect)
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.code === undefined
      ? `${this.server}: ${this.method} failed: ${this.reason}`
      : `${this.server}: ${this.method} failed: ${this.reason} (code ${this.code})`
  }
}

/**
 * A connect, list or call that did not finish within its configured time.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpTimeoutError extends Schema.TaggedError<McpTimeoutError>("@zett/mcp/McpTimeoutError")("McpTimeoutError", {
  server: Schema.String,
  operation: Schema.Literal("connect", "call"),
  timeout: Schema.DurationFromSelf,
  /** The time ran from the call's last progress report (progress had started it afresh). */
  sinceProgress: Schema.optional(Schema.Boolean)
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.server}: ${this.operation} timed out after ${Duration.format(this.timeout)}${
      this.sinceProgress === true ? " without progress" : ""
    }`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export type McpError = McpConfigError | McpConnectError | McpRequestError | McpTimeoutError

/**
 * `self` under a time limit: it fails with `McpTimeoutError` when it has not finished after `limit`
 * (`Effect.timeoutFail`, so `TestClock` drives it). `Option.none()` is no limit at all.
 *
 * @since 0.1.0
 * @category combinators
 */
export const within: {
  (options: {
    readonly server: string
    readonly operation: McpTimeoutError["operation"]
    readonly limit: Option.Option<Duration.Duration>
  }): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E | McpTimeoutError, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, options: {
    readonly server: string
    readonly operation: McpTimeoutError["operation"]
    readonly limit: Option.Option<Duration.Duration>
  }): Effect.Effect<A, E | McpTimeoutError, R>
} = dual(2, <A, E, R>(self: Effect.Effect<A, E, R>, options: {
  readonly server: string
  readonly operation: McpTimeoutError["operation"]
  readonly limit: Option.Option<Duration.Duration>
}): Effect.Effect<A, E | McpTimeoutError, R> =>
{
  if (Option.isNone(options.limit)) return self
  const timeout = options.limit.value
  return Effect.timeoutFail(self, {
    duration: timeout,
    onTimeout: () => new McpTimeoutError({ server: options.server, operation: options.operation, timeout })
  })
})

/**
 * Why a server could not be used, in a few words for a table cell, a log line or the model: never a stack, a
 * header or an environment value (`timed out after 30s`, `tools/list failed: ...`, `HTTP 401 Unauthorized`).
 *
 * @since 0.1.0
 * @category utils
 */
export const reasonOf = (error: McpConnectError | McpRequestError | McpTimeoutError): string => {
  switch (error._tag) {
    case "McpTimeoutError":
      return `timed out after ${Duration.format(error.timeout)}${error.sinceProgress === true ? " without progress" : ""}`
    case "McpRequestError":
      return `${error.method} failed: ${error.reason}`
    case "McpConnectError":
      return error.reason
  }
}
