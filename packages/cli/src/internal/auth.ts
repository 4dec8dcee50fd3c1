/**
 * `zett auth login | logout | status`. The login listens on 127.0.0.1 (a free port, or the one
 * configured) for the redirect, prints the authorization URL with its domain, opens a browser when there is one
 * and the user says yes (an https: URL, or http: on loopback; no other), and gives up
 * after `--timeout` with a clear message. Tokens go to `~/.zett/auth/` (0600); nothing here prints a token.
 *
 * @internal
 */
import type { McpServerConfig as Server } from "@zett/mcp"
import * as McpAuthorization from "@zett/mcp-auth/McpAuthorization"
import * as McpTokenStore from "@zett/mcp-auth/McpTokenStore"
import * as McpClientFactory from "@zett/mcp/McpClientFactory"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Output from "../Output.js"
import { loadConfiguration, resolveClientFactory, tokenStore } from "./common.js"
import { inert } from "./inert.js"
import { loopbackHook } from "./loopback.js"
import type * as Options from "./options.js"

const findServer = (servers: ReadonlyArray<Server.McpServerConfig>, name: string, file: string) =>
  Effect.gen(function*() {
    const server = servers.find((server) => server.name === name)
    if (server === undefined) {
      return yield* new CliError.UsageError({
        reason: "NotFound",
        message: `no server named ${name} in ${file}; configured: ${servers.map((s) => s.name).join(", ") || "none"}`
      })
    }
    if (server._tag !== "McpHttpServer") {
      return yield* new CliError.UsageError({
        reason: "Unsupported",
        message: `${name} is a stdio server: only remote servers use OAuth`
      })
    }
    if (server.auth?._tag === "CustomProvider") {
      return yield* new CliError.UsageError({
        reason: "Unsupported",
        message: `${name} authorizes through its own provider`
      })
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
    if (server.auth?._tag === "EnterpriseManaged") {
      return yield* Output.line(
        `${server.name} uses enterprise-managed authorization (its identity provider's ID token): no login is needed.`
      )
    }
    if (server.auth?._tag === "WorkloadIdentity") {
      return yield* Output.line(
        `${server.name} uses workload identity (the platform's token for this workload): no login is needed.`
      )
    }
    const output = yield* Output.Output
    const store = yield* tokenStore
    const factory = yield* resolveClientFactory()
    // the URL is shown whole with its domain, and opened only on the user's yes (see loopback.ts, openUrl.ts)
    const hook = yield* loopbackHook({
      port: options.port,
      timeout: Duration.seconds(Option.getOrElse(options.timeout, () => 300)),
      browser: !options.noBrowser,
      output
    })
    const outcome = yield* McpAuthorization.login(server).pipe(
      Effect.provideService(McpClientFactory.McpClientFactory, factory),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provideService(McpAuthorization.McpAuthorization, hook),
      Effect.mapError((error) =>
        new CliError.RunFailed({ reason: "LoginFailed", message: `cannot log in to ${server.name}: ${error.message}` })
      )
    )
    yield* Output.line(
      outcome === "Authorized"
        ? `${server.name}: authorized.`
        : `${server.name}: the server asked for no authorization.`
    )
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
        Effect.map((status) =>
          [
            server.name,
            describeStatus(status, now),
            status._tag === "Authorized"
              ? Option.getOrElse(status.issuer, () => "-")
              : "-"
          ] as const
        ),
        Effect.catchAll((error) => Effect.succeed([server.name, `unknown (${error.message})`, "-"] as const))
      ))
    if (rows.length === 0) return yield* Output.line("No MCP servers are configured.")
    const width = Math.max(...rows.map(([name]) => name.length), "SERVER".length)
    const stateWidth = Math.max(...rows.map(([, state]) => state.length), "AUTH".length)
    // the issuer: the authorization server whose tokens the server gets
    yield* Output.line(`${"SERVER".padEnd(width)}  ${"AUTH".padEnd(stateWidth)}  ISSUER`)
    for (const [name, state, issuer] of rows) {
      yield* Output.line(inert(`${name.padEnd(width)}  ${state.padEnd(stateWidth)}  ${issuer}`))
    }
  })
