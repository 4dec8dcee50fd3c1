import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { inspect } from "node:util"
import {
  buildModel,
  captureLogs,
  captureSpans,
  eventually,
  fakeProvider,
  gate,
  json,
  KEY,
  openAiEvents,
  openAiLayer,
  openAiModel,
  pendingSleep,
  sse
} from "./utils.js"

const request = (
  messages: ReadonlyArray<Message.Message> = [Message.user("Hi")],
  tools: Model.ModelRequest["tools"] = []
): Model.ModelRequest => ({ messages, tools, serverTools: [] })

// An MCP-style schema with the features strict-mode rewriting or a Schema round trip would change.
const mcpSchema = {
  type: "object",
  properties: {
    path: { type: "string", description: "File to read" },
    range: { $ref: "#/$defs/Range" },
    encoding: { anyOf: [{ type: "string", enum: ["utf8", "base64"] }, { type: "null" }], default: null }
  },
  required: ["path"],
  additionalProperties: false,
  $defs: { Range: { type: "object", properties: { start: { type: "integer", minimum: 0 } } } }
}

describe("AiModel on @effect/ai-openai (Responses API)", () => {
  it.scoped("streams text deltas as they arrive and reports usage at the finish", () =>
    Effect.gen(function*() {
      const seenFirstDelta = gate<"client" | "timeout">()
      // a bound on a client that would wait for the whole answer, far above a busy machine's delays
      setTimeout(() => seenFirstDelta.open("timeout"), 60_000).unref()
      const provider = yield* fakeProvider([
        sse(openAiEvents({ text: ["Hel", "lo ", "world"], usage: { input: 12, output: 3, cached: 8 } }), {
          // the rest of the answer waits until the client has seen the first delta
          hold: { before: 4, until: seenFirstDelta.promise }
        })
      ])
      const model = yield* buildModel(openAiModel(provider))
      const events = yield* model.stream(request()).pipe(
        Stream.tap((event) => Effect.sync(() => event._tag === "TextDelta" && seenFirstDelta.open("client"))),
        Stream.runCollect,
        Effect.map(Chunk.toArray)
      )
      assert.strictEqual(yield* Effect.promise(() => seenFirstDelta.promise), "client")
      assert.deepStrictEqual(events, [
        Model.textDelta("Hel"),
        Model.textDelta("lo "),
        Model.textDelta("world"),
        Model.finish("stop", new Message.Usage({ inputTokens: 12, outputTokens: 3, cachedInputTokens: 8 }))
      ])
      assert.strictEqual(provider.requests[0]!.url, "/v1/responses")
    }))
})

