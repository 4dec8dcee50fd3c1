/**
 * Credentials the process comes to hold while it runs (a login's tokens and their refreshed successors, a
 * registered client's secret, the user info and key parameters of a server URL, a Redis password) are scrubbed
 * from everything a server sends, in every form the scrubber knows, from the moment they are obtained.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel, Scrubber } from "@zett/agent"
import { McpClientFactory, McpExtension, McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { McpRedis } from "@zett/mcp-redis"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Util from "node:util"
import * as OAuthServer from "./utils/oauthServer.js"

const forms = (secret: string) => {
  const b64 = Buffer.from(secret).toString("base64")
  return [secret, encodeURIComponent(secret), b64, b64.replace(/=+$/, ""), Buffer.from(secret).toString("base64url")]
}

describe("Scrubber.makeSecrets", () => {
  it("a scrubber extended with held secrets finds a secret added after it was made", () => {
    const held = Scrubber.makeSecrets()
    const scrubber = held.extend(Scrubber.make(["static-secret-1234"]))
    assert.strictEqual(scrubber.scrub("static-secret-1234 late-token-5678"), "<redacted> late-token-5678")
    assert.isFalse(scrubber.isEmpty)
    held.add(["late-token-5678"])
    assert.strictEqual(scrubber.scrub("static-secret-1234 late-token-5678"), "<redacted> <redacted>")
    assert.strictEqual(
      scrubber.scrub(`b64 ${Buffer.from("late-token-5678").toString("base64")}`),
      "b64 <redacted>"
    )
    assert.deepStrictEqual(scrubber.scrubDeep({ t: "late-token-5678" }), { t: "<redacted>" })
    assert.strictEqual(held.scrubber.scrub("late-token-5678"), "<redacted>")
  })

  it("a held secret cut at the end of a truncated text leaves no tail of itself", () => {
    const held = Scrubber.makeSecrets()
    const scrubber = held.extend(Scrubber.none)
    assert.isTrue(scrubber.isEmpty)
    held.add(["refresh-token-abcdef"])
    assert.strictEqual(scrubber.scrubTruncated("log: refresh-tok"), "log: <redacted>")
  })

  it("urlSecrets gives the user info and the values of credential-like query parameters, not the URL", () => {
    const secrets = Scrubber.urlSecrets(
      "https://user:pa%2Fss@host.example/mcp?api_key=KEY123&page=2&access_token=TOK456"
    )
    assert.includeMembers([...secrets], ["user", "pa%2Fss", "pa/ss", "KEY123", "TOK456"])
    assert.notInclude([...secrets], "2")
    assert.notInclude([...secrets], "https://user:pa%2Fss@host.example/mcp?api_key=KEY123&page=2&access_token=TOK456")
    assert.deepStrictEqual(Scrubber.urlSecrets("not a url"), [])
  })
})

const setup = (options: OAuthServer.Options) =>
  Effect.gen(function*() {
    const as = yield* OAuthServer.make(options)
    const store = yield* McpTokenStore.makeMemory
    const held = Scrubber.makeSecrets()
    const server = McpServerConfig.http({ name: "docs", url: as.url, auth: {} })
    const factory = yield* NodeMcpClientFactory.make().pipe(
      Effect.provide(ProcessGroups.layerNone),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provideService(Scrubber.HeldSecrets, held),
      Effect.provide(NodeServices.layer)
    )
    const login = McpAuthorization.login(server).pipe(
      Effect.provideService(McpClientFactory.McpClientFactory, factory),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(OAuthServer.headless().layer)
    )
    return { as, factory, held, login, server, store }
  })

/** One agent turn that calls `docs__whoami`; what the model was given, as text. */
const turn = (
  factory: McpClientFactory.McpClientFactory["Service"],
  servers: ReadonlyArray<McpServerConfig.McpServerConfig>
) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    const record = (request: { readonly messages: ReadonlyArray<unknown> }) =>
      void seen.push(Util.inspect(request.messages, { depth: 12 }))
    const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      // the 3 line's McpLayers.layer: the extension over these servers, a tool cache in memory, this factory
      Layer.provide(McpExtension.layer({ connectTimeout: "10 seconds", callTimeout: "10 seconds" })),
      Layer.provide(McpServers.layer(servers)),
      Layer.provide(McpToolCache.layerMemory()),
      Layer.provide(Layer.succeed(McpClientFactory.McpClientFactory, factory)),
      Layer.provide(ScriptedModel.layer([
        (request) => (record(request), { toolCalls: [{ name: "docs__whoami", arguments: {} }] }),
        (request) => (record(request), { text: "done" })
      ]))
    )
    yield* Agent.Agent.pipe(Effect.flatMap((agent) => agent.run("go")), Effect.provide(layer))
    return seen.join("\n")
  })

