/**
 * The errors of `@zett/mcp`. Each one says which server (or file) and why, in one readable line,
 * and none carries a secret in its message.
 *
 * @since 0.1.0
 */
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
 * A server that could not be reached, started or initialized.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConnectError extends Schema.TaggedError<McpConnectError>("@zett/mcp/McpConnectError")("McpConnectError", {
  server: Schema.String,
  reason: Schema.String,
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
    return `${this.server}: ${this.reason}`
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
    return `${this.server}: ${this.method} failed: ${this.reason}`
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
  timeout: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  readonly [TypeId]: TypeId = TypeId
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.server}: ${this.operation} timed out after ${this.timeout}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export type McpError = McpConfigError | McpConnectError | McpRequestError | McpTimeoutError
