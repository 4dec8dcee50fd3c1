/**
 * AiModel on ChatCompletionsLanguageModel against a fake Chat Completions server on 127.0.0.1, in its wire format:
 * the 3 line's tests, every assertion kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { inspect } from "node:util"
import {
  buildModel,
  captureLogs,
  chatChunks,
  chatModel,
  chatSse,
  eventually,
  fakeProvider,
  json,
  KEY,
  pendingSleep,
  request,
  tools
} from "./utils.js"

const collect = (stream: Stream.Stream<Model.ModelEvent, Model.ModelError>) => Stream.runCollect(stream)

describe("openai-chat (Chat Completions)", () => {
  it.effect("streamed text and usage (with cached tokens); the request is a streamed chat completion", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        chatSse(chatChunks({ text: ["Hel", "lo ", "world"], usage: { input: 12, output: 3, cached: 8 } }))
      ])
      const model = yield* buildModel(chatModel(provider))
      const events = yield* collect(model.stream(request([Message.system("Be brief."), Message.user("Hi")])))
      assert.deepStrictEqual(events, [
        Model.textDelta("Hel"),
        Model.textDelta("lo "),
        Model.textDelta("world"),
        Model.finish("stop", new Message.Usage({ inputTokens: 12, outputTokens: 3, cachedInputTokens: 8 }))
      ])
      const seen = provider.requests[0]!
      assert.strictEqual(seen.url, "/v1/chat/completions")
      assert.strictEqual(seen.headers.authorization, `Bearer ${KEY}`)
      assert.deepStrictEqual(seen.body, {
        model: "local-model",
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }],
        stream: true,
        stream_options: { include_usage: true }
      })
    }).pipe(Effect.scoped))

  it.effect("tool-call deltas split mid-JSON, two calls interleaved, become two calls; tools go out as functions", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        chatSse(chatChunks({
          text: ["Reading."],
          interleave: true,
          calls: [
            { id: "call_a", name: "fs__read_file", pieces: ["{\"pa", "th\": \"/tm", "p/ü\"}"] },
            { id: "call_b", name: "math__add", pieces: ["{\"a\"", ": 4", "0}"] }
          ],
          usage: { input: 40, output: 22 }
        }))
      ])
      const model = yield* buildModel(chatModel(provider))
      const events = yield* collect(model.stream(request([Message.user("go")], tools)))
      assert.deepStrictEqual(events, [
        Model.textDelta("Reading."),
        Model.toolCall(new Message.ToolCall({ id: "call_a", name: "fs__read_file", arguments: { path: "/tmp/ü" } })),
        Model.toolCall(new Message.ToolCall({ id: "call_b", name: "math__add", arguments: { a: 40 } })),
        Model.finish("tool_calls", new Message.Usage({ inputTokens: 40, outputTokens: 22 }))
      ])
      const body = provider.requests[0]!.body
      assert.deepStrictEqual(
        body.tools,
        tools.map((tool) => ({
          type: "function",
          function: { name: tool.name, description: tool.description, parameters: tool.parameters }
        }))
      )
      assert.strictEqual(body.tool_choice, "auto")
    }).pipe(Effect.scoped))

  it.effect("assistant tool calls and tool results go back as chat messages", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([chatSse(chatChunks({ text: ["done"] }))])
      const model = yield* buildModel(chatModel(provider))
      yield* collect(model.stream(request([
        Message.user("read it"),
        Message.assistant("On it.", [
          new Message.ToolCall({ id: "c1", name: "fs__read_file", arguments: { path: "/a" } })
        ]),
        new Message.ToolMessage({ toolCallId: "c1", name: "fs__read_file", status: "ok", content: { text: "hi" } })
      ], tools)))
      assert.deepStrictEqual(provider.requests[0]!.body.messages, [
        { role: "user", content: "read it" },
        {
          role: "assistant",
          content: "On it.",
          tool_calls: [{
            id: "c1",
            type: "function",
            function: { name: "fs__read_file", arguments: "{\"path\":\"/a\"}" }
          }]
        },
        { role: "tool", tool_call_id: "c1", content: "{\"text\":\"hi\"}" }
      ])
    }).pipe(Effect.scoped))

  it.effect("a call with broken JSON arrives marked with the position, after the calls that parse", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        chatSse(chatChunks({
          calls: [
            { id: "call_ok", name: "math__add", pieces: ["{\"a\": 1}"] },
            { id: "call_bad", name: "fs__read_file", pieces: ["{\"path\": ", "/tmp/x}"] }
          ]
        }))
      ])
      const model = yield* buildModel(chatModel(provider))
      const events = yield* collect(model.stream(request([Message.user("go")], tools)))
      assert.deepStrictEqual(events, [
        Model.toolCall(new Message.ToolCall({ id: "call_ok", name: "math__add", arguments: { a: 1 } })),
        Model.toolCall(
          new Message.ToolCall({
            id: "call_bad",
            name: "fs__read_file",
            arguments: "{\"path\": /tmp/x}",
            invalidArguments: "invalid JSON at position 9: Unexpected token '/'"
          })
        )
      ])
      assert.strictEqual(provider.requests.length, 1)
    }).pipe(Effect.scoped))

  it.effect("a 401 fails at once, naming no key", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const provider = yield* fakeProvider([
        json(401, { error: { message: `Invalid key ${KEY}`, type: "invalid_request_error", code: "invalid_api_key" } })
      ])
      const model = yield* buildModel(chatModel(provider))
      const error = yield* Stream.runDrain(model.stream(request([Message.user("Hi")]))).pipe(
        Effect.flip,
        Effect.provide(logs.layer)
      )
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(
        error.description,
        "openai-chat answered HTTP 401 (unauthorized: check the API key): Invalid key <redacted>"
      )
      assert.strictEqual(provider.requests.length, 1)
      for (const text of [inspect(error, { depth: 20 }), ...logs.lines]) assert.notInclude(text, KEY)
    }).pipe(Effect.scoped))

  it.effect("a 429 is retried after Retry-After, then the answer streams", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        json(429, { error: { message: "slow down", type: "rate_limit" } }, { "retry-after": "2" }),
        chatSse(chatChunks({ text: ["after the wait"] }))
      ])
      const model = yield* buildModel(chatModel(provider))
      const fiber = yield* model.stream(request([Message.user("Hi")])).pipe(Stream.runCollect, Effect.forkChild)
      assert.deepStrictEqual(yield* pendingSleep, [2000])
      assert.strictEqual(provider.requests.length, 1)
      yield* TestClock.adjust("2 seconds")
      const events = yield* Fiber.join(fiber)
      assert.deepStrictEqual(events[0], Model.textDelta("after the wait"))
      assert.strictEqual(provider.requests.length, 2)
    }).pipe(Effect.scoped))

  it.effect("a 500 is retried, then fails with the server's reason", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([json(500, { error: { message: "model crashed", type: "server_error" } })])
      const model = yield* buildModel(chatModel(provider, { retry: { times: 1, delay: "1 second" } }))
      const fiber = yield* model.stream(request([Message.user("Hi")])).pipe(
        Stream.runDrain,
        Effect.flip,
        Effect.forkChild
      )
      assert.deepStrictEqual(yield* pendingSleep, [1000])
      yield* TestClock.adjust("1 second")
      yield* eventually(() => provider.requests.length === 2, "the retry")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(error.description, "openai-chat answered HTTP 500 (provider error): model crashed")
    }).pipe(Effect.scoped))

  it.effect("retries against an unreachable server log one info line each, with the delay; nothing else", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const provider = yield* fakeProvider([json(200, {})])
      const model = yield* buildModel(chatModel({ ...provider, url: "http://127.0.0.1:1" }))
      const fiber = yield* model.stream(request([Message.user("Hi")])).pipe(
        Stream.runDrain,
        Effect.flip,
        Effect.provide(logs.layer),
        Effect.forkChild
      )
      for (const delay of ["1 second", "2 seconds", "4 seconds"] as const) {
        yield* pendingSleep
        yield* TestClock.adjust(delay)
      }
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error.reason, "Unreachable")
      assert.match(
        error.description,
        /^could not reach openai-chat at http:\/\/127\.0\.0\.1:1\/v1\/chat\/completions \(Transport/
      )
      const above = logs.lines.filter((line) => !line.startsWith("DEBUG") && !line.startsWith("TRACE"))
      assert.deepStrictEqual(above, [
        "INFO model unreachable, retrying in 1 s (1/3)",
        "INFO model unreachable, retrying in 2 s (2/3)",
        "INFO model unreachable, retrying in 4 s (3/3)"
      ])
    }).pipe(Effect.scoped))
})
