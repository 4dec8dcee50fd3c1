/**
 * The MCP SDK's client factory: opens connections to MCP servers over stdio, Streamable HTTP and SSE (and in
 * memory, for tests). A connection lives in the `Scope` it was opened in: closing the scope
 * closes the transport (and, for stdio, ends the server's whole process group).
 *
 * @since 0.1.0
 */
import { Client } from "@modelcontextprotocol/client"
import { DiscoverResultSchema } from "@modelcontextprotocol/core"
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio"
import { SSEClientTransport } from "@modelcontextprotocol/client"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { InMemoryTransport } from "@modelcontextprotocol/client"
import type { Transport } from "@modelcontextprotocol/client"
import type { LoggingLevel, PriorDiscovery, VersionNegotiationOptions } from "@modelcontextprotocol/client"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv"
import type { jsonSchemaValidator } from "@modelcontextprotocol/client"
import type { PlatformError } from "@effect/platform/Error"
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import { Scrubber } from "@zett/agent"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import * as CommandTransport from "./internal/commandTransport.js"
import * as GuardedTransport from "./internal/guardedTransport.js"
import * as HttpFetch from "./internal/httpFetch.js"
import * as JsonDepth from "./internal/jsonDepth.js"
import * as LocalFailure from "./internal/localFailure.js"
import * as ServerRequests from "./internal/serverRequests.js"
import * as McpClient from "@zett/mcp/McpClient"
import type { ConnectOptions } from "@zett/mcp/McpClientFactory"
import { McpClientFactory, of } from "@zett/mcp/McpClientFactory"
import * as NodeMcpClient from "./NodeMcpClient.js"
import * as Errors from "./internal/errors.js"
import { McpConnectError, needsAuthorizationReason } from "@zett/mcp/McpError"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as McpAuthSession from "@zett/mcp-auth/McpAuthSession"
import * as ProcessGroups from "./ProcessGroups.js"
import { transportAttributes } from "./internal/telemetry.js"
import * as Turns from "./internal/turns.js"
import * as Crypto from "node:crypto"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * How long closing may take at each step (default 2 seconds). A stdio server gets this long to exit
   * after its stdin ends, then its process group is sent SIGTERM and gets this long again, then SIGKILL.
   * An HTTP session gets this long to be terminated (`DELETE`) before the transport is closed.
   */
  readonly closeTimeout?: Duration.DurationInput | undefined
  /** The `clientInfo` sent in `initialize` (default `{ name: "zett", version: "0.1.0" }`). */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined
  /**
   * The largest message a server may send, in bytes (default 10 MB, the SDK's own limit for stdio): one line
   * of a stdio server, a JSON body or one event of a Streamable HTTP response. A larger message is dropped, and
   * the request it answered fails at once, saying that the result was too large; the connection goes on.
   */
  readonly maxMessageBytes?: number | undefined
  /**
   * The least severe of a server's own log messages (`notifications/message`) that it should send, asked with
   * `logging/setLevel` after `initialize` when the server supports logging. By default the server decides.
   * Whatever it sends goes to the Effect logger either way.
   */
  readonly serverLogLevel?: LoggingLevel | undefined
  /**
   * OAuth: when true, a server that needs a login runs it through the `McpAuthorization` hook found
   * in the layer's context (a host with a user); otherwise it is unavailable with the reason
   * `needs authorization: run zett auth login <server>`. A connect run with `McpAuthorization` in its own
   * context is interactive too (that is what `McpAuthorization.login` does). Default false.
   */
  readonly interactive?: boolean | undefined
  /** How many logins one connect may run before it gives up on a server that keeps refusing (default 2). */
  readonly maxAuthorizations?: number | undefined
  /**
   * How long a server gets to answer `server/discover`, the question that tells a server of the 2026-07-28
   * revision from one of the 2025 revisions (default 5 seconds). A stdio server that says nothing in that time
   * is taken for a 2025 one; an HTTP server's silence fails the connect.
   */
  readonly probeTimeout?: Duration.DurationInput | undefined
  /**
   * Where what each definition's server speaks is kept beyond this factory's life (under a digest of
   * `McpServerConfig.cacheKey`, 40 hex digits, whatever the server's name), for a host that runs as a new process each time (`zett` keeps them in
   * `~/.zett/protocols/` through `KeyValueStore.layerFileSystem`). Read once per definition when the factory knows
   * nothing of it, written when a connection settles on something new; a store that fails is passed over.
   */
  readonly verdictStore?: KeyValueStore.KeyValueStore | undefined
}

