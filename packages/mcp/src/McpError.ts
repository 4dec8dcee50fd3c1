/**
 * The errors of `@zett/mcp` and of the packages built on it, as one family: each carries `TypeId`
 * (`isMcpError`), says its kind in `reason` (a literal) and its free text in `description`, and words
 * which server (or file) and why in one readable `message` that holds no secret.
 *
 * @since 0.1.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type { InvalidRoot } from "./McpRoots.js"
import type { SamplingRefused } from "./McpSampling.js"
import type { McpTaskStoreError } from "./McpTaskStore.js"

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
 * and the description, e.g. `mcp.json: servers.docs.url: expected a URL, got 42`. The `reason`: the file is
 * `Unreadable` (a system error, a directory), `Malformed` as a whole (not JSON, nested too deep, no or two
 * server mappings, invalid `inputs`), has an `InvalidEntry` (strict mode), or two servers share a name
 * (`DuplicateName`).
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConfigError extends Schema.TaggedError<McpConfigError>("@zett/mcp/McpConfigError")("McpConfigError", {
  path: Schema.String,
  entry: Schema.optional(Schema.String),
  reason: Schema.Literal("Unreadable", "Malformed", "InvalidEntry", "DuplicateName"),
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.entry === undefined
      ? `${this.path}: ${this.description}`
      : `${this.path}: ${this.entry}: ${this.description}`
  }
}

/**
 * Why a connection failed, as a kind: the server could not be `Start`ed (no such command, no in-memory server
 * of the name) or its process `Exited` during initialize, the server answered with an `Http` error status or
 * said `Unauthorized`, the `Network` failed (refused, reset, no such host), the server's answers broke the
 * `Protocol` (an error for `initialize`, invalid JSON or messages), or the connection `Closed` before
 * initialize finished. `NeedsAuthorization`: the server wants an OAuth login, and nothing waits for a browser
 * here. The server refused the protocol revision asked for (`ProtocolVersion`, JSON-RPC `-32022`: the description
 * names the revisions it speaks), a client capability it needs was not declared (`ClientCapability`, `-32021`), or
 * the request's headers and body disagreed (`HeaderMismatch`, `-32020`). `Unknown`: any other failure.
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
  "ProtocolVersion",
  "ClientCapability",
  "HeaderMismatch",
  "Closed",
  "Unknown"
)

/**
 * The description of a server that needs a login, as the model and `zett` show it.
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
export class McpConnectError
  extends Schema.TaggedError<McpConnectError>("@zett/mcp/McpConnectError")("McpConnectError", {
    server: Schema.String,
    reason: ConnectFailure,
    description: Schema.String,
    code: Schema.optional(Schema.Number),
    /** The HTTP status an HTTP server refused the connection with, if that is what happened. */
    httpStatus: Schema.optional(Schema.Number),
    cause: Schema.optional(Schema.Defect)
  })
{
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.code === undefined
      ? `${this.server}: ${this.description}`
      : `${this.server}: ${this.description} (code ${this.code})`
  }
}

/**
 * Why a request failed, as a kind: the server answered with a JSON-RPC error (`Remote`, with its `code`), the
 * connection failed under it (`Transport`: closed, an HTTP error status, the network), the server refused the
 * credentials (`Unauthorized`) or wants an OAuth login (`NeedsAuthorization`), or its answer was not a valid
 * one (`InvalidResponse`: not JSON, not the expected shape, a repeated pagination cursor). When the response
 * never arrived and Zett knows why, the server closed the response stream before answering (`StreamClosed`) or
 * the message was over `maxMessageBytes` (`MessageTooLarge`); `Unsupported`: the request was never sent because
 * the `McpClient` does not implement it (a user's client without `request`). A call can also end because the
 * server kept asking for input past the client's limit of rounds (`TooManyRounds`), asked for a scope the
 * authorization server would not grant (`InsufficientScope`), or failed after the client refused a request it
 * made during the call (`Refused`: a sampling request over its limit, an elicitation answer that does not fit).
 * For these and `InvalidResponse` the description is Zett's own text, safe to show. A call the server answered with
 * a task (the Tasks extension) ends as the task does: `TaskFailed` (the task's JSON-RPC error `code`) or
 * `TaskCancelled`; the error then names the task (`taskId`). `Unknown`: any other failure.
 *
 * @since 0.1.0
 * @category models
 */
