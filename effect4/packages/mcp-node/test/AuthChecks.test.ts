/**
 * What Zett checks of an authorization server and of its own token store before using them, through the driver's
 * connects and logins: endpoints that are `https:` (plain `http:` only on loopback), metadata that names the issuer
 * it was fetched for, answers shallow enough to be stored, and stored entries of the shape the SDK expects. The
 * authorization servers are `@zett/testing/OAuthServer` with hostile options; what the assertions read is what
 * the servers received, what the hook was handed and what was logged. The checks read without a connection:
 * packages/mcp-auth/test/OAuthChecks.test.ts; the private token folder: packages/mcp-auth/test/McpTokenStore.test.ts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { captureLogs } from "@zett/testing-core/CapturedLogs"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as OAuthServer from "./utils/oauthServer.js"

const setup = (options: OAuthServer.Options, auth: McpServerConfig.AuthInput = {}) =>
  Effect.gen(function*() {
    const as = yield* OAuthServer.make(options)
    const store = yield* McpTokenStore.makeMemory
    const server = McpServerConfig.http({ name: "docs", url: as.url, auth })
    const headless = OAuthServer.headless()
    const factory = yield* NodeMcpClientFactory.make().pipe(
      Effect.provide(ProcessGroups.layerNone),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(NodeServices.layer)
    )
    const whoami = OAuthServer.whoami(factory, server)
    const login = McpAuthorization.login(server).pipe(
      Effect.provideService(McpClientFactory.McpClientFactory, factory),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(headless.layer)
    )
    const key = McpTokenStore.normalizeKey(as.url)
    return { as, store, server, factory, headless, whoami, login, key }
  })

/** What reached the authorization server after discovery: a registration, a token request, the authorization page. */
const afterDiscovery = (as: OAuthServer.OAuthServer) =>
  as.requests.filter((r) => !r.path.startsWith("/.well-known/") && r.path !== "/mcp").map((r) =>
    `${r.on} ${r.method} ${r.path}`
  )

const robot = { clients: [{ client_id: "robot", client_secret: "robot-secret" }] }
const robotAuth: McpServerConfig.AuthInput = {
  grant: "client_credentials",
  clientId: "robot",
  clientSecret: "robot-secret"
}

describe("authorization server endpoints", () => {
  it.effect("an authorization endpoint that is not https is never handed to the host: the login fails naming it, nothing is registered", () =>
    Effect.gen(function*() {
      const { as, headless, key, login, store } = yield* setup({
        metadataOverrides: { authorization_endpoint: "file:///etc/passwd" }
      })
      const error = yield* Effect.flip(login)
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(
        error.message,
        "docs: authorization failed: the authorization server's authorization endpoint is refused: its scheme file: is not https:"
      )
      // the hook never saw a URL to show or open
      assert.deepStrictEqual(headless.urls, [])
      assert.deepStrictEqual(afterDiscovery(as), [])
      assert.isUndefined(Option.getOrThrow(yield* store.get(key)).discoveryState)
    }))

  it.effect("a pre-registered client with an authorization endpoint on plain http to another host: refused before the redirect", () =>
    Effect.gen(function*() {
      const redirect = "http://127.0.0.1:47813/callback"
      const { as, headless, login } = yield* setup(
        {
          clients: [{ client_id: "zett", redirect_uris: [redirect] }],
          metadataOverrides: { authorization_endpoint: "http://login.example/authorize" }
        },
        { clientId: "zett" }
      )
      const error = yield* Effect.flip(login)
      assert.include(
        error.message,
        "the authorization server's authorization endpoint is refused: plain http: to login.example"
      )
      assert.deepStrictEqual(headless.urls, [])
      assert.deepStrictEqual(afterDiscovery(as), [])
    }))

  it.effect("a token endpoint on plain http to a host that is not loopback: client credentials fail naming it, no token request", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({
        ...robot,
        metadataOverrides: { token_endpoint: "http://as.invalid/token" }
      }, robotAuth)
      const error = yield* Effect.flip(whoami)
      assert.strictEqual(error._tag, "McpConnectError")
      assert.include(
        error.message,
        "the authorization server's token endpoint is refused: plain http: to as.invalid, which is not a loopback host"
      )
      assert.notInclude(error.message, "robot-secret")
      assert.strictEqual(as.count("/token"), 0)
    }))

  it.effect("a registration endpoint that is not https: the login fails naming it, before registering", () =>
    Effect.gen(function*() {
      const { as, headless, login } = yield* setup({
        metadataOverrides: { registration_endpoint: "ftp://as.invalid/register" }
      })
      const error = yield* Effect.flip(login)
      assert.include(
        error.message,
        "the authorization server's registration endpoint is refused: its scheme ftp: is not https:"
      )
      assert.deepStrictEqual(headless.urls, [])
      assert.deepStrictEqual(afterDiscovery(as), [])
    }))

  it.effect("an authorization server on plain http to another host (named by the protected resource): its metadata is not fetched", () =>
    Effect.gen(function*() {
      const { as, headless, login } = yield* setup({ authorizationServers: ["http://as.invalid/"] })
      const error = yield* Effect.flip(login)
      assert.include(error.message, "the authorization server's metadata is refused: plain http: to as.invalid")
      assert.deepStrictEqual(headless.urls, [])
      assert.deepStrictEqual(as.requests.filter((r) => r.on === "as"), [])
    }))
})

