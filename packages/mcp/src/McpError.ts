/**
 * The errors of `@zett/mcp`. Each one says which server (or file) and why, in one readable line,
 * and none carries a secret in its message.
 *
 * @since 0.1.0
 */
import * as Http from "node:http"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js"
import { ErrorCode, McpError as SdkMcpError } from "@modelcontextprotocol/sdk/types.js"
import { Scrubber } from "@zett/agent"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as LocalFailure from "./internal/localFailure.js"
import { isNeedsLogin } from "./internal/oauthProvider.js"

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

// Some remote text is never kept: an HTTP error body may echo the request's headers (B2).
const MAX_REASON = 300

const clip = (text: string) => (text.length > MAX_REASON ? `${text.slice(0, MAX_REASON)}…` : text)

// a cause chain is followed this far (a chain may loop)
const MAX_CAUSES = 8

/** The first errno-style code in the cause chain, also inside an `AggregateError` (one attempt per address). */
const errnoCode = (u: unknown, depth = 0): string | undefined => {
  if (depth > MAX_CAUSES) return undefined
  if (Predicate.hasProperty(u, "code") && typeof u.code === "string") return u.code
  if (u instanceof AggregateError) {
    for (const error of u.errors) {
      const code = errnoCode(error, depth + 1)
      if (code !== undefined) return code
    }
  }
  if (Predicate.hasProperty(u, "cause")) return errnoCode(u.cause, depth + 1)
  return undefined
}

/** The last `Error` of the cause chain. */
const innermost = (error: Error): Error => {
  let inner = error
  for (let i = 0; i < MAX_CAUSES && inner.cause instanceof Error; i++) inner = inner.cause
  return inner
}


/**
 * Why a connection failed, as a kind: the process could not be `Start`ed or `Exited` during initialize, the
 * server answered with an `Http` error status or said `Unauthorized`, the `Network` failed (refused, reset, no
 * such host), the server's answers broke the `Protocol` (an error for `initialize`, invalid JSON or messages),
 * or the connection `Closed` before initialize finished. `NeedsAuthorization`: the server wants an OAuth login,
 * and nothing waits for a browser here (issue 12).
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
 * The reason of a server that needs a login (issue 12), as the model and `zett` show it.
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

/** The fields that have a value: optional fields of an error are absent, never `undefined`. */
const defined = <A extends Record<string, unknown>>(fields: A): { [K in keyof A]?: Exclude<A[K], undefined> } => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(fields)) if (fields[key] !== undefined) out[key] = fields[key]
  return out as { [K in keyof A]?: Exclude<A[K], undefined> }
}

