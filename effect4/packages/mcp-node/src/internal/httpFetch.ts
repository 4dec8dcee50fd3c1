/**
 * The `fetch` of one Streamable HTTP connection: undici's `fetch` over an undici `Agent` of the connection's
 * own, destroyed when the connection's scope closes. The global `fetch` pools its sockets process-wide, so
 * idle connections to a server would outlive the request that opened them. (Node's global `fetch` is the undici
 * it bundles, which need not take this undici's `Agent` as its dispatcher: the `fetch` is undici's too.)
 *
 * For POSTs, the response body is watched on its way to the SDK: `@zett/common`'s `McpResponseWatch`, which
 * the driver of both Effect lines shares.
 *
 * @internal
 */
import * as McpResponseWatch from "@zett/common/McpResponseWatch"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as UndiciModule from "undici"

export { EventIds, type Fetch, isOAuthChallenge, type ResponseWatch } from "@zett/common/McpResponseWatch"

type Undici = typeof UndiciModule.default

// undici is loaded with the first HTTP connection: an app (or `zett`) that uses only stdio servers does not
// pay for importing it. It is CommonJS: its exports are the default export of the module namespace, in Node
// as in a bundle (where named exports of a dynamic import may not be there).
let undici: Promise<Undici> | undefined
const loadUndici = Effect.promise(() => (undici ??= import("undici").then((module) => module.default)))

/**
 * A fetch with an `Agent` of its own, its responses watched; closing the scope destroys the agent and every
 * socket it opened.
 *
 * @internal
 */
export const make = (
  watch: McpResponseWatch.ResponseWatch
): Effect.Effect<McpResponseWatch.Fetch, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { Agent, fetch } = yield* loadUndici
    const dispatcher = yield* Effect.acquireRelease(
      Effect.sync(() => new Agent()),
      (agent) => Effect.promise(() => agent.destroy().catch(() => {}))
    )
    return McpResponseWatch.watchedFetch(
      (url, init) => fetch(url, { ...init, dispatcher } as Parameters<typeof fetch>[1]) as unknown as Promise<Response>,
      watch
    )
  })