describe("AiModel on @effect/ai-openai: requests", () => {
  it.scoped("tools reach the provider with exactly the agent's JSON Schema (strict: false), streamed", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["ok"] }))])
      const model = yield* buildModel(openAiModel(provider))
      yield* Stream.runDrain(model.stream(request([Message.user("read it")], [
        { name: "fs__read_file", description: "Reads a file", parameters: mcpSchema },
        { name: "clock__now", description: "", parameters: { type: "object" } }
      ])))
      const body = provider.requests[0]!.body
      assert.strictEqual(body.model, "gpt-4.1-mini")
      assert.strictEqual(body.stream, true)
      assert.deepStrictEqual(body.tools, [
        { type: "function", name: "fs__read_file", description: "Reads a file", parameters: mcpSchema, strict: false },
        { type: "function", name: "clock__now", description: "", parameters: { type: "object" }, strict: false }
      ])
      assert.strictEqual(body.tool_choice, "auto")
      assert.strictEqual(provider.requests[0]!.headers.authorization, `Bearer ${KEY}`)
    }))

  it.scoped("maps system, user, assistant (text and tool calls) and tool messages (ok, failed, skipped)", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["done"] }))])
      const model = yield* buildModel(openAiModel(provider))
      const call1 = new Message.ToolCall({ id: "call_1", name: "add", arguments: { a: 1, b: 2 } })
      const call2 = new Message.ToolCall({ id: "call_2", name: "boom", arguments: {} })
      const call3 = new Message.ToolCall({ id: "call_3", name: "add", arguments: { a: 3, b: 4 } })
      yield* Stream.runDrain(model.stream(request([
        Message.system("Be brief."),
        Message.user("Add things"),
        Message.assistant("Let me add.", [call1, call2, call3]),
        new Message.ToolMessage({ toolCallId: "call_1", name: "add", status: "ok", content: { sum: 3 } }),
        new Message.ToolMessage({
          toolCallId: "call_2",
          name: "boom",
          status: "TOOL_FAILED",
          content: { error: { type: "ToolFailed", message: "it broke" } }
        }),
        new Message.ToolMessage({
          toolCallId: "call_3",
          name: "add",
          status: "skipped",
          content: { skipped: "a new user message arrived before this call started" }
        }),
        Message.assistant("", [new Message.ToolCall({ id: "call_4", name: "add", arguments: { a: 0, b: 0 } })]),
        new Message.ToolMessage({ toolCallId: "call_4", name: "add", status: "ok", content: "plain text" }),
        Message.user("Thanks")
      ])))
      assert.deepStrictEqual(provider.requests[0]!.body.input, [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "input_text", text: "Add things" }] },
        { role: "assistant", content: [{ type: "output_text", text: "Let me add." }] },
        { type: "function_call", call_id: "call_1", name: "add", arguments: "{\"a\":1,\"b\":2}" },
        { type: "function_call", call_id: "call_2", name: "boom", arguments: "{}" },
        { type: "function_call", call_id: "call_3", name: "add", arguments: "{\"a\":3,\"b\":4}" },
        { type: "function_call_output", call_id: "call_1", output: "{\"sum\":3}" },
        {
          type: "function_call_output",
          call_id: "call_2",
          output: "{\"error\":{\"type\":\"ToolFailed\",\"message\":\"it broke\"}}"
        },
        {
          type: "function_call_output",
          call_id: "call_3",
          output: "{\"skipped\":\"a new user message arrived before this call started\"}"
        },
        // an assistant turn without text sends no empty text item
        { type: "function_call", call_id: "call_4", name: "add", arguments: "{\"a\":0,\"b\":0}" },
        { type: "function_call_output", call_id: "call_4", output: "\"plain text\"" },
        { role: "user", content: [{ type: "input_text", text: "Thanks" }] }
      ])
      // no tools in the request: none are sent
      assert.isUndefined(provider.requests[0]!.body.tools)
    }))

  it.scoped("assembles streamed tool-call deltas into calls with parsed argument objects", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(openAiEvents({
          text: ["Reading both."],
          calls: [
            {
              id: "call_a",
              name: "fs__read_file",
              pieces: ["{\"pa", "th\": \"/tmp/a\", \"range\"", ": {\"start\": 2}}"]
            },
            { id: "call_b", name: "fs__read_file", pieces: ["{\"path\":\"/tmp/ü\"}"] }
          ],
          usage: { input: 40, output: 22 }
        }))
      ])
      const model = yield* buildModel(openAiModel(provider))
      const events = yield* model.stream(request([Message.user("read")], [
        { name: "fs__read_file", description: "Reads a file", parameters: mcpSchema }
      ])).pipe(Stream.runCollect, Effect.map(Chunk.toArray))
      assert.deepStrictEqual(events, [
        Model.textDelta("Reading both."),
        Model.toolCall(
          new Message.ToolCall({
            id: "call_a",
            name: "fs__read_file",
            arguments: { path: "/tmp/a", range: { start: 2 } }
          })
        ),
        Model.toolCall(new Message.ToolCall({ id: "call_b", name: "fs__read_file", arguments: { path: "/tmp/ü" } })),
        Model.finish("tool_calls", new Message.Usage({ inputTokens: 40, outputTokens: 22, cachedInputTokens: 0 }))
      ])
    }))

  it.scoped("interrupting the stream closes the provider's HTTP request", () =>
    Effect.gen(function*() {
      // the answer stops after its first delta and the connection stays open
      const provider = yield* fakeProvider([
        sse(openAiEvents({ text: ["first", "never"] }).slice(0, 3), { open: true })
      ])
      const model = yield* buildModel(openAiModel(provider))
      const events = yield* model.stream(request()).pipe(Stream.take(1), Stream.runCollect, Effect.map(Chunk.toArray))
      assert.deepStrictEqual(events, [Model.textDelta("first")])
      yield* eventually(() => provider.aborted.length === 1, "the provider to see the request closed")
      assert.deepStrictEqual(provider.aborted, [0])
    }))
})

