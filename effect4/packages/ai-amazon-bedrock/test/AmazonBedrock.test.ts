/**
 * AiModel on AmazonBedrockLanguageModel against a fake Bedrock runtime on 127.0.0.1 speaking ConverseStream's binary
 * event stream: the 3 line's tests, every assertion kept.
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
  bedrockEvents,
  bedrockModel,
  bedrockStream,
  buildModel,
  captureLogs,
  eventually,
  fakeProvider,
  json,
  KEY,
  pendingSleep,
  request,
  tools
} from "./utils.js"

const modelPath = "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream"

describe("bedrock (Converse API)", () => {
  it.effect("streamed text (messages split across reads) and usage; the key is a bearer token", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        bedrockStream(bedrockEvents({ text: ["Hel", "lo"], usage: { input: 11, output: 2, cached: 6 } }), { split: 7 })
      ])
      const model = yield* buildModel(bedrockModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.system("Be brief."), Message.user("Hi")])))
      assert.deepStrictEqual(events, [
        Model.textDelta("Hel"),
        Model.textDelta("lo"),
        Model.finish("stop", new Message.Usage({ inputTokens: 11, outputTokens: 2, cachedInputTokens: 6 }))
      ])
      const seen = provider.requests[0]!
      assert.strictEqual(seen.url, modelPath)
      assert.strictEqual(seen.headers.authorization, `Bearer ${KEY}`)
      assert.deepStrictEqual(seen.body, {
        messages: [{ role: "user", content: [{ text: "Hi" }] }],
        system: [{ text: "Be brief." }]
      })
    }).pipe(Effect.scoped))

  it.effect("two toolUse blocks with input split mid-JSON become calls; results go back as toolResult", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        bedrockStream(
          bedrockEvents({
            calls: [
              { id: "tooluse_a", name: "fs__read_file", pieces: ["{\"pa", "th\": \"/tmp/a\"}"] },
              { id: "tooluse_b", name: "math__add", pieces: ["{\"a\"", ": 40}"] }
            ]
          }),
          { split: 50 }
        ),
        bedrockStream(bedrockEvents({ text: ["done"] }))
      ])
      const model = yield* buildModel(bedrockModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.user("go")], tools)))
      assert.deepStrictEqual(events.slice(0, 2), [
        Model.toolCall(new Message.ToolCall({ id: "tooluse_a", name: "fs__read_file", arguments: { path: "/tmp/a" } })),
        Model.toolCall(new Message.ToolCall({ id: "tooluse_b", name: "math__add", arguments: { a: 40 } }))
      ])
      assert.strictEqual((events[2] as { reason: string }).reason, "tool_calls")
      assert.deepStrictEqual(
        provider.requests[0]!.body.toolConfig.tools,
        tools.map((tool) => ({
          toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.parameters } }
        }))
      )
      yield* Stream.runDrain(model.stream(request([
        Message.user("go"),
        Message.assistant("", [new Message.ToolCall({ id: "tooluse_b", name: "math__add", arguments: { a: 40 } })]),
        new Message.ToolMessage({ toolCallId: "tooluse_b", name: "math__add", status: "ok", content: 40 })
      ], tools)))
      assert.deepStrictEqual(provider.requests[1]!.body.messages.slice(1), [
        { role: "assistant", content: [{ toolUse: { toolUseId: "tooluse_b", name: "math__add", input: { a: 40 } } }] },
        {
          role: "user",
          content: [{ toolResult: { toolUseId: "tooluse_b", content: [{ json: { result: 40 } }], status: "success" } }]
        }
      ])
    }).pipe(Effect.scoped))

  it.effect("a 403 fails at once naming no key; a 429 is retried; a 500 is retried, then fails", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const provider = yield* fakeProvider([
        json(403, { message: `The security token included in the request is invalid: ${KEY}` }),
        json(429, { message: "Too many requests, please wait before trying again." }),
        bedrockStream(bedrockEvents({ text: ["after the wait"] })),
        json(500, { message: "Internal server error" })
      ])
      const model = yield* buildModel(bedrockModel(provider, { retry: { times: 1, delay: "1 second" } }))
      const denied = yield* Stream.runDrain(model.stream(request())).pipe(Effect.flip, Effect.provide(logs.layer))
      assert.strictEqual(denied.reason, "Http")
      assert.strictEqual(
        denied.description,
        "bedrock answered HTTP 403 (forbidden: check the API key and its permissions): " +
          "The security token included in the request is invalid: <redacted>"
      )
      for (const text of [inspect(denied, { depth: 20 }), ...logs.lines]) assert.notInclude(text, KEY)
      const limited = yield* model.stream(request()).pipe(Stream.runCollect, Effect.forkChild)
      yield* pendingSleep
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual((yield* Fiber.join(limited))[0], Model.textDelta("after the wait"))
      const failing = yield* model.stream(request()).pipe(Stream.runDrain, Effect.result, Effect.forkChild)
      yield* pendingSleep
      yield* TestClock.adjust("1 second")
      yield* eventually(() => provider.requests.length === 5, "the retry")
      const result = yield* Fiber.join(failing)
      assert.isTrue(Result.isFailure(result))
      assert.strictEqual((result as Result.Failure<void, Model.ModelError>).failure.reason, "Http")
      assert.strictEqual(
        (result as Result.Failure<void, Model.ModelError>).failure.description,
        "bedrock answered HTTP 500 (provider error): Internal server error"
      )
    }).pipe(Effect.scoped))
})