export const RequestFailure = Schema.Literal(
  "Remote",
  "Transport",
  "Unauthorized",
  "NeedsAuthorization",
  "InvalidResponse",
  "StreamClosed",
  "MessageTooLarge",
  "Unsupported",
  "TooManyRounds",
  "InsufficientScope",
  "Refused",
  "TaskFailed",
  "TaskCancelled",
  "Unknown"
)

/**
 * @since 0.1.0
 * @category models
 */
export type RequestFailure = typeof RequestFailure.Type

/**
 * A request to a connected server (`tools/list`, `tools/call`) that failed at the protocol or transport
 * level. A tool result with `isError: true` is not this error: it is a value.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpRequestError
  extends Schema.TaggedError<McpRequestError>("@zett/mcp/McpRequestError")("McpRequestError", {
    server: Schema.String,
    method: Schema.String,
    code: Schema.optional(Schema.Number),
    reason: RequestFailure,
    description: Schema.String,
    /** The task a request was about (a call answered with a task, `tasks/*`), when there is one. */
    taskId: Schema.optional(Schema.String),
    cause: Schema.optional(Schema.Defect)
  })
{
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.code === undefined
      ? `${this.server}: ${this.method} failed: ${this.description}`
      : `${this.server}: ${this.method} failed: ${this.description} (code ${this.code})`
  }
}

/**
 * Why a timeout ended an operation: its time ran out (`Elapsed`), or a call that reports progress went `timeout`
 * without reporting any (`Stalled`: each report had started its time afresh).
 *
 * @since 0.1.0
 * @category models
 */
export const TimeoutReason = Schema.Literal("Elapsed", "Stalled")

/**
 * @since 0.1.0
 * @category models
 */
export type TimeoutReason = typeof TimeoutReason.Type

/**
 * A connect, list or call that did not finish within its configured time.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpTimeoutError
  extends Schema.TaggedError<McpTimeoutError>("@zett/mcp/McpTimeoutError")("McpTimeoutError", {
    server: Schema.String,
    operation: Schema.Literal("connect", "call"),
    reason: Schema.optionalWith(TimeoutReason, { default: () => "Elapsed" }),
    timeout: Schema.DurationFromSelf
  })
{
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.server}: ${this.operation} timed out after ${Duration.format(this.timeout)}${
      this.reason === "Stalled" ? " without progress" : ""
    }`
  }
}

/**
 * An `${input:ID}` of a configuration file that has no value: the `McpInputs` has none for it (`Missing`),
 * the file's `inputs` do not declare it (`Undeclared`), nobody can be asked for it here (`Unavailable`), or the
 * prompt was cancelled (`Cancelled`). `McpInputs.InputError` of `@zett/mcp-config`.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputError extends Schema.TaggedError<InputError>("@zett/mcp/InputError")("InputError", {
  id: Schema.String,
  reason: Schema.Literal("Missing", "Undeclared", "Unavailable", "Cancelled"),
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `the input ${JSON.stringify(this.id)} has no value: ${this.description}`
  }
}

/**
 * An OAuth token store that could not be read or written: it is `Unavailable` (a system error, Redis down),
 * gave no answer in time (`Timeout`), its lock was held too long or lost (`Lock`), or its folder is open to
 * other users and cannot be made private (`Insecure`). The description names the operation and the system
 * error, never a value that was stored. `McpTokenStore.McpTokenStoreError` of `@zett/mcp-auth`.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpTokenStoreError extends Schema.TaggedError<McpTokenStoreError>("@zett/mcp/McpTokenStoreError")(
  "McpTokenStoreError",
  {
    key: Schema.optional(Schema.String),
    reason: Schema.Literal("Unavailable", "Timeout", "Lock", "Insecure"),
    description: Schema.String
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.key === undefined ? `token store: ${this.description}` : `token store: ${this.key}: ${this.description}`
  }
}

/**
 * A login that could not finish: the host could not offer it (`Unavailable`: no listener for the redirect),
 * refused the authorization URL (`InvalidUrl`), waited in vain (`Timeout`), the authorization server answered
 * with an error (`Denied`: the user refused, among others), or the redirect was not a usable answer
 * (`InvalidCallback`). `McpAuthorization.McpAuthorizationError` of `@zett/mcp-auth`.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpAuthorizationError extends Schema.TaggedError<McpAuthorizationError>("@zett/mcp/McpAuthorizationError")(
  "McpAuthorizationError",
  {
    server: Schema.String,
    reason: Schema.Literal("Unavailable", "InvalidUrl", "Timeout", "Denied", "InvalidCallback"),
    description: Schema.String
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.server}: authorization failed: ${this.description}`
  }
}

/**
 * Why a skill file was refused (the Skills extension's verification): the file is not in the skill's entry
 * (`unlisted`), its length (`size`) or its SHA-256 digest (`digest`) is not the entry's, or the frontmatter of a
 * `SKILL.md` differs from the entry's (`frontmatter`).
 *
 * @since 0.1.0
 * @category models
 */
