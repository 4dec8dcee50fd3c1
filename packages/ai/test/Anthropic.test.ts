import * as Headers from "@effect/platform/Headers"
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Arr from "effect/Array"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { inspect } from "node:util"
import {
  anthropicEvents,
  anthropicModel,
  buildModel,
  captureLogs,
  captureSpans,
  fakeProvider,
  json,
  KEY,
  pendingSleep,
  sse
} from "./utils.js"

const schema = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1 },
    limit: { type: "integer", default: 10, maximum: 50 },
    filters: { type: "array", items: { $ref: "#/$defs/Filter" } }
  },
  required: ["query"],
  $defs: { Filter: { type: "object", additionalProperties: { type: "string" } } }
}

describe("AiModel on @effect/ai-anthropic (Messages API)", () => {
  it.scoped("streams text and assembles tool_use input deltas; the tool's schema is sent as input_schema", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({
          text: ["Let me ", "search."],
          calls: [{
            id: "toolu_1",
            name: "docs__search",
            pieces: ["{\"query\": \"eff", "ect\", \"filters\": [{\"lang\"", ": \"ts\"}]}"]
          }],
          usage: { input: 321, output: 45 }
        }))
      ])
      const model = yield* buildModel(anthropicModel(provider))
      const events = yield* model.stream({
        messages: [Message.system("You search docs."), Message.user("Find effect docs")],
        tools: [{ name: "docs__search", description: "Searches the docs", parameters: schema }],
        serverTools: []
      }).pipe(Stream.runCollect, Effect.map(Chunk.toArray))
      assert.deepStrictEqual(events, [
        Model.textDelta("Let me "),
        Model.textDelta("search."),
        Model.toolCall(
          new Message.ToolCall({
            id: "toolu_1",
            name: "docs__search",
            arguments: { query: "effect", filters: [{ lang: "ts" }] }
          })
        ),
        Model.finish("tool_calls", new Message.Usage({ inputTokens: 321, outputTokens: 45 }))
      ])
      const seen = provider.requests[0]!
      assert.strictEqual(seen.url, "/v1/messages")
      assert.strictEqual(seen.headers["x-api-key"], KEY)
      assert.strictEqual(seen.headers["anthropic-version"], "2023-06-01")
      assert.strictEqual(seen.body.stream, true)
      assert.strictEqual(seen.body.model, "claude-sonnet-4-5")
      assert.deepStrictEqual(seen.body.tools, [
        { name: "docs__search", description: "Searches the docs", input_schema: schema }
      ])
      assert.deepStrictEqual(seen.body.system, [{ type: "text", text: "You search docs." }])
      assert.deepStrictEqual(seen.body.messages, [
        { role: "user", content: [{ type: "text", text: "Find effect docs" }] }
      ])
    }))

  it.scoped("maps tool calls to tool_use and tool messages to tool_result (is_error for failed and skipped)", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      const model = yield* buildModel(anthropicModel(provider))
      yield* Stream.runDrain(model.stream({
        messages: [
          Message.user("Do two things"),
          Message.assistant("", [
            new Message.ToolCall({ id: "toolu_a", name: "one", arguments: { x: 1 } }),
            new Message.ToolCall({ id: "toolu_b", name: "two", arguments: {} }),
            new Message.ToolCall({ id: "toolu_c", name: "one", arguments: { x: 2 } })
          ]),
          new Message.ToolMessage({ toolCallId: "toolu_a", name: "one", status: "ok", content: { y: 1 } }),
          new Message.ToolMessage({
            toolCallId: "toolu_b",
            name: "two",
            status: "TOOL_FAILED",
            content: { error: { type: "Timeout", message: "two timed out" } }
          }),
          new Message.ToolMessage({
            toolCallId: "toolu_c",
            name: "one",
            status: "skipped",
            content: { skipped: "steered" }
          })
        ],
        tools: [],
        serverTools: []
      }))
      assert.deepStrictEqual(provider.requests[0]!.body.messages, [
        { role: "user", content: [{ type: "text", text: "Do two things" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "toolu_a", name: "one", input: { x: 1 } },
            { type: "tool_use", id: "toolu_b", name: "two", input: {} },
            { type: "tool_use", id: "toolu_c", name: "one", input: { x: 2 } }
          ]
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_a", content: "{\"y\":1}", is_error: false },
            {
              type: "tool_result",
              tool_use_id: "toolu_b",
              content: "{\"error\":{\"type\":\"Timeout\",\"message\":\"two timed out\"}}",
              is_error: true
            },
            { type: "tool_result", tool_use_id: "toolu_c", content: "{\"skipped\":\"steered\"}", is_error: true }
          ]
        }
      ])
    }))

  it.scoped("an overloaded answer (529) is retried; a 401 is not and names no key", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const overloaded = json(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } })
      const provider = yield* fakeProvider([overloaded, sse(anthropicEvents({ text: ["fine now"] }))])
      const model = yield* buildModel(anthropicModel(provider))
      const fiber = yield* model.stream({ messages: [Message.user("hi")], tools: [], serverTools: [] }).pipe(
        Stream.runCollect,
        Effect.provide(logs.layer),
        Effect.fork
      )
      assert.deepStrictEqual(yield* pendingSleep, [1000])
      yield* TestClock.adjust("1 second")
      const events = Chunk.toArray(yield* Fiber.join(fiber))
      assert.deepStrictEqual(events[0], Model.textDelta("fine now"))
      assert.strictEqual(provider.requests.length, 2)
      assert.isTrue(logs.lines.some((line) => line.includes("overloaded")))

      const denied = yield* fakeProvider([
        json(401, { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } })
      ])
      const deniedModel = yield* buildModel(anthropicModel(denied))
      const error = yield* deniedModel.stream({ messages: [Message.user("hi")], tools: [], serverTools: [] }).pipe(
        Stream.runDrain,
        Effect.provide(logs.layer),
        Effect.flip
      )
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(
        error.description,
        "anthropic answered HTTP 401 (unauthorized: check the API key): invalid x-api-key <redacted>"
      )
      assert.strictEqual(denied.requests.length, 1)
      for (const text of [error.message, inspect(error, { depth: 20 }), JSON.stringify(error), ...logs.lines]) {
        assert.notInclude(text, KEY)
      }
    }))

  it.scoped("an overloaded_error inside the stream before any output is retried", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse([
          anthropicEvents({})[0]!,
          { event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }
        ]),
        sse(anthropicEvents({ text: ["second try"], usage: { input: 5, output: 2 } }))
      ])
      const model = yield* buildModel(anthropicModel(provider))
      const fiber = yield* model.stream({ messages: [Message.user("hi")], tools: [], serverTools: [] }).pipe(
        Stream.runCollect,
        Effect.fork
      )
      assert.deepStrictEqual(yield* pendingSleep, [1000])
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(Chunk.toArray(yield* Fiber.join(fiber)), [
        Model.textDelta("second try"),
        Model.finish("stop", new Message.Usage({ inputTokens: 5, outputTokens: 2 }))
      ])
    }))

  it.scoped("a connection cut mid-stream: the error @effect/ai keeps shows the key header redacted", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const { spans, tracer } = captureSpans()
      // a 200 and the first events, then the socket is destroyed: the body fails after the response was accepted
      const provider = yield* fakeProvider([(res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        for (const { data, event } of anthropicEvents({ text: ["partial"] }).slice(0, 3)) {
          res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
        }
        setImmediate(() => res.destroy())
      }])
      const model = yield* buildModel(anthropicModel(provider))
      const seen: Array<Model.ModelEvent> = []
      // the application's own redacted names (here `anthropic-version`) hold for the provider's request too
      const error = yield* model.stream({ messages: [Message.user("hi")], tools: [], serverTools: [] }).pipe(
        Stream.runForEach((event) => Effect.sync(() => void seen.push(event))),
        Effect.flip,
        Effect.provide(logs.layer),
        Effect.withTracer(tracer),
        Effect.locallyWith(Headers.currentRedactedNames, Arr.append("anthropic-version"))
      )
      assert.deepStrictEqual(seen, [Model.textDelta("partial")])
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(provider.requests[0]!.headers["x-api-key"], KEY)
      const http = spans.find((span) => span.name === "http.client POST")!
      assert.include(http.text(), "'http.request.header.x-api-key' => '<redacted>'")
      // what @effect/ai's span ended with: its HttpResponseError and the request it copied
      const failure = inspect(spans.find((span) => span.name === "LanguageModel.streamText")?.failure(), { depth: 20 })
      assert.include(failure, "HttpResponseError")
      assert.include(failure, "'x-api-key': '<redacted>'")
      assert.include(failure, "'anthropic-version': '<redacted>'")
      const rendered = [
        failure,
        error.message,
        inspect(error, { depth: 20 }),
        ...logs.lines,
        ...spans.map((s) => s.text())
      ]
      for (const text of rendered) assert.notInclude(text, KEY)
    }))
})