const networkCodes = new Set(["ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "ETIMEDOUT", "EPIPE"])

const describe = (cause: unknown, scrubber: Scrubber.Scrubber): {
  readonly reason: string
  readonly code?: number
  readonly httpStatus?: number
  readonly kind?: LocalFailure.LocalFailure["kind"]
  readonly failure?: ConnectFailure
  readonly keep: boolean
} => {
  if (cause instanceof SdkMcpError) {
    // a failure Zett itself put in place of a response (a closed stream, a message over the size limit)
    if (cause.data instanceof LocalFailure.LocalFailure) {
      return { reason: cause.data.reason, kind: cause.data.kind, keep: false }
    }
    const text = cause.message.replace(/^(MCP error -?\d+: )+/, "")
    return {
      reason: clip(scrubber.scrub(text)),
      code: cause.code,
      failure: cause.code === ErrorCode.ConnectionClosed ? "Closed" : "Protocol",
      keep: false
    }
  }
  if (cause instanceof StreamableHTTPError) {
    const status = cause.code
    return {
      reason: status === undefined || status < 100
        ? "unexpected HTTP response"
        : `HTTP ${status}${Http.STATUS_CODES[status] ? ` ${Http.STATUS_CODES[status]}` : ""}`,
      ...(status !== undefined && status >= 100 ? { httpStatus: status } : {}),
      failure: status === 401 ? "Unauthorized" : "Http",
      keep: false
    }
  }
  // a parser's message quotes the input it choked on, which may be anything the server sent back
  if (cause instanceof SyntaxError) {
    return { reason: "the server sent a response that is not valid JSON", failure: "Protocol", keep: false }
  }
  if (cause instanceof Error && Predicate.hasProperty(cause, "issues") && Array.isArray(cause.issues)) {
    // a schema error's message is its issues as pretty-printed JSON: say the first one in a line
    const issue = cause.issues[0] as { readonly path?: ReadonlyArray<unknown>; readonly message?: unknown } | undefined
    const where = issue?.path !== undefined && issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""
    const what = typeof issue?.message === "string" ? issue.message : "invalid"
    return { reason: clip(scrubber.scrub(`invalid response: ${where}${what}`)), failure: "Protocol", keep: false }
  }
  if (isNeedsLogin(cause)) {
    return { reason: "needs authorization", failure: "NeedsAuthorization", keep: false }
  }
  if (cause instanceof UnauthorizedError) {
    return { reason: "unauthorized", failure: "Unauthorized", keep: false }
  }
  // an authorization server's description (and the raw body the SDK quotes for a malformed one) is remote text
  if (cause instanceof OAuthError) {
    return { reason: `authorization failed (${cause.errorCode})`, failure: "Unauthorized", keep: false }
  }
  const errno = errnoCode(cause)
  if (cause instanceof Error) {
    const message = scrubber.scrub(cause.message)
    // fetch fails with a bare "fetch failed"; the errno code underneath is the useful part, else the reason
    // underneath (`bad port`: fetch refuses some ports before connecting)
    const inner = errno === undefined && cause.message === "fetch failed" ? innermost(cause) : cause
    const reason = errno !== undefined && !message.includes(errno)
      ? `${message} (${errno})`
      : inner !== cause && inner.message !== ""
      ? `${message} (${scrubber.scrub(inner.message)})`
      : message
    return {
      reason: clip(reason),
      ...(errno !== undefined && networkCodes.has(errno) ? { failure: "Network" as const } : {}),
      keep: message === cause.message
    }
  }
  return { reason: clip(scrubber.scrub(String(cause))), keep: false }
}

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
   * Builds the error from whatever a connection attempt threw. The reason is short, passed through the
   * server's `scrubber`, and holds no HTTP response body and no parser message; the original cause is kept only when it carries no remote text.
   *
   * @since 0.1.0
   */
  static fromCause(options: {
    readonly server: string
    readonly cause: unknown
    readonly scrubber?: Scrubber.Scrubber | undefined
    readonly prefix?: string | undefined
  }): McpConnectError {
    const { code, failure, httpStatus, keep, reason } = describe(options.cause, options.scrubber ?? Scrubber.none)
    // the fields are made here, of the right types: no schema check (a tenth of the CPU time of a refused connect)
    if (failure === "NeedsAuthorization") {
      return new McpConnectError({ server: options.server, reason: needsAuthorizationReason(options.server), failure }, true)
    }
    return new McpConnectError({
      server: options.server,
      reason: options.prefix === undefined ? reason : `${options.prefix}: ${reason}`,
      ...defined({ code, httpStatus, failure, cause: keep ? options.cause : undefined })
    }, true)
  }
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
   * Builds the error from whatever a request threw; `code` is the JSON-RPC code of an SDK `McpError`.
   * The reason is short, passed through the server's `scrubber`, and holds no HTTP response body and no
   * parser message.
   *
   * @since 0.1.0
   */
  static fromCause(options: {
    readonly server: string
    readonly method: string
    readonly cause: unknown
    readonly scrubber?: Scrubber.Scrubber | undefined
  }): McpRequestError {
    const { code, failure, keep, kind, reason } = describe(options.cause, options.scrubber ?? Scrubber.none)
    return new McpRequestError({
      server: options.server,
      method: options.method,
      reason: failure === "NeedsAuthorization" ? needsAuthorizationReason(options.server) : reason,
      ...defined({ code, kind, cause: keep ? options.cause : undefined })
    }, true)
  }
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
