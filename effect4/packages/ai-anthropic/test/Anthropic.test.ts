/**
 * AiModel on AnthropicLanguageModel against a fake Messages API server on 127.0.0.1, in its wire format: text,
 * tool calls and their results, failures and the key, and Anthropic's deferred loading under tool search.
 */
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
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
  request,
  sse,
  tools
} from "./utils.js"

const search = {
  name: "search_tools",
  description: "Finds tools by what they do",
  parameters: { type: "object", properties: { query: { type: "string" } } }
}
const forecast = {
  name: "weather__get_forecast",
  description: "The forecast of a city",
  parameters: { type: "object", properties: { city: { type: "string" } } }
}
const quote = { name: "stocks__get_quote", description: "The price of a share", parameters: { type: "object" } }

const toolsOf = (body: { tools: Array<{ name: string; defer_loading?: boolean }> }) =>
  body.tools.map((tool) => `${tool.name}${tool.defer_loading === true ? " (deferred)" : ""}`)

describe("anthropic (Messages API)", () => {
  it.effect("each stop reason reaches the agent as effect/ai's finish reason: pause_turn as pause, refusal as content_filter", () =>
    Effect.gen(function*() {
      const reasons: Array<string> = []
      for (const stopReason of ["end_turn", "max_tokens", "pause_turn", "refusal", "model_context_window_exceeded"]) {
        const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["…"], stopReason }))])
        const model = yield* buildModel(anthropicModel(provider))
        const events = yield* Stream.runCollect(model.stream(request([Message.user("Hi")])))
        const finish = Array.from(events).find((event) => event._tag === "Finish")
        reasons.push(finish?._tag === "Finish" ? finish.reason : "none")
      }
      assert.deepStrictEqual(reasons, ["stop", "length", "pause", "content_filter", "other"])
    }))

  it.effect("streamed text and usage; the request names the model and version, the key goes in x-api-key", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({ text: ["Hel", "lo"], usage: { input: 9, output: 2, cached: 4 } }))
      ])
      const model = yield* buildModel(anthropicModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.system("Be brief."), Message.user("Hi")])))
      assert.deepStrictEqual(events, [
        Model.textDelta("Hel"),
        Model.textDelta("lo"),
        Model.finish("stop", new Message.Usage({ inputTokens: 9, outputTokens: 2, cachedInputTokens: 4 }))
      ])
      const seen = provider.requests[0]!
      assert.strictEqual(seen.url, "/v1/messages")
      assert.strictEqual(seen.headers["x-api-key"], KEY)
      assert.strictEqual(seen.headers["anthropic-version"], "2023-06-01")
      assert.isUndefined(seen.headers["anthropic-beta"])
      assert.deepStrictEqual(seen.body, {
        model: "claude-sonnet-4-5",
        max_tokens: 8192,
        system: "Be brief.",
        messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
        stream: true
      })
    }).pipe(Effect.scoped))

  it.effect("tool_use blocks become calls; tools go out with input_schema; results go back as tool_result blocks", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({
          text: ["Reading."],
          calls: [
            { id: "toolu_1", name: "fs__read_file", pieces: ["{\"path\":", " \"/tmp/a\"}"] },
            { id: "toolu_2", name: "math__add", pieces: ["{\"a\": 40}"] }
          ]
        })),
        sse(anthropicEvents({ text: ["done"] }))
      ])
      const model = yield* buildModel(anthropicModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.user("go")], tools)))
      assert.deepStrictEqual(events.slice(0, 3), [
        Model.textDelta("Reading."),
        Model.toolCall(new Message.ToolCall({ id: "toolu_1", name: "fs__read_file", arguments: { path: "/tmp/a" } })),
        Model.toolCall(new Message.ToolCall({ id: "toolu_2", name: "math__add", arguments: { a: 40 } }))
      ])
      assert.strictEqual((events[3] as { reason: string }).reason, "tool_calls")
      assert.deepStrictEqual(
        provider.requests[0]!.body.tools,
        tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }))
      )
      yield* Stream.runDrain(model.stream(request([
        Message.user("go"),
        Message.assistant("", [new Message.ToolCall({ id: "toolu_2", name: "math__add", arguments: { a: 40 } })]),
        new Message.ToolMessage({ toolCallId: "toolu_2", name: "math__add", status: "ok", content: 40 }),
        Message.assistant("", [new Message.ToolCall({ id: "toolu_3", name: "math__add", arguments: {} })]),
        new Message.ToolMessage({ toolCallId: "toolu_3", name: "math__add", status: "TOOL_FAILED", content: "no a" })
      ], tools)))
      assert.deepStrictEqual(provider.requests[1]!.body.messages, [
        { role: "user", content: [{ type: "text", text: "go" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "math__add", input: { a: 40 } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "40" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_3", name: "math__add", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_3", content: "no a", is_error: true }] }
      ])
    }).pipe(Effect.scoped))

  it.effect("arguments that are not JSON become a call marked invalid, which the agent answers", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({ calls: [{ id: "toolu_1", name: "math__add", pieces: ["{\"a\": 4"] }] }))
      ])
      const model = yield* buildModel(anthropicModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.user("go")], tools)))
      const call = (events[0] as { call: Message.ToolCall }).call
      assert.strictEqual(call.id, "toolu_1")
      assert.strictEqual(call.name, "math__add")
      assert.isString(call.invalidArguments)
    }).pipe(Effect.scoped))

  it.effect("a 401 fails at once; the key reaches no error, log or span", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const { spans, tracer } = captureSpans()
      const provider = yield* fakeProvider([
        json(401, { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } })
      ])
      const model = yield* buildModel(anthropicModel(provider))
      const error = yield* Stream.runDrain(model.stream(request())).pipe(
        Effect.flip,
        Effect.provide(logs.layer),
        Effect.withTracer(tracer)
      )
      assert.strictEqual(error.reason, "Http")
      assert.include(error.description, "anthropic answered HTTP 401 (unauthorized: check the API key)")
      assert.strictEqual(provider.requests.length, 1)
      for (const text of [inspect(error, { depth: 20 }), ...logs.lines, ...spans.map((span) => span.text())]) {
        assert.notInclude(text, KEY)
      }
    }).pipe(Effect.scoped))

  it.effect("with deferLoading, the tools held back go with defer_loading under the tool search beta, and a search's result as tool_reference blocks", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({ calls: [{ id: "toolu_9", name: "stocks__get_quote", pieces: ["{}"] }] }))
      ])
      const model = yield* buildModel(anthropicModel(provider, { deferLoading: true }))
      const searched: Model.ModelRequest = {
        messages: [
          Message.user("Will it rain in Paris?"),
          Message.assistant("", [
            new Message.ToolCall({ id: "toolu_1", name: "search_tools", arguments: { query: "rain" } })
          ]),
          new Message.ToolMessage({
            toolCallId: "toolu_1",
            name: "search_tools",
            status: "ok",
            content: {
              tools: [{ name: "weather__get_forecast", description: "The forecast of a city" }, {
                name: "files__read_file",
                description: "always offered"
              }],
              note: "These tools are loaded now: call them by name."
            }
          })
        ],
        // the forecast was loaded: offered, and still among the deferred
        tools: [search, forecast],
        serverTools: [],
        deferredTools: [forecast, quote],
        toolSearch: "search_tools"
      }
      const events = yield* Stream.runCollect(model.stream(searched))
      // a call of a deferred tool the search did not load is read as any call
      assert.strictEqual((events[0] as { call: Message.ToolCall }).call.name, "stocks__get_quote")
      const seen = provider.requests[0]!
      assert.deepStrictEqual(toolsOf(seen.body), [
        "search_tools",
        "weather__get_forecast (deferred)",
        "stocks__get_quote (deferred)"
      ])
      assert.strictEqual(seen.headers["anthropic-beta"], "advanced-tool-use-2025-11-20")
      // a tool the search named that is not deferred (always offered) is not referenced
      assert.deepStrictEqual(seen.body.messages[2].content, [{
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: [{ type: "tool_reference", tool_name: "weather__get_forecast" }]
      }])
    }).pipe(Effect.scoped))

  it.effect("without deferLoading the tools held back are not sent and a search's result stays text", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      const model = yield* buildModel(anthropicModel(provider))
      yield* Stream.runDrain(model.stream({
        messages: [
          Message.user("Will it rain?"),
          Message.assistant("", [
            new Message.ToolCall({ id: "toolu_1", name: "search_tools", arguments: { query: "rain" } })
          ]),
          new Message.ToolMessage({
            toolCallId: "toolu_1",
            name: "search_tools",
            status: "ok",
            content: { tools: [{ name: "weather__get_forecast", description: "x" }], note: "loaded" }
          })
        ],
        tools: [search, forecast],
        serverTools: [],
        deferredTools: [forecast, quote],
        toolSearch: "search_tools"
      }))
      const seen = provider.requests[0]!
      assert.deepStrictEqual(toolsOf(seen.body), ["search_tools", "weather__get_forecast"])
      assert.isUndefined(seen.headers["anthropic-beta"])
      assert.strictEqual(typeof seen.body.messages[2].content[0].content, "string")
    }).pipe(Effect.scoped))

  it.effect("with hostedSearch, the API's search tool replaces search_tools, the system text names it, and its blocks go back before the text and call that followed them", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({
          hostedSearch: { id: "srvtoolu_1", query: "forecast", found: ["weather__get_forecast"] },
          text: ["Looking."],
          calls: [{ id: "toolu_2", name: "weather__get_forecast", pieces: ["{\"city\":\"Paris\"}"] }]
        })),
        sse(anthropicEvents({ text: ["Rain."] }))
      ])
      const model = yield* buildModel(anthropicModel(provider, { deferLoading: true }, "bm25"))
      const first: Model.ModelRequest = {
        messages: [Message.system("Call search_tools with what you need to do."), Message.user("Will it rain?")],
        tools: [search],
        serverTools: [],
        deferredTools: [forecast, quote],
        toolSearch: "search_tools"
      }
      const events = yield* Stream.runCollect(model.stream(first))
      // the search is the API's: the agent reads the text and the call of what it found, nothing of the search
      assert.deepStrictEqual(events.map((event) => event._tag), ["TextDelta", "ToolCall", "Finish"])
      const call = (events[1] as { call: Message.ToolCall }).call
      assert.strictEqual(call.name, "weather__get_forecast")
      const sent = provider.requests[0]!.body
      assert.deepStrictEqual(sent.tools[0], { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" })
      assert.deepStrictEqual(toolsOf(sent), [
        "tool_search_tool_bm25",
        "weather__get_forecast (deferred)",
        "stocks__get_quote (deferred)"
      ])
      assert.strictEqual(sent.system, "Call tool_search_tool_bm25 with what you need to do.")
      assert.strictEqual(provider.requests[0]!.headers["anthropic-beta"], "advanced-tool-use-2025-11-20")

      yield* Stream.runDrain(model.stream({
        ...first,
        messages: [
          ...first.messages,
          Message.assistant("Looking.", [call]),
          new Message.ToolMessage({ toolCallId: "toolu_2", name: call.name, status: "ok", content: "rain" })
        ],
        tools: [search, forecast]
      }))
      const assistant = provider.requests[1]!.body.messages.find((message: { role: string }) =>
        message.role === "assistant"
      )
      assert.deepStrictEqual(assistant.content, [
        { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: { query: "forecast" } },
        {
          type: "tool_search_tool_result",
          tool_use_id: "srvtoolu_1",
          content: {
            type: "tool_search_tool_search_result",
            tool_references: [{ type: "tool_reference", tool_name: "weather__get_forecast" }]
          }
        },
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "toolu_2", name: "weather__get_forecast", input: { city: "Paris" } }
      ])
    }).pipe(Effect.scoped))

  it.effect("without hostedSearch an answer's search blocks are skipped and nothing is replayed", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({
          hostedSearch: { id: "srvtoolu_1", query: "forecast", found: ["weather__get_forecast"] },
          calls: [{ id: "toolu_2", name: "weather__get_forecast", pieces: ["{}"] }]
        })),
        sse(anthropicEvents({ text: ["ok"] }))
      ])
      const model = yield* buildModel(anthropicModel(provider, { deferLoading: true }))
      const first: Model.ModelRequest = {
        messages: [Message.user("Will it rain?")],
        tools: [search],
        serverTools: [],
        deferredTools: [forecast],
        toolSearch: "search_tools"
      }
      const events = yield* Stream.runCollect(model.stream(first))
      const call = (events[0] as { call: Message.ToolCall }).call
      assert.strictEqual(call.name, "weather__get_forecast")
      assert.deepStrictEqual(toolsOf(provider.requests[0]!.body), ["search_tools", "weather__get_forecast (deferred)"])
      yield* Stream.runDrain(model.stream({
        ...first,
        messages: [
          ...first.messages,
          Message.assistant("", [call]),
          new Message.ToolMessage({ toolCallId: "toolu_2", name: call.name, status: "ok", content: "rain" })
        ]
      }))
      assert.deepStrictEqual(
        provider.requests[1]!.body.messages[1].content.map((block: { type: string }) => block.type),
        ["tool_use"]
      )
    }).pipe(Effect.scoped))
})