describe("credentials obtained by a login", () => {
  it.effect("a tool result that quotes the access and refresh tokens of a login reaches the model without them", () =>
    Effect.gen(function*() {
      const { as, factory, login, server } = yield* setup({ quoteTokens: "result" })
      yield* login
      const seen = yield* turn(factory, [server])
      assert.include(seen, "client ")
      assert.include(seen, "token <redacted> refresh <redacted>")
      const issued = as.issued.flatMap((token) => [token.accessToken, token.refreshToken ?? ""]).filter((t) => t !== "")
      assert.isAtLeast(issued.length, 2)
      for (const token of issued) for (const form of forms(token)) assert.notInclude(seen, form)
    }))

  it.effect("tokens read back from the store at start and tokens of a refresh are scrubbed too", () =>
    Effect.gen(function*() {
      const { as, login, server, store } = yield* setup({ quoteTokens: "result" })
      yield* login
      // a new process: a factory of its own, with nothing held, over the same store
      const fresh = Scrubber.makeSecrets()
      const factory = yield* NodeMcpClientFactory.make().pipe(
        Effect.provide(ProcessGroups.layerNone),
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.provideService(Scrubber.HeldSecrets, fresh),
        Effect.provide(NodeServices.layer)
      )
      assert.isTrue(fresh.scrubber.isEmpty)
      const first = yield* turn(factory, [server])
      assert.include(first, "token <redacted> refresh <redacted>")
      // the access token expires: the refresh obtains new tokens, which the server quotes next
      as.expireAccessTokens()
      const key = McpTokenStore.normalizeKey(as.url)
      const old = Option.getOrThrow(yield* store.get(key))
      yield* store.set(
        key,
        McpTokenStore.updateCredentials(old, old.issuer!, (c) => ({ ...c, tokens: { ...c.tokens!, expires_at: 0 } }))
      )
      const second = yield* turn(factory, [server])
      assert.isAtLeast(as.issued.length, 2)
      assert.include(second, "token <redacted> refresh <redacted>")
      for (const token of as.issued) {
        for (const form of forms(token.accessToken)) assert.notInclude(second, form)
        if (token.refreshToken !== undefined) {
          for (const form of forms(token.refreshToken)) assert.notInclude(second, form)
        }
      }
    }))

  it.effect("a server whose error quotes the tokens is unavailable to the model with a reason that does not", () =>
    Effect.gen(function*() {
      const { as, factory, login, server } = yield* setup({ quoteTokens: "list" })
      yield* login
      const seen = yield* turn(factory, [server])
      assert.include(seen, "cannot list tools for token <redacted> refresh <redacted>")
      for (const token of as.issued) for (const form of forms(token.accessToken)) assert.notInclude(seen, form)
    }))
})

describe("credentials in a server URL", () => {
  it.effect("the password and key of a server URL are in no reason the model is given", () =>
    Effect.gen(function*() {
      // a server that answers with the URL it was asked for, user info and query included
      const http = yield* Effect.acquireRelease(
        Effect.callback<Http.Server>((resume) => {
          const server = Http.createServer((req, res) => {
            res.writeHead(500, { "content-type": "application/json" })
            res.end(JSON.stringify({ jsonrpc: "2.0", id: 0, error: { code: -32603, message: `refused ${req.url}` } }))
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const port = (http.address() as AddressInfo).port
      const password = "url-password-Z8q2"
      const key = "url-api-key-R4t6"
      const servers = [
        McpServerConfig.http({ name: "docs", url: `http://someone:${password}@127.0.0.1:${port}/mcp?api_key=${key}` }),
        McpServerConfig.http({ name: "keyed", url: `http://127.0.0.1:${port}/mcp?api_key=${key}&token=${password}` })
      ]
      const factory = yield* NodeMcpClientFactory.make().pipe(
        Effect.provide(ProcessGroups.layerNone),
        Effect.provideService(Scrubber.HeldSecrets, Scrubber.makeSecrets()),
        Effect.provide(NodeServices.layer)
      )
      const seen = yield* turn(factory, servers)
      assert.include(seen, "docs")
      assert.include(seen, "keyed")
      for (const text of [seen, ...servers.map((server) => McpServerConfig.describe(server))]) {
        for (const secret of [password, key]) for (const form of forms(secret)) assert.notInclude(text, form)
      }
    }))
})

describe("a Redis URL", () => {
  it.live("the password of the Redis URL is held as a secret of the process", () =>
    Effect.gen(function*() {
      const held = Scrubber.makeSecrets()
      yield* McpRedis.make({ url: "redis://:redis-password-K9w3@127.0.0.1:1/0", connectTimeout: "10 millis" }).pipe(
        Effect.provideService(Scrubber.HeldSecrets, held)
      )
      assert.strictEqual(held.scrubber.scrub("AUTH redis-password-K9w3"), "AUTH <redacted>")
    }))
})