/**
 * The default of `Options.maxMessageBytes`: 10 MB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxMessageBytes = 10 * 1024 * 1024

// What a server that predates Streamable HTTP answers its initializing POST with.
const legacyStatuses: ReadonlySet<number> = new Set([400, 404, 405])

// After an event stream ended, the SDK may still be parsing what it had buffered: its answer wins if it came.
const settleMs = 20

const defaultClientInfo = { name: "zett", version: "0.1.0" } as const

// the eight levels of RFC 5424 that MCP uses, as Effect's
const logLevels: Readonly<Record<LoggingLevel, LogLevel.LogLevel>> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  notice: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  critical: LogLevel.Fatal,
  alert: LogLevel.Fatal,
  emergency: LogLevel.Fatal
}

const MAX_LOG_MESSAGE = 8_192

/**
 * A client whose server's log messages (`notifications/message`) go to the Effect logger of `runtime`, at the
 * mapped level, annotated with the server (and the server's logger name), scrubbed of its secrets. It declares
 * the capabilities of the server-request handlers installed (`requests`: elicitation, sampling, roots), and no
 * other.
 */
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

const defaultProbeTimeout = Duration.seconds(5)

/** The SDK's negotiation for a definition's `protocol`: ask and fall back (`auto`, the default), or a pinned revision. */
const negotiation = (protocol: McpServerConfig.Protocol | undefined, probeMs: number): VersionNegotiationOptions =>
  protocol === "2025-11-25"
    ? { mode: "legacy" }
    : protocol === "2026-07-28"
    ? { mode: { pin: "2026-07-28" }, probe: { timeoutMs: probeMs } }
    : { mode: "auto", probe: { timeoutMs: probeMs } }

