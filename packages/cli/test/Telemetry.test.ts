/**
 * The spans and metrics of one request, through @effect/opentelemetry into the OpenTelemetry SDK's in-memory
 * exporter and a metric reader: discovery, a call, a failed call and a timed-out call.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  PeriodicExportingMetricReader
} from "@opentelemetry/sdk-metrics"
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Agent, Model, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpLayers from "@zett/testing/McpLayers"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const SECRET = "tok-0123456789-TELEMETRY-SECRET"

// add answers, fail reports an error, slow never answers
const calcServer = () => {
  const server = new Server({ name: "calc", version: "1.0.0" }, { capabilities: { tools: {} } })
  const schema = { type: "object" as const, properties: { a: { type: "number" }, b: { type: "number" } } }
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: ["add", "fail", "slow"].map((name) => ({ name, description: `the ${name} tool`, inputSchema: schema }))
  }))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    switch (request.params.name) {
      case "add": {
        const { a, b } = request.params.arguments as { a: number; b: number }
        return { content: [{ type: "text", text: String(a + b) }] }
      }
      case "fail":
        return { content: [{ type: "text", text: "fail always fails" }], isError: true }
      default:
        return new Promise((_, reject) => extra.signal.addEventListener("abort", () => reject(new Error("cancelled"))))
    }
  })
  return server
}

const setup = (captureContent: boolean) => {
  const exporter = new InMemorySpanExporter()
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 3_600_000 })
  const otel = NodeSdk.layer(() => ({
    resource: { serviceName: "zett-telemetry-test" },
    spanProcessor: new SimpleSpanProcessor(exporter),
    metricReader: reader
  }))
  const script = ScriptedModel.make([
    {
      toolCalls: [
        { id: "call_add", name: "calc__add", arguments: { a: 2, b: 40 } },
        { id: "call_fail", name: "calc__fail", arguments: { a: 1 } },
        { id: "call_slow", name: "calc__slow", arguments: { a: 3 } }
      ],
      usage: { inputTokens: 120, outputTokens: 30 }
    },
    { text: "The sum is 42.", usage: { inputTokens: 200, outputTokens: 9, cachedInputTokens: 100 } }
  ])
  const model = Layer.succeed(Model.Model, { stream: script.stream, info: { provider: "openai", model: "gpt-test" } })
  const calc = McpServerConfig.http({
    name: "calc",
    url: `http://127.0.0.1:1/mcp?key=${SECRET}`,
    headers: { Authorization: `Bearer ${SECRET}` }
  })
  const agent = Agent.layer({ extensions: [McpExtension.McpExtension], captureContent }).pipe(
    Layer.provide(
      McpLayers.layer({ servers: [calc], callTimeout: "3 seconds" }).pipe(
        Layer.provide(Layer.merge(NodeMcpClientFactory.layerInMemory({ calc: calcServer }), NodeContext.layer))
      )
    ),
    Layer.provide(model)
  )
  return { exporter, metrics, reader, otel, agent }
}

const attributesOf = (span: ReadableSpan) => span.attributes as Record<string, unknown>

describe("OpenTelemetry", () => {
  it.live("spans follow the GenAI and MCP conventions, link to their parents, and carry no secret and no content", () =>
    Effect.gen(function*() {
      const { agent, exporter, metrics, otel } = setup(false)
      // the exporter forgets its spans when the SDK shuts down: they are read before
      const [reply, spans] = yield* Agent.run("What is 2 + 40?").pipe(
        Effect.provide(agent),
        Effect.map((reply) => [reply, exporter.getFinishedSpans()] as const),
        Effect.provide(otel)
      )
      assert.strictEqual(reply.content, "The sum is 42.")
      const byName = (name: string) => {
        const found = spans.filter((span) => span.name === name)
        assert.isAbove(found.length, 0, `no span ${name} in ${spans.map((s) => s.name).join(", ")}`)
        return found
      }
      const parentOf = (span: ReadableSpan) =>
        spans.find((other) => other.spanContext().spanId === span.parentSpanContext?.spanId)?.name
      const [run] = byName("invoke_agent")
      assert.deepInclude(attributesOf(run!), {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.usage.input_tokens": 320,
        "gen_ai.usage.output_tokens": 39
      })
      const chats = byName("chat gpt-test")
      assert.strictEqual(chats.length, 2)
      for (const chat of chats) assert.strictEqual(parentOf(chat), "invoke_agent")
      assert.deepInclude(attributesOf(chats[1]!), {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-test",
        "gen_ai.usage.input_tokens": 200,
        "gen_ai.usage.output_tokens": 9,
        "gen_ai.usage.cache_read.input_tokens": 100
      })
      const [add] = byName("execute_tool calc__add")
      assert.strictEqual(parentOf(add!), "invoke_agent")
      assert.deepInclude(attributesOf(add!), {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "calc__add",
        "gen_ai.tool.call.id": "call_add"
      })
      assert.notProperty(attributesOf(add!), "error.type")
      assert.strictEqual(attributesOf(byName("execute_tool calc__fail")[0]!)["error.type"], "ToolFailed")
      assert.strictEqual(attributesOf(byName("execute_tool calc__slow")[0]!)["error.type"], "Timeout")
      // the MCP request under the agent's tool span, through the extension's call
      const [mcpCall] = byName("tools/call add")
      assert.strictEqual(parentOf(mcpCall!), "McpExtension.call")
      const extensionCall = spans.find((span) => span.spanContext().spanId === mcpCall!.parentSpanContext?.spanId)!
      assert.strictEqual(parentOf(extensionCall), "execute_tool calc__add")
      assert.deepInclude(attributesOf(mcpCall!), {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "add",
        "gen_ai.operation.name": "execute_tool",
        "mcp.server": "calc"
      })
      byName("tools/call slow")
      const [list] = byName("tools/list")
      assert.strictEqual(parentOf(list!), "McpExtension.discover")
      assert.deepInclude(attributesOf(byName("McpExtension.discover")[0]!), { "mcp.server": "calc" })
      // no secret and no content anywhere in what an exporter sends
      const exported = JSON.stringify(spans.map((span) => ({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        status: span.status
      })))
      assert.notInclude(exported, SECRET)
      assert.notInclude(exported, "What is 2 + 40")
      assert.notInclude(exported, "The sum is 42")
      assert.notInclude(exported, "\"b\":40")
      // metrics (the reader was shut down with the SDK, after a last export)
      const points = metrics.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics))
      const tokens = points.filter((m) => m.descriptor.name === "gen_ai.client.token.usage")
      const tokenPoints = tokens.flatMap((m) => m.dataPoints as Array<any>)
        .filter((p) => p.attributes["gen_ai.request.model"] === "gpt-test")
      const sum = (type: string) =>
        tokenPoints.filter((p) => p.attributes["gen_ai.token.type"] === type).reduce((n, p) => n + p.value.sum, 0)
      assert.isAtLeast(sum("input"), 320)
      assert.isAtLeast(sum("output"), 39)
      const durations = points.filter((m) => m.descriptor.name === "gen_ai.client.operation.duration")
        .flatMap((m) => m.dataPoints as Array<any>)
        .filter((p) => p.attributes["gen_ai.request.model"] === "gpt-test")
      assert.isAtLeast(durations.reduce((n, p) => n + p.value.count, 0), 2)
    }))

  it.live("captureContent: true puts tool arguments, results and messages on the spans", () =>
    Effect.gen(function*() {
      const { agent, exporter, otel } = setup(true)
      const spans = yield* Agent.run("What is 2 + 40?").pipe(
        Effect.provide(agent),
        Effect.map(() => exporter.getFinishedSpans()),
        Effect.provide(otel)
      )
      const add = spans.find((span) => span.name === "execute_tool calc__add")!
      assert.strictEqual(attributesOf(add)["gen_ai.tool.call.arguments"], "{\"a\":2,\"b\":40}")
      assert.include(String(attributesOf(add)["gen_ai.tool.call.result"]), "42")
      const chat = spans.find((span) => span.name === "chat gpt-test")!
      assert.include(String(attributesOf(chat)["gen_ai.input.messages"]), "What is 2 + 40?")
      assert.notInclude(JSON.stringify(spans.map((span) => span.attributes)), SECRET)
    }))
})
