/**
 * What a driver failure becomes: the SDK's, undici's, zod's, OAuth's and the system's exceptions, classified
 * into the core's errors: a kind (`reason`) and a short description that holds no remote body and no secret.
 *
 * @internal
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client"
import * as Scrubber from "@zett/agent/Scrubber"
import * as McpAuthSession from "@zett/mcp-auth/McpAuthSession"
import { connectionClosedCode, McpConnectError, McpRequestError, needsAuthorizationReason } from "@zett/mcp/McpError"
import type { ConnectFailure, RequestFailure } from "@zett/mcp/McpError"
import * as Predicate from "effect/Predicate"
import * as Http from "node:http"
import * as LocalFailure from "./localFailure.js"

// Some remote text is never kept: an HTTP error body may echo the request's headers, which carry secrets.
const MAX_DESCRIPTION = 300

// a schema's issues are read only from a message of this size or less
const MAX_ISSUES_TEXT = 64 * 1024
// an issue's union branches are followed this deep
const MAX_ISSUE_DEPTH = 8

/**
 * A schema error's issues (zod prints them as a pretty JSON array) said as the first one: where, and what was
 * expected (`content.0.text: Invalid input: expected string, received number`), its union branches followed to
 * the first issue of the first branch.
 */
const firstIssue = (issues: unknown): string | undefined => {
  let issue: unknown = Array.isArray(issues) ? issues[0] : undefined
  const path: Array<unknown> = []
  for (let depth = 0; depth < MAX_ISSUE_DEPTH && Predicate.isRecord(issue); depth++) {
    if (Array.isArray(issue.path)) { for (const key of issue.path) path.push(key) }
    const branches = issue.errors
    const branch = Array.isArray(branches) ? branches.find((b) => Array.isArray(b) && b.length > 0) : undefined
    if (branch === undefined) {
      if (typeof issue.message !== "string") return undefined
      return path.length > 0 ? `${path.map(String).join(".")}: ${issue.message}` : issue.message
    }
    issue = branch[0]
  }
  return undefined
}

/** `text` in one line: a schema error's issues as its first one, any other text with its line breaks folded. */
const oneLine = (text: string): string => {
  const at = text.search(/\[\s*\{/)
  if (at !== -1 && text.length <= MAX_ISSUES_TEXT) {
    try {
      const issue = firstIssue(JSON.parse(text.slice(at)))
      if (issue !== undefined) return `${text.slice(0, at).trimEnd()} ${issue}`.trimStart()
    } catch {
      // not the issues of a schema: folded as it is
    }
  }
  return text.replace(/\s*\n\s*/g, " ").trim()
}

const clip = (text: string) => {
  const line = oneLine(text)
  return line.length > MAX_DESCRIPTION ? `${line.slice(0, MAX_DESCRIPTION)}…` : line
}

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

/**
 * The errors of the 2026-07-28 revision's negotiation, read from the JSON-RPC error's `code` and `data`: what a
 * person can act on, with no remote text but the revisions and capability names (checked for their shape).
 */
const revisionCodes: Readonly<Record<number, ConnectFailure>> = {
  [-32020]: "HeaderMismatch",
  [-32021]: "ClientCapability",
  [-32022]: "ProtocolVersion"
}
const revisionPattern = /^\d{4}-\d{2}-\d{2}$/
const namePattern = /^[A-Za-z0-9_.:/-]{1,64}$/

const revisionError = (
  code: number,
  data: unknown
): { readonly description: string; readonly connect: ConnectFailure } | undefined => {
  const connect = revisionCodes[code]
  if (connect === undefined) return undefined
  const field = (key: string): unknown => (Predicate.isRecord(data) ? data[key] : undefined)
  if (connect === "ProtocolVersion") {
    const supported = Array.isArray(field("supported"))
      ? (field("supported") as Array<unknown>).filter((v): v is string =>
        typeof v === "string" && revisionPattern.test(v)
      )
      : []
    const requested = field("requested")
    const asked = typeof requested === "string" && revisionPattern.test(requested)
      ? requested
      : "a revision it does not speak"
    return {
      connect,
      description: supported.length === 0
        ? `the server does not support protocol ${asked}`
        : `the server supports only protocol ${supported.join(", ")}, and this client asked for ${asked}`
    }
  }
  if (connect === "ClientCapability") {
    const required = field("requiredCapabilities")
    const names = (Array.isArray(required) ? required : Predicate.isRecord(required) ? Object.keys(required) : [])
      .filter((v): v is string => typeof v === "string" && namePattern.test(v))
    return {
      connect,
      description: names.length === 0
        ? "the server needs a client capability this client did not declare"
        : `the server needs the client ${names.length === 1 ? "capability" : "capabilities"} ${names.join(", ")}`
    }
  }
  return {
    connect,
    description: "the server refused the request: its MCP headers and its body disagree (header mismatch)"
  }
}

/** The JSON-RPC error in the body of an HTTP error the SDK reports as `Error POSTing to endpoint: <body>`. */
const bodyError = (message: string): { readonly code: number; readonly data: unknown } | undefined => {
  const at = message.indexOf("{")
  // a body is read only when it is small: a JSON-RPC error of the revision's negotiation is
  if (at === -1 || message.length - at > 4_096) return undefined
  try {
    const body: unknown = JSON.parse(message.slice(at))
    const error = Predicate.isRecord(body) ? body.error : undefined
    return Predicate.isRecord(error) && typeof error.code === "number"
      ? { code: error.code, data: error.data }
      : undefined
  } catch {
    return undefined
  }
}

const sdkRequestFailures: Partial<Record<SdkErrorCode, RequestFailure>> = {
  [SdkErrorCode.ConnectionClosed]: "Transport",
  [SdkErrorCode.NotConnected]: "Transport",
  [SdkErrorCode.SendFailed]: "Transport",
  [SdkErrorCode.RequestTimeout]: "Transport",
  [SdkErrorCode.InvalidResult]: "InvalidResponse",
  [SdkErrorCode.UnsupportedResultType]: "InvalidResponse",
  [SdkErrorCode.ListPaginationExceeded]: "InvalidResponse",
  [SdkErrorCode.InputRequiredRoundsExceeded]: "TooManyRounds",
  [SdkErrorCode.CapabilityNotSupported]: "Unsupported",
  [SdkErrorCode.MethodNotSupportedByProtocolVersion]: "Unsupported"
}

const roundsOf = (cause: SdkError): string => {
  const rounds = Predicate.isRecord(cause.data) ? cause.data.rounds : undefined
  return typeof rounds === "number" ? String(rounds) : "too many"
}

const sdkFailure = (cause: SdkError, scrubber: Scrubber.Scrubber) => {
  const closed = cause.code === SdkErrorCode.ConnectionClosed
  const description = closed
    ? "Connection closed"
    : cause.code === SdkErrorCode.InvalidResult
    // the schema's first issue, as a malformed listing says it: where, and what was expected
    ? clip(scrubber.scrub(`invalid response: ${cause.message.replace(/^Invalid result for [^:]*: /, "")}`))
    : cause.code === SdkErrorCode.InputRequiredRoundsExceeded
    ? `the server asked for input ${roundsOf(cause)} times without finishing`
    : clip(scrubber.scrub(cause.message))
  return {
    description,
    ...(closed ? { code: connectionClosedCode } : {}),
    connect: closed
      ? "Closed" as const
      : cause.code === SdkErrorCode.EraNegotiationFailed
      ? "ProtocolVersion" as const
      : "Protocol" as const,
    request: sdkRequestFailures[cause.code] ?? "Unknown",
    keep: false
  }
}

const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EPIPE"
])

