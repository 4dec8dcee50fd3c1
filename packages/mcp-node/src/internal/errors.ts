/**
 * What a driver failure becomes: the SDK's, undici's, zod's, OAuth's and the system's exceptions, classified
 * into the core's errors with a short reason that holds no remote body and no secret.
 *
 * @internal
 */
import * as Http from "node:http"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js"
import { ErrorCode, McpError as SdkMcpError } from "@modelcontextprotocol/sdk/types.js"
import { Scrubber } from "@zett/agent"
import { McpConnectError, McpRequestError, needsAuthorizationReason } from "@zett/mcp/McpError"
import type { ConnectFailure } from "@zett/mcp/McpError"
import * as Predicate from "effect/Predicate"
import * as LocalFailure from "./localFailure.js"
import { isNeedsLogin } from "./oauthProvider.js"

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
 * An `McpConnectError` from whatever a connection attempt threw. The reason is short, passed through the
 * server's `scrubber`, and holds no HTTP response body and no parser message; the original cause is kept only
 * when it carries no remote text.
 */
export const connectError = (options: {
  readonly server: string
  readonly cause: unknown
  readonly scrubber?: Scrubber.Scrubber | undefined
  readonly prefix?: string | undefined
}): McpConnectError => {
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
 * An `McpRequestError` from whatever a request threw; `code` is the JSON-RPC code of an SDK `McpError`. The
 * reason is short, passed through the server's `scrubber`, and holds no HTTP response body and no parser message.
 */
export const requestError = (options: {
  readonly server: string
  readonly method: string
  readonly cause: unknown
  readonly scrubber?: Scrubber.Scrubber | undefined
}): McpRequestError => {
  const { code, failure, keep, kind, reason } = describe(options.cause, options.scrubber ?? Scrubber.none)
  return new McpRequestError({
    server: options.server,
    method: options.method,
    reason: failure === "NeedsAuthorization" ? needsAuthorizationReason(options.server) : reason,
    ...defined({ code, kind, cause: keep ? options.cause : undefined })
  }, true)
}
