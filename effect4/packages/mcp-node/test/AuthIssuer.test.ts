/**
 * The authorization of the 2026-07-28 revision against the local authorization server of `@zett/testing`: the
 * `iss` of the authorization response (RFC 9207), a login inside a request (a refused token, a step-up during a
 * call), credentials bound to the authorization server that issued them (a migration), and the registration's
 * `application_type`. What the assertions read is what the servers received.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Agent, type Message, ScriptedModel } from "@zett/agent"
import type { McpError } from "@zett/mcp"
import { McpClientFactory, McpExtension, McpServerConfig, McpServers, McpToolResult } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, NodeMcpExtension, ProcessGroups } from "@zett/mcp-node"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Util from "node:util"
import * as OAuthServer from "./utils/oauthServer.js"

const setup = (options: OAuthServer.Options, auth: McpServerConfig.AuthInput = {}) =>
  Effect.gen(function*() {
    const as = yield* OAuthServer.make(options)
    const store = yield* McpTokenStore.makeMemory
    const server = McpServerConfig.http({ name: "docs", url: as.url, auth })
    const headless = OAuthServer.headless()
    const factory = yield* NodeMcpClientFactory.make({ interactive: true }).pipe(
      Effect.provide(ProcessGroups.layerNone),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(Layer.mergeAll(NodeServices.layer, headless.layer))
    )
    const whoami = OAuthServer.whoami(factory, server)
    return { as, store, server, headless, factory, whoami }
  })

const tokenRequests = (as: OAuthServer.OAuthServer) => as.requests.filter((r) => r.path === "/token")

describe("the iss of the authorization response (RFC 9207)", () => {
  it.effect("the issuer's own iss: the code is redeemed and the call made", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({})
      const text = yield* whoami
      assert.match(text, /^client dcr-/)
      assert.strictEqual(tokenRequests(as).length, 1)
    }))

  it.effect("another issuer's iss: the login fails naming both, and the code never reaches the token endpoint", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ iss: { sent: "wrong" } })
      const error = yield* Effect.flip(whoami)
      assert.strictEqual(error._tag, "McpConnectError")
      assert.include(error.message, "authorization failed")
      assert.include(error.message, "\"https://attacker.example\"")
      assert.include(error.message, JSON.stringify(as.issuer))
      assert.strictEqual(tokenRequests(as).length, 0)
    }))

  it.effect("no iss from a server whose metadata says it sends one: refused before the token request", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ iss: { sent: "none" } })
      const error = yield* Effect.flip(whoami)
      assert.include(error.message, "names no issuer")
      assert.strictEqual(tokenRequests(as).length, 0)
    }))

  it.effect("an iss from a server whose metadata does not advertise it is still compared: a wrong one is refused", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ iss: { advertised: false, sent: "wrong" } })
      const error = yield* Effect.flip(whoami)
      assert.include(error.message, "\"https://attacker.example\"")
      assert.strictEqual(tokenRequests(as).length, 0)
    }))

  it.effect("no iss from a server that does not advertise it: the code is redeemed", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ iss: { advertised: false, sent: "none" } })
      assert.match(yield* whoami, /^client dcr-/)
      assert.strictEqual(tokenRequests(as).length, 1)
    }))

  it.effect("an iss that differs from the issuer by a terminating slash is refused: issuers are compared as they are", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ iss: { sent: "slash" } })
      const error = yield* Effect.flip(whoami)
      assert.include(error.message, JSON.stringify(`${as.issuer}/`))
      assert.strictEqual(tokenRequests(as).length, 0)
    }))
})

describe("a login inside a request", () => {
  it.effect("McpAuthorization.login to a server that lets initialize through and asks at tools/list: it logs in", () =>
    Effect.gen(function*() {
      const { as, factory, headless, server, store } = yield* setup({
        openMethods: ["server/discover", "initialize", "notifications/initialized"]
      })
      const outcome = yield* McpAuthorization.login(server).pipe(
        Effect.provideService(McpClientFactory.McpClientFactory, factory),
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.provide(headless.layer)
      )
      assert.strictEqual(outcome, "Authorized")
      assert.strictEqual(headless.urls.length, 1)
      assert.strictEqual(as.count("/token"), 1)
    }))

  it.effect("McpAuthorization.login to a server that asks for nothing says so, and makes no authorization request", () =>
    Effect.gen(function*() {
      const { as, factory, headless, server, store } = yield* setup({
        openMethods: ["initialize", "notifications/initialized", "server/discover", "tools/list"]
      })
      const outcome = yield* McpAuthorization.login(server).pipe(
        Effect.provideService(McpClientFactory.McpClientFactory, factory),
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.provide(headless.layer)
      )
      assert.strictEqual(outcome, "NotAsked")
      assert.strictEqual(as.count("/authorize"), 0)
    }))

  it.effect("a 403 insufficient_scope during a call: one login for the union of the granted and the challenged scopes, then the call goes through", () =>
    Effect.gen(function*() {
      const { as, factory, headless, server } = yield* setup({
        challengeScope: "mcp:read",
        callScope: "mcp:read mcp:write"
      })
      const text = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* factory.connect(server)
        // listing needs only a token: the connection is made with the first login's
        const page = yield* client.listTools()
        assert.deepStrictEqual(page.tools.map((tool) => tool.name), ["whoami"])
        assert.strictEqual(headless.urls.length, 1)
        const result = yield* client.callTool("whoami", {})
        const block = result.content[0]
        return block?.type === "text" ? block.text : ""
      }))
      assert.deepStrictEqual(headless.urls.map((url) => url.searchParams.get("scope")), [
        "mcp:read",
        "mcp:read mcp:write"
      ])
      assert.match(text, /scope mcp:read mcp:write$/)
      // the step-up was a new authorization, not a refresh (which keeps the scope it had)
      assert.deepStrictEqual(tokenRequests(as).map((r) => r.form.grant_type), [
        "authorization_code",
        "authorization_code"
      ])
    }))

  it.effect("without a user (not interactive), the call fails with needs authorization and no authorization request is made", () =>
    Effect.gen(function*() {
      const { as, factory: interactive, server, store } = yield* setup({
        challengeScope: "mcp:read",
        callScope: "mcp:read mcp:write"
      })
      // a first login by a host with a user
      yield* Effect.scoped(Effect.flatMap(interactive.connect(server), (client) => client.listTools()))
      const quiet = yield* NodeMcpClientFactory.make().pipe(
        Effect.provide(ProcessGroups.layerNone),
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.provide(NodeServices.layer)
      )
      const before = as.count("/authorize")
      const error = yield* Effect.flip(
        Effect.scoped(Effect.flatMap(quiet.connect(server), (client) => client.callTool("whoami", {})))
      )
      assert.strictEqual(error._tag, "McpRequestError")
      assert.strictEqual((error as { readonly reason: string }).reason, "NeedsAuthorization")
      assert.strictEqual(as.count("/authorize"), before)
    }))

  it.effect("a step-up the server never grants stops after the limit, and the call fails saying which scope was not granted, to the model too", () =>
    Effect.gen(function*() {
      const { factory, headless, server } = yield* setup({
        challengeScope: "mcp:read",
        callScope: "mcp:read mcp:write",
        grantableScopes: ["mcp:read"]
      })
      const error = yield* Effect.flip(
        Effect.scoped(Effect.flatMap(factory.connect(server), (client) => client.callTool("whoami", {})))
      )
      assert.strictEqual(error._tag, "McpRequestError")
      const failure = error as McpError.McpRequestError
      assert.strictEqual(failure.reason, "InsufficientScope")
      const said =
        "the server asks for scope \"mcp:read mcp:write\", which the authorization server did not grant in 2 authorizations"
      assert.strictEqual(failure.description, said)
      assert.strictEqual(
        McpToolResult.describeFailure(
          McpToolResult.RemoteFailure.RequestError({ error: failure }),
          McpToolResult.ErrorTextPolicy.toolText
        ),
        `the server failed to run the tool (${said})`
      )
      // the connect's login, then two for the call (the factory's default limit)
      assert.strictEqual(headless.urls.length, 3)
    }))
})

describe("credentials bound to the authorization server that issued them", () => {
  it.effect("the server moves to another authorization server: Zett registers there, and never shows it the first one's client or tokens", () =>
    Effect.gen(function*() {
      const { as, factory, server } = yield* setup({})
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* factory.connect(server)
        const page = yield* client.listTools()
        const after = as.migrate()
        // the next request carries the first server's token, which is refused: discovered again, registered anew
        const result = yield* client.callTool("whoami", {})
        return { page, after, result }
      }))
      assert.deepStrictEqual(first.page.tools.map((tool) => tool.name), ["whoami"])
      const [old, fresh] = as.registered
      assert.strictEqual(old?.issuer, as.issuer)
      assert.strictEqual(fresh?.issuer, first.after)
      assert.deepStrictEqual(first.result.content[0], { type: "text", text: `client ${fresh!.client_id} scope ` })
      const atNew = as.requests.filter((r) => r.origin === first.after)
      assert.deepStrictEqual(atNew.map((r) => `${r.method} ${r.path}`), [
        "GET /.well-known/oauth-authorization-server",
        "POST /register",
        "GET /authorize",
        "POST /token"
      ])
      for (const request of atNew) {
        assert.notInclude(JSON.stringify(request), old!.client_id)
        for (const issued of as.issued.filter((i) => i.issuer === as.issuer)) {
          assert.notInclude(JSON.stringify(request), issued.accessToken)
          if (issued.refreshToken !== undefined) assert.notInclude(JSON.stringify(request), issued.refreshToken)
        }
      }
    }))
})

describe("which client: pre-registered, then a client ID metadata document, then dynamic registration", () => {
  const clientMetadataUrl = "https://zett.example/oauth/client.json"

  it.effect("a registration for a loopback redirect says application_type native", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({})
      yield* whoami
      const registration = as.requests.find((r) => r.path === "/register")
      assert.strictEqual(registration?.form.application_type, JSON.stringify("native"))
    }))

  it.effect("a metadata document URL is not used with a server that does not advertise them: it registers instead", () =>
    Effect.gen(function*() {
      const { as, headless, whoami } = yield* setup({}, { clientMetadataUrl })
      yield* whoami
      assert.strictEqual(as.count("/register"), 1)
      assert.strictEqual(headless.urls[0]!.searchParams.get("client_id"), as.registered[0]!.client_id)
    }))

  it.effect("an authorization server that registers no clients and takes no documents: the login says which client to configure, and sends nothing", () =>
    Effect.gen(function*() {
      const { as, headless, whoami } = yield* setup({ registration: false })
      const error = yield* Effect.flip(whoami)
      assert.include(
        error.message,
        "the authorization server registers no clients and takes no client ID metadata document here: give the server the client it gave you (auth.clientId"
      )
      assert.deepStrictEqual(headless.urls, [])
      assert.strictEqual(as.count("/token"), 0)
    }))

  it.effect("a pre-registered client wins over a metadata document the server supports: nothing is registered", () =>
    Effect.gen(function*() {
      const { as, headless, whoami } = yield* setup(
        {
          clientIdMetadataDocuments: true,
          clients: [{ client_id: "zett-app", redirect_uris: ["http://127.0.0.1:47813/callback"] }]
        },
        { clientId: "zett-app", clientMetadataUrl }
      )
      assert.strictEqual(yield* whoami, "client zett-app scope ")
      assert.strictEqual(as.count("/register"), 0)
      assert.strictEqual(headless.urls[0]!.searchParams.get("client_id"), "zett-app")
    }))
})

describe("token files of Zett 0.1", () => {
  it.effect("a login stored in the old shape (one set of credentials per server) is used after upgrading: no new login, no registration", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make({})
      const directory = yield* TempDir.make()
      const store = yield* McpTokenStore.makeFile({ directory })
      const server = McpServerConfig.http({ name: "docs", url: as.url, auth: {} })
      const headless = OAuthServer.headless()
      const factoryWith = (interactive: boolean) =>
        NodeMcpClientFactory.make({ interactive }).pipe(
          Effect.provide(ProcessGroups.layerNone),
          Effect.provideService(McpTokenStore.McpTokenStore, store),
          Effect.provide(headless.layer)
        )
      const call = (factory: McpClientFactory.McpClientFactory["Service"]) =>
        Effect.scoped(Effect.flatMap(factory.connect(server), (client) => client.callTool("whoami", {})))
      yield* call(yield* factoryWith(true))
      // the file as Zett 0.1 wrote it
      const file = Path.join(directory, Fs.readdirSync(directory)[0]!)
      const { entry, key } = JSON.parse(Fs.readFileSync(file, "utf8")) as { key: string; entry: McpTokenStore.Entry }
      const { clientInformation, tokens } = McpTokenStore.current(entry)
      const { issuer: _, ...oldTokens } = tokens!
      Fs.writeFileSync(
        file,
        JSON.stringify({ key, entry: { tokens: oldTokens, clientInformation, discoveryState: entry.discoveryState } })
      )
      const before = as.requests.length
      const result = yield* call(yield* factoryWith(false))
      assert.deepStrictEqual(result.content[0], { type: "text", text: `client ${as.registered[0]!.client_id} scope ` })
      assert.deepStrictEqual(as.requests.slice(before).filter((r) => r.on === "as"), [])
      const read = Option.getOrThrow(yield* store.get(key))
      assert.strictEqual(read.issuer, as.issuer)
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("an agent that may log in", () => {
  it.effect("NodeMcpExtension.layer({ factory: { interactive: true } }) with the host's McpAuthorization: the login runs inside the request, and the model gets the tool's result", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make({})
      const headless = OAuthServer.headless()
      const seen: Array<Message.Message> = []
      const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
        Layer.provide(NodeMcpExtension.layer({ factory: { interactive: true } })),
        Layer.provide(McpServers.layer([McpServerConfig.http({ name: "docs", url: as.url, auth: {} })])),
        Layer.provide(ScriptedModel.layer([
          { toolCalls: [{ name: "docs__whoami", arguments: {} }] },
          (request) => (request.messages.forEach((message) => seen.push(message)), { text: "done" })
        ])),
        Layer.provide(headless.layer),
        Layer.provide(McpTokenStore.layerMemory)
      )
      yield* Agent.run("who am I?").pipe(Effect.provide(layer))
      assert.strictEqual(headless.urls.length, 1)
      const result = seen.find((message) => message._tag === "ToolMessage")
      assert.include(JSON.stringify(result), `client ${as.registered[0]!.client_id}`)
    }))
})

describe("enterprise-managed authorization", () => {
  const idToken = "eyJhbGciOiJSUzI1NiJ9.the-users-id-token.c2lnbmF0dXJl"
  const enterprise = (as: OAuthServer.OAuthServer, overrides: Partial<McpServerConfig.EnterpriseManaged> = {}) =>
    new McpServerConfig.EnterpriseManaged({
      clientId: "zett-at-corp",
      clientSecret: Redacted.make("corp-client-5ecret"),
      idToken: Redacted.make(idToken),
      idpIssuer: as.idpIssuer,
      idpClientId: "zett-at-idp",
      ...overrides
    })
  const options: OAuthServer.Options = {
    enterprise: { idToken, idpClientId: "zett-at-idp" },
    clients: [{ client_id: "zett-at-corp", client_secret: "corp-client-5ecret" }]
  }

  it.effect("the ID token becomes an ID-JAG at the identity provider, redeemed for an access token: no login, no browser, and the grant is used once", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make(options)
      const store = yield* McpTokenStore.makeMemory
      const server = McpServerConfig.http({ name: "corp", url: as.url })
      const corp = new McpServerConfig.McpHttpServer({ ...server, auth: enterprise(as) })
      const factory = yield* NodeMcpClientFactory.make().pipe(
        Effect.provide(ProcessGroups.layerNone),
        Effect.provideService(McpTokenStore.McpTokenStore, store)
      )
      assert.strictEqual(yield* OAuthServer.whoami(factory, corp), "client zett-at-corp scope ")
      // the exchange named the authorization server that discovery found, and the protected resource
      assert.deepStrictEqual(as.grants.map(({ audience, resource }) => ({ audience, resource })), [{
        audience: as.issuer,
        resource: as.url
      }])
      const redeemed = as.requests.filter((r) => r.path === "/token" && r.origin === as.issuer)
      assert.deepStrictEqual(redeemed.map((r) => r.form.assertion), [as.grants[0]!.grant])
      assert.match(redeemed[0]!.authorization ?? "", /^Basic /)
      assert.strictEqual(as.count("/authorize"), 0)
      // a second connection uses the stored token
      yield* OAuthServer.whoami(factory, corp)
      assert.strictEqual(as.grants.length, 1)
      assert.strictEqual(
        McpTokenStore.current(Option.getOrThrow(yield* store.get(McpTokenStore.normalizeKey(as.url)))).tokens
          ?.access_token,
        as.issued[0]!.accessToken
      )
    }))

  it.effect("an ID token the identity provider refuses: the server is unauthorized, and neither the ID token nor a secret is in the error", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make(options)
      const server = McpServerConfig.http({ name: "corp", url: as.url })
      const corp = new McpServerConfig.McpHttpServer({
        ...server,
        auth: enterprise(as, { idToken: Redacted.make("a-stale-id-token") })
      })
      const factory = yield* NodeMcpClientFactory.make().pipe(
        Effect.provide(ProcessGroups.layerNone),
        Effect.provideService(McpTokenStore.McpTokenStore, yield* McpTokenStore.makeMemory)
      )
      const error = yield* Effect.flip(OAuthServer.whoami(factory, corp))
      assert.strictEqual(error._tag, "McpConnectError")
      for (const secret of ["a-stale-id-token", "corp-client-5ecret", idToken]) {
        assert.notInclude(`${error.message} ${Util.inspect(error)}`, secret)
      }
      assert.strictEqual(as.grants.length, 0)
    }))

  it.effect("an identity provider's token endpoint on plain http to another host is refused naming it, and the ID token is never sent", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make(options)
      const server = McpServerConfig.http({ name: "corp", url: as.url })
      const corp = new McpServerConfig.McpHttpServer({
        ...server,
        auth: enterprise(as, { idpTokenEndpoint: "http://idp.invalid/token" })
      })
      const factory = yield* NodeMcpClientFactory.make().pipe(
        Effect.provide(ProcessGroups.layerNone),
        Effect.provideService(McpTokenStore.McpTokenStore, yield* McpTokenStore.makeMemory)
      )
      const error = yield* Effect.flip(OAuthServer.whoami(factory, corp))
      assert.include(error.message, "the identity provider's token endpoint is refused: plain http: to idp.invalid")
      assert.strictEqual(as.grants.length, 0)
    }))
})
