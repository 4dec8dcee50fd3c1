/**
 * The `McpAuthorization` hook of a terminal: a loopback listener on 127.0.0.1 for the redirect, the
 * authorization URL printed whole with its domain on standard error, a browser opened only when the user says
 * yes on a terminal (and only for an https: URL, or http: on loopback: `openUrl.ts`), a time limit.
 *
 * @internal
 */
import type * as Prompt from "@effect/cli/Prompt"
import * as McpAuthorization from "@zett/mcp-auth/McpAuthorization"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type * as Output from "../Output.js"
import { inert } from "./inert.js"
import * as OpenUrl from "./openUrl.js"

const page = (title: string) =>
  `<!doctype html><meta charset="utf-8"><title>zett</title><p>${title}</p><p>You can close this window.</p>`

/**
 * The hook of a terminal: a loopback listener for the redirect (closed with the login's scope), the URL
 * printed on standard error with its domain, a browser opened when `browser` allows it, there is one and the
 * user says yes on the terminal. A URL `OpenUrl.check` refuses (`file:`, `javascript:`, remote `http:`) fails
 * the login, unprinted and unopened.
 *
 * @internal
 */
export const loopbackHook = (options: {
  readonly port: Option.Option<number>
  readonly timeout: Duration.Duration
  readonly browser: boolean
  readonly output: Output.Output["Type"]
}): Effect.Effect<McpAuthorization.McpAuthorization["Type"], never, Prompt.Prompt.Environment> =>
  Effect.map(Effect.context<Prompt.Prompt.Environment>(), (terminal) =>
    McpAuthorization.McpAuthorization.of({
      login: (server) =>
        Effect.gen(function*() {
          const callbacks = yield* Queue.unbounded<URLSearchParams>()
          const listener = yield* listen(
            server,
            Option.getOrElse(options.port, () => server.redirectPort ?? 0),
            callbacks
          )
          const redirectUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`
          return {
            redirectUrl,
            authorize: (authorizationUrl: URL) =>
              Effect.gen(function*() {
                const checked = OpenUrl.check(authorizationUrl.href)
                if (checked._tag === "Refused") {
                  return yield* new McpAuthorization.McpAuthorizationError({
                    server: server.name,
                    reason: "InvalidUrl",
                    description: `the authorization URL is refused: ${checked.reason}`
                  })
                }
                yield* options.output.stderr(
                  `To authorize zett for ${server.name}, open this URL in a browser:\n` +
                    `${inert(checked.url.href)}\n${OpenUrl.domainLine(checked.url)}\n`
                )
                const offered = options.browser
                  ? yield* OpenUrl.offer(checked.url).pipe(
                    Effect.provide(terminal),
                    Effect.catchTag("QuitException", () => Effect.succeed("declined" as const))
                  )
                  : "no-browser"
                yield* options.output.stderr(
                  `${offered === "opened" ? "(opened in your browser)\n" : ""}` +
                    `Waiting for the redirect to ${redirectUrl} (${Duration.format(options.timeout)} at most)…\n`
                )
                const params = yield* Queue.take(callbacks).pipe(
                  Effect.timeoutFail({
                    duration: options.timeout,
                    onTimeout: () =>
                      new McpAuthorization.McpAuthorizationError({
                        server: server.name,
                        reason: "Timeout",
                        description: `no redirect came back within ${
                          Duration.format(options.timeout)
                        }; run zett auth login ${server.name} again`
                      })
                  })
                )
                return yield* McpAuthorization.callback(server.name, params)
              })
          }
        })
    }))

// The redirect's listener on 127.0.0.1, closed with the scope: each request to /callback answers a page and offers
// its parameters to `callbacks`.
const listen = (
  server: Parameters<McpAuthorization.McpAuthorization["Type"]["login"]>[0],
  port: number,
  callbacks: Queue.Queue<URLSearchParams>
): Effect.Effect<Http.Server, McpAuthorization.McpAuthorizationError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Http.Server, McpAuthorization.McpAuthorizationError>((resume) => {
      const http = Http.createServer((req, res) => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1")
        if (url.pathname !== "/callback") return void res.writeHead(404).end()
        const failed = url.searchParams.get("error")
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        res.end(page(failed === null ? "zett is authorized." : "The authorization was refused."))
        Queue.unsafeOffer(callbacks, url.searchParams)
      })
      http.on("error", (error: NodeJS.ErrnoException) =>
        resume(Effect.fail(
          new McpAuthorization.McpAuthorizationError({
            server: server.name,
            reason: "Unavailable",
            description: `cannot listen on 127.0.0.1 for the redirect (${error.code ?? error.message})`
          })
        )))
      http.listen(port, "127.0.0.1", () => resume(Effect.succeed(http)))
    }),
    (http) =>
      Effect.async<void>((resume) => {
        http.closeAllConnections()
        http.close(() => resume(Effect.void))
      })
  )
