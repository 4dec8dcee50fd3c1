/**
 * The W3C trace context of a request's span travels to the server in `_meta.traceparent` (the key the protocol
 * reserves for it), so the server's spans join the agent's trace; with no tracer installed nothing is added.
 * Read from what a server of @zett/testing/ModernServers received, over stdio and Streamable HTTP.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Tracing } from "@zett/agent"
import { McpClient, McpClientFactory, type McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as TempDir from "@zett/testing-core/TempDir"
import * as ModernServers from "@zett/testing/ModernServers"
import * as RecordingTracer from "@zett/testing/RecordingTracer"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Path from "node:path"

const session = (server: McpServerConfig.McpServerConfig) =>
  Effect.scoped(Effect.gen(function*() {
    const factory = yield* McpClientFactory.McpClientFactory
    const client = yield* factory.connect(server)
    yield* McpClient.listAll(client)
    yield* client.callTool("echo", { text: "traced" })
    // the deadline path of a call under a time limit
    yield* client.callWithin("echo", { text: "timed" }, {
      server: server.name,
      timeout: Option.some(Duration.seconds(20)),
      resetOnProgress: false,
      maxTimeout: Option.none()
    })
  })).pipe(Effect.provide(NodeMcpClientFactory.layer()), Effect.provide(NodeContext.layer))

describe("trace context to the server", () => {
  for (const transport of ["stdio", "http"] as const) {
    it.scopedLive(
      `each request carries its span's traceparent in _meta (${transport}); untraced, none`,
      () =>
        Effect.gen(function*() {
          const dir = yield* TempDir.make("zett-trace-")
          const traced = Path.join(dir, "traced.jsonl")
          const plain = Path.join(dir, "plain.jsonl")
          const serve = (file: string) =>
            transport === "stdio"
              ? Effect.succeed(ModernServers.stdio("traced", "dual", file))
              : ModernServers.http("traced", "dual", file)
          const recording = yield* RecordingTracer.make
          yield* session(yield* serve(traced)).pipe(Effect.withTracer(recording.tracer))
          const received = ModernServers.readRecord(traced).filter((entry) =>
            entry.method === "tools/list" || entry.method === "tools/call"
          )
          assert.deepStrictEqual(received.map((entry) => entry.method), ["tools/list", "tools/call", "tools/call"])
          const expected = (name: string) =>
            recording.spans.filter((span) => span.name === name).map((span) => Tracing.traceparent(span))
          assert.deepStrictEqual(received.map((entry) => entry.traceparent), [
            ...expected("tools/list"),
            ...expected("tools/call echo")
          ])
          for (const entry of received) assert.match(entry.traceparent!, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)

          yield* session(yield* serve(plain))
          const untraced = ModernServers.readRecord(plain).filter((entry) => entry.event === "message")
          assert.isTrue(
            untraced.every((entry) => entry.traceparent === undefined && !entry.meta?.includes("traceparent"))
          )
        })
    )
  }

  it("a span of another tracer whose ids are not of the W3C shape gives no traceparent", () => {
    const span = (traceId: string, spanId: string, sampled = true) => ({ traceId, spanId, sampled }) as never
    assert.strictEqual(
      Tracing.traceparent(span("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")),
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    )
    assert.strictEqual(
      Tracing.traceparent(span("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", false)),
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
    )
    assert.strictEqual(Tracing.traceparent(span("trace-1", "b7ad6b7169203331")), undefined)
    assert.strictEqual(Tracing.traceparent(span("0".repeat(32), "b7ad6b7169203331")), undefined)
    assert.strictEqual(Tracing.traceparent(span("0af7651916cd43dd8448eb211c80319c", "0".repeat(16))), undefined)
  })
})
