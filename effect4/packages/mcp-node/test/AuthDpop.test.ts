/**
 * DPoP-bound tokens (RFC 9449) against a local authorization server and a protected MCP server that check every
 * proof (`@zett/testing/OAuthServer` with `dpop`). What the assertions read is what the servers received: the
 * `Authorization` scheme, the proofs, the keys they were signed with, the tokens issued and their bindings.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { captureLogs } from "@zett/testing-core/CapturedLogs"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Util from "node:util"
import * as DpopProofs from "./utils/dpopProofs.js"
import * as OAuthServer from "./utils/oauthServer.js"

const robot = { clients: [{ client_id: "robot", client_secret: "robot-secret" }] }
const robotAuth = (dpop?: boolean): McpServerConfig.AuthInput => ({
  grant: "client_credentials",
  clientId: "robot",
  clientSecret: "robot-secret",
  ...(dpop !== undefined ? { dpop } : {})
})

/** A "process": a client factory over `store`. */
const processOn = (
  store: McpTokenStore.Service,
  as: OAuthServer.OAuthServer,
  auth: McpServerConfig.AuthInput | undefined
) =>
  Effect.gen(function*() {
    const server = McpServerConfig.http({ name: "docs", url: as.url, ...(auth !== undefined ? { auth } : {}) })
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
    return { factory, server, whoami, login }
  })

const setup = (options: OAuthServer.Options, auth: McpServerConfig.AuthInput | undefined) =>
  Effect.gen(function*() {
    const as = yield* OAuthServer.make(options)
    const store = yield* McpTokenStore.makeMemory
    const key = McpTokenStore.normalizeKey(as.url)
    const entry = Effect.map(store.get(key), Option.getOrThrow)
    return { as, store, key, entry, ...(yield* processOn(store, as, auth)) }
  })

/** The thumbprint of the key a proof was signed with (the `jwk` of its header). */
const jktOf = (proof: string) =>
  DpopProofs.thumbprint(
    JSON.parse(Buffer.from(proof.split(".")[0]!, "base64url").toString()).jwk as Record<string, unknown>
  )

const mcpRequests = (as: OAuthServer.OAuthServer) => as.requests.filter((r) => r.on === "rs" && r.path === "/mcp")

/**
 * Every request to the MCP server that carried a token: with the `DPoP` scheme, a proof, and the key the token is
 * bound to; never one token with another key's proof.
 */
const assertBoundUse = (as: OAuthServer.OAuthServer) => {
  const withToken = mcpRequests(as).filter((r) => r.authorization !== undefined)
  assert.isAbove(withToken.length, 0)
  for (const request of withToken) {
    const [scheme, token] = request.authorization!.split(" ")
    assert.strictEqual(scheme, "DPoP")
    assert.isDefined(request.dpop)
    const issued = as.issued.find((i) => i.accessToken === token)!
    assert.strictEqual(jktOf(request.dpop!), issued.jkt, "a token went out with another key's proof")
  }
  return withToken
}

