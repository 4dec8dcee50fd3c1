/**
 * `AiModel` on a language model made by `effect/ai`'s own `LanguageModel.make`, scripted with the stream parts and
 * failures a provider module emits (every delay on TestClock): the events the agent reads, the prompt and tools
 * the provider is sent, the reasons and retries of failures.
 */
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import { AiError } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { calls, httpFailure, modelOn, networkFailure, type Step, text, usage } from "./utils.js"

const request = (
  messages: ReadonlyArray<Message.Message> = [Message.user("Hi")],
  tools: Model.ModelRequest["tools"] = []
): Model.ModelRequest => ({ messages, tools, serverTools: [] })

const KEY = "sk-test-0123456789abcdef"

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

/** The events of one request, or its error, with the lines logged at Info or above. */
const run = (steps: ReadonlyArray<Step>, options: Parameters<typeof modelOn>[1] = {}, req = request()) => {
  const { layer, seen } = modelOn(steps, options)
  const logs: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) =>
    void logs.push(`${logLevel}: ${(Array.isArray(message) ? message : [message]).map(String).join(" ")}`)
  )
  const events = Effect.flatMap(Effect.service(Model.Model), (model) => Stream.runCollect(model.stream(req))).pipe(
    Effect.provide(Layer.merge(layer, Logger.layer([logger])))
  )
  return { events, seen, logs }
}

