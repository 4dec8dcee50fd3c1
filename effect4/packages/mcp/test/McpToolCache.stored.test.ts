/**
 * Tool lists read back from a shared store are checked as a server's own answer is, and bound to the server
 * they were stored for: an entry another writer planted (another server's list, another server's tool name, a
 * name no server answer gives, a schema nested thousands of levels deep, text that is not JSON) is a miss,
 * with a warning naming the server and the reason, and the server is asked again. Here on a
 * `BackingPersistence` in memory through the cache alone; on a real Redis with real MCP servers through the
 * extension: packages/mcp-redis/test/RedisToolCache.stored.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig, McpToolCache } from "@zett/mcp"
import type { McpTool } from "@zett/mcp"
import * as CapturedLogs from "@zett/testing-core/CapturedLogs"
import * as ToolListCache from "@zett/testing-core/ToolListCache"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Persistence } from "effect/persistence"
import * as TestClock from "effect/testing/TestClock"

/** `levels` nested `properties` schemas, built without recursion. */
const deepSchema = (levels: number): Record<string, unknown> => {
  let schema: Record<string, unknown> = { type: "string" }
  for (let i = 0; i < levels; i++) schema = { type: "object", properties: { q: schema } }
  return schema
}

// -----------------------------------------------------------------------------
// any BackingPersistence
// -----------------------------------------------------------------------------

const catalog = McpServerConfig.http({ name: "catalog", url: "https://catalog.example/mcp" })
const docs = McpServerConfig.http({ name: "docs", url: "https://docs.example/mcp" })
const catalogKey = McpToolCache.key(catalog, { namespace: true })

const catalogTools = (description: string): ReadonlyArray<McpTool.McpTool> => [{
  name: "catalog__search",
  description,
  parameters: { type: "object", properties: {} },
  guidelines: false,
  server: "catalog",
  remoteName: "search"
}]

/** A store in memory shared by the processes of a test; `plant` writes under catalog's key as another writer. */
const memoryStore = Effect.gen(function*() {
  const context = yield* Layer.build(Persistence.layerBackingMemory)
  const store = yield* Context.get(context, Persistence.BackingPersistence).make("mcp-tools")
  return {
    plant: (value: unknown) => store.set(catalogKey.id, value as object, undefined),
    read: store.get(catalogKey.id),
    cache: Effect.map(Effect.provide(McpToolCache.makePersisted({ ttl: "5 minutes" }), context), ToolListCache.of)
  }
})

/** A lookup of catalog's tools by a process of its own: what it returned, whether it discovered, what it warned. */
const lookup = (store: Effect.Success<typeof memoryStore>) =>
  Effect.gen(function*() {
    const logs = CapturedLogs.captureLogs("Warn")
    let discovered = 0
    const cache = yield* store.cache
    const tools = yield* cache.lookup(catalogKey, Effect.sync(() => (discovered++, catalogTools("discovered")))).pipe(
      Effect.provide(logs.layer)
    )
    return {
      tools,
      discovered,
      warnings: logs.lines.map((line) => `${line.annotations["mcp.server"]}: ${line.message}`)
    }
  })

const refused = (reason: string) =>
  `catalog: shared tool cache: the stored tool list of catalog is refused (${reason}); discovering it again`

describe("a tool list planted in a persisted store", () => {
  const fresh = 10 * 60_000
  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    [
      "the entry of another server",
      { key: McpToolCache.key(docs, { namespace: true }).id, expiresAt: fresh, tools: [] },
      "stored for another server definition or naming mode"
    ],
    [
      "the entry of another naming mode",
      { key: McpToolCache.key(catalog, { namespace: false }).id, expiresAt: fresh, tools: [] },
      "stored for another server definition or naming mode"
    ],
    [
      "an entry without the key it was stored for",
      { expiresAt: fresh, tools: catalogTools("planted") },
      "not a tool list"
    ],
    [
      "another server's tool name",
      { key: catalogKey.id, expiresAt: fresh, tools: [{ ...catalogTools("planted")[0]!, name: "docs__search" }] },
      "its tool \"docs__search\" is not named after its remote name \"search\""
    ],
    [
      "an invalid name",
      {
        key: catalogKey.id,
        expiresAt: fresh,
        tools: [{ ...catalogTools("planted")[0]!, name: "catalog__a b", remoteName: "a b" }]
      },
      "its tool \"catalog__a b\" is not named after its remote name \"a b\""
    ],
    [
      "a schema nested 5,000 levels deep",
      {
        key: catalogKey.id,
        expiresAt: fresh,
        tools: [{ ...catalogTools("planted")[0]!, parameters: deepSchema(5_000) }]
      },
      "its tool \"catalog__search\": its input schema nests deeper than 128 levels"
    ],
    [
      "a schema nested 100,000 levels deep",
      {
        key: catalogKey.id,
        expiresAt: fresh,
        tools: [{ ...catalogTools("planted")[0]!, parameters: deepSchema(100_000) }]
      },
      "its tool \"catalog__search\": its input schema nests deeper than 128 levels"
    ],
    [
      "a schema that is not an object schema",
      {
        key: catalogKey.id,
        expiresAt: fresh,
        tools: [{ ...catalogTools("planted")[0]!, parameters: { type: "string" } }]
      },
      "its tool \"catalog__search\": its input schema is not of type object"
    ],
    ["a value that is not a tool list", "garbage", "not a tool list"]
  ]

  for (const [name, value, reason] of cases) {
    it.effect(`${name}: a miss with a warning naming the server and the reason; discovered and stored anew`, () =>
      Effect.gen(function*() {
        const store = yield* memoryStore
        yield* store.plant(value)
        const { discovered, tools, warnings } = yield* lookup(store)
        assert.deepStrictEqual(tools, catalogTools("discovered"))
        assert.strictEqual(discovered, 1)
        assert.deepStrictEqual(warnings, [refused(reason)])
        // the next process takes the list this one stored
        yield* Effect.repeat(Effect.yieldNow, { times: 20 })
        const next = yield* lookup(store)
        assert.deepStrictEqual([next.tools, next.discovered, next.warnings], [catalogTools("discovered"), 0, []])
      }))
  }

  it.effect("a valid entry stored by another process is taken as it is, without a warning", () =>
    Effect.gen(function*() {
      const store = yield* memoryStore
      yield* store.plant({ key: catalogKey.id, expiresAt: fresh, tools: catalogTools("stored") })
      const { discovered, tools, warnings } = yield* lookup(store)
      assert.deepStrictEqual([tools, discovered, warnings], [catalogTools("stored"), 0, []])
    }))

  it.effect("an entry that claims to stay fresh past the TTL is fresh for the TTL from the read", () =>
    Effect.gen(function*() {
      const store = yield* memoryStore
      yield* store.plant({ key: catalogKey.id, expiresAt: Number.MAX_SAFE_INTEGER, tools: catalogTools("stored") })
      const logs = CapturedLogs.captureLogs("Warn")
      let discovered = 0
      const cache = yield* store.cache
      const discover = Effect.sync(() => (discovered++, catalogTools("discovered")))
      assert.deepStrictEqual(yield* cache.lookup(catalogKey, discover), catalogTools("stored"))
      yield* TestClock.adjust("5 minutes")
      // this process's copy is stale after the TTL: it reads the store again
      yield* store.plant({ key: catalogKey.id, expiresAt: 10 * 60_000, tools: catalogTools("stored again") })
      assert.deepStrictEqual(yield* cache.lookup(catalogKey, discover), catalogTools("stored again"))
      assert.strictEqual(discovered, 0)
      assert.deepStrictEqual(logs.lines, [])
    }))
})