describe("DPoP by default: when the server asks", () => {
  it.effect("a server that challenges with the DPoP scheme: the login's token request carries a valid proof, and every MCP request DPoP with a fresh proof of the bound key", () =>
    Effect.gen(function*() {
      const { as, entry, login, whoami } = yield* setup({ dpop: {} }, {})
      yield* login
      assert.include(yield* whoami, "client dcr-")
      const tokenProofs = as.proofs.filter((p) => p.on === "as")
      assert.strictEqual(tokenProofs.length, 1)
      assert.isUndefined(tokenProofs[0]!.refused)
      assert.strictEqual(tokenProofs[0]!.htm, "POST")
      assert.strictEqual(tokenProofs[0]!.htu, `${as.issuer}/token`)
      assert.strictEqual(as.issued.length, 1)
      const jkt = as.issued[0]!.jkt
      assert.isDefined(jkt)
      assert.strictEqual(tokenProofs[0]!.jkt, jkt)
      const stored = McpTokenStore.current(yield* entry).tokens
      assert.strictEqual(stored?.token_type, "DPoP")
      assert.strictEqual(stored?.dpop_jkt, jkt)
      const requests = assertBoundUse(as)
      const rsProofs = as.proofs.filter((p) => p.on === "rs")
      assert.strictEqual(rsProofs.length, requests.length)
      for (const proof of rsProofs) {
        assert.isUndefined(proof.refused)
        assert.strictEqual(proof.jkt, jkt)
        assert.strictEqual(proof.ath, DpopProofs.accessTokenHash(as.issued[0]!.accessToken))
      }
      // a fresh proof each: no jti twice
      assert.strictEqual(new Set(as.proofs.map((p) => p.jti)).size, as.proofs.length)
    }))

  it.effect("a server without an auth option that challenges only with the DPoP scheme needs a login, which gets DPoP-bound tokens", () =>
    Effect.gen(function*() {
      const { as, factory, login, server, whoami } = yield* setup(
        { dpop: {}, resourceMetadataInHeader: false },
        undefined
      )
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.strictEqual(error.reason, "NeedsAuthorization")
      assert.strictEqual(yield* login, "Authorized")
      assert.include(yield* whoami, "client dcr-")
      assert.isDefined(as.issued[0]!.jkt)
      assertBoundUse(as)
    }))

  it.effect("protected-resource metadata that requires DPoP-bound tokens is enough, with a Bearer challenge", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ ...robot, dpop: { advertise: "metadata" } }, robotAuth())
      assert.strictEqual(yield* whoami, "client robot scope ")
      assert.isDefined(as.issued[0]!.jkt)
      assertBoundUse(as)
    }))

  it.effect("a server that challenges with Bearer gets bearer tokens and no proof, though its authorization server supports DPoP", () =>
    Effect.gen(function*() {
      const { as, entry, whoami } = yield* setup({ ...robot, dpop: { required: false } }, robotAuth())
      assert.strictEqual(yield* whoami, "client robot scope ")
      assert.isUndefined(as.issued[0]!.jkt)
      assert.isTrue(as.requests.every((r) => r.dpop === undefined))
      for (const request of mcpRequests(as).filter((r) => r.authorization !== undefined)) {
        assert.strictEqual(request.authorization, `Bearer ${as.issued[0]!.accessToken}`)
      }
      // no key is made that nothing needs
      assert.isUndefined((yield* entry).dpopKey)
    }))

  it.effect("an expired DPoP-bound token is refreshed with a proof of the same key, and the new token is bound to it", () =>
    Effect.gen(function*() {
      const { as, entry, key, login, store, whoami } = yield* setup({ dpop: {} }, {})
      yield* login
      as.expireAccessTokens()
      const old = yield* entry
      yield* store.set(
        key,
        McpTokenStore.updateCredentials(old, old.issuer!, (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } }))
      )
      assert.include(yield* whoami, "client dcr-")
      const refresh = as.requests.filter((r) => r.path === "/token" && r.form.grant_type === "refresh_token")
      assert.strictEqual(refresh.length, 1)
      assert.strictEqual(jktOf(refresh[0]!.dpop!), as.issued[0]!.jkt)
      assert.strictEqual(as.issued[1]!.jkt, as.issued[0]!.jkt)
      assertBoundUse(as)
    }))
})

