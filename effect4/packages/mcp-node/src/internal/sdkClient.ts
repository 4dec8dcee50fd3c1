/**
 * The SDK's `Client` of one connection, whatever its transport: how it is made (its log messages, its validator,
 * its negotiation of the revision, the server-request handlers), connected, and asked for a log level; and what
 * every transport's connect is given (`Settings`, the factory's; `Attempt`, the connect's).
 *
 * @internal
 */
import { Client } from "@modelcontextprotocol/client"
import type {
  jsonSchemaValidator,
  LoggingLevel,
  PriorDiscovery,
  Transport,
  VersionNegotiationOptions
} from "@modelcontextprotocol/client"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv"
import type { Scrubber } from "@zett/agent"
import { McpConnectError } from "@zett/mcp/McpError"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import type * as CommandTransport from "./commandTransport.js"
import * as Connection from "./connection.js"
import * as Errors from "./errors.js"
import type * as LocalFailure from "./localFailure.js"
import * as ServerRequests from "./serverRequests.js"

/**
 * What the factory's connects share, from its options.
 *
 * @internal
 */
export interface Settings {
  readonly clientInfo: { readonly name: string; readonly version: string }
  readonly closeTimeout: Duration.Duration
  readonly closeMs: number
  readonly maxMessageBytes: number
  /** What a request whose answer was over `maxMessageBytes` fails with. */
  readonly tooLarge: LocalFailure.LocalFailure
  readonly probeMs: number
  readonly serverLogLevel: LoggingLevel | undefined
}

/**
 * One connect: the definition, its scrubber, the connection's server-request handlers (none: `undefined`), and a
 * fresh client for each attempt.
 *
 * @internal
 */
export interface Attempt<S extends McpServerConfig.McpServerConfig = McpServerConfig.McpServerConfig> {
  readonly server: S
  readonly scrubber: Scrubber.Scrubber
  readonly requests: ServerRequests.ServerRequests | undefined
  readonly fresh: () => Client
}

// the eight levels of RFC 5424 that MCP uses, as Effect's
const logLevels: Readonly<Record<LoggingLevel, LogLevel.Severity>> = {
  debug: "Debug",
  info: "Info",
  notice: "Info",
  warning: "Warn",
  error: "Error",
  critical: "Fatal",
  alert: "Fatal",
  emergency: "Fatal"
}

const MAX_LOG_MESSAGE = 8_192

/**
 * The SDK's validator of tool output schemas, made when the first such schema is listed. The SDK's client makes
 * its own Ajv instance (meta-schemas and formats compiled: a quarter of the CPU time of a refused connect) as it is
 * made, also for a server that never connects or lists no output schema. One per client all the same: an Ajv
 * keeps every schema it compiled, and one shared by all servers would keep them all (and mix up `$id`s).
 */
const lazyValidator = (): jsonSchemaValidator => {
  let ajv: AjvJsonSchemaValidator | undefined
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) }
}

/** @internal */
export const defaultProbeTimeout = Duration.seconds(5)

/** @internal */
export const defaultClientInfo = { name: "zett", version: "0.1.0" } as const

/** The SDK's negotiation for a definition's `protocol`: ask and fall back (`auto`, the default), or a pinned revision. */
const negotiation = (protocol: McpServerConfig.Protocol | undefined, probeMs: number): VersionNegotiationOptions =>
  protocol === "2025-11-25"
    ? { mode: "legacy" }
    : protocol === "2026-07-28"
    ? { mode: { pin: "2026-07-28" }, probe: { timeoutMs: probeMs } }
    : { mode: "auto", probe: { timeoutMs: probeMs } }

/**
 * A client whose server's log messages (`notifications/message`) go to the Effect logger of `runtime`, at the
 * mapped level, annotated with the server (and the server's logger name), scrubbed of its secrets. It declares
 * the capabilities of the server-request handlers installed (`requests`: elicitation, sampling, roots), and no
 * other.
 *
 * @internal
 */
export const newClient = (
  clientInfo: { readonly name: string; readonly version: string },
  server: McpServerConfig.McpServerConfig,
  runtime: Context.Context<never>,
  scrubber: Scrubber.Scrubber,
  probeMs: number,
  requests?: ServerRequests.ServerRequests
): Client => {
  const client = new Client({ name: clientInfo.name, version: clientInfo.version }, {
    capabilities: requests === undefined ? {} : ServerRequests.capabilities(requests.handlers),
    jsonSchemaValidator: lazyValidator(),
    versionNegotiation: negotiation(server.protocol, probeMs)
  })
  requests?.install(client)
  client.setNotificationHandler("notifications/message", (notification) => {
    const { data, level, logger } = notification.params
    const text = typeof data === "string" ? data : JSON.stringify(data) ?? String(data)
    const clipped = text.length > MAX_LOG_MESSAGE
      ? `${scrubber.scrubTruncated(text.slice(0, MAX_LOG_MESSAGE))} … (cut at ${MAX_LOG_MESSAGE} characters)`
      : scrubber.scrub(text)
    Effect.runForkWith(runtime)(
      Effect.logWithLevel(logLevels[level] ?? "Info")(`MCP server ${server.name}: ${clipped}`).pipe(
        Effect.annotateLogs({
          "mcp.server": server.name,
          // what the server said, told apart from what Zett says about it
          "mcp.stream": "log",
          ...(logger !== undefined ? { "mcp.logger": scrubber.scrub(logger) } : {})
        })
      )
    )
  })
  return client
}

