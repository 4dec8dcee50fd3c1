/**
 * `McpRedis.layerPersistence` against a real `redis-server` (`./utils/redisServer.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpRedis } from "@zett/mcp-redis"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Persistence } from "effect/persistence"
import { Redis } from "ioredis"
import * as RedisServer from "./utils/redisServer.js"

/** A backing store `storeId` on a connection of its own. */
const storeOn = (url: string, storeId: string, connection: Partial<McpRedis.Options> = {}) =>
  Effect.flatMap(
    Layer.build(McpRedis.layerPersistence.pipe(Layer.provide(McpRedis.layer({ url, ...connection })))),
    (context) =>
      Effect.flatMap(Persistence.BackingPersistence, (backing) => backing.make(storeId)).pipe(
        Effect.provideContext(context)
      )
  )

const rawClient = (url: string) =>
  Effect.acquireRelease(Effect.sync(() => new Redis(url)), (client) => Effect.sync(() => client.disconnect()))

const allKeys = (raw: Redis) => Effect.promise(() => raw.keys("*").then((keys) => keys.sort()))

describe("McpRedis.layerPersistence", () => {
  it.live("clear removes only its own store's keys, also with a prefix that holds glob characters", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const tools = yield* storeOn(redis.url, "tools", { prefix: "fleet[1]*:" })
      // matched by the prefix read as a glob pattern: `fleet[1]*:tools:*`
      const otherFleet = yield* storeOn(redis.url, "tools", { prefix: "fleet1x:" })
      const otherStore = yield* storeOn(redis.url, "tools-other", { prefix: "fleet[1]*:" })
      yield* tools.set("a", { n: 1 }, undefined)
      yield* tools.set("b", { n: 2 }, undefined)
      yield* otherFleet.set("a", { n: 3 }, undefined)
      yield* otherStore.set("a", { n: 4 }, undefined)
      const raw = yield* rawClient(redis.url)
      yield* Effect.promise(() => raw.set("fleet1:tools:a", "{}"))
      yield* tools.clear
      assert.deepStrictEqual(
        yield* allKeys(raw),
        ["fleet1:tools:a", "fleet1x:tools:a", "fleet[1]*:tools-other:a"].sort()
      )
      assert.isUndefined(yield* tools.get("a"))
      assert.deepStrictEqual(yield* otherFleet.get("a"), { n: 3 })
      assert.deepStrictEqual(yield* otherStore.get("a"), { n: 4 })
    }))

  it.live("clear removes every key of its store when they fill more than one SCAN page", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const tools = yield* storeOn(redis.url, "tools")
      const raw = yield* rawClient(redis.url)
      const count = 5_000
      const multi = raw.multi()
      for (let i = 0; i < count; i++) multi.set(`zett:tools:k${i}`, "{}")
      multi.set("zett:other:k", "{}")
      yield* Effect.promise(() => multi.exec())
      // more than one page at the cursor's default size
      const [cursor] = yield* Effect.promise(() => raw.scan("0", "MATCH", "zett:tools:*"))
      assert.notStrictEqual(cursor, "0")
      yield* tools.clear
      assert.deepStrictEqual(yield* allKeys(raw), ["zett:other:k"])
    }))
})