const newClient = (
  clientInfo: { readonly name: string; readonly version: string },
  server: McpServerConfig.McpServerConfig,
  runtime: Runtime.Runtime<never>,
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
    Runtime.runFork(runtime)(
      Effect.logWithLevel(logLevels[level] ?? LogLevel.Info, `MCP server ${server.name}: ${clipped}`).pipe(
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

/**
 * The server-request handlers of a new connection, from the factory's context (none: `undefined`, and the
 * connection declares no capability and tracks nothing).
 */
const serverRequests = (
  handlers: ServerRequests.Handlers,
  own: Runtime.Runtime<never>,
  server: McpServerConfig.McpServerConfig,
  scrubber: Scrubber.Scrubber
) =>
  ServerRequests.none(handlers)
    ? Effect.succeed(undefined)
    : ServerRequests.make(server.name, handlers, scrubber, own)

/** After `initialize`: the log level asked for, when the server supports logging; a refusal changes nothing. */
const askLogLevel = (client: Client, level: LoggingLevel | undefined) =>
  level === undefined || client.getServerCapabilities()?.logging === undefined
    ? Effect.void
    : Effect.promise(() => client.setLoggingLevel(level).then(() => {}, () => {}))

const unwrapAll = (record: Readonly<Record<string, Redacted.Redacted<string>>>) => {
  const out: Record<string, string> = {}
  for (const key of Object.keys(record)) out[key] = Redacted.value(record[key]!)
  return out
}

/** What both HTTP transports are given: the server's headers, the connection's own sockets, the OAuth provider. */
const transportOptions = (server: McpServerConfig.McpHttpServer, session: McpAuthSession.Session, sockets: HttpFetch.Fetch) => ({
  requestInit: { headers: unwrapAll(server.headers) },
  fetch: session.fetch(sockets),
  ...(session.authProvider !== undefined ? { authProvider: session.authProvider } : {})
})

/**
 * `promise`, or `ms` at most. The timer keeps the process alive while a close runs (nothing else may), and is
 * cleared when the promise wins, so nothing lingers after a close.
 */
const atMost = (promise: Promise<unknown>, ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    promise.then(done, done)
  })

/**
 * Waits for `close` to finish, or `ms` at most. The bound is a promise race, not an Effect timeout: a finalizer
 * that runs on an interrupted fiber (a timed-out connect, an interrupted request) must not be made
 * interruptible, or it is cut short at once and the scope closes while the server still runs.
 */
const closeWithin = (close: () => Promise<void>, ms: number) =>
  Effect.promise(() => atMost(close(), ms))

/** Never rejects: closing is best effort. */
const closeQuietly = (transport: Transport, beforeClose?: () => Promise<void>) => async () => {
  try {
    if (beforeClose !== undefined) await beforeClose()
  } catch {
    // a failed DELETE still lets us close our side
  }
  try {
    await transport.close()
  } catch {
    // already closed
  }
}

/** A server that could not be started (no such command, a missing working directory) says so, with the errno. */
const startFailure = (server: McpServerConfig.McpStdioServer, error: PlatformError): McpConnectError => {
  const errno = error._tag === "SystemError" && Predicate.hasProperty(error.cause, "code") ? error.cause.code : undefined
  const code = typeof errno === "string" ? errno : error._tag === "SystemError" ? error.reason : "unknown error"
  const where = server.cwd === undefined ? "" : ` in ${server.cwd}`
  return new McpConnectError({
    server: server.name,
    reason: "Start",
    description: `cannot start ${server.command}${where} (${code})`
  })
}

const connectClient = (
  client: Client,
  transport: Transport,
  server: McpServerConfig.McpServerConfig,
  scrubber: Scrubber.Scrubber,
  prior: PriorDiscovery | undefined,
  stdio?: CommandTransport.StdioTransport
) =>
  Effect.tryPromise({
    try: (signal) =>
      client.connect(transport, { signal, timeout: NodeMcpClient.sdkTimeoutDisabled, ...(prior !== undefined ? { prior } : {}) }),
    catch: (cause) => pinned(server, Errors.connectError({ server: server.name, cause, scrubber }))
  }).pipe(
    Effect.catchAll((error) => {
      // "Connection closed" alone does not say that the process died, nor how, nor why: its last words do
      const exitStatus = stdio?.exitStatus
      // a refusal over the revision says all there is to say (the SDK then closed the pipe itself)
      if (stdio === undefined || exitStatus === undefined || revisionReasons.has(error.reason)) return Effect.fail(error)
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

/** What a connection settled on, to be given to the next connect to the same definition. */
const verdictOf = (client: Client): PriorDiscovery | undefined => {
  const discover = client.getDiscoverResult()
  if (client.getProtocolEra() === "modern" && discover !== undefined) return { kind: "modern", discover }
  return client.getProtocolEra() === "legacy" ? { kind: "legacy" } : undefined
}

/**
 * A verdict from elsewhere (a tool cache, perhaps another process's) as the SDK takes it: a `server/discover`
 * result that is not one is no verdict, and the server is asked.
 */
const priorOf = (verdict: McpClient.Verdict | undefined): PriorDiscovery | undefined => {
  if (verdict === undefined) return undefined
  if (verdict.kind === "legacy") return { kind: "legacy" }
  const parsed = DiscoverResultSchema.safeParse(verdict.discover)
  return parsed.success ? { kind: "modern", discover: parsed.data } : undefined
}

const decodeVerdictOption = Schema.decodeUnknownOption(Schema.parseJson(McpClient.Verdict))
// a discover result is a few hundred bytes, a few levels deep
const MAX_VERDICT_CHARS = 65_536
const MAX_VERDICT_DEPTH = 32
/** A stored verdict, or none when the text is not one (another writer's, half a file), measured before it is parsed. */
const decodeVerdict = (text: string): McpClient.Verdict | undefined =>
  text.length > MAX_VERDICT_CHARS || JsonDepth.deeperThan(text, MAX_VERDICT_DEPTH)
    ? undefined
    : Option.getOrUndefined(decodeVerdictOption(text))

const sameVerdict = (a: PriorDiscovery, b: PriorDiscovery) =>
  a.kind === "legacy" ? b.kind === "legacy" : b.kind === "modern" && JSON.stringify(a.discover) === JSON.stringify(b.discover)

/**
 * Runs one connect attempt in a scope of its own inside the connection's: a failed attempt's process or
 * sockets end at once, before another attempt starts; a successful one lives as long as the connection.
 */
const attempt = <A, E>(self: Effect.Effect<A, E, Scope.Scope>): Effect.Effect<A, E, Scope.Scope> =>
  Effect.flatMap(Scope.Scope, (outer) =>
    Effect.flatMap(Scope.fork(outer, ExecutionStrategy.sequential), (inner) =>
      Effect.onError(Scope.extend(self, inner), (cause) => Scope.close(inner, Exit.failCause(cause)))))

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

/** A connection made, and the revision it settled on. */
interface Connected {
  readonly client: McpClient.McpClient
  readonly verdict: PriorDiscovery | undefined
}

/**
 * The SDK-backed factory: stdio servers run in a process group of their own (ended as a whole on close),
 * their stderr goes to the Effect logger at debug level; HTTP servers use Streamable HTTP and their session
 * is terminated before the transport closes. Secrets are unwrapped only where the transport is built. The
 * stdio servers' groups are registered with the `ProcessGroups` in context (`ProcessGroups.layer`: killed if
 * the host exits without closing its scopes; `ProcessGroups.layerNone`: left to their connections' scopes).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<McpClientFactory["Type"], never, ProcessGroups.ProcessGroups> =>
  Effect.gen(function*() {
    const processGroups = yield* ProcessGroups.ProcessGroups
    const handlers = yield* ServerRequests.handlersInContext
    // what a server's request made outside any call runs with
    const own = yield* Effect.runtime<never>()
    // OAuth: the store in context (the process's own in memory unless one is provided), the host's hook when interactive
    const authSettings = yield* McpAuthSession.makeSettings({
      interactive: options?.interactive,
      maxAuthorizations: options?.maxAuthorizations,
      connectError: Errors.connectError
    })
    // connects that start together start one per turn of the event loop: this factory's gate
    const turns = yield* Turns.make
    return of(sdkConnect(authSettings, options, handlers, own, processGroups, turns))
  })

/**
 * A 401 with an OAuth challenge to a connection without a provider (a server without an `auth` option that was
 * never logged in to) needs a login, as one with the option does; not when the server's own Authorization
 * header was refused, as a login's tokens are never sent in its place.
 */
const loginNeeded = (
  error: McpConnectError,
  challenged: boolean,
  session: McpAuthSession.Session,
  server: McpServerConfig.McpHttpServer
): McpConnectError =>
  challenged && error.httpStatus === 401 && session.authProvider === undefined &&
    !Object.keys(server.headers).some((name) => name.toLowerCase() === "authorization")
    ? new McpConnectError({
      server: server.name,
      reason: "NeedsAuthorization",
      description: needsAuthorizationReason(server.name),
      httpStatus: 401
    })
    : error

/** A definition's key in the verdict store: its digest, a short name that any store can keep. */
const storeKey = (key: string): string => Crypto.createHash("sha256").update(key).digest("hex").slice(0, 40)

const sdkConnect = (
  authSettings: McpAuthSession.Settings,
  options: Options | undefined,
  handlers: ServerRequests.Handlers,
  own: Runtime.Runtime<never>,
  processGroups: ProcessGroups.ProcessGroups["Type"],
  turns: Turns.Turns
): (server: McpServerConfig.McpServerConfig) => Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope> => {
  const closeTimeout = Duration.decode(options?.closeTimeout ?? Duration.seconds(2))
  const closeMs = Duration.toMillis(closeTimeout)
  const clientInfo = options?.clientInfo ?? defaultClientInfo
  const maxMessageBytes = options?.maxMessageBytes ?? defaultMaxMessageBytes
  const tooLarge = LocalFailure.tooLarge(maxMessageBytes)
  const probeMs = Duration.toMillis(Duration.decode(options?.probeTimeout ?? defaultProbeTimeout))
  // What each definition's server turned out to speak, for as long as the factory lives: the next connection
  // skips the question (a stdio server's process is new, but its program is the same)
  const verdicts = new Map<string, PriorDiscovery>()

  const store = options?.verdictStore
  // the definitions whose stored verdict was read: after that, this factory's own knowledge is newer
  const recalled = new Set<string>()

  /**
   * One operation of the store, under the definition's digest: a store may make a file name of its key (a
   * definition holds any name), and whatever befalls it costs the next process a question, nothing more.
   */
  const stored = <A>(key: string, use: (store: KeyValueStore.KeyValueStore, name: string) => Effect.Effect<A, unknown>) =>
    store === undefined ? Effect.succeed(undefined) : Effect.suspend(() => use(store, storeKey(key))).pipe(
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.logDebug("the verdict store failed; the server is asked what it speaks", cause), undefined))
    )

  /** The verdict this factory knows for a definition, else its store's (read once per definition). */
  const recall = (key: string): Effect.Effect<PriorDiscovery | undefined> => {
    const known = verdicts.get(key)
    if (known !== undefined || store === undefined || recalled.has(key)) return Effect.succeed(known)
    recalled.add(key)
    return stored(key, (store, name) =>
      Effect.map(store.get(name), (text) => Option.isNone(text) ? undefined : priorOf(decodeVerdict(text.value))))
  }
  const remember = (key: string, verdict: PriorDiscovery) => {
    const before = verdicts.get(key)
    verdicts.set(key, verdict)
    if (before !== undefined && sameVerdict(before, verdict)) return Effect.void
    return Effect.asVoid(stored(key, (store, name) => store.set(name, JSON.stringify(verdict))))
  }
  const forget = (key: string) => {
    verdicts.delete(key)
    return Effect.asVoid(stored(key, (store, name) => store.remove(name)))
  }

  /**
   * Connects with the verdict known for the definition (this factory's, its store's, else the one given), else
   * asking the server; a known verdict that fails is forgotten and the server asked again, once. What a
   * connection settled on is kept.
   */
  const withVerdict = <E>(
    server: McpServerConfig.McpServerConfig,
    given: McpClient.Verdict | undefined,
    connect: (prior: PriorDiscovery | undefined) => Effect.Effect<Connected, E, Scope.Scope>
  ): Effect.Effect<McpClient.McpClient, E, Scope.Scope> => {
    const key = McpServerConfig.cacheKey(server)
    return Effect.flatMap(recall(key), (recalledVerdict) => {
      // what this factory found out itself is newer than what it is told
      const known = recalledVerdict ?? priorOf(given)
      const first = connect(known)
      const connected = known === undefined
        ? first
        : Effect.catchAll(first, () => Effect.zipRight(forget(key), connect(undefined)))
      return Effect.flatMap(connected, ({ client, verdict }) =>
        verdict === undefined ? Effect.succeed(client) : Effect.as(remember(key, verdict), client))
    })
  }

  const connectStdio = (
    fresh: () => Client,
    requests: ServerRequests.ServerRequests | undefined,
    server: McpServerConfig.McpStdioServer,
    scrubber: Scrubber.Scrubber,
    given: McpClient.Verdict | undefined
  ) =>
    withVerdict(server, given, (prior) =>
      attempt(Effect.catchIf(
        connectStdioOnce(fresh(), requests, server, scrubber, prior),
        (failure) => failure.exitedOnProbe,
        // Some servers of the 2025 revisions exit on any request before `initialize`: such a one is started
        // again and spoken to the 2025 way, and the verdict kept, so that it is started once from then on
        (failure) => Effect.tap(attempt(connectStdioOnce(fresh(), requests, server, scrubber, { kind: "legacy" })), () =>
          Effect.logDebug(`MCP server ${server.name}: it exited when asked server/discover; started again on the 2025 revisions`)
        )
      ).pipe(Effect.mapError((failure) => failure.error))))

  const connectStdioOnce = Effect.fnUntraced(function*(
    client: Client,
    requests: ServerRequests.ServerRequests | undefined,
    server: McpServerConfig.McpStdioServer,
    scrubber: Scrubber.Scrubber,
    prior: PriorDiscovery | undefined
  ) {
    const annotations = { "mcp.server": server.name, "mcp.stream": "stderr" }
    // the process is started in the connection's scope, whose close runs the transport's close ladder
    const stdio = yield* CommandTransport.make({
      name: server.name,
      command: server.command,
      args: server.args,
      env: { ...getDefaultEnvironment(), ...unwrapAll(server.env) },
      cwd: server.cwd,
      closeTimeout,
      maxMessageBytes,
      processGroups,
      // the dropped line's id was never read: every request still waiting may have been the one it answered
      onOversized: () => guard.fail("all", tooLarge),
      onStderrLine: (line, truncated) =>
        Effect.annotateLogs(
          Effect.logDebug(
            truncated ? `${scrubber.scrubTruncated(line)} … (line cut at ${line.length} characters)` : scrubber.scrub(line)
          ),
          annotations
        )
    }).pipe(
      Effect.mapError((error) => ({ error: startFailure(server, error), exitedOnProbe: false }))
    )
    const guard = new GuardedTransport.GuardedTransport(stdio, { pid: stdio.pid })
    yield* connectClient(client, guard, server, scrubber, prior, stdio).pipe(
      Effect.mapError((error) => ({
        error,
        exitedOnProbe: prior === undefined && guard.probed && !guard.initialized && stdio.exitStatus !== undefined &&
          server.protocol !== "2026-07-28"
      }))
    )
    guard.connected()
    yield* askLogLevel(client, options?.serverLogLevel)
    const verdict = verdictOf(client)
    return {
      client: yield* NodeMcpClient.makeWith(client, { server: server.name, scrubber, pid: stdio.pid, transport: "stdio", verdict }, requests),
      verdict
    }
  })

  /** The legacy HTTP+SSE transport (protocol 2024-11-05): an event stream (GET) and POSTs to the endpoint it names. */
  const connectSse = Effect.fnUntraced(function*(
    client: Client,
    requests: ServerRequests.ServerRequests | undefined,
    server: McpServerConfig.McpHttpServer,
    session: McpAuthSession.Session,
    scrubber: Scrubber.Scrubber
  ) {
    // POSTs are answered 202 (their results come on the event stream): only their size is watched
    const sockets = yield* HttpFetch.make({
      maxMessageBytes,
      onOversized: (ids) => guard.fail(ids, tooLarge),
      onStreamEnd: () => {},
      onResumeFailed: () => {},
      onChallenge: () => {}
    })
    const sse = new SSEClientTransport(new URL(server.url), transportOptions(server, session, sockets))
    const guard = new GuardedTransport.GuardedTransport(sse)
    yield* Effect.addFinalizer(() => closeWithin(closeQuietly(sse), closeMs + 2_000))
    // the transport of the 2024-11-05 revision: nothing newer is asked over it
    yield* connectClient(client, guard, server, scrubber, { kind: "legacy" })
    yield* askLogLevel(client, options?.serverLogLevel)
    const verdict = { kind: "legacy" } as const
    const sdkOptions = { server: server.name, scrubber, transport: "sse", verdict, reauthorize: session.reauthorize }
    return { client: yield* NodeMcpClient.makeWith(client, sdkOptions, requests), verdict }
  })

  const connectHttp = Effect.fnUntraced(function*(
    fresh: () => Client,
    requests: ServerRequests.ServerRequests | undefined,
    server: McpServerConfig.McpHttpServer,
    session: McpAuthSession.Session,
    scrubber: Scrubber.Scrubber,
    prior: PriorDiscovery | undefined
  ) {
    if (server.transport === "sse") return yield* connectSse(fresh(), requests, server, session, scrubber)
    const client = fresh()
    // requests whose response stream ended resumable: the SDK resumes them with Last-Event-ID
    const resuming = new Set<string | number>()
    // the server answered 401 with an OAuth challenge
    let challenged = false
    // sockets of its own, closed with the connection (after the transport, whose finalizer runs first)
    const sockets = yield* HttpFetch.make({
      maxMessageBytes,
      onOversized: (ids) => guard.fail(ids, tooLarge),
      onStreamEnd: (ids, resumable) => {
        if (resumable) for (const id of ids) resuming.add(id)
        else setTimeout(() => guard.fail(ids, LocalFailure.streamClosed), settleMs)
      },
      // the SDK stops resuming without a word (405), or resumes nothing (a resumed stream ended empty)
      onResumeFailed: (ids) => {
        for (const id of ids) resuming.delete(id)
        setTimeout(() => guard.fail(ids, LocalFailure.streamClosed), settleMs)
      },
      onChallenge: () => {
        challenged = true
      }
    })
    const http = new StreamableHTTPClientTransport(new URL(server.url), transportOptions(server, session, sockets))
    const guard = new GuardedTransport.GuardedTransport(http)
    // The SDK says that resuming failed only in this error (the client keeps a handler set before connect)
    guard.onerror = (error) => {
      if (resuming.size > 0 && error.message.startsWith("Maximum reconnection attempts")) {
        guard.fail([...resuming], LocalFailure.streamClosed)
        resuming.clear()
      }
    }
    // registered before connecting, so a failed or interrupted initialize still closes the transport; the
    // session is terminated (DELETE) before the transport closes, as the DELETE needs its signal
    const close = closeQuietly(http, () => atMost(http.terminateSession(), closeMs))
    yield* Effect.addFinalizer(() => closeWithin(close, 2 * closeMs + 2_000))
    const refused = yield* connectClient(client, guard, server, scrubber, prior).pipe(
      Effect.mapError((error) => loginNeeded(error, challenged, session, server)),
      Effect.as(undefined),
      Effect.catchIf((error) => error.httpStatus !== undefined && legacyStatuses.has(error.httpStatus), Effect.succeed)
    )
    if (refused === undefined) {
      yield* askLogLevel(client, options?.serverLogLevel)
      const verdict = verdictOf(client)
      return {
        client: yield* NodeMcpClient.makeWith(
          client,
          { server: server.name, scrubber, transport: "streamable-http", verdict, reauthorize: session.reauthorize },
          requests
        ),
        verdict
      }
    }
    // A server of the 2024-11-05 revision answers the initializing POST with 400, 404 or 405: the specification's
    // backwards compatibility says to try its event stream at the same URL
    yield* Effect.logDebug(`MCP server ${server.name}: ${refused.description} to Streamable HTTP; trying the HTTP+SSE transport`)
    yield* closeWithin(close, 2 * closeMs + 2_000)
    // a server that has neither transport is reported by its answer to the first one
    return yield* Effect.catchAll(connectSse(fresh(), requests, server, session, scrubber), () => Effect.fail(refused))
  })

  return Effect.fn("McpClientFactory.connect")(function*(
    server: McpServerConfig.McpServerConfig,
    connectOptions?: ConnectOptions | undefined
  ) {
    // connects that start together start one per turn of the event loop, so open connections are read between
    yield* turns.take
    yield* Effect.annotateCurrentSpan(transportAttributes(server))
    const runtime = yield* Effect.runtime<never>()
    // the definition's secrets and every credential the process holds, now or later (a login's tokens)
    const scrubber = authSettings.held.extend(McpServerConfig.scrubberOf(server))
    const requests = yield* serverRequests(handlers, own, server, scrubber)
    const fresh = () => newClient(clientInfo, server, runtime, scrubber, probeMs, requests)
    const given = connectOptions?.verdict
    return yield* server._tag === "McpStdioServer"
      ? connectStdio(fresh, requests, server, scrubber, given)
      : McpAuthSession.connect(
        server,
        authSettings,
        // an HTTP attempt's sockets stay with the connection: a login that follows a refusal still uses them
        (session) =>
          withVerdict<McpConnectError>(server, given, (prior) => connectHttp(fresh, requests, server, session, scrubber, prior))
      )
  })
}

/**
 * The SDK-backed factory (stdio and Streamable HTTP). Stdio servers are spawned with `node:child_process` and
 * their pipes used as Node streams: through `@effect/platform`'s `CommandExecutor` streams, a message cost about
 * twice what it costs the SDK's own transport (internal/commandTransport.ts). The exit and signal hooks of
 * `ProcessGroups.layer` live as long as this layer; `make` with `ProcessGroups.layerNone` goes without them.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<McpClientFactory> =>
  Layer.effect(McpClientFactory, make(options)).pipe(Layer.provide(ProcessGroups.layer))

/**
 * An in-process server for `layerInMemory`: a low-level `Server` or a high-level `McpServer` of either SDK line
 * (`@modelcontextprotocol/server` 2.x or `@modelcontextprotocol/sdk` 1.x). Only its wire is shared with the
 * client, so the two lines meet as they would over a pipe.
 *
 * @since 0.1.0
 * @category models
 */
export interface InMemoryServer {
  connect(transport: Transport): Promise<void>
  close(): Promise<void>
}

/**
 * A factory that connects to SDK servers in this process over `InMemoryTransport.createLinkedPair()`, by server
 * name. Each connection gets a fresh server from its factory; closing the scope closes both sides.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeInMemory = (
  servers: Readonly<Record<string, () => InMemoryServer | Promise<InMemoryServer>>>,
  options?: Pick<Options, "clientInfo" | "serverLogLevel">
): Effect.Effect<McpClientFactory["Type"]> =>
  Effect.all([ServerRequests.handlersInContext, Scrubber.HeldSecrets, Effect.runtime<never>()]).pipe(
    Effect.map(([handlers, held, own]) => of(inMemoryConnect(servers, options, handlers, held, own)))
  )

const inMemoryConnect = (
  servers: Readonly<Record<string, () => InMemoryServer | Promise<InMemoryServer>>>,
  options: Pick<Options, "clientInfo" | "serverLogLevel"> | undefined,
  handlers: ServerRequests.Handlers,
  held: Scrubber.Secrets,
  own: Runtime.Runtime<never>
): (server: McpServerConfig.McpServerConfig) => Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope> => {
  const clientInfo = options?.clientInfo ?? defaultClientInfo
  return Effect.fn("McpClientFactory.connect")(function*(server: McpServerConfig.McpServerConfig) {
    yield* Effect.annotateCurrentSpan({ "mcp.server": server.name, "network.transport": "inproc" })
    const makeServer = Object.hasOwn(servers, server.name) ? servers[server.name] : undefined
    if (makeServer === undefined) {
      return yield* new McpConnectError({ server: server.name, reason: "Start", description: "no in-memory server of this name" })
    }
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    let sdkServer: InMemoryServer | undefined
    yield* Effect.addFinalizer(() =>
      closeWithin(async () => {
        // closing one side closes its peer
        await closeQuietly(clientSide)()
        await sdkServer?.close().catch(() => {})
      }, 2_000)
    )
    sdkServer = yield* Effect.tryPromise({
      try: async () => {
        const instance = await makeServer()
        await instance.connect(serverSide)
        return instance
      },
      catch: (cause) => Errors.connectError({ server: server.name, cause, prefix: "in-memory server failed" })
    })
    const scrubber = held.extend(McpServerConfig.scrubberOf(server))
    const requests = yield* serverRequests(handlers, own, server, scrubber)
    const client = newClient(clientInfo, server, yield* Effect.runtime<never>(), scrubber, Duration.toMillis(defaultProbeTimeout), requests)
    yield* connectClient(client, clientSide, server, scrubber, undefined)
    yield* askLogLevel(client, options?.serverLogLevel)
    return yield* NodeMcpClient.makeWith(client, { server: server.name, scrubber, transport: "inproc", verdict: verdictOf(client) }, requests)
  })
}

/**
 * A factory backed by in-process SDK servers (tests, offline examples).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInMemory = (
  servers: Readonly<Record<string, () => InMemoryServer | Promise<InMemoryServer>>>,
  options?: Pick<Options, "clientInfo" | "serverLogLevel">
): Layer.Layer<McpClientFactory> => Layer.effect(McpClientFactory, makeInMemory(servers, options))
