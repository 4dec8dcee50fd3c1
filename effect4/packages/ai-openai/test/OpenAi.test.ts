/**
 * AiModel on OpenAiLanguageModel against a fake Responses API server on 127.0.0.1, in its wire format: text, tool
 * calls and their results, failures and the key, and OpenAI's tool search under MCP tool search (Zett's search
 * behind the client-executed tool, and the API's own).
 */
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { inspect } from "node:util"
import {
  buildModel,
  captureLogs,
  captureSpans,
  fakeProvider,
  json,
  KEY,
  openAiEvents,
  openAiModel,
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
const files = { name: "files__read_file", description: "A tool always offered", parameters: { type: "object" } }

const searching: Model.ModelRequest = {
  messages: [Message.system("Call search_tools with what you need to do."), Message.user("Will it rain in Paris?")],
  tools: [search, files],
  serverTools: [],
  deferredTools: [forecast, quote],
  toolSearch: "search_tools"
}

const toolsOf = (body: { tools: Array<Record<string, unknown>> }) =>
  body.tools.map((tool) =>
    tool.type === "function"
      ? `${tool.name}${tool.defer_loading === true ? " (deferred)" : ""}`
      : `${tool.type}${tool.execution === undefined ? "" : ` (${tool.execution})`}`
  )

describe("openai (Responses API)", () => {
  it.effect("streamed text and usage; the request names the model and its input, the key goes as a bearer token", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(openAiEvents({ text: ["Hel", "lo"], usage: { input: 9, output: 2, cached: 4 } }))
      ])
      const model = yield* buildModel(openAiModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.system("Be brief."), Message.user("Hi")])))
      assert.deepStrictEqual(events, [
        Model.textDelta("Hel"),
        Model.textDelta("lo"),
        Model.finish("stop", new Message.Usage({ inputTokens: 9, outputTokens: 2, cachedInputTokens: 4 }))
      ])
      const seen = provider.requests[0]!
      assert.strictEqual(seen.url, "/v1/responses")
      assert.strictEqual(seen.headers.authorization, `Bearer ${KEY}`)
      assert.deepStrictEqual(seen.body, {
        model: "gpt-5.4",
        input: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }],
        stream: true
      })
    }).pipe(Effect.scoped))

  it.effect("function calls become calls; tools go out as functions with their schema; results go back as function_call_output", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(openAiEvents({
          text: ["Reading."],
          calls: [
            { id: "call_1", name: "fs__read_file", pieces: ["{\"path\":", " \"/tmp/a\"}"] },
            { id: "call_2", name: "math__add", pieces: ["{\"a\": 40}"] }
          ]
        })),
        sse(openAiEvents({ text: ["done"] }))
      ])
      const model = yield* buildModel(openAiModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.user("go")], tools)))
      assert.deepStrictEqual(events.slice(0, 3), [
        Model.textDelta("Reading."),
        Model.toolCall(new Message.ToolCall({ id: "call_1", name: "fs__read_file", arguments: { path: "/tmp/a" } })),
        Model.toolCall(new Message.ToolCall({ id: "call_2", name: "math__add", arguments: { a: 40 } }))
      ])
      assert.strictEqual((events[3] as { reason: string }).reason, "tool_calls")
      assert.deepStrictEqual(
        provider.requests[0]!.body.tools,
        tools.map((tool) => ({
          type: "function",
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters,
          strict: false
        }))
      )
      assert.strictEqual(provider.requests[0]!.body.tool_choice, "auto")
      yield* Stream.runDrain(model.stream(request([
        Message.user("go"),
        Message.assistant("Adding.", [new Message.ToolCall({ id: "call_2", name: "math__add", arguments: { a: 40 } })]),
        new Message.ToolMessage({ toolCallId: "call_2", name: "math__add", status: "ok", content: 40 }),
        Message.assistant("", [new Message.ToolCall({ id: "call_3", name: "math__add", arguments: {} })]),
        new Message.ToolMessage({ toolCallId: "call_3", name: "math__add", status: "TOOL_FAILED", content: "no a" })
      ], tools)))
      assert.deepStrictEqual(provider.requests[1]!.body.input, [
        { role: "user", content: "go" },
        { role: "assistant", content: "Adding." },
        { type: "function_call", call_id: "call_2", name: "math__add", arguments: "{\"a\":40}" },
        { type: "function_call_output", call_id: "call_2", output: "40" },
        { type: "function_call", call_id: "call_3", name: "math__add", arguments: "{}" },
        { type: "function_call_output", call_id: "call_3", output: "no a" }
      ])
    }).pipe(Effect.scoped))

  it.effect("arguments that are not JSON become a call marked invalid, which the agent answers", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(openAiEvents({ calls: [{ id: "call_1", name: "math__add", pieces: ["{\"a\": 4"] }] }))
      ])
      const model = yield* buildModel(openAiModel(provider))
      const events = yield* Stream.runCollect(model.stream(request([Message.user("go")], tools)))
      const call = (events[0] as { call: Message.ToolCall }).call
      assert.strictEqual(call.id, "call_1")
      assert.strictEqual(call.name, "math__add")
      assert.isString(call.invalidArguments)
    }).pipe(Effect.scoped))

  it.effect("a 401 fails at once; the key reaches no error, log or span", () =>
    Effect.gen(function*() {
      const logs = captureLogs()
      const { spans, tracer } = captureSpans()
      const provider = yield* fakeProvider([
        json(401, { error: { message: `Incorrect API key provided: ${KEY}`, type: "invalid_request_error" } })
      ])
      const model = yield* buildModel(openAiModel(provider))
      const error = yield* Stream.runDrain(model.stream(request())).pipe(
        Effect.flip,
        Effect.provide(logs.layer),
        Effect.withTracer(tracer)
      )
      assert.strictEqual(error.reason, "Http")
      assert.include(error.description, "openai answered HTTP 401 (unauthorized: check the API key)")
      assert.strictEqual(provider.requests.length, 1)
      for (const text of [inspect(error, { depth: 20 }), ...logs.lines, ...spans.map((span) => span.text())]) {
        assert.notInclude(text, KEY)
      }
    }).pipe(Effect.scoped))

  it.effect("with deferLoading, the model gets the client-executed tool_search and not the tools held back; its search reaches the agent as a call of search_tools, and goes back as the two items with what it found", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(
          openAiEvents({
            clientSearch: { callId: "call_1", arguments: { query: "rain" } },
            usage: { input: 30, output: 4 }
          })
        ),
        sse(openAiEvents({ text: ["ok"] })),
        sse(openAiEvents({ text: ["ok"] }))
      ])
      const model = yield* buildModel(openAiModel(provider, { deferLoading: true }))
      const events = yield* Stream.runCollect(model.stream(searching))
      assert.deepStrictEqual(events.map((event) => event._tag), ["ToolCall", "Finish"])
      const call = (events[0] as { call: Message.ToolCall }).call
      assert.strictEqual(call.name, "search_tools")
      assert.deepStrictEqual(call.arguments, { query: "rain" })
      assert.strictEqual((events[1] as { usage?: Message.Usage }).usage?.inputTokens, 30)
      const first = provider.requests[0]!.body
      assert.deepStrictEqual(toolsOf(first), ["tool_search (client)", "files__read_file"])
      assert.deepStrictEqual(first.tools[0], {
        type: "tool_search",
        execution: "client",
        description: search.description,
        parameters: search.parameters
      })

      const found = {
        tools: [{ name: "weather__get_forecast", description: "The forecast of a city" }, {
          name: "files__read_file",
          description: "A tool always offered"
        }],
        note: "These tools are loaded now: call them by name."
      }
      yield* Stream.runDrain(model.stream({
        ...searching,
        messages: [
          ...searching.messages,
          Message.assistant("", [call]),
          new Message.ToolMessage({ toolCallId: "call_1", name: "search_tools", status: "ok", content: found })
        ],
        tools: [search, files, forecast]
      }))
      const second = provider.requests[1]!.body
      // the loaded tool is not sent as a function: the search's output loads it
      assert.deepStrictEqual(toolsOf(second), ["tool_search (client)", "files__read_file"])
      assert.deepStrictEqual(second.input.slice(-2), [
        {
          type: "tool_search_call",
          call_id: "call_1",
          execution: "client",
          status: "completed",
          arguments: { query: "rain" }
        },
        {
          type: "tool_search_output",
          call_id: "call_1",
          execution: "client",
          status: "completed",
          tools: [{
            type: "function",
            name: "weather__get_forecast",
            description: "The forecast of a city",
            parameters: forecast.parameters,
            strict: false,
            defer_loading: true
          }]
        }
      ])

      // a failed search loads nothing
      yield* Stream.runDrain(model.stream({
        ...searching,
        messages: [
          ...searching.messages,
          Message.assistant("", [call]),
          new Message.ToolMessage({ toolCallId: "call_1", name: "search_tools", status: "TOOL_FAILED", content: "bad" })
        ]
      }))
      assert.deepStrictEqual(provider.requests[2]!.body.input.at(-1).tools, [])
    }).pipe(Effect.scoped))

  it.effect("with hostedSearch, the API's tool_search replaces search_tools, the held-back tools go deferred, and the API's search items go back before the call that followed them", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(openAiEvents({
          hostedSearch: { id: "1", query: "forecast", found: ["weather__get_forecast"] },
          calls: [{ id: "call_2", name: "weather__get_forecast", pieces: ["{\"city\":\"Paris\"}"] }]
        })),
        sse(openAiEvents({ text: ["Rain."] }))
      ])
      const model = yield* buildModel(openAiModel(provider, { deferLoading: true }, true))
      const events = yield* Stream.runCollect(model.stream(searching))
      // the search is the API's: the agent reads the call of what it found, nothing of the search
      assert.deepStrictEqual(events.map((event) => event._tag), ["ToolCall", "Finish"])
      const call = (events[0] as { call: Message.ToolCall }).call
      assert.strictEqual(call.name, "weather__get_forecast")
      const first = provider.requests[0]!.body
      assert.deepStrictEqual(toolsOf(first), [
        "tool_search",
        "files__read_file",
        "weather__get_forecast (deferred)",
        "stocks__get_quote (deferred)"
      ])
      assert.deepStrictEqual(first.input[0], { role: "system", content: "Call tool_search with what you need to do." })

      yield* Stream.runDrain(model.stream({
        ...searching,
        messages: [
          ...searching.messages,
          Message.assistant("", [call]),
          new Message.ToolMessage({ toolCallId: "call_2", name: call.name, status: "ok", content: "rain" })
        ],
        tools: [search, files, forecast]
      }))
      assert.deepStrictEqual(provider.requests[1]!.body.input.slice(-4), [
        {
          type: "tool_search_call",
          id: "tsc_1",
          call_id: null,
          execution: "server",
          status: "completed",
          arguments: { query: "forecast" }
        },
        {
          type: "tool_search_output",
          id: "tso_1",
          call_id: null,
          execution: "server",
          status: "completed",
          tools: [{
            type: "function",
            name: "weather__get_forecast",
            parameters: { type: "object" },
            defer_loading: true
          }]
        },
        { type: "function_call", call_id: "call_2", name: "weather__get_forecast", arguments: "{\"city\":\"Paris\"}" },
        { type: "function_call_output", call_id: "call_2", output: "rain" }
      ])
    }).pipe(Effect.scoped))

  it.effect("without deferLoading the tools held back are not sent and search_tools stays a function", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["ok"] }))])
      const model = yield* buildModel(openAiModel(provider))
      yield* Stream.runDrain(model.stream(searching))
      const body = provider.requests[0]!.body
      assert.deepStrictEqual(toolsOf(body), ["search_tools", "files__read_file"])
      assert.deepStrictEqual(body.input[0], { role: "system", content: "Call search_tools with what you need to do." })
    }).pipe(Effect.scoped))
})
