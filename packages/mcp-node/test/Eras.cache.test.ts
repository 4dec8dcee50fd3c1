/**
 * The verdict of a connection (which revisions its server speaks) travels with the tool list it listed: a process
 * that reads the list from a store shared with another process connects without asking the question again, and a
 * verdict that no longer holds is asked again, once. A server's caching hint decides how long its list is kept.
 * Each "process" is a layer of its own (its own client factory, which remembers nothing of the other's), over
 * one store; what the servers received is read from their records.
 */
import * as Persistence from "@effect/experimental/Persistence"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import * as TempDir from "@zett/testing-core/TempDir"
import * as FaultyServer from "@zett/testing/Faults"
import * as ModernServers from "@zett/testing/ModernServers"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "node:path"

const record = Effect.map(TempDir.make("zett-verdicts-"), (dir) => Path.join(dir, "record.jsonl"))

// the toolkit's connections also listen for tool changes, beside the requests (Subscriptions.test.ts)
const aside: ReadonlySet<string | undefined> = new Set([
  "notifications/initialized",
  "subscriptions/listen",
  "notifications/cancelled"
])

const methodsByProcess = (file: string) => ModernServers.methodsByProcess(file, aside)

/** One request of a process of its own over `store`: discover the servers, call `tool`; what the model was given. */
const requestIn = (
  store: Context.Context<Persistence.BackingPersistence>,
  server: McpServerConfig.McpServerConfig,
  tool: string,
  cache: Partial<McpToolCache.PersistedOptions> = {}
) =>
  Effect.scoped(Effect.gen(function*() {
    const mcp = yield* McpToolkit.make()
    const handled = yield* mcp.toolkit.handle(tool as never, { text: "hi" } as never)
    return { tools: mcp.tools.map((t) => t.name), unavailable: mcp.unavailable, result: handled.result }
  })).pipe(
    Effect.provide(Layer.mergeAll(
      McpServers.layer([server]).pipe(Layer.orDie),
      McpToolCache.layerPersisted({ ttl: "5 minutes", ...cache }).pipe(Layer.provide(Layer.succeedContext(store))),
      NodeMcpClientFactory.layer({ closeTimeout: "300 millis" }).pipe(Layer.provide(NodeContext.layer))
    ))
  )

const sharedStore = Effect.map(Layer.build(Persistence.layerMemory), (context) => context)

const legacyServer = (file: string) =>
  McpServerConfig.stdio({
    name: "legacy",
    command: process.execPath,
    args: [FaultyServer.faultyServer, `--record=${file}`, "--record-messages"]
  })

describe("the verdict cached with the tool list", () => {
  it.scopedLive(
    "a second process that reads a modern server's list from the store calls it without server/discover: one process each",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const store = yield* sharedStore
        const server = ModernServers.stdio("modern", "modern-only", file, { ttlMs: 60_000, scope: "public" })
        const first = yield* requestIn(store, server, "modern__echo")
        const second = yield* requestIn(store, server, "modern__echo")
        assert.deepStrictEqual(first.result, second.result)
        assert.deepStrictEqual(methodsByProcess(file), [["server/discover", "tools/list", "tools/call"], [
          "tools/call"
        ]])
      })
  )

  it.scopedLive(
    "a second process that reads a 2025 server's list initializes it at once: no question, one process each",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const store = yield* sharedStore
        const server = legacyServer(file)
        yield* requestIn(store, server, "legacy__echo")
        yield* requestIn(store, server, "legacy__echo")
        assert.deepStrictEqual(methodsByProcess(file), [
          ["server/discover", "initialize", "tools/list", "tools/call"],
          ["initialize", "tools/call"]
        ])
      })
  )

  it.scopedLive(
    "a stored verdict that no longer holds is asked again once, the call goes through, and the list goes with it",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const context = yield* sharedStore
        const server = ModernServers.stdio("modern", "modern-only", file, { ttlMs: 60_000, scope: "public" })
        yield* requestIn(context, server, "modern__echo")
        // another writer's list says the server speaks the 2025 revisions
        const store = yield* Context.get(context, Persistence.BackingPersistence).make("mcp-tools")
        const key = McpToolCache.key(server, { namespace: true })
        const stored = Option.getOrThrow(yield* store.get(key.id)) as Record<string, unknown>
        yield* store.set(key.id, { ...stored, verdict: { kind: "legacy" } }, Option.none())
        const second = yield* requestIn(context, server, "modern__echo")
        assert.deepStrictEqual(second.result, [{ type: "text", text: "modern echo: hi" }])
        const [, refused, asked] = methodsByProcess(file)
        assert.deepStrictEqual(refused, ["initialize"])
        assert.deepStrictEqual(asked, ["server/discover", "tools/call"])
        // the list went with its stale verdict: the next process lists the server again and stores what it speaks
        yield* requestIn(context, server, "modern__echo")
        yield* requestIn(context, server, "modern__echo")
        assert.deepStrictEqual(methodsByProcess(file).slice(3), [["server/discover", "tools/list", "tools/call"], [
          "tools/call"
        ]])
      })
  )
})

describe("the server's caching hint", () => {
  it.scopedLive(
    "a modern server's list with the SDK's default hint (ttlMs 0) is listed again by the next request",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const store = yield* sharedStore
        const server = ModernServers.stdio("modern", "dual", file)
        yield* requestIn(store, server, "modern__echo")
        yield* requestIn(store, server, "modern__echo")
        assert.deepStrictEqual(methodsByProcess(file), [
          ["server/discover", "tools/list", "tools/call"],
          ["server/discover", "tools/list", "tools/call"]
        ])
      })
  )

  it.scopedLive("with cacheHints: ignore, the same list is kept for the cache's ttl", () =>
    Effect.gen(function*() {
      const file = yield* record
      const store = yield* sharedStore
      const server = ModernServers.stdio("modern", "dual", file, { ttlMs: 0, scope: "public" })
      yield* requestIn(store, server, "modern__echo", { cacheHints: "ignore" })
      yield* requestIn(store, server, "modern__echo", { cacheHints: "ignore" })
      assert.deepStrictEqual(methodsByProcess(file), [["server/discover", "tools/list", "tools/call"], ["tools/call"]])
    }))
})
