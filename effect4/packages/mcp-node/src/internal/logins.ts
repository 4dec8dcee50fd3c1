/**
 * Requests sent again after a login, on a connection whose server needs authorization (a host with a user).
 *
 * @internal
 */
import type * as McpAuthSession from "@zett/mcp-auth/McpAuthSession"
import * as McpError from "@zett/mcp/McpError"
import { McpRequestError } from "@zett/mcp/McpError"
import * as Effect from "effect/Effect"

/**
 * `effect`, sent again after a login when it failed for want of one (the server refused its token, or a call
 * needs a wider scope), at most `limit` times; a login that fails is the request's failure.
 *
 * @internal
 */
export const withLogins =
  (reauthorize: McpAuthSession.Reauthorize, server: string, method: string) =>
  <A, E>(effect: Effect.Effect<A, E | McpRequestError>): Effect.Effect<A, E | McpRequestError> => {
    const attempt = (round: number): Effect.Effect<A, E | McpRequestError> =>
      Effect.suspend(() => {
        const seen = reauthorize.generation()
        return Effect.catchIf(
          effect,
          (error): error is McpRequestError =>
            McpError.isMcpError(error) && error._tag === "McpRequestError" && error.reason === "NeedsAuthorization",
          (error) =>
            round < reauthorize.limit
              ? reauthorize.run(seen).pipe(
                Effect.mapError((error) =>
                  new McpRequestError({ server, method, reason: "Unauthorized", description: error.description })
                ),
                Effect.andThen(attempt(round + 1))
              )
              : round === 0
              ? Effect.fail(error)
              : Effect.fail(loginsSpent(reauthorize, server, method, round))
        )
      })
    return attempt(0)
  }

// a scope as RFC 6749 spells one: said to the model, anything else is not
const scopePattern = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/

/** The failure of a request that still needed authorization after every login it was allowed. */
const loginsSpent = (reauthorize: McpAuthSession.Reauthorize, server: string, method: string, logins: number) => {
  const scope = reauthorize.stepUpScope()
  const times = `${logins} authorization${logins === 1 ? "" : "s"}`
  return scope !== undefined && scopePattern.test(scope) && scope.length <= 200
    ? new McpRequestError({
      server,
      method,
      reason: "InsufficientScope",
      description: `the server asks for scope "${scope}", which the authorization server did not grant in ${times}`
    })
    : new McpRequestError({
      server,
      method,
      reason: "Unauthorized",
      description: `the server still refuses the request after ${times}`
    })
}
