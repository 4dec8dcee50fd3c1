/**
 * OAuth logins for remote MCP servers. Inside an agent request nothing waits for a browser: a server
 * that needs a login is unavailable with the reason `needs authorization: run zett auth login <server>`. A host
 * that has a user (a CLI, a desktop app) provides `McpAuthorization`, its own way to show the authorization URL
 * and receive the code; the client factory then runs the login when a server asks for one (`interactive`), and
 * `login` runs it on purpose.
 *
 * @since 1.0.0
 */
import { McpClientFactory } from "@zett/mcp/McpClientFactory"
import { McpAuthorizationError } from "@zett/mcp/McpError"
import type { McpConnectError, McpRequestError } from "@zett/mcp/McpError"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as OAuthChecks from "./internal/oauthChecks.js"
import * as OAuthProvider from "./internal/oauthProvider.js"
import * as McpTokenStore from "./McpTokenStore.js"

/**
 * What came back to the redirect URL: the authorization code, the `state` it carried, and the `iss` that names
 * the authorization server that sent it (RFC 9207), checked against the one the login went to before the code is
 * redeemed.
 *
 * @since 1.0.0
 * @category models
 */
export interface Callback {
  readonly code: Redacted.Redacted<string>
  readonly state?: string | undefined
  readonly iss?: string | undefined
}

/**
 * The `Callback` in the query of a redirect, or why there is none: the authorization server's `error` (its code
 * only: a description is the server's text), or no `code`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const callback = (server: string, params: URLSearchParams): Effect.Effect<Callback, McpAuthorizationError> => {
  const error = params.get("error")
  if (error !== null) {
    return Effect.fail(
      new McpAuthorizationError({
        server,
        reason: "Denied",
        description: `the authorization server answered ${/^[a-z_]{1,40}$/.test(error) ? error : "an error"}`
      })
    )
  }
  const code = params.get("code")
  if (code === null) {
    return Effect.fail(
      new McpAuthorizationError({ server, reason: "InvalidCallback", description: "the redirect carried no code" })
    )
  }
  const state = params.get("state")
  const iss = params.get("iss")
  return Effect.succeed({
    code: Redacted.make(code),
    ...(state !== null ? { state } : {}),
    ...(iss !== null ? { iss } : {})
  })
}

/**
 * One login in progress: the redirect URL the host receives the code on (a loopback listener, a custom scheme),
 * and the step that shows `authorizationUrl` to the user and waits for the callback.
 *
 * @since 1.0.0
 * @category models
 */
export interface Login {
  readonly redirectUrl: string
  readonly authorize: (authorizationUrl: URL) => Effect.Effect<Callback, McpAuthorizationError>
}

export {
  /**
   * A login that could not finish: the user refused, the wait timed out, the callback carried an error
   * (`McpError.McpAuthorizationError` of `@zett/mcp`).
   *
   * @since 1.0.0
   * @category errors
   */
  McpAuthorizationError
} from "@zett/mcp/McpError"

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  readonly login: (server: {
    readonly name: string
    readonly url: string
    /** The configured loopback port (`redirectPort`), if any. */
    readonly redirectPort?: number | undefined
  }) => Effect.Effect<Login, McpAuthorizationError, Scope.Scope>
}

/**
 * The host's login hook. `login` opens a login for a server (a listener, a window) in the given scope. By default
 * it is `none`: nothing waits for a browser, and a server that needs a login is unavailable until one is run.
 *
 * @since 1.0.0
 * @category tags
 */
export const McpAuthorization: Context.Reference<Service> = Context.Reference<Service>(
  "@zett/mcp-auth/McpAuthorization",
  { defaultValue: (): Service => none }
)

/**
 * The default: no login is offered.
 *
 * @since 1.0.0
 * @category constructors
 */
export const none: Service = {
  login: (server) =>
    Effect.fail(
      new McpAuthorizationError({ server: server.name, reason: "Unavailable", description: "no login is offered here" })
    )
}

/**
 * The host's hook, when it is not the default `none`.
 *
 * @since 1.0.0
 * @category utils
 */
export const offered: Effect.Effect<Option.Option<Service>> = Effect.map(
  McpAuthorization,
  (hook) => hook === none ? Option.none() : Option.some(hook)
)

/**
 * Whether a URL's host is this machine's loopback (localhost, 127.0.0.0/8, [::1]), as the URL parser writes
 * it: the one place the authorization specification lets a plain `http:` URL be used, and the rule for any URL a
 * server hands a host to open.
 *
 * @since 1.0.0
 * @category utils
 */
export const isLoopbackHost: (hostname: string) => boolean = OAuthChecks.isLoopback

/**
 * Runs the authorization-code flow for `server` with the `McpAuthorization` in context, even when stored tokens
 * would still do (they are forgotten first; the client registrations are kept): it connects and lists the
 * server's tools, as a server may let the connection through and ask for authorization at its first request.
 * `"Authorized"` when the store then holds tokens, `"NotAsked"` when the server asked for none. The connection
 * is closed after.
 *
 * @since 1.0.0
 * @category constructors
 */
