/**
 * `McpClient.listen` on the 2026-07-28 revision: a `subscriptions/listen` stream (the SDK's `client.listen`) for
 * the life of a `Scope`. The SDK does not listen again after a stream breaks; this does, while the scope lives.
 *
 * @internal
 */
import type { Client, McpSubscription } from "@modelcontextprotocol/client"
import type { Subscription } from "@zett/mcp/McpClient"
import type { McpRequestError } from "@zett/mcp/McpError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"

/** How long closing a subscription may take when its scope closes: the connection usually closes right after. */
const closeTimeoutMs = 2_000

/**
 * After a stream broke: again from 200 ms, doubling, jittered (the specification asks clients that poll for
 * jitter and backoff), 6 tries; then the changes of that server go unheard until it is next listed.
 */
const relisten = Schedule.max([Schedule.jittered(Schedule.exponential(Duration.millis(200))), Schedule.recurs(6)])

const closeWithin = (subscription: McpSubscription) =>
  Effect.promise(() =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, closeTimeoutMs)
      subscription.close().finally(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  )

export const make = (
  client: Client,
  server: string,
  requestError: (cause: unknown) => McpRequestError
) =>
(filter: Subscription): Effect.Effect<void, McpRequestError, Scope.Scope> =>
  Effect.gen(function*() {
    const notifications = {
      ...(filter.toolsListChanged === true ? { toolsListChanged: true } : {}),
      ...(filter.promptsListChanged === true ? { promptsListChanged: true } : {}),
      ...(filter.resourcesListChanged === true ? { resourcesListChanged: true } : {}),
      ...(filter.resourceSubscriptions !== undefined && filter.resourceSubscriptions.length > 0
        ? { resourceSubscriptions: [...filter.resourceSubscriptions] }
        : {})
    }
    if (Object.keys(notifications).length === 0) return
    const open = Effect.tryPromise({ try: (signal) => client.listen(notifications, { signal }), catch: requestError })
    let current = yield* open
    yield* Effect.addFinalizer(() => closeWithin(current))
    const watch = (subscription: McpSubscription): Effect.Effect<void> =>
      Effect.flatMap(Effect.promise(() => subscription.closed), (how) =>
        how === "local"
          ? Effect.void
          : Effect.logDebug(`MCP server ${server}: its subscription stream ended (${how}); listening again`).pipe(
            Effect.andThen(Effect.retry(open, relisten)),
            Effect.flatMap((next) => {
              current = next
              return watch(next)
            }),
            Effect.catch((error) =>
              Effect.logWarning(
                `MCP server ${server}: listening again for its notifications failed (${error.description}); its changes ` +
                  "are seen when it is next listed"
              )
            ),
            Effect.annotateLogs("mcp.server", server)
          ))
    yield* Effect.forkScoped(watch(current))
  })
