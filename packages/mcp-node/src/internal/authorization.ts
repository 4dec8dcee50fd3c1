/**
 * The host's login hook and its models, apart from `McpAuthorization.ts` so that the client factory can read the
 * hook without importing the module that imports the factory.
 *
 * @internal
 */
import { McpAuthorizationError } from "@zett/mcp/McpError"
import * as Effect from "effect/Effect"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"

/**
 * What came back to the redirect URL: the authorization code, the `state` it carried, and the `iss` that names
 * the authorization server that sent it (RFC 9207), checked against the one the login went to before the code is
 * redeemed.
 *
 * @since 0.1.0
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
 * @since 0.1.0
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
    return Effect.fail(new McpAuthorizationError({ server, reason: "InvalidCallback", description: "the redirect carried no code" }))
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
 * @since 0.1.0
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
   * @since 0.1.0
   * @category errors
   */
  McpAuthorizationError
} from "@zett/mcp/McpError"

/**
 * @since 0.1.0
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
 * @since 0.1.0
 * @category tags
 */
export class McpAuthorization extends Context.Reference<McpAuthorization>()("@zett/mcp-node/McpAuthorization", {
  defaultValue: (): Service => none
}) {}

/**
 * The default: no login is offered.
 *
 * @since 0.1.0
 * @category constructors
 */
export const none: Service = {
  login: (server) =>
    Effect.fail(new McpAuthorizationError({ server: server.name, reason: "Unavailable", description: "no login is offered here" }))
}

/**
 * The host's hook, when it is not the default `none`.
 *
 * @since 0.1.0
 * @category utils
 */
export const offered: Effect.Effect<Option.Option<Service>> = Effect.map(
  McpAuthorization,
  (hook) => hook === none ? Option.none() : Option.some(hook)
)