export const login = (
  server: McpServerConfig.McpHttpServer
): Effect.Effect<
  "Authorized" | "NotAsked",
  McpConnectError | McpRequestError | McpTokenStore.McpTokenStoreError,
  McpClientFactory
> =>
  Effect.gen(function*() {
    const store = yield* McpTokenStore.McpTokenStore
    const key = McpTokenStore.normalizeKey(server.url)
    yield* McpTokenStore.modify(store, key, McpTokenStore.withoutTokens)
    const factory = yield* McpClientFactory
    const hook = yield* McpAuthorization
    yield* Effect.scoped(
      Effect.flatMap(factory.connect(withDefaultAuth(server)), (client) =>
        // the listing's own failure (the server's error) is not the login's
        Effect.catchIf(
          client.listTools(),
          (error) => error.reason !== "NeedsAuthorization" && error.reason !== "Unauthorized",
          () => Effect.void
        ))
    ).pipe(Effect.provideService(McpAuthorization, hook))
    const entry = yield* store.get(key)
    return Option.isSome(entry) && McpTokenStore.current(entry.value).tokens !== undefined
      ? "Authorized" as const
      : "NotAsked" as const
  })

/**
 * `server` with Zett's authorization-code provider when it has no `auth` option: what a login to any remote
 * server uses (as other clients log in to a server that answers 401).
 *
 * @since 1.0.0
 * @category utils
 */
export const withDefaultAuth = (server: McpServerConfig.McpHttpServer): McpServerConfig.McpHttpServer =>
  server.auth !== undefined ? server : new McpServerConfig.McpHttpServer({
    name: server.name,
    url: server.url,
    headers: server.headers,
    transport: server.transport,
    secrets: server.secrets,
    auth: new McpServerConfig.AuthorizationCode({}),
    ...(server.timeout !== undefined ? { timeout: server.timeout } : {}),
    ...(server.includeTools !== undefined ? { includeTools: server.includeTools } : {}),
    ...(server.excludeTools !== undefined ? { excludeTools: server.excludeTools } : {}),
    ...(server.toolPrefix !== undefined ? { toolPrefix: server.toolPrefix } : {})
  })

/**
 * Forgets a server's tokens and client registration.
 *
 * @since 1.0.0
 * @category constructors
 */
export const logout = (
  server: McpServerConfig.McpHttpServer
): Effect.Effect<void, McpTokenStore.McpTokenStoreError> =>
  Effect.flatMap(McpTokenStore.McpTokenStore, (store) => store.remove(McpTokenStore.normalizeKey(server.url)))

/**
 * Where a server stands: `NoAuth` (no `auth` option), `NeedsLogin` (no tokens, or expired ones that cannot be
 * renewed), `Authorized` with the expiry of the access token when known (renewable ones included) and the
 * issuer of the authorization server that issued it.
 *
 * @since 1.0.0
 * @category models
 */
export type Status =
  | { readonly _tag: "NoAuth" }
  | { readonly _tag: "NeedsLogin" }
  | {
    readonly _tag: "Authorized"
    readonly expiresAt: Option.Option<number>
    readonly refreshable: boolean
    /** The authorization server that issued the tokens in use. */
    readonly issuer: Option.Option<string>
  }

/**
 * The status of a server's authorization, from the store alone (no request is made). Holds no token.
 *
 * @since 1.0.0
 * @category constructors
 */
export const status = (
  server: McpServerConfig.McpServerConfig
): Effect.Effect<Status, McpTokenStore.McpTokenStoreError> =>
  Effect.gen(function*() {
    if (server._tag !== "McpHttpServer" || server.auth?._tag === "CustomProvider") return { _tag: "NoAuth" } as const
    const machine = server.auth?._tag === "ClientCredentials" || server.auth?._tag === "EnterpriseManaged" ||
      server.auth?._tag === "WorkloadIdentity"
    const store = yield* McpTokenStore.McpTokenStore
    const stored = yield* store.get(McpTokenStore.normalizeKey(server.url))
    // a server without `auth` uses OAuth only once it was logged in to
    if (server.auth === undefined && Option.isNone(stored)) return { _tag: "NoAuth" } as const
    const entry = Option.getOrElse(stored, (): McpTokenStore.Entry => ({}))
    const now = yield* Clock.currentTimeMillis
    const tokens = McpTokenStore.current(entry).tokens
    const refreshable = machine || tokens?.refresh_token !== undefined
    const state = OAuthProvider.expiry(entry, now, 0)
    if (state === "none") {
      return machine
        ? {
          _tag: "Authorized",
          expiresAt: Option.none(),
          refreshable,
          issuer: Option.fromUndefinedOr(entry.issuer)
        } as const
        : { _tag: "NeedsLogin" } as const
    }
    if (state === "expired" && !refreshable) return { _tag: "NeedsLogin" } as const
    return {
      _tag: "Authorized",
      expiresAt: Option.fromUndefinedOr(tokens?.expires_at),
      refreshable,
      issuer: Option.fromUndefinedOr(entry.issuer)
    } as const
  })
