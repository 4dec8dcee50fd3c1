/**
 * DPoP keys shared by a fleet: two processes (each its own Redis connection and client factory) over one
 * `RedisTokenStore` against a real `redis-server`, and a local authorization server and MCP server that check
 * every DPoP proof (the driver's tests' `oauthServer`, the 3 line's `@zett/testing/OAuthServer` on Effect 4, with
 * `dpop`).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig } from "@zett/mcp"
import { McpTokenStore } from "@zett/mcp-auth"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { McpRedis, RedisTokenStore } from "@zett/mcp-redis"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Redis } from "ioredis"
import * as OAuthServer from "../../mcp-node/test/utils/oauthServer.js"
import * as RedisServer from "./utils/redisServer.js"

const encryptionKey = Redacted.make("a-fleet-secret-of-at-least-32-bytes-0123456789")
const robot = { clients: [{ client_id: "robot", client_secret: "robot-secret" }] }

/** One "process": its own Redis connection, token store and client factory. */
const processOn = (redisUrl: string, as: OAuthServer.OAuthServer) =>
  Effect.gen(function*() {
    const store = yield* Effect.flatMap(
      Layer.build(McpRedis.layer({ url: redisUrl })),
      (context) => Effect.provideContext(RedisTokenStore.make({ encryptionKey }), context)
    )
    const factory = yield* NodeMcpClientFactory.make().pipe(
      Effect.provide(ProcessGroups.layerNone),
      Effect.provideService(McpTokenStore.McpTokenStore, store),
      Effect.provide(NodeServices.layer)
    )
    const server = McpServerConfig.http({
      name: "docs",
      url: as.url,
      auth: { grant: "client_credentials", clientId: "robot", clientSecret: "robot-secret" }
    })
    return { store, whoami: OAuthServer.whoami(factory, server) }
  })

const rawValue = (url: string, key: string) =>
  Effect.acquireUseRelease(
    Effect.sync(() => new Redis(url)),
    (client) => Effect.promise(() => client.get(key)),
    (client) => Effect.sync(() => client.disconnect())
  )

describe("RedisTokenStore: DPoP keys", () => {
  it.live("a second process presents the first's DPoP-bound token with the same key (no new token); Redis holds the key sealed", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const as = yield* OAuthServer.make({ ...robot, dpop: {} })
      const first = yield* processOn(redis.url, as)
      const second = yield* processOn(redis.url, as)
      assert.strictEqual(yield* first.whoami, "client robot scope ")
      assert.strictEqual(yield* second.whoami, "client robot scope ")
      // one token, bound to one key, used by both processes with proofs of that key
      assert.strictEqual(as.issued.length, 1)
      assert.strictEqual(as.count("/token"), 1)
      const jkt = as.issued[0]!.jkt
      assert.isDefined(jkt)
      const rsProofs = as.proofs.filter((p) => p.on === "rs")
      assert.isAbove(rsProofs.length, 4)
      for (const proof of rsProofs) {
        assert.isUndefined(proof.refused)
        assert.strictEqual(proof.jkt, jkt)
        assert.strictEqual(proof.scheme, "DPoP")
      }
      // the entry read back holds the key; Redis holds neither the key's private part nor the token readably
      const key = McpTokenStore.normalizeKey(as.url)
      const entry = Option.getOrThrow(yield* second.store.get(key))
      const d = String(entry.dpopKey?.jwk.d)
      assert.isAbove(d.length, 20)
      const raw = (yield* rawValue(redis.url, `zett:mcp-tokens:${key}`))!
      // opaque base64 (no field name such as "dpopKey" or "jwk" can be read); the secrets appear in no form
      assert.match(raw, /^zett:aes-256-gcm:[A-Za-z0-9+/=]+$/)
      const decoded = Buffer.from(raw.slice("zett:aes-256-gcm:".length), "base64").toString("latin1")
      for (const hidden of [d, as.issued[0]!.accessToken, jkt!]) {
        for (const form of [hidden, Buffer.from(hidden).toString("base64")]) {
          assert.notInclude(raw, form)
          assert.notInclude(decoded, form)
        }
      }
    }))
})
