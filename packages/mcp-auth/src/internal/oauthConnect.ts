/**
 * The OAuth side of connecting to an HTTP server: which provider the transport gets, the renewal of
 * expired tokens before connecting (under the store's lock, so concurrent connections share one refresh), and,
 * when a login is needed, either the `NeedsAuthorization` failure or the host's login through the
 * `McpAuthorization` hook, fed back with the transport's `finishAuth`.
 *
 * @internal
 */
import { auth as sdkAuth, computeScopeUnion } from "@modelcontextprotocol/client"
import type { OAuthClientProvider } from "@modelcontextprotocol/client"
import type { Scrubber } from "@zett/agent"
import { McpConnectError } from "@zett/mcp/McpError"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { Login, McpAuthorization } from "../McpAuthorization.js"
import { offered as offeredAuthorization } from "../McpAuthorization.js"
import * as McpTokenStore from "../McpTokenStore.js"
import * as Dpop from "./dpop.js"
import * as OAuthChecks from "./oauthChecks.js"
import * as OAuthProvider from "./oauthProvider.js"

/** What one connection attempt gets. */
export interface Session {
  readonly authProvider: OAuthClientProvider | undefined
  /** The fetch of the transport, watched for the server's challenges (401, 403). */
  readonly fetch: <F extends (url: string | URL, init?: RequestInit) => Promise<Response>>(fetch: F) => F
  /**
   * A login for a request of the connection that failed for want of one (the server answered a request after
   * `initialize` with 401, or a call with 403 `insufficient_scope`), when the host has a user to run it.
   */
  readonly reauthorize: Reauthorize | undefined
}

/**
 * Runs a login for a request that failed with `NeedsAuthorization`, unless another request's login finished
 * since `seen` (then the request is simply sent again). `generation` counts the logins of the connection.
 *
 * @internal
 */
export interface Reauthorize {
  readonly generation: () => number
  readonly run: (seen: number) => Effect.Effect<void, McpConnectError>
  /** How many logins one request may run before its failure stands. */
  readonly limit: number
  /** The scope of the server's last 403 `insufficient_scope` that no login has obtained yet. */
  readonly stepUpScope: () => string | undefined
}

const plain: Session = { authProvider: undefined, fetch: (fetch) => fetch, reauthorize: undefined }

