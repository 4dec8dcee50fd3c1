/**
 * Zett's provider against a local authorization server and a protected SDK MCP server
 * (`@zett/testing/OAuthServer`), both on 127.0.0.1. What the assertions read is what the servers received.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { ClientCredentialsProvider } from "@modelcontextprotocol/client"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Crypto from "node:crypto"
import * as Util from "node:util"
import * as OAuthServer from "./utils/oauthServer.js"

const setup = (
  options: OAuthServer.Options,
  auth: McpServerConfig.AuthInput = {},
  factoryOptions?: NodeMcpClientFactory.Options
) =>
  Effect.gen(function*() {
    const as = yield* OAuthServer.make(options)
    const store = yield* McpTokenStore.makeMemory
    const server = McpServerConfig.http({ name: "docs", url: as.url, auth })
    const headless = OAuthServer.headless()
    const factory = yield* NodeMcpClientFactory.make(factoryOptions).pipe(
      Effect.provide(ProcessGroups.layerNone),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(NodeServices.layer)
    )
    const whoami = (target: McpServerConfig.McpHttpServer = server) => OAuthServer.whoami(factory, target)
    const login = (target: McpServerConfig.McpHttpServer = server) =>
      McpAuthorization.login(target).pipe(
        Effect.provideService(McpClientFactory.McpClientFactory, factory),
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.provide(headless.layer)
      )
    const entry = Effect.map(store.get(McpTokenStore.normalizeKey(as.url)), Option.getOrThrow)
    return { as, store, server, factory, headless, whoami, login, entry }
  })

const paths = (as: OAuthServer.OAuthServer) => as.requests.map((r) => `${r.on} ${r.method} ${r.path}`)

describe("authorization code", () => {
  it.effect("a protected server needs a login: connect fails NeedsAuthorization, no registration, no browser", () =>
    Effect.gen(function*() {
      const { as, factory, server } = yield* setup({})
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.strictEqual(error.reason, "NeedsAuthorization")
      assert.strictEqual(error.description, "needs authorization: run zett auth login docs")
      assert.strictEqual(as.count("/register"), 0)
      assert.strictEqual(as.count("/authorize"), 0)
      assert.strictEqual(as.count("/token"), 0)
    }))

  it.effect("login discovers from WWW-Authenticate, registers, uses PKCE and resource; later connects need no login", () =>
    Effect.gen(function*() {
      const { as, entry, headless, login, whoami } = yield* setup({ resourceScopes: ["mcp:read"] })
      yield* login()
      // protected-resource metadata from the header, then the authorization server's metadata, then registration
      const order = paths(as)
      const prm = order.indexOf("rs GET /.well-known/oauth-protected-resource/mcp")
      const asm = order.indexOf("as GET /.well-known/oauth-authorization-server")
      const reg = order.indexOf("as POST /register")
      assert.isTrue(prm >= 0 && prm < asm && asm < reg, order.join("\n"))
      assert.strictEqual(headless.urls.length, 1)
      const url = headless.urls[0]!
      assert.strictEqual(url.searchParams.get("code_challenge_method"), "S256")
      assert.match(url.searchParams.get("code_challenge") ?? "", /^[A-Za-z0-9_-]{43}$/)
      assert.strictEqual(url.searchParams.get("resource"), as.url)
      // scopes_supported of the resource, since the challenge named none
      assert.strictEqual(url.searchParams.get("scope"), "mcp:read")
      assert.isNotNull(url.searchParams.get("state"))
      const token = as.requests.find((r) => r.path === "/token")!
      assert.strictEqual(token.form.grant_type, "authorization_code")
      assert.strictEqual(token.form.resource, as.url)
      assert.match(token.form.code_verifier ?? "", /^[A-Za-z0-9._~-]{43,128}$/)
      // a public client registered with "none": the client id in the body, no secret
      assert.strictEqual(as.registered.length, 1)
      assert.strictEqual(token.form.client_id, as.registered[0]!.client_id)
      assert.isUndefined(token.authorization)
      const stored = yield* entry
      assert.strictEqual(McpTokenStore.current(stored).tokens?.access_token, as.issued[0]!.accessToken)
      assert.isNumber(McpTokenStore.current(stored).tokens?.expires_at)
      assert.isUndefined(stored.codeVerifier)
      const before = as.requests.length
      assert.strictEqual(yield* whoami(), `client ${as.registered[0]!.client_id} scope mcp:read`)
      // with a valid token, only the MCP endpoint is asked, with the bearer token
      const later = as.requests.slice(before)
      assert.isAbove(later.length, 0)
      for (const request of later) {
        assert.strictEqual(`${request.on} ${request.path}`, "rs /mcp")
        assert.strictEqual(request.authorization, `Bearer ${McpTokenStore.current(stored).tokens?.access_token}`)
      }
    }))

  it.effect("protected-resource metadata at the path-based well-known URL, then at the root", () =>
    Effect.gen(function*() {
      const { as, login, whoami } = yield* setup({ protectedResource: "root", resourceMetadataInHeader: false })
      yield* login()
      const rs = as.requests.filter((r) => r.on === "rs" && r.path.startsWith("/.well-known")).map((r) => r.path)
      assert.deepStrictEqual(rs.slice(0, 2), [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource"
      ])
      assert.include(yield* whoami(), "client dcr-")
    }))

  it.effect("OpenID Connect discovery when RFC 8414 metadata is absent", () =>
    Effect.gen(function*() {
      const { as, login, whoami } = yield* setup({ metadata: "oidc" })
      yield* login()
      const asPaths = as.requests.filter((r) => r.on === "as" && r.method === "GET").map((r) => r.path)
      assert.deepStrictEqual(asPaths.slice(0, 2), [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration"
      ])
      assert.include(yield* whoami(), "client dcr-")
    }))

  it.effect("2025-03-26 fallback: no protected-resource metadata, the authorization server at the MCP server's origin", () =>
    Effect.gen(function*() {
      const { as, login, whoami } = yield* setup({ legacy: true })
      yield* login()
      assert.strictEqual(as.requests.filter((r) => r.on === "as").length, 0)
      assert.isTrue(as.requests.some((r) => r.on === "rs" && r.path === "/.well-known/oauth-authorization-server"))
      assert.isTrue(as.requests.some((r) => r.on === "rs" && r.path === "/token"))
      // no resource parameter without protected-resource metadata
      assert.isUndefined(as.requests.find((r) => r.path === "/token")!.form.resource)
      assert.include(yield* whoami(), "client dcr-")
    }))

  it.effect("a client ID metadata document instead of registration when the server supports them", () =>
    Effect.gen(function*() {
      const clientMetadataUrl = "https://zett.example/oauth/client.json"
      const { as, headless, login, whoami } = yield* setup({ clientIdMetadataDocuments: true }, { clientMetadataUrl })
      yield* login()
      assert.strictEqual(as.count("/register"), 0)
      assert.strictEqual(headless.urls[0]!.searchParams.get("client_id"), clientMetadataUrl)
      assert.strictEqual(yield* whoami(), `client ${clientMetadataUrl} scope `)
    }))

  it.effect("a pre-registered confidential client authenticates with client_secret_basic", () =>
    Effect.gen(function*() {
      const redirect = "http://127.0.0.1:47813/callback"
      const { as, login, whoami } = yield* setup(
        {
          clients: [{ client_id: "zett", client_secret: "s3cret-basic", redirect_uris: [redirect] }],
          registration: false
        },
        { clientId: "zett", clientSecret: "s3cret-basic" }
      )
      yield* login()
      const token = as.requests.find((r) => r.path === "/token")!
      assert.strictEqual(token.authorization, `Basic ${Buffer.from("zett:s3cret-basic").toString("base64")}`)
      assert.isUndefined(token.form.client_secret)
      assert.strictEqual(yield* whoami(), "client zett scope ")
    }))

  it.effect("client_secret_post when the server supports only that", () =>
    Effect.gen(function*() {
      const redirect = "http://127.0.0.1:47813/callback"
      const { as, login } = yield* setup(
        {
          clients: [{ client_id: "zett", client_secret: "s3cret-post", redirect_uris: [redirect] }],
          tokenEndpointAuthMethods: ["client_secret_post"]
        },
        { clientId: "zett", clientSecret: "s3cret-post" }
      )
      yield* login()
      const token = as.requests.find((r) => r.path === "/token")!
      assert.isUndefined(token.authorization)
      assert.strictEqual(token.form.client_secret, "s3cret-post")
      assert.strictEqual(token.form.client_id, "zett")
      assert.strictEqual(as.count("/register"), 0)
    }))

  it.effect("scopes from WWW-Authenticate win over scopes_supported; offline_access only when the server has it", () =>
    Effect.gen(function*() {
      const { headless, login } = yield* setup({
        challengeScope: "files:read",
        resourceScopes: ["files:read", "files:write"],
        scopesSupported: ["files:read", "files:write", "offline_access"]
      })
      yield* login()
      assert.strictEqual(headless.urls[0]!.searchParams.get("scope"), "files:read offline_access")
      const other = yield* setup({ challengeScope: "files:read", scopesSupported: ["files:read"] })
      yield* other.login()
      assert.strictEqual(other.headless.urls[0]!.searchParams.get("scope"), "files:read")
      const none = yield* setup({})
      yield* none.login()
      assert.isNull(none.headless.urls[0]!.searchParams.get("scope"))
    }))

  it.effect("an expired access token is refreshed without a login, with the resource parameter", () =>
    Effect.gen(function*() {
      const { as, entry, login, store, whoami } = yield* setup({})
      yield* login()
      as.expireAccessTokens()
      const key = McpTokenStore.normalizeKey(as.url)
      const old = yield* entry
      yield* store.set(
        key,
        McpTokenStore.updateCredentials(old, old.issuer!, (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } }))
      )
      assert.include(yield* whoami(), "client dcr-")
      const refresh = as.requests.filter((r) => r.path === "/token" && r.form.grant_type === "refresh_token")
      assert.strictEqual(refresh.length, 1)
      assert.strictEqual(refresh[0]!.form.resource, as.url)
      assert.strictEqual(McpTokenStore.current(yield* entry).tokens?.access_token, as.issued[1]!.accessToken)
    }))

  it.effect("a revoked refresh token leads to needs authorization", () =>
    Effect.gen(function*() {
      const { as, entry, factory, login, server, store } = yield* setup({})
      yield* login()
      as.expireAccessTokens()
      as.revokeRefreshTokens()
      const old = yield* entry
      yield* store.set(
        McpTokenStore.normalizeKey(as.url),
        McpTokenStore.updateCredentials(old, old.issuer!, (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } }))
      )
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.strictEqual(error.reason, "NeedsAuthorization")
      assert.strictEqual(error.description, "needs authorization: run zett auth login docs")
    }))

  it.effect("two concurrent connects with an expired token share one refresh", () =>
    Effect.gen(function*() {
      const { as, entry, login, store, whoami } = yield* setup({})
      yield* login()
      as.expireAccessTokens()
      const old = yield* entry
      yield* store.set(
        McpTokenStore.normalizeKey(as.url),
        McpTokenStore.updateCredentials(old, old.issuer!, (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } }))
      )
      const answers = yield* Effect.all([whoami(), whoami(), whoami()], { concurrency: "unbounded" })
      for (const answer of answers) assert.include(answer, "client dcr-")
      assert.strictEqual(
        as.requests.filter((r) => r.path === "/token" && r.form.grant_type === "refresh_token").length,
        1
      )
    }))

  it.effect("a server that keeps answering 401 stops after the retry limit", () =>
    Effect.gen(function*() {
      const { as, factory, headless, server } = yield* setup({ always401: true }, {}, { interactive: true })
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server).pipe(Effect.provide(headless.layer))))
      assert.strictEqual(error.reason, "Unauthorized")
      assert.include(error.description, "still unauthorized")
      // two logins at most, and a bounded number of requests
      assert.isAtMost(headless.urls.length, 2)
      assert.isAtMost(as.count("/mcp"), 8)
      assert.isAtMost(as.count("/token"), 4)
    }))

  it.effect("step-up on 403 insufficient_scope authorizes again with the larger scope", () =>
    Effect.gen(function*() {
      const { as, factory, headless, server } = yield* setup(
        { challengeScope: "mcp:read", requiredScope: "mcp:read mcp:admin" },
        {},
        { interactive: true }
      )
      const answer = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* factory.connect(server).pipe(Effect.provide(headless.layer))
        return yield* client.callTool("whoami", {})
      }))
      assert.deepStrictEqual(headless.urls.map((u) => u.searchParams.get("scope")), ["mcp:read", "mcp:read mcp:admin"])
      assert.deepStrictEqual(answer.content[0], {
        type: "text",
        text: `client ${as.registered[0]!.client_id} scope mcp:read mcp:admin`
      })
    }))

  it.effect("step-up that the server never satisfies stops after the retry limit", () =>
    Effect.gen(function*() {
      const { as, factory, headless, server } = yield* setup(
        { challengeScope: "mcp:read", requiredScope: "mcp:read mcp:admin", grantableScopes: ["mcp:read"] },
        {},
        { interactive: true, maxAuthorizations: 3 }
      )
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server).pipe(Effect.provide(headless.layer))))
      assert.strictEqual(error.reason, "Unauthorized")
      assert.include(error.description, "still unauthorized after 3 authorizations")
      assert.strictEqual(headless.urls.length, 3)
      assert.isAtMost(as.count("/mcp"), 12)
    }))
})

describe("client credentials", () => {
  it.effect("client_secret_basic with no login, the token shared by later connections", () =>
    Effect.gen(function*() {
      const { as, headless, whoami } = yield* setup(
        { clients: [{ client_id: "robot", client_secret: "robot-secret" }], challengeScope: "mcp:read" },
        { grant: "client_credentials", clientId: "robot", clientSecret: "robot-secret" }
      )
      assert.strictEqual(yield* whoami(), "client robot scope mcp:read")
      assert.strictEqual(yield* whoami(), "client robot scope mcp:read")
      const tokens = as.requests.filter((r) => r.path === "/token")
      assert.strictEqual(tokens.length, 1)
      assert.strictEqual(tokens[0]!.form.grant_type, "client_credentials")
      assert.strictEqual(tokens[0]!.authorization, `Basic ${Buffer.from("robot:robot-secret").toString("base64")}`)
      assert.strictEqual(tokens[0]!.form.resource, as.url)
      assert.strictEqual(headless.urls.length, 0)
      assert.strictEqual(as.count("/authorize"), 0)
    }))

  it.effect("a refused client is an authorization failure naming the OAuth error code, never the secret", () =>
    Effect.gen(function*() {
      const { factory, server } = yield* setup(
        { clients: [{ client_id: "robot", client_secret: "right-secret" }] },
        { grant: "client_credentials", clientId: "robot", clientSecret: "wrong-secret-Q2" }
      )
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.strictEqual(error.reason, "Unauthorized")
      assert.strictEqual(error.description, "authorization failed (invalid_client)")
      assert.notInclude(`${error.message} ${Util.inspect(error, { depth: 10 })}`, "wrong-secret-Q2")
    }))

  it.effect("private_key_jwt with no login", () =>
    Effect.gen(function*() {
      const { privateKey, publicKey } = Crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
      const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString()
      const { as, whoami } = yield* setup(
        { clients: [{ client_id: "signer", publicKey: publicKey.export({ type: "spki", format: "pem" }).toString() }] },
        { grant: "client_credentials", clientId: "signer", privateKey: pem, algorithm: "RS256" }
      )
      assert.strictEqual(yield* whoami(), "client signer scope ")
      const token = as.requests.find((r) => r.path === "/token")!
      assert.strictEqual(token.form.client_assertion_type, "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
      assert.isUndefined(token.authorization)
    }))

  it.effect("an expired client-credentials token is renewed before connecting, once for concurrent connects", () =>
    Effect.gen(function*() {
      const { as, entry, store, whoami } = yield* setup(
        { clients: [{ client_id: "robot", client_secret: "robot-secret" }] },
        { grant: "client_credentials", clientId: "robot", clientSecret: "robot-secret" }
      )
      yield* whoami()
      as.expireAccessTokens()
      const old = yield* entry
      yield* store.set(
        McpTokenStore.normalizeKey(as.url),
        McpTokenStore.updateCredentials(old, old.issuer!, (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } }))
      )
      const answers = yield* Effect.all([whoami(), whoami()], { concurrency: "unbounded" })
      assert.deepStrictEqual(answers, ["client robot scope ", "client robot scope "])
      assert.strictEqual(as.requests.filter((r) => r.path === "/token").length, 2)
      // the store keeps no client secret
      assert.notInclude(JSON.stringify(yield* entry), "robot-secret")
    }))
})

describe("the legacy HTTP+SSE transport", () => {
  it.effect("an SSE server gets the same provider: login, then connects with the bearer token", () =>
    Effect.gen(function*() {
      const { as, factory, login, store } = yield* setup({ resource: "origin" })
      const server = McpServerConfig.http({
        name: "legacy",
        url: `${as.resourceOrigin}/sse`,
        transport: "sse",
        auth: {}
      })
      const first = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.strictEqual(first.reason, "NeedsAuthorization")
      yield* login(server)
      const result = yield* Effect.scoped(
        Effect.flatMap(factory.connect(server), (client) => client.callTool("whoami", {}))
      )
      assert.deepStrictEqual(result.content[0], { type: "text", text: `client ${as.registered[0]!.client_id} scope ` })
      const stored = Option.getOrThrow(yield* store.get(McpTokenStore.normalizeKey(server.url)))
      const streams = as.requests.filter((r) =>
        r.path === "/sse" && r.authorization === `Bearer ${McpTokenStore.current(stored).tokens?.access_token}`
      )
      assert.isAbove(streams.length, 0)
    }))
})

describe("a user's own provider", () => {
  it.effect("an SDK OAuthClientProvider is passed to the transport as it is", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make({ clients: [{ client_id: "robot", client_secret: "robot-secret" }] })
      const provider = new ClientCredentialsProvider({
        clientId: "robot",
        clientSecret: "robot-secret",
        expectedIssuer: as.issuer
      })
      const server = McpServerConfig.http({ name: "own", url: as.url, auth: provider })
      const store = yield* McpTokenStore.makeMemory
      const factory = yield* NodeMcpClientFactory.make().pipe(
        Effect.provide(ProcessGroups.layerNone),
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.provide(NodeServices.layer)
      )
      const result = yield* Effect.scoped(
        Effect.flatMap(factory.connect(server), (client) => client.callTool("whoami", {}))
      )
      assert.deepStrictEqual(result.content[0], { type: "text", text: "client robot scope " })
      // the provider kept its tokens itself; Zett's store was not used
      assert.strictEqual(provider.tokens()?.access_token, as.issued[0]!.accessToken)
      assert.deepStrictEqual(yield* store.keys, [])
    }))
})