describe("AiModel on effect/ai's LanguageModel", () => {
  it.effect("streams text deltas as they arrive and reports usage at the finish", () =>
    Effect.gen(function*() {
      const { events } = run([{
        parts: [
          { type: "text-delta", id: "t", delta: "Hel" },
          { type: "text-delta", id: "t", delta: "" },
          { type: "text-delta", id: "t", delta: "lo" },
          { type: "finish", reason: "stop", usage: usage(12, 3, 8) }
        ]
      }])
      assert.deepStrictEqual(yield* events, [
        Model.textDelta("Hel"),
        Model.textDelta("lo"),
        Model.finish("stop", new Message.Usage({ inputTokens: 12, outputTokens: 3, cachedInputTokens: 8 }))
      ])
    }))

  it.effect("tools reach the provider with exactly the agent's JSON Schema", () =>
    Effect.gen(function*() {
      const { events, seen } = run(
        [text("ok")],
        {},
        request([Message.user("read")], [
          { name: "fs__read_file", description: "Reads a file", parameters: mcpSchema }
        ])
      )
      yield* events
      assert.deepStrictEqual(seen[0]!.tools, [{
        name: "fs__read_file",
        description: "Reads a file",
        parameters: mcpSchema
      }])
    }))

  it.effect("maps system, user, assistant (text and tool calls) and tool messages (ok, failed, skipped)", () =>
    Effect.gen(function*() {
      const { events, seen } = run(
        [text("ok")],
        {},
        request([
          Message.system("Be brief."),
          Message.user("Read both"),
          new Message.AssistantMessage({
            content: "Reading.",
            toolCalls: [
              new Message.ToolCall({ id: "c1", name: "read", arguments: { path: "a" } }),
              new Message.ToolCall({ id: "c2", name: "read", arguments: { path: "b" } }),
              new Message.ToolCall({ id: "c3", name: "read", arguments: { path: "c" } })
            ]
          }),
          new Message.ToolMessage({ toolCallId: "c1", name: "read", content: "A", status: "ok" }),
          new Message.ToolMessage({ toolCallId: "c2", name: "read", content: { error: "no" }, status: "TOOL_FAILED" }),
          new Message.ToolMessage({ toolCallId: "c3", name: "read", content: "skipped", status: "skipped" }),
          new Message.AssistantMessage({ content: "" })
        ])
      )
      yield* events
      const sent = seen[0]!.prompt.content.map((message) =>
        typeof message.content === "string"
          ? [message.role, message.content]
          : [
            message.role,
            ...message.content.map((part) =>
              part.type === "text"
                ? part.text
                : part.type === "tool-call"
                ? [part.id, part.name, part.params]
                : part.type === "tool-result"
                ? [part.id, part.isFailure, part.result]
                : part.type
            )
          ]
      )
      assert.deepStrictEqual(sent, [
        ["system", "Be brief."],
        ["user", "Read both"],
        ["assistant", "Reading.", ["c1", "read", { path: "a" }], ["c2", "read", { path: "b" }], [
          "c3",
          "read",
          { path: "c" }
        ]],
        ["tool", ["c1", false, "A"]],
        ["tool", ["c2", true, { error: "no" }]],
        ["tool", ["c3", true, "skipped"]]
      ])
    }))

  it.effect("a tool call whose arguments are not JSON, not an object or name no offered tool reaches the agent marked", () =>
    Effect.gen(function*() {
      const { events } = run(
        [calls(
          { id: "c1", name: "fs__raed_file", params: { path: "/tmp/x" } },
          { id: "c2", name: "fs__read_file", params: "/tmp/x" },
          { id: "c3", name: "web_search", params: {} }
        )],
        {},
        request([Message.user("read")], [{ name: "fs__read_file", description: "Reads a file", parameters: mcpSchema }])
      )
      const toolCalls = (yield* events).flatMap((event) => event._tag === "ToolCall" ? [event.call] : [])
      assert.deepStrictEqual(toolCalls.map((call) => [call.name, call.arguments, call.invalidArguments]), [
        ["fs__raed_file", { path: "/tmp/x" }, undefined],
        ["fs__read_file", "/tmp/x", "the arguments are not a JSON object"],
        ["web_search", {}, undefined]
      ])
      const unparsed = run([{
        parts: [
          { type: "text-delta", id: "t", delta: "Reading." },
          { type: "tool-params-start", id: "call_7", name: "fs__read_file" }
        ],
        fail: AiError.make({
          module: "FakeProvider",
          method: "streamText",
          reason: new AiError.InvalidOutputError({
            description: "Failed to securely parse tool call parameters for tool 'fs__read_file':\n" +
              "Parameters: {\"path\": \"/tmp/x\",}"
          })
        })
      }])
      // argument text the provider could not parse: what came before, then the call marked
      const all = yield* unparsed.events
      assert.deepStrictEqual(all.map((event) => event._tag), ["TextDelta", "ToolCall"])
      const call = (all[1] as Extract<Model.ModelEvent, { _tag: "ToolCall" }>).call
      assert.deepStrictEqual([call.id, call.name, call.arguments, call.invalidArguments], [
        "call_7",
        "fs__read_file",
        "{\"path\": \"/tmp/x\",}",
        "invalid JSON at position 18: Expected double-quoted property name"
      ])
    }))

  it.effect("a 401 fails at once with a short reason that never contains the key (nor do logs or the error)", () =>
    Effect.gen(function*() {
      const { events, logs, seen } = run([{
        fail: httpFailure(401, JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }))
      }], { provider: "openai", redact: [Redacted.make(KEY)] })
      const error = yield* Effect.flip(events)
      assert.instanceOf(error, Model.ModelError)
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(
        error.description,
        "openai answered HTTP 401 (unauthorized: check the API key): Incorrect API key provided: <redacted>"
      )
      assert.strictEqual(seen.length, 1)
      assert.notInclude(JSON.stringify([error.description, error.message, logs]), KEY)
    }))

  it.effect("a key-shaped string is cut out of a reason even when not given to redact", () =>
    Effect.gen(function*() {
      const { events } = run([{ fail: httpFailure(400, `bad key sk-proj-abcdefghijkl in the request`) }], {
        provider: "openai"
      })
      const error = yield* Effect.flip(events)
      assert.strictEqual(error.description, "openai answered HTTP 400 (bad request): bad key <redacted> in the request")
    }))

  it.effect("a 404 reads as the provider's own hint when it gives one", () =>
    Effect.gen(function*() {
      const { events } = run([{ fail: httpFailure(404, "") }], {
        provider: "ollama",
        notFound: "not found: is the model pulled?"
      })
      const error = yield* Effect.flip(events)
      assert.strictEqual(error.description, "ollama answered HTTP 404 (not found: is the model pulled?)")
    }))

  it.effect("a 429 is retried after Retry-After, then the answer streams", () =>
    Effect.gen(function*() {
      const { events, logs, seen } = run([
        { fail: httpFailure(429, "{\"error\":{\"message\":\"slow down\"}}", { "retry-after": "5" }) },
        text("fine")
      ], { provider: "openai" })
      const fiber = yield* Effect.forkChild(events)
      while (seen.length < 1) yield* Effect.yieldNow
      yield* TestClock.adjust("4 seconds")
      assert.strictEqual(seen.length, 1, "not before Retry-After")
      yield* TestClock.adjust("1 second")
      const all = yield* Fiber.join(fiber)
      assert.strictEqual(seen.length, 2)
      assert.deepStrictEqual(all[0], Model.textDelta("fine"))
      assert.deepStrictEqual(logs, ["Info: model answered HTTP 429, retrying in 5 s (1/3)"])
    }))

  it.effect("a 500 is retried with doubling delays, then fails with the provider's reason", () =>
    Effect.gen(function*() {
      const { events, logs, seen } = run([{ fail: httpFailure(500, "{\"error\":{\"message\":\"boom\"}}") }], {
        provider: "openai",
        retry: { times: 2, delay: "1 second" },
        retryLogLevel: "Warn"
      })
      const fiber = yield* Effect.forkChild(Effect.flip(events))
      while (seen.length < 1) yield* Effect.yieldNow
      yield* TestClock.adjust("1 second")
      while (seen.length < 2) yield* Effect.yieldNow
      yield* TestClock.adjust("1 second")
      assert.strictEqual(seen.length, 2, "the second delay is twice the first")
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(seen.length, 3)
      assert.strictEqual(error.description, "openai answered HTTP 500 (provider error): boom")
      assert.deepStrictEqual(logs, [
        "Warn: model answered HTTP 500, retrying in 1 s (1/2)",
        "Warn: model answered HTTP 500, retrying in 2 s (2/2)"
      ])
    }))

  it.effect("a failure after text has streamed is not retried (no repeated text)", () =>
    Effect.gen(function*() {
      const { events, seen } = run([{
        parts: [{ type: "text-delta", id: "t", delta: "Hel" }],
        fail: httpFailure(503, "")
      }])
      const error = yield* Effect.flip(events)
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(seen.length, 1)
    }))

  it.effect("an unreachable provider fails with a readable reason after its retries; retry: false fails at once", () =>
    Effect.gen(function*() {
      const unreachable = networkFailure("http://127.0.0.1:9/v1/responses", "connect ECONNREFUSED 127.0.0.1:9")
      const once = run([{ fail: unreachable }], { provider: "openai", retry: false })
      const error = yield* Effect.flip(once.events)
      assert.deepStrictEqual([error.reason, error.description, once.seen.length], [
        "Unreachable",
        "could not reach openai at http://127.0.0.1:9/v1/responses (TransportError: connect ECONNREFUSED 127.0.0.1:9)",
        1
      ])
      const retried = run([{ fail: unreachable }], { provider: "openai", retry: { times: 1, delay: "10 millis" } })
      const fiber = yield* Effect.forkChild(Effect.flip(retried.events))
      while (retried.seen.length < 1) yield* Effect.yieldNow
      yield* TestClock.adjust("10 millis")
      assert.strictEqual((yield* Fiber.join(fiber)).reason, "Unreachable")
      assert.strictEqual(retried.seen.length, 2)
    }))

  it.effect("an overloaded_error inside the stream before any output is retried", () =>
    Effect.gen(function*() {
      const { events, seen } = run([
        {
          parts: [{
            type: "error",
            error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
          }]
        },
        { parts: [{ type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } }] }
      ], { provider: "anthropic", retry: { times: 3, delay: "1 millis" } })
      const fiber = yield* Effect.forkChild(Effect.flip(events))
      while (seen.length < 1) yield* Effect.yieldNow
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(seen.length, 2)
      assert.deepStrictEqual([error.reason, error.description], [
        "ProviderError",
        "anthropic reported an error (invalid_request_error): prompt is too long"
      ])
    }))

  it.effect("server tools are not passed: a warning names them, and the request goes on", () =>
    Effect.gen(function*() {
      const { events, logs, seen } = run([text("ok")], { provider: "openai" }, {
        messages: [Message.user("hi")],
        tools: [],
        serverTools: [{ name: "web_search", type: "web_search_20250305" }] as never
      })
      yield* events
      assert.strictEqual(seen.length, 1)
      assert.deepStrictEqual(logs, ["Warn: server tools are not passed to openai by @zett/ai: web_search"])
    }))

  it.effect("the model's info is the one given, for the agent's spans and metrics", () =>
    Effect.gen(function*() {
      const { layer } = modelOn([text("ok")], { info: { provider: "openai", model: "gpt-4.1-mini" } })
      const model = yield* Effect.provide(Effect.service(Model.Model), layer)
      assert.deepStrictEqual(model.info, { provider: "openai", model: "gpt-4.1-mini" })
    }))
})