/** @internal */
export interface Settings {
  readonly store: McpTokenStore.McpTokenStore["Type"]
  /** The credentials the process holds: a login's tokens join them, and errors are scrubbed of them. */
  readonly held: Scrubber.Secrets
  /** The hook of an interactive factory; otherwise the one in the connect's context, if any. */
  readonly hook: Option.Option<McpAuthorization["Type"]>
  /** How many logins one connect (or one request) may run before it gives up (a server that keeps refusing). */
  readonly maxAuthorizations: number
  /** Tokens that expire within this are renewed before connecting. */
  readonly refreshSkewMs: number
  /**
   * The driver's reading of what a request of the login threw (a network failure, the SDK's OAuth errors, a
   * refusal of `oauthChecks`): the driver knows its SDK's and its runtime's exceptions.
   */
  readonly connectError: (options: {
    readonly server: string
    readonly cause: unknown
    readonly scrubber?: Scrubber.Scrubber | undefined
  }) => McpConnectError
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
  observe: ((response: Response, withToken: boolean) => void) | undefined,
  refusals: Array<OAuthChecks.Refused>
): F => {
  const endpoint = new URL(server.url)
  return (async (url: string | URL, init?: RequestInit) => {
    if (sameEndpoint(url, endpoint)) {
      const response = await fetch(url, init)
      observe?.(response, new Headers(init?.headers).has("authorization"))
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

/** The fetch of OAuth's own requests (metadata, registration, tokens, an identity provider), checked and bounded. */
const authorizationFetch = (server: McpServerConfig.McpHttpServer, refusals: Array<OAuthChecks.Refused>) =>
  oauthFetch((url: string | URL, init?: RequestInit) => fetch(url, init), server, undefined, refusals)

/** The session of a provider. */
const sessionOf = (
  provider: OAuthClientProvider,
  server: McpServerConfig.McpHttpServer,
  observe: ((response: Response, withToken: boolean) => void) | undefined,
  refusals: Array<OAuthChecks.Refused>,
  reauthorize?: Reauthorize | undefined
): Session => ({
  authProvider: provider,
  fetch: (fetch) => oauthFetch(fetch, server, observe, refusals),
  reauthorize
})

const connectError = (server: McpServerConfig.McpHttpServer, settings: Settings, cause: unknown) =>
  settings.connectError({
    server: server.name,
    cause,
    scrubber: settings.held.extend(McpServerConfig.scrubberOf(server))
  })

const needsAuthorization = (server: McpServerConfig.McpHttpServer, settings: Settings) =>
  settings.connectError({ server: server.name, cause: new OAuthProvider.NeedsLogin() })

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
      if (!machine && McpTokenStore.current(entry).tokens?.refresh_token === undefined) {
        // an expired token that cannot be renewed is worth nothing: the server's 401 then starts a login
        yield* McpTokenStore.modify(settings.store, provider.context.key, McpTokenStore.withoutTokens)
        return
      }
      yield* Effect.logDebug(`MCP server ${server.name}: renewing its expired access token`)
      const result = yield* Effect.tryPromise({
        try: () => sdkAuth(provider, { serverUrl: server.url, fetchFn: authorizationFetch(server, refusals) }),
        catch: (cause) => connectError(server, settings, cause)
      })
      if (result !== "AUTHORIZED") return yield* needsAuthorization(server, settings)
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
      if (Object.keys(server.headers).some((name) => name.toLowerCase() === "authorization")) {
        return yield* attempt(plain)
      }
      const stored = yield* Effect.orElseSucceed(
        settings.store.get(McpTokenStore.normalizeKey(server.url)),
        Option.none
      )
      if (Option.isNone(stored)) return yield* attempt(plain)
      auth = new McpServerConfig.AuthorizationCode({})
    }
    if (auth._tag === "CustomProvider") return yield* attempt(sessionOf(auth.provider, server, undefined, refusals))
    const runtime = yield* Effect.runtime<never>()
    const clock = yield* Effect.clock
    const context: OAuthProvider.Context = {
      key: McpTokenStore.normalizeKey(server.url),
      store: settings.store,
      held: settings.held,
      runtime,
      now: () => clock.unsafeCurrentTimeMillis(),
      dpop: new Dpop.State(auth.dpop)
    }
    if (auth._tag === "ClientCredentials" || auth._tag === "EnterpriseManaged" || auth._tag === "WorkloadIdentity") {
      const provider = auth._tag === "ClientCredentials"
        ? new OAuthProvider.ClientCredentialsProvider(context, auth)
        : auth._tag === "WorkloadIdentity"
        ? new OAuthProvider.WorkloadIdentityProvider(context, auth)
        : new OAuthProvider.EnterpriseManagedProvider(context, auth, authorizationFetch(server, refusals))
      yield* renew(settings, provider, server, true, refusals)
      return yield* attempt(
        sessionOf(provider, server, (response, withToken) => provider.observe(response, withToken), refusals)
      )
    }

    return yield* withAuthorizationCode(server, settings, attempt, refusals, context, auth)
  })

// The transport's provider never waits for a user: a flow that would (a registration, a redirect) stops with
// `NeedsLogin`, and a login, when the host offers one, runs here, beside the transport (`authorizeOnce`).
const withAuthorizationCode = <A>(
  server: McpServerConfig.McpHttpServer,
  settings: Settings,
  attempt: (session: Session) => Effect.Effect<A, McpConnectError, Scope.Scope>,
  refusals: Array<OAuthChecks.Refused>,
  context: OAuthProvider.Context,
  auth: McpServerConfig.AuthorizationCode
): Effect.Effect<A, McpConnectError, Scope.Scope> =>
  Effect.gen(function*() {
    const stored = Option.getOrElse(
      yield* Effect.orElseSucceed(settings.store.get(context.key), Option.none),
      () => ({})
    )
    const quiet = new OAuthProvider.AuthorizationCodeProvider(context, auth, {
      interactive: false,
      // never sent: a flow that would send it stops first; the SDK needs one to tell this from a machine flow
      redirectUrl: McpTokenStore.current(stored).clientInformation?.redirect_uris?.[0] ?? "http://127.0.0.1/callback"
    })
    const hook = Option.isSome(settings.hook) ? settings.hook : yield* offeredAuthorization
    const login = Option.map(hook, (hook) => authorizeOnce(server, settings, context, auth, hook, quiet, refusals))
    const reauthorize = Option.map(
      login,
      (login) => serialized(login, settings.maxAuthorizations, () => quiet.stepUpScope)
    )
    const session = sessionOf(
      quiet,
      server,
      (response, withToken) => quiet.observe(response, withToken),
      refusals,
      Option.getOrUndefined(reauthorize)
    )
    const first = yield* Effect.either(
      Effect.zipRight(renew(settings, quiet, server, false, refusals), attempt(session))
    )
    if (first._tag === "Right") return first.right
    if (refusals.length > 0 || !isLoginNeeded(first.left) || Option.isNone(login)) return yield* first.left
    let last = first.left
    for (let round = 0; round < settings.maxAuthorizations; round++) {
      yield* login.value
      const next = yield* Effect.either(attempt(session))
      if (next._tag === "Right") return next.right
      last = next.left
      if (refusals.length > 0) return yield* last
      // the server refused what the login obtained
      if (last.reason === "Unauthorized") break
      if (!isLoginNeeded(last)) return yield* last
    }
    return yield* stillUnauthorized(server, settings, last)
  })

const stillUnauthorized = (server: McpServerConfig.McpHttpServer, settings: Settings, last: McpConnectError) =>
  new McpConnectError({
    server: server.name,
    reason: "Unauthorized",
    description: `still unauthorized after ${settings.maxAuthorizations} authorization${
      settings.maxAuthorizations === 1 ? "" : "s"
    } (${last.description})`,
    ...(last.httpStatus !== undefined ? { httpStatus: last.httpStatus } : {})
  })

/** One login at a time per connection: a request that failed while another's login ran is sent again after it. */
const serialized = (
  login: Effect.Effect<void, McpConnectError>,
  limit: number,
  stepUpScope: () => string | undefined
): Reauthorize => {
  const lock = Effect.unsafeMakeSemaphore(1)
  let generation = 0
  return {
    generation: () => generation,
    limit,
    stepUpScope,
    run: (seen) =>
      lock.withPermits(1)(Effect.suspend(() =>
        seen !== generation ? Effect.void : Effect.tap(login, () => {
          generation++
        })
      ))
  }
}

const authorizationFailed = (server: McpServerConfig.McpHttpServer) => (error: { readonly description: string }) =>
  new McpConnectError({
    server: server.name,
    reason: "Unauthorized",
    description: `authorization failed: ${error.description}`
  })

/**
 * One login through the host's hook, with the SDK's `auth()`: the scope the server asked for (a step-up asks for
 * what was granted and what the server wants now, and is never answered by a refresh), the discovery done again
 * when the server refused a token (its authorization server may have changed: credentials of the old one are
 * then not used, as they carry its issuer), the URL shown to the user, the callback's `state` compared, and its
 * code redeemed with its `iss` (RFC 9207). The host's listener lives for the login only.
 */
const authorizeOnce = (
  server: McpServerConfig.McpHttpServer,
  settings: Settings,
  context: OAuthProvider.Context,
  auth: McpServerConfig.AuthorizationCode,
  hook: McpAuthorization["Type"],
  quiet: OAuthProvider.AuthorizationCodeProvider,
  refusals: Array<OAuthChecks.Refused>
): Effect.Effect<void, McpConnectError> =>
  Effect.scoped(Effect.gen(function*() {
    const login: Login = yield* hook.login({
      name: server.name,
      url: server.url,
      ...(auth.redirectPort !== undefined ? { redirectPort: auth.redirectPort } : {})
    }).pipe(Effect.mapError(authorizationFailed(server)))
    const provider = new OAuthProvider.AuthorizationCodeProvider(context, auth, {
      interactive: true,
      redirectUrl: login.redirectUrl
    })
    const fetchFn = authorizationFetch(server, refusals)
    const sdk = (options: Omit<Parameters<typeof sdkAuth>[1], "serverUrl" | "fetchFn">) =>
      Effect.tryPromise({
        try: () => sdkAuth(provider, { serverUrl: server.url, fetchFn, ...options }),
        catch: (cause) => connectError(server, settings, refusals[0] ?? cause)
      })
    if (quiet.tokenRefused) provider.tokenRefused = true
    const entry = Option.getOrElse(
      yield* Effect.orElseSucceed(settings.store.get(context.key), Option.none),
      (): McpTokenStore.Entry => ({})
    )
    const granted = McpTokenStore.current(entry).tokens?.scope
    const stepUp = quiet.stepUpScope
    const scope = stepUp !== undefined
      ? computeScopeUnion(granted, quiet.challengedScope, stepUp)
      : quiet.challengedScope
    provider.stepUpScope = stepUp
    const started = yield* sdk({
      ...(scope !== undefined && scope !== "" ? { scope } : {}),
      ...(quiet.resourceMetadataUrl !== undefined ? { resourceMetadataUrl: quiet.resourceMetadataUrl } : {}),
      ...(stepUp !== undefined ? { forceReauthorization: true } : {})
    })
    if (started === "REDIRECT") {
      const url = provider.authorizationUrl
      if (url === undefined) return yield* stillUnauthorized(server, settings, needsAuthorizationError(server))
      yield* Effect.logInfo(`MCP server ${server.name}: waiting for authorization`)
      const callback = yield* login.authorize(url).pipe(Effect.mapError(authorizationFailed(server)))
      if (callback.state !== (url.searchParams.get("state") ?? undefined)) {
        return yield* authorizationFailed(server)({ description: "the callback's state does not match" })
      }
      const finished = yield* sdk({
        authorizationCode: Redacted.value(callback.code),
        ...(callback.iss !== undefined ? { iss: callback.iss } : {}),
        ...(quiet.resourceMetadataUrl !== undefined ? { resourceMetadataUrl: quiet.resourceMetadataUrl } : {})
      })
      if (finished !== "AUTHORIZED") return yield* stillUnauthorized(server, settings, needsAuthorizationError(server))
    }
    // what the server asked for is answered: its next challenge starts afresh
    quiet.tokenRefused = false
    quiet.stepUpScope = undefined
  }))

const needsAuthorizationError = (server: McpServerConfig.McpHttpServer) =>
  new McpConnectError({ server: server.name, reason: "NeedsAuthorization", description: "needs authorization" })
