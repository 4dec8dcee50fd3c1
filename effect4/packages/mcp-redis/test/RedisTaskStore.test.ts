/**
 * The tasks of a fleet: `RedisTaskStore.layer` against a real `redis-server` (`./utils/redisServer.ts`), each
 * store on a connection of its own, as another process of the fleet would have.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpTaskStore } from "@zett/mcp"
import { McpRedis, RedisTaskStore } from "@zett/mcp-redis"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Redis } from "ioredis"
import { captureLogs } from "./utils/logs.js"
import * as RedisServer from "./utils/redisServer.js"

/** A store on a connection of its own, as another process would have. */
const storeOn = (url: string, options?: RedisTaskStore.Options, connection: Partial<McpRedis.Options> = {}) =>
  Effect.flatMap(
    Layer.build(McpRedis.layer({ url, ...connection })),
    (context) => Effect.provideContext(RedisTaskStore.make(options), context)
  )

const rawClient = (url: string) =>
  Effect.acquireRelease(Effect.sync(() => new Redis(url)), (client) => Effect.sync(() => client.disconnect()))

const handle = (taskId: string, fields: Partial<McpTaskStore.TaskHandle> = {}) =>
  new McpTaskStore.TaskHandle({
    taskId,
    server: "builds",
    tool: "build",
    createdAt: new Date(Date.now()).toISOString(),
    ttlMs: 60_000,
    pollIntervalMs: 50,
    status: "working",
    ...fields
  })

describe("RedisTaskStore", () => {
  it.live("a handle kept by one process is found by another, with its server, tool, creation and ttl", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const starter = yield* storeOn(redis.url)
      const other = yield* storeOn(redis.url)
      const kept = handle("task-1", { statusMessage: "compiling" })
      yield* starter.put(kept)
      const found = yield* other.get("task-1")
      assert.deepStrictEqual(found, Option.some(kept))
      assert.isTrue(Option.isNone(yield* other.get("task-2")))
      // what Redis holds: the handle's fields and no others
      const raw = yield* rawClient(redis.url)
      const stored = JSON.parse((yield* Effect.promise(() => raw.get("zett:mcp-tasks:task-1")))!)
      assert.deepStrictEqual(Object.keys(stored).sort(), [
        "createdAt",
        "pollIntervalMs",
        "server",
        "status",
        "statusMessage",
        "taskId",
        "tool",
        "ttlMs"
      ])
      yield* other.remove("task-1")
      assert.isTrue(Option.isNone(yield* starter.get("task-1")))
    }))

  it.live("a handle expires in Redis when the server may forget its task: createdAt plus ttlMs", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const store = yield* storeOn(redis.url, { retention: "1 hour" })
      const raw = yield* rawClient(redis.url)
      const now = Date.now()
      yield* store.put(handle("soon", { createdAt: new Date(now - 50_000).toISOString(), ttlMs: 60_000 }))
      const soon = yield* Effect.promise(() => raw.pttl("zett:mcp-tasks:soon"))
      assert.isAbove(soon, 0)
      assert.isAtMost(soon, 10_000)
      // no ttl: the store's retention
      yield* store.put(handle("unlimited", { ttlMs: null }))
      const unlimited = yield* Effect.promise(() => raw.pttl("zett:mcp-tasks:unlimited"))
      assert.isAbove(unlimited, 3_500_000)
      assert.isAtMost(unlimited, 3_600_000)
      // already past: not kept at all, and what was kept under its id is gone
      yield* store.put(handle("past", { createdAt: new Date(now - 120_000).toISOString(), ttlMs: 60_000 }))
      assert.strictEqual(yield* Effect.promise(() => raw.exists("zett:mcp-tasks:past")), 0)
    }))

  it.live("list gives every handle of the store, oldest first, and skips a value that is not a handle with a warning", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const store = yield* storeOn(redis.url)
      const other = yield* storeOn(redis.url, { storeId: "other-tasks" })
      const now = Date.now()
      yield* store.put(handle("b", { createdAt: new Date(now - 1_000).toISOString() }))
      yield* store.put(handle("a", { createdAt: new Date(now - 2_000).toISOString() }))
      yield* other.put(handle("c"))
      const raw = yield* rawClient(redis.url)
      yield* Effect.promise(() => raw.set("zett:mcp-tasks:junk", "{\"taskId\":1}"))
      const { layer, lines } = captureLogs()
      const listed = yield* store.list.pipe(Effect.provide(layer))
      assert.deepStrictEqual(listed.map((h) => h.taskId), ["a", "b"])
      assert.isTrue(
        lines.some((line) => line.includes("ignoring a value under zett:mcp-tasks: in Redis: not a task handle"))
      )
      // the key holds a task id: not in the log
      assert.isFalse(lines.some((line) => line.includes("junk")))
    }))

  it.live("Redis stopped: every operation fails at once with McpTaskStoreError, which quotes no stored value", () =>
    Effect.gen(function*() {
      const redis = yield* RedisServer.make
      const store = yield* storeOn(redis.url)
      yield* store.put(handle("secret-task-id"))
      yield* redis.stop
      for (
        const operation of [store.get("secret-task-id"), store.put(handle("secret-task-id")), store.list] as const
      ) {
        const error = yield* Effect.flip(operation as Effect.Effect<unknown, McpTaskStore.McpTaskStoreError>)
        assert.strictEqual(error._tag, "McpTaskStoreError")
        assert.strictEqual(error.reason, "Unavailable")
        assert.notInclude(error.message, "secret-task-id")
      }
    }))
})
