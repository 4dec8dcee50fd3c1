/**
 * A remote server that answers 401 with an OAuth challenge (`WWW-Authenticate: Bearer`, with or without
 * `resource_metadata`) needs a login, whether its definition has an `auth` option or not: the connect fails
 * `NeedsAuthorization` with the hint to log in, and starts no flow of its own. A 401 without an OAuth challenge,
 * or one to a server that sends its own Authorization header (a login's tokens would not be used), stays an
 * HTTP error.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"
import { httpFault } from "./utils/faults.js"
import * as OAuthServer from "./utils/oauthServer.js"

const connectError = (server: McpServerConfig.McpHttpServer) =>
  Effect.gen(function*() {
    const store = yield* McpTokenStore.makeMemory
    const factory = yield* NodeMcpClientFactory.make().pipe(
      Effect.provide(ProcessGroups.layerNone),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(NodeServices.layer)
    )
    return yield* Effect.flip(Effect.scoped(factory.connect(server)))
  })

describe("a 401 with an OAuth challenge", () => {
  it.effect("to a server without an auth option: NeedsAuthorization with the hint to log in, and no flow started", () =>
    Effect.gen(function*() {
      for (const resourceMetadataInHeader of [true, false]) {
        const as = yield* OAuthServer.make({ resourceMetadataInHeader })
        const error = yield* connectError(McpServerConfig.http({ name: "docs", url: as.url }))
        assert.strictEqual(error.reason, "NeedsAuthorization", `resource_metadata: ${resourceMetadataInHeader}`)
        assert.strictEqual(error.description, "needs authorization: run zett auth login docs")
        assert.strictEqual(error.httpStatus, 401)
        assert.strictEqual(error.message, "docs: needs authorization: run zett auth login docs")
        // what the servers received: the MCP request only, no discovery, registration or token request
        assert.deepStrictEqual(as.requests.map((r) => `${r.on} ${r.method} ${r.path}`), ["rs POST /mcp"])
      }
    }))

  it.effect("to a server with an auth option: the same hint", () =>
    Effect.gen(function*() {
      const as = yield* OAuthServer.make({})
      const error = yield* connectError(McpServerConfig.http({ name: "docs", url: as.url, auth: {} }))
      assert.strictEqual(error.reason, "NeedsAuthorization")
      assert.strictEqual(error.description, "needs authorization: run zett auth login docs")
      assert.strictEqual(as.count("/register"), 0)
      assert.strictEqual(as.count("/token"), 0)
    }))

  it.effect("a 401 without an OAuth challenge, or to a server with its own Authorization header, is an HTTP 401", () =>
    Effect.gen(function*() {
      const plain = yield* httpFault(Crypto.randomUUID(), ["http-401"])
      const unchallenged = yield* connectError(McpServerConfig.http({ name: "plain", url: plain }))
      assert.strictEqual(unchallenged.reason, "Unauthorized")
      assert.strictEqual(unchallenged.description, "HTTP 401 Unauthorized")

      const as = yield* OAuthServer.make({})
      const own = yield* connectError(
        McpServerConfig.http({ name: "docs", url: as.url, headers: { Authorization: "Bearer not-a-token-1234" } })
      )
      assert.strictEqual(own.reason, "Unauthorized")
      assert.strictEqual(own.description, "HTTP 401 Unauthorized")
    }))
})
