/**
 * `subscriptions/listen` (2026-07-28): a server of that revision sends its list changes only on a stream the
 * client asked for. A connection that outlives a request (the toolkit's, a pooled one) asks for its tool changes,
 * so a server's change reaches the next refresh before its list's time is up. Against the SDK v2 servers of
 * @zett/testing/ModernServers over stdio and Streamable HTTP; what they received is read from their records.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import type { McpServerConfig } from "@zett/mcp"
import { McpClient, McpClientFactory, McpExtension, McpResources, McpServers, McpToolCache } from "@zett/mcp"
import { NodeMcpClientFactory, NodeMcpExtension } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import { captureLogs, type LogLine } from "@zett/testing-core/CapturedLogs"
import { FixtureError } from "@zett/testing-core/FixtureError"
import * as TempDir from "@zett/testing-core/TempDir"
import * as ModernServers from "@zett/testing/ModernServers"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import * as Path from "node:path"

const record = Effect.map(TempDir.make("zett-listen-"), (dir) => Path.join(dir, "record.jsonl"))

const layers = (server: McpServerConfig.McpServerConfig) =>
  Layer.mergeAll(
    McpServers.layer([server]).pipe(Layer.orDie),
    McpToolCache.layerMemory({ ttl: "5 minutes" }),
    NodeMcpClientFactory.layer({ closeTimeout: "300 millis" }).pipe(Layer.provide(NodeContext.layer))
  )

/** Until `check` holds of the toolkit, refreshing it (the server's notification arrives when it arrives). */
const refreshUntil = (
  mcp: McpToolkit.McpToolkit,
  check: (names: ReadonlyArray<string>) => boolean
): Effect.Effect<McpToolkit.McpToolkit, unknown> =>
  Effect.flatMap(mcp.refresh, (next) =>
    check(next.tools.map((tool) => tool.name))
      ? Effect.succeed(next)
      : Effect.zipRight(Effect.sleep("20 millis"), refreshUntil(next, check)))

/**
 * Until the server has received a `subscriptions/listen`: a connection opens its stream beside the listing, so a change
 * the server makes before that is not sent to it (the tests that change the server wait for this first).
 */
const listening = (file: string) =>
  Effect.repeat(Effect.sleep("10 millis"), {
    until: () => ModernServers.readRecord(file).some((entry) => entry.method === "subscriptions/listen")
  }).pipe(Effect.timeoutFail({
    duration: "20 seconds",
    onTimeout: () => new FixtureError({ message: "the connection never listened" })
  }))