/** A failure described: its text, and its kind both for a connection and for a request. */
interface Described {
  readonly description: string
  readonly code?: number
  readonly httpStatus?: number
  readonly connect: ConnectFailure
  readonly request: RequestFailure
  readonly keep: boolean
}

/**
 * A failure described, for a connection and for a request (where an error answer of the server is `Remote`, not
 * a broken `Protocol`): by what threw it, the protocol, HTTP, the SDK, a parser, a schema, OAuth or the system.
 */
const describe = (cause: unknown, scrubber: Scrubber.Scrubber, depth = 0): Described => {
  if (cause instanceof ProtocolError) return protocolFailure(cause, scrubber)
  if (cause instanceof SdkHttpError) return httpFailure(cause)
  // the SDK's own failures: its texts are its own, but an invalid result's may quote what the server sent
  // a probe that could not reach the server failed as a connect does: for what is underneath
  if (
    cause instanceof SdkError && cause.code === SdkErrorCode.EraNegotiationFailed && cause.cause !== undefined &&
    depth < MAX_CAUSES
  ) {
    return describe(cause.cause, scrubber, depth + 1)
  }
  if (cause instanceof SdkError) return sdkFailure(cause, scrubber)
  // a parser's message quotes the input it choked on, which may be anything the server sent back
  if (cause instanceof SyntaxError) {
    return {
      description: "the server sent a response that is not valid JSON",
      connect: "Protocol",
      request: "InvalidResponse",
      keep: false
    }
  }
  if (cause instanceof Error && Predicate.hasProperty(cause, "issues") && Array.isArray(cause.issues)) {
    // a schema error's message is its issues as pretty-printed JSON: say the first one in a line
    return {
      description: clip(scrubber.scrub(`invalid response: ${firstIssue(cause.issues) ?? "invalid"}`)),
      connect: "Protocol",
      request: "InvalidResponse",
      keep: false
    }
  }
  // OAuth's: a login needed, Zett's refusal of an authorization server, the SDK's OAuth errors
  const authorization = McpAuthSession.failureOf(cause, scrubber)
  if (authorization !== undefined) {
    const { description, reason } = authorization
    return { description: clip(description), connect: reason, request: reason, keep: false }
  }
  if (cause instanceof Error) return systemFailure(cause, scrubber)
  return { description: clip(scrubber.scrub(String(cause))), connect: "Unknown", request: "Unknown", keep: false }
}