describe("the dpop option", () => {
  it.effect("dpop: true asks for DPoP-bound tokens from a server that also takes bearer tokens", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ ...robot, dpop: { required: false } }, robotAuth(true))
      assert.strictEqual(yield* whoami, "client robot scope ")
      assert.isDefined(as.issued[0]!.jkt)
      assertBoundUse(as)
    }))

  it.effect("dpop: false never sends a proof: a server that requires DPoP refuses the bearer token, the connect fails Unauthorized", () =>
    Effect.gen(function*() {
      const { as, factory, server } = yield* setup({ ...robot, dpop: {} }, robotAuth(false))
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.strictEqual(error.reason, "Unauthorized")
      assert.isAbove(as.issued.length, 0)
      assert.isTrue(as.issued.every((i) => i.jkt === undefined))
      assert.isTrue(as.requests.every((r) => r.dpop === undefined))
    }))

  it.effect("DPoP needed and an authorization server that lists no DPoP algorithm: a typed authorization error, no token request", () =>
    Effect.gen(function*() {
      const { as, factory, server } = yield* setup({ ...robot, dpop: { algs: [] } }, robotAuth())
      const error = yield* Effect.flip(Effect.scoped(factory.connect(server)))
      assert.strictEqual(error._tag, "McpConnectError")
      assert.strictEqual(error.reason, "Unauthorized")
      assert.strictEqual(
        error.description,
        "authorization failed: DPoP-bound tokens are needed, and the authorization server does not support DPoP (its metadata lists no dpop_signing_alg_values_supported)"
      )
      assert.strictEqual(as.count("/token"), 0)
    }))

  it.effect("the key is made with an algorithm the authorization server lists", () =>
    Effect.gen(function*() {
      const { as, entry, whoami } = yield* setup({ ...robot, dpop: { algs: ["EdDSA"] } }, robotAuth(true))
      assert.strictEqual(yield* whoami, "client robot scope ")
      assert.strictEqual((yield* entry).dpopKey?.alg, "EdDSA")
      assertBoundUse(as)
    }))
})

describe("DPoP nonces", () => {
  it.effect("the authorization server's nonce: the token request is sent once more, with it", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ ...robot, dpop: { asNonce: true } }, robotAuth())
      assert.strictEqual(yield* whoami, "client robot scope ")
      assert.deepStrictEqual(as.nonceChallenges, ["as"])
      const tokenProofs = as.proofs.filter((p) => p.on === "as")
      assert.deepStrictEqual(tokenProofs.map((p) => p.refused), ["nonce", undefined])
      assert.isUndefined(tokenProofs[0]!.nonce)
      assert.isDefined(tokenProofs[1]!.nonce)
      assert.notStrictEqual(tokenProofs[0]!.jti, tokenProofs[1]!.jti)
      assertBoundUse(as)
    }))

  it.effect("the MCP server's nonce: the request is sent once more with it, and the nonce of every answer goes in the next proof", () =>
    Effect.gen(function*() {
      const { as, whoami } = yield* setup({ ...robot, dpop: { rsNonce: "rotate" } }, robotAuth())
      assert.strictEqual(yield* whoami, "client robot scope ")
      assert.strictEqual(yield* whoami, "client robot scope ")
      const rsProofs = as.proofs.filter((p) => p.on === "rs")
      // once per connection: its first request has no nonce yet; every later one has the newest
      assert.deepStrictEqual(as.nonceChallenges, ["rs", "rs"])
      assert.strictEqual(rsProofs.filter((p) => p.refused === "nonce").length, 2)
      assert.isTrue(rsProofs.filter((p) => p.refused === undefined).every((p) => p.nonce !== undefined))
      assert.isAbove(rsProofs.filter((p) => p.refused === undefined).length, 4)
      assertBoundUse(as)
    }))
})

