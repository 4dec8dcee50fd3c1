/**
 * Tool lists read back from a shared store are checked as a server's own answer is, and bound to the server
 * they were stored for: an entry another writer planted (another server's list, another server's tool name, a
 * name no server answer gives, a schema nested thousands of levels deep, text that is not JSON) is a miss,
 * with a warning naming the server and the reason, and the server is asked again. Here on a real Redis with real
 * MCP servers through the extension (what the model is offered, which server a call reaches); on a
 * `BackingPersistence` in memory through the cache alone: packages/mcp/test/McpToolCache.stored.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Agent, type Message, ScriptedModel, type Tool } from "@zett/agent"
import { McpExtension, McpServerConfig, McpToolCache } from "@zett/mcp"
import { McpRedis, RedisToolCache } from "@zett/mcp-redis"
import * as CapturedLogs from "@zett/testing-core/CapturedLogs"
import { toolMessages } from "@zett/testing-core/FakeMcp"
import * as McpLayers from "@zett/testing/McpLayers"
import * as RedisServer from "@zett/testing/RedisServer"
import * as StatelessHttp from "@zett/testing/StatelessHttp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { Redis } from "ioredis"

interface Recording {
  readonly url: string
  /** The `tools/list` requests it answered. */
  readonly listings: () => number
  /** The tools it was asked to call, in order. */
  readonly calls: ReadonlyArray<string>
}

/**
 * A real MCP server of the SDK, in this process (Streamable HTTP, stateless), with the tools `search` and
 * `fetch`: a call answers `<server> ran <tool>`.
 */
const recordingServer = (name: string): Effect.Effect<Recording, never, Scope.Scope> =>
  Effect.suspend(() => {
    let listings = 0
    const calls: Array<string> = []
    const makeServer = () => {
      const server = new Server({ name, version: "1.0.0" }, { capabilities: { tools: {} } })
      server.setRequestHandler(ListToolsRequestSchema, async () => {
        listings++
        return {
          tools: ["search", "fetch"].map((tool) => ({
            name: tool,
            description: `${tool} in ${name}`,
            inputSchema: { type: "object" as const, properties: { q: { type: "string" } } }
          }))
        }
      })
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        calls.push(request.params.name)
        return { content: [{ type: "text" as const, text: `${name} ran ${request.params.name}` }] }
      })
      return server
    }
    return Effect.map(StatelessHttp.serve(makeServer), (url) => ({ url, listings: () => listings, calls }))
  })

const rawClient = (url: string) =>
  Effect.acquireRelease(Effect.sync(() => new Redis(url)), (client) => Effect.sync(() => client.disconnect()))

/** The same nesting as JSON text, for Redis (no `JSON.stringify` of a value that deep). */
const deepSchemaText = (levels: number) =>
  `${"{\"type\":\"object\",\"properties\":{\"q\":".repeat(levels)}{"type":"string"}${"}}".repeat(levels)}`

const storedTool = (server: string, name: string, remoteName: string) => ({
  name,
  description: "planted",
  parameters: { type: "object", properties: {} },
  guidelines: false,
  server,
  remoteName
})

/** One process: a request whose model calls `docs__search` once; what it was offered and what it got. */
const request = (servers: ReadonlyArray<McpServerConfig.McpServerConfig>, redisUrl: string) =>
  Effect.gen(function*() {
    const seen: Array<
      { readonly tools: ReadonlyArray<Tool.Definition>; readonly messages: ReadonlyArray<Message.Message> }
    > = []
    const logs = CapturedLogs.captureLogs(LogLevel.Warning)
    const toolCache = RedisToolCache.layer({ ttl: "5 minutes" }).pipe(
      Layer.provide(McpRedis.layer({ url: Redacted.make(redisUrl) }))
    )
    const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(McpLayers.layerNode({ servers, cache: toolCache })),
      Layer.provide(ScriptedModel.layer([
        (r) => (seen.push(r), { toolCalls: [{ name: "docs__search", arguments: { q: "x" } }] }),
        (r) => (seen.push(r), { text: "done" })
      ]))
    )
    yield* Agent.run("go").pipe(Effect.provide(layer), Effect.provide(logs.layer), Effect.orDie)
    const offered = seen[0]!.tools
    return {
      // the definitions as a provider would be sent them
      definitions: JSON.parse(JSON.stringify(offered)) as ReadonlyArray<Tool.Definition>,
      result: toolMessages(seen[1]!)[0]!,
      warnings: logs.lines.map((line) => line.message)
    }
  })

const realTools = (server: string) =>
  ["search", "fetch"].map((tool) => ({ name: `${server}__${tool}`, description: `${tool} in ${server}` }))