describe("AiModel on @effect/ai-openai: failures", () => {
  const keyEcho = {
    error: {
      message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com.`,
      type: "invalid_request_error",
      code: "invalid_api_key"
    }
  }

  it.scoped("a 401 fails at once with a short reason that never contains the key (nor do logs or the error)", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const { spans, tracer } = captureSpans()
      const provider = yield* fakeProvider([json(401, keyEcho)])
      const model = yield* buildModel(openAiModel(provider))
      const error = yield* Stream.runDrain(model.stream(request())).pipe(
        Effect.flip,
        Effect.provide(logs.layer),
        Effect.withTracer(tracer)
      )
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(
        error.description,
        "openai answered HTTP 401 (unauthorized: check the API key): Incorrect API key provided: <redacted>. " +
          "You can find your API key at https://platform.openai.com."
      )
      assert.strictEqual(provider.requests.length, 1)
      // the key did reach the provider, and nowhere else
      assert.strictEqual(provider.requests[0]!.headers.authorization, `Bearer ${KEY}`)
      const rendered = [
        error.message,
        String(error),
        inspect(error, { depth: 20 }),
        JSON.stringify(error),
        ...logs.lines,
        ...spans.map((span) => span.text()),
        // @effect/ai keeps the request and the body in its error: the key was cut out of both
        inspect(spans.find((span) => span.name === "LanguageModel.streamText")?.failure(), { depth: 20 })
      ]
      assert.isAbove(logs.lines.length, 0)
      assert.includeMembers(
        spans.map((span) => span.name),
        ["AiModel.stream", "LanguageModel.streamText", "http.client POST"]
      )
      for (const text of rendered) {
        assert.notInclude(text, KEY)
        assert.notInclude(text, "0123456789abcdef")
      }
    }))

  it.scoped("a 429 is retried after Retry-After, then the answer streams", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        json(429, { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }, {
          "retry-after": "2"
        }),
        sse(openAiEvents({ text: ["after the wait"] }))
      ])
      const model = yield* buildModel(openAiModel(provider))
      const fiber = yield* model.stream(request()).pipe(Stream.runCollect, Effect.fork)
      // the backoff alone would retry after 1 second; the provider asked for 2
      assert.deepStrictEqual(yield* pendingSleep, [2000])
      assert.strictEqual(provider.requests.length, 1)
      yield* TestClock.adjust("1999 millis")
      assert.deepStrictEqual(Array.from(yield* TestClock.sleeps()), [2000])
      yield* TestClock.adjust("1 millis")
      const events = Chunk.toArray(yield* Fiber.join(fiber))
      assert.deepStrictEqual(events.slice(0, 1), [Model.textDelta("after the wait")])
      assert.strictEqual(provider.requests.length, 2)
    }))

  it.scoped("a 500 is retried with doubling delays, then fails with the provider's reason", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        json(500, { error: { message: "The server had an error", type: "server_error" } })
      ])
      const model = yield* buildModel(openAiModel(provider, { retry: { times: 2, delay: "1 second" } }))
      const fiber = yield* model.stream(request()).pipe(Stream.runDrain, Effect.either, Effect.fork)
      assert.deepStrictEqual(yield* pendingSleep, [1000])
      assert.strictEqual(provider.requests.length, 1)
      yield* TestClock.adjust("1 second")
      yield* eventually(() => provider.requests.length === 2, "the first retry")
      // the second delay doubles: due 2 seconds after the first retry
      assert.deepStrictEqual(yield* pendingSleep, [3000])
      yield* TestClock.adjust("2 seconds")
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(provider.requests.length, 3)
      assert.isTrue(Either.isLeft(result))
      const error = (result as Either.Left<Model.ModelError, void>).left
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(error.description, "openai answered HTTP 500 (provider error): The server had an error")
      assert.strictEqual(
        error.message,
        "model request failed: openai answered HTTP 500 (provider error): The server had an error"
      )
    }))

  it.scoped("a failure after text has streamed is not retried (no repeated text)", () =>
    Effect.gen(function*() {
      const events = openAiEvents({ text: ["partial"] }).slice(0, 3)
      const provider = yield* fakeProvider([
        sse([...events, {
          event: "error",
          data: { type: "error", sequence_number: 3, code: "server_error", message: "stream broke", param: null }
        }])
      ])
      const model = yield* buildModel(openAiModel(provider))
      const seen: Array<Model.ModelEvent> = []
      const error = yield* model.stream(request()).pipe(
        Stream.runForEach((event) => Effect.sync(() => void seen.push(event))),
        Effect.flip
      )
      assert.deepStrictEqual(seen, [Model.textDelta("partial")])
      assert.strictEqual(error.reason, "ProviderError")
      assert.strictEqual(error.description, "openai reported an error (server_error): stream broke")
      assert.strictEqual(provider.requests.length, 1)
    }))

  it.scoped("an unreachable provider fails with a readable reason; its spans carry no key", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([json(200, {})])
      const { spans, tracer } = captureSpans()
      const model = yield* buildModel(openAiModel({ ...provider, url: "http://127.0.0.1:1" }, { retry: false }))
      const error = yield* Stream.runDrain(model.stream(request())).pipe(Effect.flip, Effect.withTracer(tracer))
      assert.strictEqual(error.reason, "Unreachable")
      assert.match(
        error.description,
        /^could not reach openai at http:\/\/127\.0\.0\.1:1\/v1\/responses \(Transport: .*ECONNREFUSED/
      )
      // the transport error @effect/ai keeps in its span names the request, not the key
      const streamSpan = spans.find((span) => span.name === "LanguageModel.streamText")!
      assert.include(streamSpan.text(), "Transport")
      assert.notInclude(inspect(streamSpan.failure(), { depth: 20 }), KEY)
      for (const span of spans) assert.notInclude(span.text(), KEY)
    }))

  it.scoped("credential headers the application's client adds (a proxy's) are redacted in what errors keep", () =>
    Effect.gen(function*() {
      const { spans, tracer } = captureSpans()
      const proxySecret = "Basic cHJveHk6UFJPWFlTRUNSRVQ="
      const client = Layer.effect(
        HttpClient.HttpClient,
        Effect.map(
          HttpClient.HttpClient,
          HttpClient.mapRequest(HttpClientRequest.setHeaders({
            "Proxy-Authorization": proxySecret,
            "OpenAI-Project": "proj_PROJECTSECRET"
          }))
        )
      ).pipe(Layer.provide(NodeHttpClient.layerUndici))
      const model = yield* buildModel(
        openAiLayer("http://127.0.0.1:1/v1", { retry: false }).pipe(Layer.provide(client))
      )
      // nothing listens on port 1: the transport error @effect/ai keeps carries the request
      yield* Stream.runDrain(model.stream(request())).pipe(Effect.flip, Effect.withTracer(tracer))
      const failure = inspect(spans.find((span) => span.name === "LanguageModel.streamText")?.failure(), { depth: 20 })
      assert.include(failure, "'proxy-authorization': '<redacted>'")
      assert.include(failure, "'openai-project': '<redacted>'")
      assert.include(failure, "authorization: '<redacted>'")
      for (const text of [failure, ...spans.map((span) => span.text())]) {
        for (const secret of [KEY, proxySecret, "PROJECTSECRET"]) assert.notInclude(text, secret)
      }
    }))

  it.scoped("a tool call whose arguments are not JSON, not an object or name no offered tool reaches the agent marked", () =>
    Effect.gen(function*() {
      const tools = [{ name: "fs__read_file", description: "Reads a file", parameters: mcpSchema }]
      const provider = yield* fakeProvider([
        sse(openAiEvents({ calls: [{ id: "call_1", name: "fs__read_file", pieces: ["[\"/tmp/a\"]"] }] })),
        sse(
          openAiEvents({
            text: ["Let me read it."],
            calls: [{ id: "call_2", name: "fs__read_file", pieces: ["{\"path\": ", "\"/tm\""] }]
          })
        ),
        sse(openAiEvents({ calls: [{ id: "call_3", name: "fs__raed_file", pieces: ["{\"path\": \"/tmp/a\"}"] }] }))
      ])
      const model = yield* buildModel(openAiModel(provider))
      const collect = model.stream(request([Message.user("read")], tools)).pipe(
        Stream.runCollect,
        Effect.map((events) => Chunk.toArray(events).filter((event) => event._tag !== "Finish"))
      )
      assert.deepStrictEqual(yield* collect, [
        Model.toolCall(
          new Message.ToolCall({
            id: "call_1",
            name: "fs__read_file",
            arguments: ["/tmp/a"],
            invalidArguments: "the arguments are not a JSON object"
          })
        )
      ])
      assert.deepStrictEqual(yield* collect, [
        Model.textDelta("Let me read it."),
        Model.toolCall(
          new Message.ToolCall({
            id: "call_2",
            name: "fs__read_file",
            arguments: "{\"path\": \"/tm\"",
            invalidArguments: "invalid JSON at position 14: Expected ',' or '}' after property value"
          })
        )
      ])
      assert.deepStrictEqual(yield* collect, [
        Model.toolCall(new Message.ToolCall({ id: "call_3", name: "fs__raed_file", arguments: { path: "/tmp/a" } }))
      ])
      // nothing was retried: each answer was read once
      assert.strictEqual(provider.requests.length, 3)
    }))
})
