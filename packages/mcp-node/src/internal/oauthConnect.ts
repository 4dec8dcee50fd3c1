/**
 * The OAuth side of connecting to an HTTP server: which provider the transport gets, the renewal of
 * expired tokens before connecting (under the store's lock, so concurrent connections share one refresh), and,
 * when a login is needed, either the `NeedsAuthorization` failure or the host's login through the
 * `McpAuthorization` hook, fed back with the transport's `finishAuth`.
 *
 * @internal
 */
import * as Errors from "./errors.js"
import { auth as sdkAuth } from "@modelcontextprotocol/client"
import type { OAuthClientProvider } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import type { Scrubber } from "@zett/agent"
import { McpConnectError } from "@zett/mcp/McpError"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as McpTokenStore from "../McpTokenStore.js"
import * as OAuthChecks from "./oauthChecks.js"
import type { Login } from "./authorization.js"
import type { McpAuthorization } from "./authorization.js"
import { offered as offeredAuthorization } from "./authorization.js"
import * as OAuthProvider from "./oauthProvider.js"

/** What one connection attempt gets. */
export interface Session {
  readonly authProvider: OAuthClientProvider | undefined
  /** The fetch of the transport, watched for the server's challenges (401, 403). */
  readonly fetch: <F extends (url: string | URL, init?: RequestInit) => Promise<Response>>(fetch: F) => F
  /** The transport of the attempt, whose `finishAuth` takes the code of a login. */
  readonly onTransport: (transport: { readonly finishAuth: (code: string) => Promise<void> }) => void
}

const plain: Session = { authProvider: undefined, fetch: (fetch) => fetch, onTransport: () => {} }

/** @internal */
export interface Settings {
  readonly store: McpTokenStore.McpTokenStore["Type"]
  /** The credentials the process holds: a login's tokens join them, and errors are scrubbed of them. */
  readonly held: Scrubber.Secrets
  /** The hook of an interactive factory; otherwise the one in the connect's context, if any. */
  readonly hook: Option.Option<McpAuthorization["Type"]>
  /** How many logins one connect may run before it gives up (a server that keeps answering 401). */
  readonly maxAuthorizations: number
  /** Tokens that expire within this are renewed before connecting. */
  readonly refreshSkewMs: number
}

const sameEndpoint = (url: string | URL, endpoint: URL) => {
  try {
    const target = new URL(url)
    return target.origin === endpoint.origin && target.pathname === endpoint.pathname
  } catch {
    return false
  }
}

/**
 * The fetch `auth()` is given, and the transport's: requests to the MCP endpoint pass through (their 401 and 403
 * watched by `observe`); every other one is OAuth's (metadata, registration, tokens), refused for authorization
 * server metadata that is not `https:`, its answer read within limits and handed to the SDK as this runtime's
 * `Response`, as it tells an OAuth error response by `instanceof Response`. Refusals are also kept in
 * `refusals`: the SDK swallows some (a failed protected-resource metadata falls back to older discovery).
 */
const oauthFetch = <F extends (url: string | URL, init?: RequestInit) => Promise<Response>>(
  fetch: F,
  server: McpServerConfig.McpHttpServer,
  observe: ((response: Response) => void) | undefined,
  refusals: Array<OAuthChecks.Refused>
): F => {
  const endpoint = new URL(server.url)
  return (async (url: string | URL, init?: RequestInit) => {
    if (sameEndpoint(url, endpoint)) {
      const response = await fetch(url, init)
      observe?.(response)
      return response
    }
    try {
      const refused = OAuthChecks.requestRefusal(url)
      if (refused !== undefined) throw new OAuthChecks.Refused(refused)
      return await OAuthChecks.boundedResponse(url, await fetch(url, init))
    } catch (error) {
      if (OAuthChecks.isRefused(error)) refusals.push(error)
      throw error
    }
  }) as F
}

/** The session of a provider. */
const sessionOf = (
  provider: OAuthClientProvider,
  server: McpServerConfig.McpHttpServer,
  observe: ((response: Response) => void) | undefined,
  transports: Array<{ readonly finishAuth: (code: string) => Promise<void> }>,
  refusals: Array<OAuthChecks.Refused>
): Session => ({
  authProvider: provider,
  fetch: (fetch) => oauthFetch(fetch, server, observe, refusals),
  onTransport: (transport) => void transports.push(transport)
})

const connectError = (server: McpServerConfig.McpHttpServer, settings: Settings, cause: unknown) =>
  Errors.connectError({ server: server.name, cause, scrubber: settings.held.extend(McpServerConfig.scrubberOf(server)) })

