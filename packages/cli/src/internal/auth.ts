/**
 * `zett auth login | logout | status` (issue 12). The login listens on 127.0.0.1 (a free port, or the one
 * configured) for the redirect, prints the authorization URL, opens a browser when there is one, and gives up
 * after `--timeout` with a clear message. Tokens go to `~/.zett/auth/` (0600); nothing here prints a token.
 *
 * @internal
 */
import { McpAuthorization, McpClientFactory, McpServer, McpTokenStore } from "@zett/mcp"
import type { McpServer as Server } from "@zett/mcp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as ChildProcess from "node:child_process"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as CliError from "../CliError.js"
import * as Output from "../Output.js"
import { loadConfiguration, resolveClientFactory, tokenStore } from "./common.js"
import type * as Options from "./options.js"

const page = (title: string) =>
  `<!doctype html><meta charset="utf-8"><title>zett</title><p>${title}</p><p>You can close this window.</p>`

/** Opens `url` in the desktop's browser, when there is a desktop; never fails. */
const openBrowser = (url: string) =>
  Effect.sync(() => {
    const command = process.platform === "darwin"
      ? ["open", url]
      : process.platform === "win32"
      ? ["cmd", "/c", "start", "", url]
      : process.env.DISPLAY !== undefined || process.env.WAYLAND_DISPLAY !== undefined
      ? ["xdg-open", url]
      : undefined
    if (command === undefined) return false
    try {
      const child = ChildProcess.spawn(command[0]!, command.slice(1), { stdio: "ignore", detached: true })
      child.on("error", () => {})
      child.unref()
      return true
    } catch {
      return false
    }
  })

/**
 * The hook of a terminal: a loopback listener for the redirect (closed with the login's scope), the URL
 * printed on standard error, a browser opened when asked and possible.
 *
 * @internal
 */