describe("the DPoP key in the token store", () => {
  it.effect("the key survives a restart with the file store: the next process presents the token with the same key, no new token", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make({ ...robot, dpop: {} })
      const directory = yield* TempDir.make()
      const first = yield* processOn(yield* McpTokenStore.makeFile({ directory }), as, robotAuth())
      assert.strictEqual(yield* first.whoami, "client robot scope ")
      const second = yield* processOn(yield* McpTokenStore.makeFile({ directory }), as, robotAuth())
      assert.strictEqual(yield* second.whoami, "client robot scope ")
      assert.strictEqual(as.issued.length, 1)
      assert.strictEqual(as.count("/token"), 1)
      const keys = new Set(as.proofs.map((p) => p.jkt))
      assert.deepStrictEqual([...keys], [as.issued[0]!.jkt])
      assertBoundUse(as)
      // the file holds the key beside the token bound to it
      const [file] = Fs.readdirSync(directory)
      const stored = JSON.parse(Fs.readFileSync(Path.join(directory, file!), "utf8")) as { entry: McpTokenStore.Entry }
      assert.strictEqual(stored.entry.dpopKey?.alg, "ES256")
      assert.strictEqual(McpTokenStore.current(stored.entry).tokens?.dpop_jkt, as.issued[0]!.jkt)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("a lost key: the tokens bound to it are dropped and never sent with the new key's proof; a new token is bound to the new key", () =>
    Effect.gen(function*() {
      const logs = captureLogs("Debug")
      const { as, entry, key, store, whoami } = yield* setup({ ...robot, dpop: {} }, robotAuth())
      assert.strictEqual(yield* whoami, "client robot scope ")
      const { dpopKey, ...withoutKey } = yield* entry
      assert.isDefined(dpopKey)
      yield* store.set(key, withoutKey)
      assert.strictEqual(yield* whoami.pipe(Effect.provide(logs.layer)), "client robot scope ")
      assert.strictEqual(as.issued.length, 2)
      assert.notStrictEqual(as.issued[1]!.jkt, as.issued[0]!.jkt)
      const oldToken = as.issued[0]!.accessToken
      const afterLoss = mcpRequests(as).filter((r) => r.dpop !== undefined && jktOf(r.dpop) === as.issued[1]!.jkt)
      assert.isAbove(afterLoss.length, 0)
      assert.isTrue(afterLoss.every((r) => r.authorization !== `DPoP ${oldToken}`))
      assertBoundUse(as)
      assert.isTrue(logs.lines.some((l) => l.message.includes("tokens bound to another DPoP key")))
    }))

  it.effect("an entry written without a key (older code) gets one when DPoP is first needed; its bearer token is refreshed into a bound one", () =>
    Effect.gen(function*() {
      // logged in while the server took bearer tokens
      const options: { dpop: OAuthServer.DpopOptions } = { dpop: { required: false } }
      const { as, entry, login, whoami } = yield* setup(options, {})
      yield* login
      assert.isUndefined((yield* entry).dpopKey)
      assert.strictEqual(McpTokenStore.current(yield* entry).tokens?.token_type, "Bearer")
      // then the server requires DPoP: the bearer token is refused with a DPoP challenge
      options.dpop = {}
      assert.include(yield* whoami, "client dcr-")
      assert.isDefined((yield* entry).dpopKey)
      const refresh = as.requests.filter((r) => r.path === "/token" && r.form.grant_type === "refresh_token")
      assert.strictEqual(refresh.length, 1)
      assert.isDefined(refresh[0]!.dpop)
      assert.strictEqual(McpTokenStore.current(yield* entry).tokens?.token_type, "DPoP")
      assert.strictEqual(as.count("/authorize"), 1)
    }))

  it.effect("the private key never shows in logs, errors or inspect output", () =>
    Effect.gen(function*() {
      const logs = captureLogs("Trace")
      const { as, entry, key, store, whoami } = yield* setup({ ...robot, dpop: {} }, robotAuth())
      yield* whoami.pipe(Effect.provide(logs.layer))
      const first = String((yield* entry).dpopKey!.jwk.d)
      assert.isAbove(first.length, 20)
      // a stored key that cannot be used: a warning, a new key
      const old = yield* entry
      yield* store.set(key, { ...old, dpopKey: { alg: "ES256", jwk: { ...old.dpopKey!.jwk, x: "broken" } } })
      yield* whoami.pipe(Effect.provide(logs.layer))
      const second = String((yield* entry).dpopKey!.jwk.d)
      assert.notStrictEqual(second, first)
      assert.isTrue(logs.lines.some((l) => l.message.includes("the stored DPoP key cannot be used")))
      // a token request with the key that fails
      as.expireAccessTokens()
      yield* McpTokenStore.modify(store, key, McpTokenStore.withoutTokens)
      const refused = yield* processOn(store, as, { ...robotAuth(), clientSecret: "wrong-secret" })
      const error = yield* Effect.flip(
        Effect.scoped(refused.factory.connect(refused.server)).pipe(Effect.provide(logs.layer))
      )
      const shown = [
        ...logs.lines.map((l) => `${l.message} ${JSON.stringify(l.annotations)}`),
        Util.inspect(error, { depth: 20 }),
        error.message,
        String(error),
        JSON.stringify(error),
        Util.inspect(refused.server, { depth: 20 }),
        String(refused.server)
      ].join("\n")
      assert.isAbove(logs.lines.length, 0)
      assert.notInclude(shown, first)
      assert.notInclude(shown, second)
    }))
})
