/**
 * A connection to an HTTP server: Streamable HTTP, or the legacy HTTP+SSE transport (a definition's
 * `transport: "sse"`, or the fallback when a server answers the initializing POST as one of the 2024-11-05 revision
 * does). Each has sockets of its own (internal/httpFetch) and the OAuth session `@zett/mcp-auth` gives the connect.
 *
 * @internal
 */
import { SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import type { PriorDiscovery } from "@modelcontextprotocol/client"
import * as McpAuthSession from "@zett/mcp-auth/McpAuthSession"
import type * as McpClient from "@zett/mcp/McpClient"
import { McpConnectError, needsAuthorizationReason } from "@zett/mcp/McpError"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as NodeMcpClient from "../NodeMcpClient.js"
import * as Closing from "./closing.js"
import type * as EraVerdicts from "./eraVerdicts.js"
import * as GuardedTransport from "./guardedTransport.js"
import * as HttpFetch from "./httpFetch.js"
import * as LocalFailure from "./localFailure.js"
import * as SdkClient from "./sdkClient.js"

// What a server that predates Streamable HTTP answers its initializing POST with.
const legacyStatuses: ReadonlySet<number> = new Set([400, 404, 405])

// After an event stream ended, the SDK may still be parsing what it had buffered: its answer wins if it came.
const settleMs = 20

/** What both HTTP transports are given: the server's headers, the connection's own sockets, the OAuth provider. */
const transportOptions = (
  server: McpServerConfig.McpHttpServer,
  session: McpAuthSession.Session,
  sockets: HttpFetch.Fetch
) => ({
  requestInit: { headers: SdkClient.unwrapAll(server.headers) },
  fetch: session.fetch(sockets),
  ...(session.authProvider !== undefined ? { authProvider: session.authProvider } : {})
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

type Http = SdkClient.Attempt<McpServerConfig.McpHttpServer>

/** @internal */
export const connect = (
  settings: SdkClient.Settings,
  authSettings: McpAuthSession.Settings,
  verdicts: EraVerdicts.EraVerdicts,
  connecting: Http,
  given: McpClient.Verdict | undefined
): Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope> =>
  McpAuthSession.connect(
    connecting.server,
    authSettings,
    // an HTTP attempt's sockets stay with the connection: a login that follows a refusal still uses them
    (session) =>
      verdicts.withVerdict<McpConnectError>(
        connecting.server,
        given,
        (prior) =>
          connecting.server.transport === "sse"
            ? connectSse(settings, connecting, session)
            : connectStreamable(settings, connecting, session, prior)
      )
  )

/** The legacy HTTP+SSE transport (protocol 2024-11-05): an event stream (GET) and POSTs to the endpoint it names. */
const connectSse = Effect.fnUntraced(
  function*(settings: SdkClient.Settings, connecting: Http, session: McpAuthSession.Session) {
    const { scrubber, server } = connecting
    const client = connecting.fresh()
    // POSTs are answered 202 (their results come on the event stream): only their size is watched
    const sockets = yield* HttpFetch.make({
      maxMessageBytes: settings.maxMessageBytes,
      onOversized: (ids) => guard.fail(ids, settings.tooLarge),
      onStreamEnd: () => {},
      onResumeFailed: () => {},
      onChallenge: () => {}
    })
    const sse = new SSEClientTransport(new URL(server.url), transportOptions(server, session, sockets))
    const guard = new GuardedTransport.GuardedTransport(sse)
    yield* Effect.addFinalizer(() => Closing.closeWithin(Closing.closeQuietly(sse), settings.closeMs + 2_000))
    // the transport of the 2024-11-05 revision: nothing newer is asked over it
    yield* SdkClient.connectClient(client, guard, server, scrubber, { kind: "legacy" })
    yield* SdkClient.askLogLevel(client, settings.serverLogLevel)
    const verdict = { kind: "legacy" } as const
    const options = { server: server.name, scrubber, transport: "sse", verdict, reauthorize: session.reauthorize }
    return { client: yield* NodeMcpClient.makeWith(client, options, connecting.requests), verdict }
  }
)

/**
 * The Streamable HTTP transport's sockets: a response stream that ended resumable is resumed by the SDK (with
 * Last-Event-ID); one that ended otherwise, or whose resumption failed, fails its requests (after `settleMs`, as
 * the SDK may still be parsing what it had buffered); a 401 with an OAuth challenge is noted.
 */
const streamableSockets = (settings: SdkClient.Settings, guard: () => GuardedTransport.GuardedTransport) => {
  // requests whose response stream ended resumable
  const resuming = new Set<string | number>()
  const state = { challenged: false, resuming }
  return Effect.map(
    HttpFetch.make({
      maxMessageBytes: settings.maxMessageBytes,
      onOversized: (ids) => guard().fail(ids, settings.tooLarge),
      onStreamEnd: (ids, resumable) => {
        if (resumable) { for (const id of ids) resuming.add(id) }
        else setTimeout(() => guard().fail(ids, LocalFailure.streamClosed), settleMs)
      },
      // the SDK stops resuming without a word (405), or resumes nothing (a resumed stream ended empty)
      onResumeFailed: (ids) => {
        for (const id of ids) resuming.delete(id)
        setTimeout(() => guard().fail(ids, LocalFailure.streamClosed), settleMs)
      },
      onChallenge: () => {
        state.challenged = true
      }
    }),
    (sockets) => ({ sockets, state })
  )
}

const connectStreamable = Effect.fnUntraced(function*(
  settings: SdkClient.Settings,
  connecting: Http,
  session: McpAuthSession.Session,
  prior: PriorDiscovery | undefined
) {
  const { scrubber, server } = connecting
  const client = connecting.fresh()
  // sockets of its own, closed with the connection (after the transport, whose finalizer runs first)
  const { sockets, state } = yield* streamableSockets(settings, (): GuardedTransport.GuardedTransport => guard)
  const http = new StreamableHTTPClientTransport(new URL(server.url), transportOptions(server, session, sockets))
  const guard = new GuardedTransport.GuardedTransport(http)
  // The SDK says that resuming failed only in this error (the client keeps a handler set before connect)
  guard.onerror = (error) => {
    if (state.resuming.size > 0 && error.message.startsWith("Maximum reconnection attempts")) {
      guard.fail([...state.resuming], LocalFailure.streamClosed)
      state.resuming.clear()
    }
  }
  // registered before connecting, so a failed or interrupted initialize still closes the transport; the
  // session is terminated (DELETE) before the transport closes, as the DELETE needs its signal
  const close = Closing.closeQuietly(http, () => Closing.atMost(http.terminateSession(), settings.closeMs))
  yield* Effect.addFinalizer(() => Closing.closeWithin(close, 2 * settings.closeMs + 2_000))
  const refused = yield* SdkClient.connectClient(client, guard, server, scrubber, prior).pipe(
    Effect.mapError((error) => loginNeeded(error, state.challenged, session, server)),
    Effect.as(undefined),
    Effect.catchIf((error) => error.httpStatus !== undefined && legacyStatuses.has(error.httpStatus), Effect.succeed)
  )
  if (refused === undefined) {
    yield* SdkClient.askLogLevel(client, settings.serverLogLevel)
    const verdict = SdkClient.verdictOf(client)
    const options = {
      server: server.name,
      scrubber,
      transport: "streamable-http",
      verdict,
      reauthorize: session.reauthorize
    }
    return { client: yield* NodeMcpClient.makeWith(client, options, connecting.requests), verdict }
  }
  // A server of the 2024-11-05 revision answers the initializing POST with 400, 404 or 405: the specification's
  // backwards compatibility says to try its event stream at the same URL
  yield* Effect.logDebug(
    `MCP server ${server.name}: ${refused.description} to Streamable HTTP; trying the HTTP+SSE transport`
  )
  yield* Closing.closeWithin(close, 2 * settings.closeMs + 2_000)
  // a server that has neither transport is reported by its answer to the first one
  return yield* Effect.catch(connectSse(settings, connecting, session), () => Effect.fail(refused))
})
