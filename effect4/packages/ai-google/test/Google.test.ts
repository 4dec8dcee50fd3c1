/**
 * AiModel on GoogleLanguageModel against a fake Gemini API server on 127.0.0.1, in its wire format: the 3 line's
 * tests, every assertion kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { inspect } from "node:util"
import {
  buildModel,
  captureLogs,
  captureSpans,
  eventually,
  fakeProvider,
  geminiChunks,
  geminiModel,
  json,
  KEY,
  pendingSleep,
  request,
  sse,
  tools
} from "./utils.js"

const gemini = (chunks: ReadonlyArray<unknown>) => sse(chunks.map((data) => ({ data })))

describe("google (Gemini API)", () => {
  it.effect("streamed text and usage; the request names the model, the key goes in x-goog-api-key", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        gemini(geminiChunks({ text: ["Hel", "lo"], usage: { input: 9, output: 2, cached: 4 } }))
      ])
      const model = yield* buildModel(geminiModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.system("Be brief."), Message.user("Hi")])))
      assert.deepStrictEqual(events, [
        Model.textDelta("Hel"),
        Model.textDelta("lo"),
        Model.finish("stop", new Message.Usage({ inputTokens: 9, outputTokens: 2, cachedInputTokens: 4 }))
      ])
      const seen = provider.requests[0]!
      assert.strictEqual(seen.url, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
      assert.strictEqual(seen.headers["x-goog-api-key"], KEY)
      assert.deepStrictEqual(seen.body, {
        contents: [{ role: "user", parts: [{ text: "Hi" }] }],
        systemInstruction: { parts: [{ text: "Be brief." }] }
      })
    }).pipe(Effect.scoped))

  it.effect("parallel function calls become calls; tools go out as function declarations; results go back", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        gemini(geminiChunks({
          calls: [
            { id: "", name: "fs__read_file", pieces: ["{\"path\": \"/tmp/a\"}"] },
            { id: "", name: "math__add", pieces: ["{\"a\": 40}"] }
          ]
        })),
        gemini(geminiChunks({ text: ["done"] }))
      ])
      const model = yield* buildModel(geminiModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.user("go")], tools)))
      assert.deepStrictEqual(events.slice(0, 2), [
        Model.toolCall(new Message.ToolCall({ id: "call_0", name: "fs__read_file", arguments: { path: "/tmp/a" } })),
        Model.toolCall(new Message.ToolCall({ id: "call_1", name: "math__add", arguments: { a: 40 } }))
      ])
      assert.strictEqual((events[2] as { reason: string }).reason, "tool_calls")
      assert.deepStrictEqual(provider.requests[0]!.body.tools, [{
        functionDeclarations: tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.parameters
        }))
      }])
      yield* Stream.runDrain(model.stream(request([
        Message.user("go"),
        Message.assistant("", [new Message.ToolCall({ id: "call_0", name: "math__add", arguments: { a: 40 } })]),
        new Message.ToolMessage({ toolCallId: "call_0", name: "math__add", status: "ok", content: 40 })
      ], tools)))
      assert.deepStrictEqual(provider.requests[1]!.body.contents, [
        { role: "user", parts: [{ text: "go" }] },
        { role: "model", parts: [{ functionCall: { id: "call_0", name: "math__add", args: { a: 40 } } }] },
        { role: "user", parts: [{ functionResponse: { id: "call_0", name: "math__add", response: { result: 40 } } }] }
      ])
    }).pipe(Effect.scoped))

  it.effect("a 401 fails at once; the key reaches no error, log or span", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const { spans, tracer } = captureSpans()
      const provider = yield* fakeProvider([
        json(401, { error: { code: 401, message: `API key not valid: ${KEY}`, status: "UNAUTHENTICATED" } })
      ])
      const model = yield* buildModel(geminiModel(provider))
      const error = yield* Stream.runDrain(model.stream(request())).pipe(
        Effect.flip,
        Effect.provide(logs.layer),
        Effect.withTracer(tracer)
      )
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(
        error.description,
        "google answered HTTP 401 (unauthorized: check the API key): API key not valid: <redacted>"
      )
      assert.strictEqual(provider.requests.length, 1)
      for (const text of [inspect(error, { depth: 20 }), ...logs.lines, ...spans.map((span) => span.text())]) {
        assert.notInclude(text, KEY)
      }
    }).pipe(Effect.scoped))

  it.effect("a 429 is retried, then the answer streams; a 500 is retried, then fails", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        json(429, { error: { code: 429, message: "Resource exhausted", status: "RESOURCE_EXHAUSTED" } }),
        gemini(geminiChunks({ text: ["after the wait"] })),
        json(500, { error: { code: 500, message: "Internal error", status: "INTERNAL" } })
      ])
      const model = yield* buildModel(geminiModel(provider, { retry: { times: 1, delay: "1 second" } }))
      const first = yield* model.stream(request()).pipe(Stream.runCollect, Effect.forkChild)
      yield* pendingSleep
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual((yield* Fiber.join(first))[0], Model.textDelta("after the wait"))
      const second = yield* model.stream(request()).pipe(Stream.runDrain, Effect.result, Effect.forkChild)
      yield* pendingSleep
      yield* TestClock.adjust("1 second")
      yield* eventually(() => provider.requests.length === 4, "the retry")
      const result = yield* Fiber.join(second)
      assert.isTrue(Result.isFailure(result))
      assert.strictEqual((result as Result.Failure<void, Model.ModelError>).failure.reason, "Http")
      assert.strictEqual(
        (result as Result.Failure<void, Model.ModelError>).failure.description,
        "google answered HTTP 500 (provider error): Internal error"
      )
    }).pipe(Effect.scoped))
})