export const loopbackHook = (options: {
  readonly port: Option.Option<number>
  readonly timeout: Duration.Duration
  readonly browser: boolean
  readonly output: Output.Output["Type"]
}): McpAuthorization.McpAuthorization["Type"] =>
  McpAuthorization.McpAuthorization.of({
    login: (server) =>
      Effect.gen(function*() {
        const callbacks = yield* Queue.unbounded<URLSearchParams>()
        const listener = yield* Effect.acquireRelease(
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
                  reason: `cannot listen on 127.0.0.1 for the redirect (${error.code ?? error.message})`
                })
              )))
            http.listen(Option.getOrElse(options.port, () => server.redirectPort ?? 0), "127.0.0.1", () => resume(Effect.succeed(http)))
          }),
          (http) =>
            Effect.async<void>((resume) => {
              http.closeAllConnections()
              http.close(() => resume(Effect.void))
            })
        )
        const redirectUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`
        return {
          redirectUrl,
          authorize: (authorizationUrl: URL) =>
            Effect.gen(function*() {
              const opened = options.browser ? yield* openBrowser(authorizationUrl.href) : false
              yield* options.output.stderr(
                `To authorize zett for ${server.name}, ${opened ? "finish in the browser that opened, or " : ""}open:\n` +
                  `${authorizationUrl.href}\n` +
                  `Waiting for the redirect to ${redirectUrl} (${Duration.format(options.timeout)} at most)…\n`
              )
              const params = yield* Queue.take(callbacks).pipe(
                Effect.timeoutFail({
                  duration: options.timeout,
                  onTimeout: () =>
                    new McpAuthorization.McpAuthorizationError({
                      server: server.name,
                      reason: `no redirect came back within ${Duration.format(options.timeout)}; run zett auth login ${server.name} again`
                    })
                })
              )
              const error = params.get("error")
              if (error !== null) {
                // the error code only: a description is the server's text
                return yield* new McpAuthorization.McpAuthorizationError({
                  server: server.name,
                  reason: `the authorization server answered ${/^[a-z_]{1,40}$/.test(error) ? error : "an error"}`
                })
              }
              const code = params.get("code")
              if (code === null) {
                return yield* new McpAuthorization.McpAuthorizationError({ server: server.name, reason: "the redirect carried no code" })
              }
              const state = params.get("state")
              return { code: Redacted.make(code), ...(state !== null ? { state } : {}) }
            })
        }
      })
  })

const findServer = (servers: ReadonlyArray<Server.McpServer>, name: string, file: string) =>
  Effect.gen(function*() {
    const server = servers.find((server) => server.name === name)
    if (server === undefined) {
      return yield* new CliError.UsageError({
        message: `no server named ${name} in ${file}; configured: ${servers.map((s) => s.name).join(", ") || "none"}`
      })
    }
    if (server._tag !== "McpHttpServer") {
      return yield* new CliError.UsageError({ message: `${name} is a stdio server: only remote servers use OAuth` })
    }
    if (server.auth?._tag === "CustomProvider") {
      return yield* new CliError.UsageError({ message: `${name} authorizes through its own provider` })
    }
    return server
  })

export const login = (options: Options.AuthLoginOptions) =>
  Effect.gen(function*() {
    const { file, snapshot } = yield* loadConfiguration(options.config, { lenient: false })
    const server = yield* findServer(snapshot.servers, options.server, file)
    if (server.auth?._tag === "ClientCredentials") {
      return yield* Output.line(`${server.name} uses the client credentials grant: no login is needed.`)
    }
    const output = yield* Output.Output
    const store = yield* tokenStore
    const factory = yield* resolveClientFactory
    const hook = loopbackHook({
      port: options.port,
      timeout: Duration.seconds(Option.getOrElse(options.timeout, () => 300)),
      browser: !options.noBrowser,
      output
    })
    yield* McpAuthorization.login(server).pipe(
      Effect.provideService(McpClientFactory.McpClientFactory, factory),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provideService(McpAuthorization.McpAuthorization, hook),
      Effect.mapError((error) => new CliError.RunFailed({ message: `cannot log in to ${server.name}: ${error.message}` }))
    )
    yield* Output.line(`${server.name}: authorized.`)
  })

export const logout = (options: Options.AuthLogoutOptions) =>
  Effect.gen(function*() {
    const { file, snapshot } = yield* loadConfiguration(options.config, { lenient: false })
    const server = yield* findServer(snapshot.servers, options.server, file)
    const store = yield* tokenStore
    yield* McpAuthorization.logout(server).pipe(Effect.provideService(McpTokenStore.McpTokenStore, store))
    yield* Output.line(`${server.name}: tokens and client registration forgotten.`)
  })

const describeStatus = (status: McpAuthorization.Status, now: number): string => {
  switch (status._tag) {
    case "NoAuth":
      return "no auth"
    case "NeedsLogin":
      return "needs login"
    case "Authorized": {
      if (Option.isNone(status.expiresAt)) return "authorized"
      const left = status.expiresAt.value - now
      if (left <= 0) return "authorized (expired, renewed on next use)"
      return `authorized, expires in ${Duration.format(Duration.seconds(Math.round(left / 1000)))}`
    }
  }
}

export const status = (options: Options.AuthStatusOptions) =>
  Effect.gen(function*() {
    const { snapshot } = yield* loadConfiguration(options.config, { lenient: true })
    const store = yield* tokenStore
    const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const rows = yield* Effect.forEach(snapshot.servers, (server) =>
      McpAuthorization.status(server).pipe(
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.map((status) => [server.name, McpServer.describe(server), describeStatus(status, now)] as const),
        Effect.catchAll((error) => Effect.succeed([server.name, McpServer.describe(server), `unknown (${error.message})`] as const))
      ))
    if (rows.length === 0) return yield* Output.line("No MCP servers are configured.")
    const width = Math.max(...rows.map(([name]) => name.length), "SERVER".length)
    yield* Output.line(`${"SERVER".padEnd(width)}  AUTH`)
    for (const [name, , state] of rows) yield* Output.line(`${name.padEnd(width)}  ${state}`)
  })