/** A JSON-RPC error: a server's answer, a refusal over the revision, or one Zett put in place of a response. */
const protocolFailure = (cause: ProtocolError, scrubber: Scrubber.Scrubber): Described => {
  // a failure Zett itself put in place of a response (a closed stream, a message over the size limit)
  if (cause.data instanceof LocalFailure.LocalFailure) {
    return {
      description: cause.data.reason,
      connect: cause.data.kind === "StreamClosed" ? "Closed" : "Protocol",
      request: cause.data.kind,
      keep: false
    }
  }
  const revision = revisionError(cause.code, cause.data)
  if (revision !== undefined) {
    return {
      description: revision.description,
      code: cause.code,
      connect: revision.connect,
      request: "Remote",
      keep: false
    }
  }
  const text = cause.message.replace(/^(MCP error -?\d+: )+/, "")
  return {
    description: clip(scrubber.scrub(text)),
    code: cause.code,
    connect: "Protocol",
    request: "Remote",
    keep: false
  }
}

/** An HTTP status the transport refused, with a modern server's refusal of another revision in a 400's body. */
const httpFailure = (cause: SdkHttpError): Described => {
  const status = cause.status
  const statusText = status === undefined || status < 100
    ? "unexpected HTTP response"
    : `HTTP ${status}${Http.STATUS_CODES[status] ? ` ${Http.STATUS_CODES[status]}` : ""}`
  const inBody = status === 400 ? bodyError(cause.message) : undefined
  const revision = inBody === undefined ? undefined : revisionError(inBody.code, inBody.data)
  if (revision !== undefined) {
    return {
      description: `${statusText}: ${revision.description}`,
      code: inBody!.code,
      httpStatus: status!,
      connect: revision.connect,
      request: "Remote",
      keep: false
    }
  }
  return {
    description: statusText,
    ...(status !== undefined && status >= 100 ? { httpStatus: status } : {}),
    connect: status === 401 ? "Unauthorized" : "Http",
    request: status === 401 ? "Unauthorized" : "Transport",
    keep: false
  }
}

/** Any other error: a system error's errno (a network one is `Network`/`Transport`), fetch's reason underneath. */
const systemFailure = (cause: Error, scrubber: Scrubber.Scrubber): Described => {
  const errno = errnoCode(cause)
  const message = scrubber.scrub(cause.message)
  // fetch fails with a bare "fetch failed"; the errno code underneath is the useful part, else the reason
  // underneath (`bad port`: fetch refuses some ports before connecting)
  const inner = errno === undefined && cause.message === "fetch failed" ? innermost(cause) : cause
  const description = errno !== undefined && !message.includes(errno)
    ? `${message} (${errno})`
    : inner !== cause && inner.message !== ""
    ? `${message} (${scrubber.scrub(inner.message)})`
    : message
  const network = errno !== undefined && networkCodes.has(errno)
  return {
    description: clip(description),
    connect: network ? "Network" : "Unknown",
    request: network ? "Transport" : "Unknown",
    keep: message === cause.message
  }
}

/**
 * An `McpConnectError` from whatever a connection attempt threw. The description is short, passed through the
 * server's `scrubber`, and holds no HTTP response body and no parser message; the original cause is kept only
 * when it carries no remote text.
 */
export const connectError = (options: {
  readonly server: string
  readonly cause: unknown
  readonly scrubber?: Scrubber.Scrubber | undefined
  readonly prefix?: string | undefined
}): McpConnectError => {
  const { code, connect, description, httpStatus, keep } = describe(options.cause, options.scrubber ?? Scrubber.none)
  // the fields are made here, of the right types: no schema check (a tenth of the CPU time of a refused connect)
  if (connect === "NeedsAuthorization") {
    return new McpConnectError({
      server: options.server,
      reason: connect,
      description: needsAuthorizationReason(options.server)
    }, true)
  }
  return new McpConnectError({
    server: options.server,
    reason: connect,
    description: options.prefix === undefined ? description : `${options.prefix}: ${description}`,
    ...defined({ code, httpStatus, cause: keep ? options.cause : undefined })
  }, true)
}

/**
 * An `McpRequestError` from whatever a request threw; `code` is the JSON-RPC code of an SDK `McpError`. The
 * description is short, passed through the server's `scrubber`, and holds no HTTP response body and no parser
 * message.
 */
export const requestError = (options: {
  readonly server: string
  readonly method: string
  readonly cause: unknown
  readonly scrubber?: Scrubber.Scrubber | undefined
}): McpRequestError => {
  const { code, description, keep, request } = describe(options.cause, options.scrubber ?? Scrubber.none)
  return new McpRequestError({
    server: options.server,
    method: options.method,
    reason: request,
    description: request === "NeedsAuthorization" ? needsAuthorizationReason(options.server) : description,
    ...defined({ code, cause: keep ? options.cause : undefined })
  }, true)
}
