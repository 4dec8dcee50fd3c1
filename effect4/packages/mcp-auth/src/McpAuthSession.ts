/**
 * The OAuth side of a driver's connect to an HTTP MCP server, where the transport meets authorization: the
 * `Session` a transport is given (the SDK `OAuthClientProvider` of the server's `auth` option, the fetch that
 * watches the server's challenges and checks OAuth's own requests, the logins a request may run), the renewal of
 * expired tokens before connecting (under the store's lock, so concurrent connects share one refresh), the login
 * through the host's `McpAuthorization` when a connect needs one, and what the exceptions thrown inside the SDK's
 * `auth()` mean. For drivers (`@zett/mcp-node`); an application uses `McpAuthorization` and `McpTokenStore`.
 *
 * @since 1.0.0
 */
import { IssuerMismatchError, OAuthError, UnauthorizedError } from "@modelcontextprotocol/client"
import * as Scrubber from "@zett/agent/Scrubber"
import type { McpConnectError } from "@zett/mcp/McpError"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as OAuthChecks from "./internal/oauthChecks.js"
import * as OAuthConnect from "./internal/oauthConnect.js"
import * as OAuthProvider from "./internal/oauthProvider.js"
import { offered } from "./McpAuthorization.js"
import * as McpTokenStore from "./McpTokenStore.js"

export type {
  /**
   * A request of the connection that failed for want of a login: `run(seen)` runs one unless another request's
   * login finished since `seen` (then the request is simply sent again).
   *
   * @since 1.0.0
   * @category models
   */
  Reauthorize,
  /**
   * What one connection attempt gets: the `authProvider` of its transport, the transport's fetch wrapped, and the
   * logins of its requests when the host has a user to run them.
   *
   * @since 1.0.0
   * @category models
   */
  Session,
  /**
   * What a factory's connects share: the token store, the held secrets, the host's hook, the limits and the
   * driver's reading of exceptions (`makeSettings`).
   *
   * @since 1.0.0
   * @category models
   */
  Settings
} from "./internal/oauthConnect.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /**
   * When true, a server that needs a login runs it through the `McpAuthorization` in context when the settings
   * are made (a host with a user); otherwise only a connect run with `McpAuthorization` in its own context does.
   */
  readonly interactive?: boolean | undefined
  /** How many logins one connect (or one request) may run before it gives up (default 2). */
  readonly maxAuthorizations?: number | undefined
  /** The driver's reading of an exception as a connect failure (for a failed request of a login or a refresh). */
  readonly connectError: OAuthConnect.Settings["connectError"]
}

/**
 * The settings of a factory's connects: the `McpTokenStore` in context (the process's own in memory unless one
 * is provided), the held secrets (`Scrubber.HeldSecrets`: a login's tokens join them), and the host's hook when
 * `interactive`. Tokens that expire within 30 seconds are renewed before connecting.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeSettings = (options: Options): Effect.Effect<OAuthConnect.Settings> =>
  Effect.gen(function*() {
    const store = yield* McpTokenStore.McpTokenStore
    const hook = options.interactive === true ? yield* offered : Option.none()
    const held = yield* Scrubber.HeldSecrets
    return {
      store,
      held,
      hook,
      maxAuthorizations: options.maxAuthorizations ?? 2,
      refreshSkewMs: 30_000,
      connectError: options.connectError
    }
  })

/**
 * Connects with `attempt`, giving it the session of the server's `auth` option (none for a server without one
 * that was never logged in to, or that sends its own Authorization header). Expired tokens are renewed first;
 * a connect that needs a login fails `NeedsAuthorization`, or runs the login through the host's hook and tries
 * again, at most `maxAuthorizations` times. An authorization server that Zett refused (a plain `http:` endpoint
 * to another host, another issuer in its metadata, an answer too large or too deep) fails the connect with the
 * refusal, whatever the SDK made of it.
 *
 * @since 1.0.0
 * @category constructors
 */
export const connect: <A>(
  server: McpServerConfig.McpHttpServer,
  settings: OAuthConnect.Settings,
  attempt: (session: OAuthConnect.Session) => Effect.Effect<A, McpConnectError, Scope.Scope>
) => Effect.Effect<A, McpConnectError, Scope.Scope> = OAuthConnect.connect

/**
 * What an exception thrown inside the SDK's `auth()` (or by a transport's provider) means, when it is one of
 * authorization: the kind of failure and a description that holds no secret and no text of the authorization
 * server but its error code (and, for a refusal, the names Zett quotes, passed through `scrubber`). `undefined`
 * for any other exception: the driver reads those.
 *
 * @since 1.0.0
 * @category utils
 */
export const failureOf = (
  cause: unknown,
  scrubber: Scrubber.Scrubber = Scrubber.none
): { readonly reason: "NeedsAuthorization" | "Unauthorized"; readonly description: string } | undefined => {
  if (OAuthProvider.isNeedsLogin(cause)) return { reason: "NeedsAuthorization", description: "needs authorization" }
  // Zett's own refusal of an authorization server or of what it asked for: its text names no secret
  if (OAuthChecks.isRefused(cause)) return { reason: "Unauthorized", description: scrubber.scrub(cause.message) }
  if (cause instanceof UnauthorizedError) return { reason: "Unauthorized", description: "unauthorized" }
  if (cause instanceof IssuerMismatchError) {
    return {
      reason: "Unauthorized",
      description: `authorization failed: ${OAuthChecks.issuerMismatch(cause.kind, cause.received, cause.expected)}`
    }
  }
  // an authorization server's description (and the raw body the SDK quotes for a malformed one) is remote text
  if (cause instanceof OAuthError) {
    return { reason: "Unauthorized", description: `authorization failed (${cause.code})` }
  }
  return undefined
}
