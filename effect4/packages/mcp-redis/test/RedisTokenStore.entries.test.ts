/**
 * The token store on Redis (`RedisTokenStore`) against a real `redis-server`: an entry another writer left that the
 * SDK must not get is absent, with a warning. The token store's other layers: packages/mcp-auth/test/McpTokenStore.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpRedis, RedisTokenStore } from "@zett/mcp-redis"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Redis } from "ioredis"
import { captureLogs } from "./utils/logs.js"
import * as RedisServer from "./utils/redisServer.js"
import { entry, garbage, key } from "./utils/tokenEntries.js"

describe("McpTokenStore", () => {
  it.live("a Redis entry another writer left with wrong types where the SDK reads, or nested 10,000 levels deep, is absent with a warning", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const context = yield* Layer.build(McpRedis.layer({ url: redis.url }))
      const store = yield* Effect.provideContext(RedisTokenStore.make(), context)
      const raw = yield* Effect.acquireRelease(
        Effect.sync(() => new Redis(redis.url)),
        (client) => Effect.sync(() => client.disconnect())
      )
      for (const text of garbage) {
        yield* Effect.promise(() => raw.set(`zett:mcp-tokens:${key}`, text))
        const logs = captureLogs()
        assert.isTrue(Option.isNone(yield* store.get(key).pipe(Effect.provide(logs.layer))), text.slice(0, 80))
        assert.deepStrictEqual(logs.lines.map((line) => /message="([^"]*)"/.exec(line)?.[1]), [
          `token store: ignoring ${key} in Redis: not a valid entry`
        ])
      }
      yield* store.set(key, entry)
      assert.deepStrictEqual(yield* store.get(key), Option.some(entry))
    }))
})