/** After `initialize`: the log level asked for, when the server supports logging; a refusal changes nothing. @internal */
export const askLogLevel = (client: Client, level: LoggingLevel | undefined) =>
  level === undefined || client.getServerCapabilities()?.logging === undefined
    ? Effect.void
    : Effect.promise(() => client.setLoggingLevel(level).then(() => {}, () => {}))

/** @internal */
export const unwrapAll = (record: Readonly<Record<string, Redacted.Redacted<string>>>) => {
  const out: Record<string, string> = {}
  for (const key of Object.keys(record)) out[key] = Redacted.value(record[key]!)
  return out
}

/**
 * Connects `client` over `transport` (`prior`: what the server is known to speak); a stdio server that exited is
 * reported with its exit status and its last stderr lines.
 *
 * @internal
 */
export const connectClient = (
  client: Client,
  transport: Transport,
  server: McpServerConfig.McpServerConfig,
  scrubber: Scrubber.Scrubber,
  prior: PriorDiscovery | undefined,
  stdio?: CommandTransport.StdioTransport
) =>
  Effect.tryPromise({
    try: (signal) =>
      client.connect(transport, {
        signal,
        timeout: Connection.sdkTimeoutDisabled,
        ...(prior !== undefined ? { prior } : {})
      }),
    catch: (cause) => pinned(server, Errors.connectError({ server: server.name, cause, scrubber }))
  }).pipe(
    Effect.catch((error) => {
      // "Connection closed" alone does not say that the process died, nor how, nor why: its last words do
      const exitStatus = stdio?.exitStatus
      // a refusal over the revision says all there is to say (the SDK then closed the pipe itself)
      if (stdio === undefined || exitStatus === undefined || revisionReasons.has(error.reason)) {
        return Effect.fail(error)
      }
      return Effect.flatMap(stdio.stderrReason, (tail) =>
        new McpConnectError({
          server: error.server,
          reason: "Exited",
          description: `${error.description}: the server process ${exitStatus}${stderrNote(tail, scrubber)}`,
          ...(error.code !== undefined ? { code: error.code } : {})
        }))
    })
  )

const revisionReasons: ReadonlySet<string> = new Set(["ProtocolVersion", "ClientCapability", "HeaderMismatch"])

/** A refusal over the revision of a definition that pins one says so: that is what the user can change. */
const pinned = (server: McpServerConfig.McpServerConfig, error: McpConnectError): McpConnectError =>
  error.reason !== "ProtocolVersion" || server.protocol === undefined || server.protocol === "auto"
    ? error
    : new McpConnectError({
      server: error.server,
      reason: error.reason,
      description: `${error.description}; the definition pins protocol ${server.protocol}`,
      ...(error.code !== undefined ? { code: error.code } : {}),
      ...(error.httpStatus !== undefined ? { httpStatus: error.httpStatus } : {})
    })

/** What a connection settled on, to be given to the next connect to the same definition. @internal */
export const verdictOf = (client: Client): PriorDiscovery | undefined => {
  const discover = client.getDiscoverResult()
  if (client.getProtocolEra() === "modern" && discover !== undefined) return { kind: "modern", discover }
  return client.getProtocolEra() === "legacy" ? { kind: "legacy" } : undefined
}

/**
 * Runs one connect attempt in a scope of its own inside the connection's: a failed attempt's process or
 * sockets end at once, before another attempt starts; a successful one lives as long as the connection.
 *
 * @internal
 */
export const attempt = <A, E>(self: Effect.Effect<A, E, Scope.Scope>): Effect.Effect<A, E, Scope.Scope> =>
  Effect.flatMap(
    Scope.Scope,
    (outer) =>
      Effect.flatMap(
        Scope.fork(outer, "sequential"),
        (inner) => Effect.onError(Scope.provide(self, inner), (cause) => Scope.close(inner, Exit.failCause(cause)))
      )
  )

const STDERR_NOTE_LINE = 200

/** `; stderr: a | b`: the server's last stderr lines, scrubbed and cut to a readable length; nothing without them. */
const stderrNote = (
  tail: ReadonlyArray<{ readonly line: string; readonly truncated: boolean }>,
  scrubber: Scrubber.Scrubber
): string => {
  if (tail.length === 0) return ""
  const lines = tail.map(({ line, truncated }) => {
    const cut = truncated || line.length > STDERR_NOTE_LINE
    // a cut line may end inside a secret: its tail is scrubbed as a possible prefix of one
    const text = cut ? scrubber.scrubTruncated(line.slice(0, STDERR_NOTE_LINE)) : scrubber.scrub(line)
    return cut ? `${text.trim()}…` : text.trim()
  })
  return `; stderr: ${lines.join(" | ")}`
}