export const SkillVerificationFailure = Schema.Literal("unlisted", "size", "digest", "frontmatter")

/**
 * @since 0.1.0
 * @category models
 */
export type SkillVerificationFailure = typeof SkillVerificationFailure.Type

/**
 * A skill file that failed verification against its skill's entry (`McpSkills.read`): its bytes are not handed
 * on. `uri` is the file asked for; the description says what differed (sizes, digests, frontmatter fields).
 *
 * @since 0.1.0
 * @category errors
 */
export class McpSkillVerificationError extends Schema.TaggedError<McpSkillVerificationError>(
  "@zett/mcp/McpSkillVerificationError"
)("McpSkillVerificationError", {
  server: Schema.String,
  uri: Schema.String,
  reason: SkillVerificationFailure,
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.server}: skill file ${this.uri} failed verification (${this.reason}): ${this.description}`
  }
}

/**
 * A failed MCP tool call as the model reads it (the tools of `McpToolkit`, whose `failureMode` is `"return"`): `reason` is the kind of
 * failure, `message` the text the agent's MCP tools give for it.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpToolFailure extends Schema.TaggedError<McpToolFailure>("@zett/mcp/McpToolkit/McpToolFailure")(
  "McpToolFailure",
  {
    /**
     * `Unavailable`: the server could not be reached; `Timeout`: the call ran out of time; `RequestFailed`: the
     * server failed the request; `ToolFailed`: the tool reported an error (`isError`) or could not be called. The
     * kinds of the agent's `Tool.ToolFailure`.
     */
    reason: Schema.Literal("Unavailable", "Timeout", "RequestFailed", "ToolFailed"),
    message: Schema.String
  }
) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
}

/**
 * Every error of the family: those above, `McpSampling.SamplingRefused`, `McpRoots.InvalidRoot` and
 * `McpTaskStore.McpTaskStoreError`.
 *
 * @since 0.1.0
 * @category models
 */
export type McpError =
  | McpConfigError
  | McpConnectError
  | McpRequestError
  | McpTimeoutError
  | InputError
  | McpTokenStoreError
  | McpAuthorizationError
  | McpSkillVerificationError
  | SamplingRefused
  | InvalidRoot
  | McpTaskStoreError
  | McpToolFailure

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
}): Effect.Effect<A, E | McpTimeoutError, R> => {
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
      return `timed out after ${Duration.format(error.timeout)}${error.reason === "Stalled" ? " without progress" : ""}`
    case "McpRequestError":
      return `${error.method} failed: ${error.description}`
    case "McpConnectError":
      return error.description
  }
}