describe("a tool list planted in Redis", () => {
  const cases: ReadonlyArray<{
    readonly name: string
    /** The value written under catalog's key, given docs's own stored entry and the key of catalog's. */
    readonly plant: (docsEntry: string, catalogId: string) => string
    readonly warning: string
  }> = [
    {
      name: "the list of another server (its own entry, copied)",
      plant: (docsEntry) => docsEntry,
      warning: "the stored tool list of catalog is refused (stored for another server definition or naming mode)"
    },
    {
      name: "another server's tool name under this server's key",
      plant: (_, id) =>
        JSON.stringify({
          key: id,
          expiresAt: Date.now() + 600_000,
          tools: [storedTool("catalog", "docs__search", "search")]
        }),
      warning:
        "the stored tool list of catalog is refused (its tool \"docs__search\" is not named after its remote name \"search\")"
    },
    {
      name: "a tool of another server under this server's key",
      plant: (_, id) =>
        JSON.stringify({
          key: id,
          expiresAt: Date.now() + 600_000,
          tools: [storedTool("docs", "docs__search", "search")]
        }),
      warning: "the stored tool list of catalog is refused (its tool \"docs__search\" is of the server \"docs\")"
    },
    {
      name: "a name with spaces and non-ASCII letters",
      plant: (_, id) =>
        JSON.stringify({
          key: id,
          expiresAt: Date.now() + 600_000,
          tools: [storedTool("catalog", "catalog__find items ünd mehr", "find items ünd mehr")]
        }),
      warning:
        "the stored tool list of catalog is refused (its tool \"catalog__find items ünd mehr\" is not named after its remote name \"find items ünd mehr\")"
    },
    {
      name: "a schema nested 5,000 levels deep",
      plant: (_, id) =>
        `{"key":${JSON.stringify(id)},"expiresAt":${Date.now() + 600_000},"tools":[{"name":"catalog__search",` +
        `"description":"planted","parameters":${
          deepSchemaText(5_000)
        },"guidelines":false,"server":"catalog","remoteName":"search"}]}`,
      warning:
        "the stored tool list of catalog is refused (its tool \"catalog__search\": its input schema nests deeper than 128 levels)"
    },
    {
      name: "text that is not JSON",
      plant: () => "{\"key\": \"catalog\", tools: [ not json",
      warning: "the stored tool list of catalog is refused (the stored value is not JSON)"
    }
  ]

  for (const { name, plant, warning } of cases) {
    it.scopedLive(
      `${name}: a miss with a warning; the server is asked again and the model is offered its real tools`,
      () =>
        Effect.gen(function*() {
          const redis = yield* RedisServer.make
          const catalog = yield* recordingServer("catalog")
          const docs = yield* recordingServer("docs")
          const servers = [
            McpServerConfig.http({ name: "catalog", url: catalog.url }),
            McpServerConfig.http({ name: "docs", url: docs.url })
          ]
          const [catalogKey, docsKey] = servers.map((server) => McpToolCache.key(server, { namespace: true }))
          const raw = yield* rawClient(redis.url)
          const stored = (key: McpToolCache.Key) => Effect.promise(() => raw.get(`zett:mcp-tools:${key.id}`))
          // docs's list as a process stores it
          const first = yield* request(servers.slice(1), redis.url)
          assert.deepStrictEqual(first.warnings, [])
          while ((yield* stored(docsKey!)) === null) yield* Effect.sleep("10 millis")
          const planted = plant((yield* stored(docsKey!))!, catalogKey!.id)
          yield* Effect.promise(() => raw.set(`zett:mcp-tools:${catalogKey!.id}`, planted, "PX", 600_000))

          // the first request called docs__search too
          const callsBefore = docs.calls.length
          const { definitions, result, warnings } = yield* request(servers, redis.url)
          assert.deepStrictEqual(
            definitions.map(({ description, name }) => ({ name, description })),
            [...realTools("catalog"), ...realTools("docs")]
          )
          assert.deepStrictEqual(definitions[0]!.parameters, { type: "object", properties: { q: { type: "string" } } })
          // the call reached the server whose tool it is
          assert.deepStrictEqual(result.content, [{ type: "text", text: "docs ran search" }])
          assert.deepStrictEqual(catalog.calls, [])
          assert.deepStrictEqual(docs.calls.slice(callsBefore), ["search"])
          // catalog was asked, docs was not asked again
          assert.strictEqual(catalog.listings(), 1)
          assert.strictEqual(docs.listings(), 1)
          assert.strictEqual(warnings.length, 1, warnings.join("\n"))
          assert.include(warnings[0], warning)
          // and the planted entry is replaced by catalog's own list
          let replaced = yield* stored(catalogKey!)
          while (!replaced!.includes("search in catalog")) {
            yield* Effect.sleep("10 millis")
            replaced = yield* stored(catalogKey!)
          }
          assert.strictEqual((JSON.parse(replaced!) as { key: string }).key, catalogKey!.id)
        })
    )
  }
})
