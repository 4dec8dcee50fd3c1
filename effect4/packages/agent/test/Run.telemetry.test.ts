/**
 * The run's telemetry as an exporter sees it (found by mutation testing of internal/run.ts): the model
 * span's name and attributes (OpenTelemetry GenAI conventions), the run's and each tool call's span, content only
 * with `captureContent`, and the token usage and duration metrics with their tags.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, type Extension, Message, Model, ScriptedModel, Tool } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { recordingTracer } from "./utils.js"

type Recorded = { readonly name: string; readonly kind: string; readonly attributes: ReadonlyMap<string, unknown> }

const attributes = (spans: ReadonlyArray<Recorded>, name: string) =>
  spans.filter((span) => span.name === name).map((span) => Object.fromEntries(span.attributes))

const echo = Tool.dynamic("echo", { description: "echo", parameters: { type: "object" }, handler: Effect.succeed })
const broken = Tool.dynamic("broken", {
  description: "broken",
  parameters: { type: "object" },
  // a plain object with a tag, not an Error: the model is told its tag
  handler: () => Effect.fail({ _tag: "Broken", message: "no" })
})

const scripted = (steps: ReadonlyArray<ScriptedModel.Step>, info?: Model.ModelInfo) =>
  Model.Model.of({ ...ScriptedModel.make(steps), info })

/** The histograms of `name` whose attributes include `gen_ai.request.model: model`, as attributes and state. */
const histograms = (name: string, model: string) =>
  Effect.map(Metric.snapshot, (snapshots) =>
    snapshots
      .filter((snapshot) => snapshot.id === name && snapshot.attributes?.["gen_ai.request.model"] === model)
      .map((snapshot) => {
        const state = snapshot.state as unknown as { readonly count: number; readonly sum: number }
        return { tags: { ...snapshot.attributes }, count: state.count, sum: state.sum }
      })
      .sort((a, b) => JSON.stringify(a.tags).localeCompare(JSON.stringify(b.tags))))