describe("the issuer of authorization server metadata", () => {
  it.effect("metadata naming another issuer than the one it was fetched for is refused, naming both; nothing registered, nothing handed out", () =>
    Effect.gen(function*() {
      const { as, headless, login } = yield* setup({ metadataOverrides: { issuer: "https://evil.example" } })
      const error = yield* Effect.flip(login)
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(
        error.message,
        `docs: authorization failed: the authorization server's metadata names the issuer "https://evil.example", not "${as.issuer}" it was fetched for`
      )
      assert.deepStrictEqual(headless.urls, [])
      assert.deepStrictEqual(afterDiscovery(as), [])
    }))

  it.effect("client credentials refuse a mismatched issuer too, before the secret is sent", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup(
        { ...robot, metadataOverrides: { issuer: "https://evil.example" } },
        robotAuth
      )
      const error = yield* Effect.flip(whoami)
      assert.include(error.message, `names the issuer "https://evil.example", not "${as.issuer}"`)
      assert.strictEqual(as.count("/token"), 0)
    }))

  it.effect("the issuer must be identical to the one it was fetched for: another case, a terminating slash or an empty issuer is refused", () =>
    Effect.gen(function*() {
      for (
        const spelling of [
          (own: string) => own.toUpperCase(),
          (own: string) => `${own}/`,
          (own: string) => `${own}//`,
          () => ""
        ]
      ) {
        const { as, whoami } = yield* setup(
          { ...robot, metadataOverrides: (own) => ({ issuer: spelling(own) }) },
          robotAuth
        )
        const error = yield* Effect.flip(whoami)
        assert.include(error.message, `names the issuer ${JSON.stringify(spelling(as.issuer))}, not "${as.issuer}"`)
        assert.strictEqual(as.count("/token"), 0)
      }
    }))

  it.effect("a stored discovery state with a hostile issuer or endpoint is not used for a refresh: it is discovered again, with a warning", () =>
    Effect.gen(function*() {
      const { as, key, login, store, whoami } = yield* setup({})
      yield* login
      as.expireAccessTokens()
      const logs = captureLogs()
      for (const hostile of [{ token_endpoint: "http://as.invalid/token" }, { issuer: "https://evil.example" }]) {
        const entry = Option.getOrThrow(yield* store.get(key))
        const state = entry.discoveryState as { authorizationServerMetadata: Record<string, unknown> }
        yield* store.set(key, {
          ...McpTokenStore.updateCredentials(
            entry,
            entry.issuer!,
            (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } })
          ),
          discoveryState: {
            ...state,
            authorizationServerMetadata: { ...state.authorizationServerMetadata, ...hostile }
          }
        })
        const before = as.count("/token")
        assert.include(yield* whoami.pipe(Effect.provide(logs.layer)), "client dcr-")
        // the refresh went to the real token endpoint, after its metadata was fetched again
        assert.strictEqual(as.count("/token"), before + 1)
        const state2 = Option.getOrThrow(yield* store.get(key)).discoveryState as {
          authorizationServerMetadata: Record<string, unknown>
        }
        assert.strictEqual(state2.authorizationServerMetadata.token_endpoint, `${as.issuer}/token`)
        assert.strictEqual(state2.authorizationServerMetadata.issuer, as.issuer)
        as.expireAccessTokens()
      }
      const warnings = logs.lines.filter((line) => line.level === "WARN").map((line) => line.message)
      assert.deepStrictEqual(warnings, [
        `token store: ignoring the stored discovery state of ${key}: not valid`,
        `token store: ignoring the stored discovery state of ${key}: not valid`
      ])
    }))
})

describe("answers nested too deep", () => {
  for (const where of ["metadata", "registration", "token"] as const) {
    it.effect(`an authorization server's ${where} answer nested 10,000 levels deep fails the login with a typed error, nothing stored`, () =>
      Effect.gen(function*() {
        const { headless, key, login, store } = yield* setup({ nested: { in: where, depth: 10_000 } })
        const error = yield* Effect.flip(login)
        assert.strictEqual(error._tag, "McpConnectError")
        assert.match(
          error.message,
          /^docs: authorization failed: the answer of http:\/\/127\.0\.0\.1:\d+\/\S+ nests deeper than 32 levels$/
        )
        const entry = Option.getOrElse(yield* store.get(key), (): McpTokenStore.Entry => ({}))
        assert.isUndefined(McpTokenStore.current(entry).tokens)
        if (where !== "token") assert.deepStrictEqual(headless.urls, [])
      }))
  }

  it.effect("protected-resource metadata nested 10,000 levels deep fails connect and login naming it (the SDK would fall back): the authorization server is never asked", () =>
    Effect.gen(function*() {
      const { as, factory, headless, login, server } = yield* setup({ nested: { in: "resource", depth: 10_000 } })
      const expected =
        /^docs: authorization failed: the answer of http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp nests deeper than 32 levels$/
      const quiet = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.match(quiet.message, expected)
      const error = yield* Effect.flip(login)
      assert.strictEqual(error._tag, "McpConnectError")
      assert.match(error.message, expected)
      assert.deepStrictEqual(headless.logins, [])
      assert.deepStrictEqual(headless.urls, [])
      assert.deepStrictEqual(as.requests.filter((r) => r.on === "as"), [])
    }))

  it.effect("an authorization server's answer larger than 1,000,000 bytes fails the login with a typed error", () =>
    Effect.gen(function*() {
      const { headless, login } = yield* setup({ nested: { in: "metadata", depth: 1, padding: 1_000_001 } })
      const error = yield* Effect.flip(login)
      assert.match(
        error.message,
        /^docs: authorization failed: the answer of http:\/\/127\.0\.0\.1:\d+\/\S+ is larger than 1,000,000 bytes$/
      )
      assert.deepStrictEqual(headless.urls, [])
    }))

  it.effect("answers nested 20 levels deep are used", () =>
    Effect.gen(function*() {
      for (const where of ["metadata", "resource", "registration", "token"] as const) {
        const { login, whoami } = yield* setup({ nested: { in: where, depth: 20 } })
        yield* login
        assert.include(yield* whoami, "client dcr-")
      }
    }))
})