const needsAuthorization = (server: McpServerConfig.McpHttpServer) =>
  Errors.connectError({ server: server.name, cause: new OAuthProvider.NeedsLogin() })

/**
 * Renews expired tokens before connecting, under the store's lock: a second connection that waited for the
 * lock finds fresh tokens and makes no request. The SDK's `auth()` does the refresh (or the client credentials
 * request) with the discovery state kept in the store.
 */
const renew = (
  settings: Settings,
  provider: OAuthProvider.StoreProvider & OAuthClientProvider,
  server: McpServerConfig.McpHttpServer,
  machine: boolean,
  refusals: Array<OAuthChecks.Refused>
) =>
  settings.store.withLock(
    provider.context.key,
    Effect.gen(function*() {
      const entry = Option.getOrElse(yield* settings.store.get(provider.context.key), (): McpTokenStore.Entry => ({}))
      const state = OAuthProvider.expiry(entry, provider.context.now(), settings.refreshSkewMs)
      if (state !== "expired") return
      if (!machine && entry.tokens?.refresh_token === undefined) {
        // an expired token that cannot be renewed is worth nothing: the server's 401 then starts a login
        yield* McpTokenStore.modify(settings.store, provider.context.key, ({ tokens: _, ...rest }) => rest)
        return
      }
      yield* Effect.logDebug(`MCP server ${server.name}: renewing its expired access token`)
      const result = yield* Effect.tryPromise({
        try: () => sdkAuth(provider, { serverUrl: server.url, fetchFn: oauthFetch((url, init) => fetch(url, init), server, undefined, refusals) }),
        catch: (cause) => connectError(server, settings, cause)
      })
      if (result !== "AUTHORIZED") return yield* needsAuthorization(server)
    })
  ).pipe(
    Effect.catchTag("McpTokenStoreError", (error) =>
      Effect.fail(new McpConnectError({ server: server.name, reason: "Unauthorized", description: error.message })))
  )

const isLoginNeeded = (error: McpConnectError) => error.reason === "NeedsAuthorization"

/**
 * Connects with `attempt`, giving it the session of the server's `auth` option. An authorization server that was
 * refused (`OAuthChecks`) fails the connect with the refusal, whatever the SDK made of it.
 *
 * @internal
 */
export const connect = <A>(
  server: McpServerConfig.McpHttpServer,
  settings: Settings,
  attempt: (session: Session) => Effect.Effect<A, McpConnectError, Scope.Scope>
): Effect.Effect<A, McpConnectError, Scope.Scope> =>
  Effect.suspend(() => {
    const refusals: Array<OAuthChecks.Refused> = []
    return Effect.mapError(
      connectWith(server, settings, attempt, refusals),
      (error) => refusals[0] === undefined ? error : connectError(server, settings, refusals[0])
    )
  })

const connectWith = <A>(
  server: McpServerConfig.McpHttpServer,
  settings: Settings,
  attempt: (session: Session) => Effect.Effect<A, McpConnectError, Scope.Scope>,
  refusals: Array<OAuthChecks.Refused>
): Effect.Effect<A, McpConnectError, Scope.Scope> =>
  Effect.gen(function*() {
    let auth = server.auth
    if (auth === undefined) {
      // a server without an `auth` option that was logged in to (`zett auth login`, as other clients do for any
      // remote server) uses the default provider; one with its own Authorization header never does
      if (Object.keys(server.headers).some((name) => name.toLowerCase() === "authorization")) return yield* attempt(plain)
      const stored = yield* Effect.orElseSucceed(settings.store.get(McpTokenStore.normalizeKey(server.url)), Option.none)
      if (Option.isNone(stored)) return yield* attempt(plain)
      auth = new McpServerConfig.AuthorizationCode({})
    }
    if (auth._tag === "CustomProvider") return yield* attempt(sessionOf(auth.provider, server, undefined, [], refusals))
    const runtime = yield* Effect.runtime<never>()
    const clock = yield* Effect.clock
    const context: OAuthProvider.Context = {
      key: McpTokenStore.normalizeKey(server.url),
      store: settings.store,
      held: settings.held,
      runtime,
      now: () => clock.unsafeCurrentTimeMillis()
    }
    if (auth._tag === "ClientCredentials") {
      const provider = new OAuthProvider.ClientCredentialsProvider(context, auth)
      yield* renew(settings, provider, server, true, refusals)
      return yield* attempt(sessionOf(provider, server, (response) => provider.observe(response), [], refusals))
    }

    const stored = Option.getOrElse(yield* Effect.orElseSucceed(settings.store.get(context.key), Option.none), () => ({}))
    const quiet = new OAuthProvider.AuthorizationCodeProvider(context, auth, {
      interactive: false,
      // never sent: a flow that would send it stops first; the SDK needs one to tell this from a machine flow
      redirectUrl: (stored as McpTokenStore.Entry).clientInformation?.redirect_uris?.[0] ?? "http://127.0.0.1/callback"
    })
    const hook = Option.isSome(settings.hook) ? settings.hook : yield* offeredAuthorization
    const first = yield* Effect.either(
      Effect.zipRight(
        renew(settings, quiet, server, false, refusals),
        attempt(sessionOf(quiet, server, (response) => quiet.observe(response), [], refusals))
      )
    )
    if (first._tag === "Right") return first.right
    if (refusals.length > 0 || !isLoginNeeded(first.left) || Option.isNone(hook)) return yield* first.left
    return yield* interactive(server, settings, context, auth, hook.value, quiet, attempt, refusals)
  })