describe("run (telemetry)", () => {
  it.effect("spans of a run, its model calls and tool calls carry the GenAI attributes, and content with captureContent", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recordingTracer
      const model = scripted([
        {
          toolCalls: [{ id: "c1", name: "echo", arguments: { x: 1 } }, { id: "c2", name: "broken" }],
          usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 2 }
        },
        { text: "done", usage: { inputTokens: 5, outputTokens: 6 } }
      ], { provider: "acme", model: "spans-1" })
      const agent = yield* Agent.make({ tools: [echo, broken], captureContent: true }).pipe(
        Effect.provideService(Model.Model, model)
      )
      const reply = yield* agent.run("hi").pipe(Effect.withTracer(tracer))
      assert.strictEqual(reply.content, "done")
      assert.deepStrictEqual(spans.filter((span) => span.name === "chat spans-1").map((span) => span.kind), [
        "client",
        "client"
      ])
      const chats = attributes(spans, "chat spans-1")
      assert.strictEqual(chats.length, 2)
      assert.deepStrictEqual(
        chats.map((chat): Record<string, unknown> => ({
          ...chat,
          "gen_ai.input.messages": undefined,
          "gen_ai.output.messages": undefined
        })),
        [
          {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "acme",
            "gen_ai.request.model": "spans-1",
            "gen_ai.usage.input_tokens": 3,
            "gen_ai.usage.output_tokens": 4,
            "gen_ai.usage.cache_read.input_tokens": 2,
            "gen_ai.response.finish_reasons": ["tool_calls"],
            "gen_ai.input.messages": undefined,
            "gen_ai.output.messages": undefined
          },
          {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "acme",
            "gen_ai.request.model": "spans-1",
            "gen_ai.usage.input_tokens": 5,
            "gen_ai.usage.output_tokens": 6,
            "gen_ai.response.finish_reasons": ["stop"],
            "gen_ai.input.messages": undefined,
            "gen_ai.output.messages": undefined
          }
        ]
      )
      const input = JSON.parse(chats[0]!["gen_ai.input.messages"] as string) as Array<{ readonly content: unknown }>
      assert.deepStrictEqual(input.map((message) => message.content), ["hi"])
      const output = JSON.parse(chats[1]!["gen_ai.output.messages"] as string) as Array<{ readonly content: unknown }>
      assert.deepStrictEqual(output.map((message) => message.content), ["done"])
      assert.deepStrictEqual(
        attributes(spans, "invoke_agent").map((run): Record<string, unknown> => ({
          ...run,
          "zett.agent.run_id": typeof run["zett.agent.run_id"]
        })),
        [{
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.provider.name": "acme",
          "gen_ai.request.model": "spans-1",
          "zett.agent.run_id": "number",
          // the run's usage: both model calls
          "gen_ai.usage.input_tokens": 8,
          "gen_ai.usage.output_tokens": 10,
          "gen_ai.usage.cache_read.input_tokens": 2
        }]
      )
      assert.deepStrictEqual(attributes(spans, "execute_tool echo"), [{
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.arguments": "{\"x\":1}",
        "gen_ai.tool.call.result": "{\"x\":1}"
      }])
      assert.deepStrictEqual(attributes(spans, "execute_tool broken"), [{
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "broken",
        "gen_ai.tool.call.id": "c2",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.arguments": "{}",
        "error.type": "Broken",
        "gen_ai.tool.call.result": "{\"error\":{\"type\":\"Broken\",\"message\":\"no\"}}"
      }])
    }))

  it.effect("without model info and captureContent, spans name the operation alone and carry no content", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recordingTracer
      const agent = yield* Agent.make({ tools: [echo] }).pipe(
        Effect.provideService(Model.Model, scripted([{ toolCalls: [{ id: "c1", name: "echo" }] }, { text: "done" }]))
      )
      yield* agent.run("hi").pipe(Effect.withTracer(tracer))
      assert.deepStrictEqual(attributes(spans, "chat"), [
        {
          "gen_ai.operation.name": "chat",
          "gen_ai.usage.input_tokens": 0,
          "gen_ai.usage.output_tokens": 0,
          "gen_ai.response.finish_reasons": ["tool_calls"]
        },
        {
          "gen_ai.operation.name": "chat",
          "gen_ai.usage.input_tokens": 0,
          "gen_ai.usage.output_tokens": 0,
          "gen_ai.response.finish_reasons": ["stop"]
        }
      ])
      assert.deepStrictEqual(attributes(spans, "execute_tool echo"), [{
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.type": "function"
      }])
      const run = attributes(spans, "invoke_agent")[0]!
      assert.deepStrictEqual(Object.keys(run).sort(), [
        "gen_ai.operation.name",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "zett.agent.run_id"
      ])
    }))

  it.effect("a model stream without a finish event gives a span without usage or finish reason", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recordingTracer
      const model = Model.Model.of({ stream: () => Stream.make(Model.textDelta("bare")) })
      const agent = yield* Agent.make({}).pipe(Effect.provideService(Model.Model, model))
      yield* agent.run("hi").pipe(Effect.withTracer(tracer))
      assert.deepStrictEqual(attributes(spans, "chat"), [{ "gen_ai.operation.name": "chat" }])
      assert.deepStrictEqual(Object.keys(attributes(spans, "invoke_agent")[0]!).sort(), [
        "gen_ai.operation.name",
        "zett.agent.run_id"
      ])
    }))

  it.effect("token usage and duration are recorded per model call, tagged by model, token type and error type", () =>
    Effect.gen(function*() {
      const common = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "acme",
        "gen_ai.request.model": "metrics-1"
      }
      const model = scripted([
        () =>
          Effect.as(TestClock.adjust("2 seconds"), {
            toolCalls: [{ name: "echo" }],
            usage: { inputTokens: 3, outputTokens: 4 }
          }),
        () => Effect.as(TestClock.adjust("500 millis"), { text: "done", usage: { inputTokens: 5, outputTokens: 6 } })
      ], { provider: "acme", model: "metrics-1" })
      const agent = yield* Agent.make({ tools: [echo] }).pipe(Effect.provideService(Model.Model, model))
      yield* agent.run("hi")
      // the script has no third step: a ModelError
      const failed = yield* Effect.flip(agent.run("again"))
      assert.strictEqual(failed._tag, "ModelError")
      assert.deepStrictEqual(yield* histograms("gen_ai.client.token.usage", "metrics-1"), [
        { tags: { ...common, "gen_ai.token.type": "input" }, count: 2, sum: 8 },
        { tags: { ...common, "gen_ai.token.type": "output" }, count: 2, sum: 10 }
      ])
      assert.deepStrictEqual(yield* histograms("gen_ai.client.operation.duration", "metrics-1"), [
        { tags: { ...common, "error.type": "ModelError" }, count: 1, sum: 0 },
        { tags: common, count: 2, sum: 2.5 }
      ])
    }))

  it.effect("a model call that dies is measured with error.type _OTHER, and without usage no tokens are recorded", () =>
    Effect.gen(function*() {
      const info = { provider: "acme", model: "metrics-2" }
      const dying = Model.Model.of({ info, stream: () => Stream.die("kaput") })
      const agent = yield* Agent.make({}).pipe(Effect.provideService(Model.Model, dying))
      yield* Effect.exit(agent.run("hi"))
      const bare = Model.Model.of({
        info: { provider: "acme", model: "metrics-3" },
        stream: () => Stream.make(Model.textDelta("bare"))
      })
      yield* Effect.flatMap(Agent.make({}).pipe(Effect.provideService(Model.Model, bare)), (agent) => agent.run("hi"))
      const common = { "gen_ai.operation.name": "chat", "gen_ai.provider.name": "acme" }
      assert.deepStrictEqual(yield* histograms("gen_ai.client.operation.duration", "metrics-2"), [
        { tags: { ...common, "gen_ai.request.model": "metrics-2", "error.type": "_OTHER" }, count: 1, sum: 0 }
      ])
      assert.deepStrictEqual(yield* histograms("gen_ai.client.token.usage", "metrics-3"), [])
      assert.deepStrictEqual(yield* histograms("gen_ai.client.operation.duration", "metrics-3"), [
        { tags: { ...common, "gen_ai.request.model": "metrics-3" }, count: 1, sum: 0 }
      ])
    }))

  it.effect("a failed call's span names the error type of the message the model gets, _OTHER when afterTool replaced it with one of no type", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* recordingTracer
      const replacing: Extension.Extension = {
        name: "replacing",
        afterTool: (_context, call, message) =>
          Effect.succeed(
            call.id === "c1"
              ? message
              : new Message.ToolMessage({
                toolCallId: call.id,
                name: call.name,
                status: "TOOL_FAILED",
                content: call.id === "c2" ? null : call.id === "c3" ? { reason: "x" } : { error: { type: 7 } }
              })
          )
      }
      const agent = yield* Agent.make({ tools: [broken], extensions: [replacing] }).pipe(
        Effect.provideService(
          Model.Model,
          scripted([
            { toolCalls: ["c1", "c2", "c3", "c4"].map((id) => ({ id, name: "broken" })) },
            { text: "done" }
          ])
        )
      )
      yield* agent.run("hi").pipe(Effect.withTracer(tracer))
      assert.deepStrictEqual(attributes(spans, "execute_tool broken").map((span) => span["error.type"]), [
        "Broken",
        "_OTHER",
        "_OTHER",
        "_OTHER"
      ])
    }))
})