describe("subscriptions/listen", () => {
  for (const transport of ["stdio", "http"] as const) {
    const serve = (file: string): Effect.Effect<McpServerConfig.McpServerConfig, Error, Scope.Scope> =>
      transport === "stdio"
        ? Effect.succeed(ModernServers.stdio("modern", "modern-only", file, { ttlMs: 60_000, scope: "public" }))
        : ModernServers.http("modern", "modern-only", file, { ttlMs: 60_000, scope: "public" })

    it.scopedLive(
      `${transport}: the toolkit's connection listens for tool changes; a tool the server adds is in the next refresh, before its list's ttl`,
      () =>
        Effect.gen(function*() {
          const file = yield* record
          const server = yield* serve(file)
          yield* Effect.scoped(Effect.gen(function*() {
            const mcp = yield* McpToolkit.make()
            assert.notInclude(mcp.tools.map((tool) => tool.name), "modern__extra")
            yield* listening(file)
            yield* mcp.toolkit.handle("modern__grow" as never, { tool: "extra" } as never)
            const next = yield* refreshUntil(mcp, (names) => names.includes("modern__extra")).pipe(
              Effect.timeoutFail({
                duration: "10 seconds",
                onTimeout: () => new FixtureError({ message: "the change never arrived" })
              })
            )
            assert.include(next.tools.map((tool) => tool.name), "modern__extra")
          })).pipe(Effect.provide(layers(server)))
          const methods = ModernServers.readRecord(file).filter((entry) => entry.event === "message").map((entry) =>
            entry.method
          )
          assert.include(methods, "subscriptions/listen")
          // listed twice: at first, and after the change
          assert.strictEqual(methods.filter((method) => method === "tools/list").length, 2)
        })
    )

    it.scopedLive(
      `${transport}: McpResources.subscribe listens for the resource; the server's update of it arrives, with no resources/subscribe`,
      () =>
        Effect.gen(function*() {
          const file = yield* record
          const server = yield* serve(file)
          const update = yield* Effect.scoped(Effect.gen(function*() {
            const factory = yield* McpClientFactory.McpClientFactory
            const client = yield* factory.connect(server)
            const updates = yield* McpResources.subscribe(client, "memo://note")
            const first = yield* Effect.fork(Stream.runCollect(Stream.take(updates, 1)))
            const written = yield* client.callTool("write", { text: "second" })
            assert.deepStrictEqual(written.content, [{ type: "text", text: "wrote second" }])
            const [update] = Chunk.toReadonlyArray(
              yield* first.await.pipe(
                Effect.flatten,
                Effect.timeoutFail({
                  duration: "10 seconds",
                  onTimeout: () => new FixtureError({ message: "the update never arrived" })
                })
              )
            )
            const [contents] = yield* McpResources.read(client, "memo://note")
            assert.strictEqual(McpResources.textOf(contents!), "second")
            return update
          })).pipe(
            Effect.provide(NodeMcpClientFactory.layer({ closeTimeout: "300 millis" })),
            Effect.provide(NodeContext.layer)
          )
          assert.deepStrictEqual(
            update,
            McpClient.Notification.ResourceUpdated({ server: "modern", uri: "memo://note" })
          )
          const methods = ModernServers.readRecord(file).filter((entry) => entry.event === "message").map((entry) =>
            entry.method
          )
          assert.include(methods, "subscriptions/listen")
          assert.notInclude(methods, "resources/subscribe")
        })
    )
  }

  it.scopedLive(
    "a pooled connection listens for tool changes: the next request is offered the tool the server added",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const server = ModernServers.stdio("modern", "modern-only", file, { ttlMs: 60_000, scope: "public" })
        const offered: Array<ReadonlyArray<string>> = []
        const model = ScriptedModel.layer([
          (request) => {
            offered.push(request.tools.map((tool) => tool.name))
            return Effect.as(Effect.orDie(listening(file)), {
              toolCalls: [{ name: "modern__grow", arguments: { tool: "extra" } }]
            })
          },
          { text: "grown" },
          (request) => {
            offered.push(request.tools.map((tool) => tool.name))
            return { text: "done" }
          }
        ])
        const cache = yield* McpToolCache.makeMemory({ ttl: "5 minutes" })
        const AgentLive = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(
            NodeMcpExtension.layer({
              extension: { connectionPool: { idleTimeToLive: "1 minute" } },
              factory: { closeTimeout: "300 millis" },
              cache: Layer.succeed(McpToolCache.McpToolCache, cache)
            }).pipe(Layer.provide(McpServers.layer([server]).pipe(Layer.orDie)))
          ),
          Layer.provide(model)
        )
        const key = McpToolCache.key(server, { namespace: true })
        yield* Effect.gen(function*() {
          yield* Agent.run("grow a tool")
          // the change arrives on the pooled connection's stream after the call: the list is dropped, and listed again
          // (by the first request, if the change came before its last model turn)
          const lists = () => ModernServers.readRecord(file).filter((entry) => entry.method === "tools/list").length
          yield* Effect.repeat(Effect.sleep("20 millis"), {
            until: () => lists() >= 2 || Effect.runSync(cache.has(key)) === false
          }).pipe(Effect.timeoutFail({
            duration: "10 seconds",
            onTimeout: () => new FixtureError({ message: "the change never arrived" })
          }))
          yield* Agent.run("what tools are there?")
        }).pipe(Effect.provide(AgentLive))
        assert.notInclude(offered[0]!, "modern__extra")
        assert.include(offered[1]!, "modern__extra")
        const methods = ModernServers.readRecord(file).filter((entry) => entry.event === "message").map((entry) =>
          entry.method
        )
        assert.include(methods, "subscriptions/listen")
        // one server process for both requests: the pool's
        assert.strictEqual(ModernServers.readRecord(file).filter((entry) => entry.event === "ready").length, 1)
      })
  )

  it.scopedLive(
    "a subscription stream that breaks (HTTP) is listened again, and the server's next change arrives on it",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const server = yield* ModernServers.http("modern", "modern-only", file, { ttlMs: 60_000, scope: "public" })
        const listens = () =>
          ModernServers.readRecord(file).filter((entry) => entry.method === "subscriptions/listen").length
        yield* Effect.scoped(Effect.gen(function*() {
          const mcp = yield* McpToolkit.make()
          yield* listening(file)
          yield* mcp.toolkit.handle("modern__cut" as never, {} as never)
          // listened again after the stream broke (from 200 ms, jittered)
          yield* Effect.repeat(Effect.sleep("10 millis"), { until: () => listens() >= 2 }).pipe(
            Effect.timeoutFail({
              duration: "10 seconds",
              onTimeout: () => new FixtureError({ message: "never listened again" })
            })
          )
          // a change published before the server has the new stream is not on it: tools are added until one is heard
          // of (without the stream, the cached list would hide every one of them for its minute)
          let heard = false
          for (let i = 0; i < 20 && !heard; i++) {
            yield* mcp.toolkit.handle("modern__grow" as never, { tool: `later${i}` } as never)
            heard = yield* refreshUntil(mcp, (names) => names.includes(`modern__later${i}`)).pipe(
              Effect.as(true),
              Effect.timeoutTo({ duration: "500 millis", onTimeout: () => false, onSuccess: (found) => found })
            )
          }
          assert.isTrue(heard)
        })).pipe(Effect.provide(layers(server)))
        assert.strictEqual(listens(), 2)
      })
  )

  it.scoped(
    "a subscription that cannot be listened again is tried 6 more times, then given up with a warning naming the server",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const server = yield* ModernServers.http("modern", "modern-only", file, { ttlMs: 60_000, scope: "public" }, [
          "--refuse-listen-after-cut"
        ])
        const listens = () =>
          ModernServers.readRecord(file).filter((entry) => entry.method === "subscriptions/listen").length
        const logs = captureLogs()
        const given = (line: LogLine) =>
          line.level === "WARN" &&
          line.message.startsWith("MCP server modern: listening again for its notifications failed")
        // the server's answers are real I/O, the waits between the tries the test clock's
        const realPause = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        yield* Effect.scoped(Effect.gen(function*() {
          const mcp = yield* McpToolkit.make()
          // the stream is opened beside the listing: cut before it exists, the first listen itself would be refused
          for (let i = 0; i < 1500 && listens() < 1; i++) yield* realPause
          assert.strictEqual(listens(), 1)
          yield* mcp.toolkit.handle("modern__cut" as never, {} as never)
          for (let i = 0; i < 500 && !logs.lines.some(given); i++) {
            yield* TestClock.adjust("10 seconds")
            yield* realPause
          }
          assert.isTrue(logs.lines.some(given))
          // nothing more is tried, however long the connection lives on
          for (let i = 0; i < 10; i++) {
            yield* TestClock.adjust("1 minute")
            yield* realPause
          }
        })).pipe(Effect.provide(layers(server)), Effect.provide(logs.layer))
        // the first stream, the try after it broke, and 6 more
        assert.strictEqual(listens(), 8)
        assert.strictEqual(logs.lines.filter(given).length, 1)
      })
  )
})