const interactive = <A>(
  server: McpServerConfig.McpHttpServer,
  settings: Settings,
  context: OAuthProvider.Context,
  auth: McpServerConfig.AuthorizationCode,
  hook: McpAuthorization["Type"],
  quiet: OAuthProvider.AuthorizationCodeProvider,
  attempt: (session: Session) => Effect.Effect<A, McpConnectError, Scope.Scope>,
  refusals: Array<OAuthChecks.Refused>
): Effect.Effect<A, McpConnectError, Scope.Scope> =>
  Effect.gen(function*() {
    const outer = yield* Effect.scope
    // the host's listener lives for the login only
    const loginScope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
    const login: Login = yield* hook.login({
      name: server.name,
      url: server.url,
      ...(auth.redirectPort !== undefined ? { redirectPort: auth.redirectPort } : {})
    }).pipe(
      Scope.extend(loginScope),
      Effect.mapError((error) =>
        new McpConnectError({ server: server.name, reason: "Unauthorized", description: `authorization failed: ${error.description}` })
      )
    )
    const provider = new OAuthProvider.AuthorizationCodeProvider(context, auth, { interactive: true, redirectUrl: login.redirectUrl })
    provider.challengedScope = quiet.challengedScope
    provider.stepUpScope = quiet.stepUpScope
    let last: McpConnectError | undefined
    for (let round = 0; round <= settings.maxAuthorizations; round++) {
      const transports: Array<{ readonly finishAuth: (code: string) => Promise<void> }> = []
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const result = yield* Effect.either(
        Scope.extend(attempt(sessionOf(provider, server, (response) => provider.observe(response), transports, refusals)), scope)
      )
      if (result._tag === "Right") {
        yield* Scope.close(loginScope, Exit.void)
        return result.right
      }
      last = result.left
      const url = provider.authorizationUrl
      provider.authorizationUrl = undefined
      const transport = transports[transports.length - 1]
      if (url === undefined || transport === undefined || round === settings.maxAuthorizations || refusals.length > 0) {
        yield* Scope.close(scope, Exit.void)
        break
      }
      yield* Effect.logInfo(`MCP server ${server.name}: waiting for authorization`)
      const sent = url.searchParams.get("state") ?? undefined
      const finished = yield* Effect.either(Effect.gen(function*() {
        const callback = yield* login.authorize(url).pipe(
          Effect.mapError((error) =>
            new McpConnectError({ server: server.name, reason: "Unauthorized", description: `authorization failed: ${error.description}` })
          )
        )
        if (callback.state !== sent) {
          return yield* new McpConnectError({
            server: server.name,
            reason: "Unauthorized",
            description: "authorization failed: the callback's state does not match"
          })
        }
        yield* Effect.tryPromise({
          try: () => transport.finishAuth(Redacted.value(callback.code)),
          catch: (cause) => connectError(server, settings, cause)
        })
      }))
      yield* Scope.close(scope, Exit.void)
      if (finished._tag === "Left") {
        yield* Scope.close(loginScope, Exit.void)
        return yield* finished.left
      }
    }
    yield* Scope.close(loginScope, Exit.void)
    if (last !== undefined && !isLoginNeeded(last) && last.reason !== "Unauthorized") return yield* last
    return yield* new McpConnectError({
      server: server.name,
      reason: "Unauthorized",
      description: `still unauthorized after ${settings.maxAuthorizations} authorization${settings.maxAuthorizations === 1 ? "" : "s"}${last === undefined ? "" : ` (${last.description})`}`,
      ...(last?.httpStatus !== undefined ? { httpStatus: last.httpStatus } : {})
    })
  })
