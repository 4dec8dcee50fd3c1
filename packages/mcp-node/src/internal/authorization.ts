/**
 * The host's login hook and its models, apart from `McpAuthorization.ts` so that the client factory can read the
 * hook without importing the module that imports the factory.
 *
 * @internal
 */
import type { McpAuthorizationError } from "@zett/mcp/McpError"
import type * as Effect from "effect/Effect"
import * as Context from "effect/Context"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"

/**
 * What came back to the redirect URL: the authorization code, and the `state` it carried.
 *
 * @since 0.1.0
 * @category models
 */
export interface Callback {
  readonly code: Redacted.Redacted<string>
  readonly state?: string | undefined
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
 * The host's login hook. `login` opens a login for a server (a listener, a window) in the given scope.
 *
 * @since 0.1.0
 * @category tags
 */
export class McpAuthorization extends Context.Tag("@zett/mcp/McpAuthorization")<McpAuthorization, {
  readonly login: (server: {
    readonly name: string
    readonly url: string
    /** The configured loopback port (`redirectPort`), if any. */
    readonly redirectPort?: number | undefined
  }) => Effect.Effect<Login, McpAuthorizationError, Scope.Scope>
}>() {}

