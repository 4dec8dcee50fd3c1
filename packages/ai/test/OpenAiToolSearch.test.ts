/**
 * OpenAI's client-executed tool search under MCP tool search, read on the Responses API's wire format of a fake
 * provider: the tools of each request, the search's items as they go back, and what the agent gets of the answers.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, Message, type Model } from "@zett/agent"
import { OpenAiToolSearch } from "@zett/ai"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import {
  buildModel,
  fakeProvider,
  openAiEvents,
  openAiModel,
  openAiToolSearchEvents,
  searchingAgent,
  sse
} from "./utils.js"

const search: Model.ModelRequest["tools"][number] = {
  name: "search_tools",
  description: "Finds tools by what they do",
  parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] }
}
const weather = {
  name: "weather__get_forecast",
  description: "The forecast of a city",
  parameters: { type: "object", properties: { city: { type: "string" } } }
}
const stocks = { name: "stocks__get_quote", description: "The price of a share", parameters: { type: "object" } }
const files = { name: "files__read_file", description: "A tool always offered", parameters: { type: "object" } }

const first: Model.ModelRequest = {
  messages: [Message.user("Will it rain in Paris?")],
  tools: [search, files],
  serverTools: [],
  deferredTools: [weather, stocks],
  toolSearch: "search_tools"
}

const searchCall = new Message.ToolCall({ id: "call_1", name: "search_tools", arguments: { query: "rain", limit: 2 } })
const searchResult = (content: unknown, status: Message.ToolStatus = "ok") =>
  new Message.ToolMessage({ toolCallId: "call_1", name: "search_tools", status, content })

// the run after a search that found the forecast (and the tool always offered): the forecast is loaded
const afterSearch: Model.ModelRequest = {
  ...first,
  messages: [
    ...first.messages,
    Message.assistant("", [searchCall]),
    searchResult({
      tools: [{ name: "weather__get_forecast", description: "The forecast of a city" }, {
        name: "files__read_file",
        description: "A tool always offered"
      }],
      note: "These tools are loaded now: call them by name."
    })
  ],
  tools: [search, files, weather]
}

const toolsOf = (body: { tools: Array<Record<string, unknown>> }) =>
  body.tools.map((tool) => tool.type === "function" ? tool.name : `${tool.type} (${tool.execution})`)

describe("OpenAI's client-executed tool search under MCP tool search", () => {
  it.scoped("the search function goes to the Responses API as a client-executed tool_search, and the tools held back are not sent", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["ok"] }))])
      const model = yield* buildModel(openAiModel(provider, { deferLoading: true }, OpenAiToolSearch.transformClient))
      yield* Stream.runDrain(model.stream(first))
      const body = provider.requests[0]!.body
      assert.deepStrictEqual(toolsOf(body), ["tool_search (client)", "files__read_file"])
      // the search keeps its own description and parameters
      assert.deepStrictEqual(body.tools[0], {
        type: "tool_search",
        execution: "client",
        description: "Finds tools by what they do",
        parameters: search.parameters
      })
    }))

  it.scoped("a tool_search_call reaches the agent as a call of the search tool with its arguments, and its step finishes with its usage", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiToolSearchEvents("call_7", { query: "forecast", limit: 3 }, {
        input: 50,
        output: 6
      }))])
      const model = yield* buildModel(openAiModel(provider, { deferLoading: true }, OpenAiToolSearch.transformClient))
      const events = Chunk.toArray(yield* Stream.runCollect(model.stream(first)))
      assert.deepStrictEqual(events.map((event) => event._tag), ["ToolCall", "Finish"])
      const call = events[0]!._tag === "ToolCall" ? events[0]!.call : undefined
      assert.strictEqual(call?.id, "call_7")
      assert.strictEqual(call?.name, "search_tools")
      assert.deepStrictEqual(call?.arguments, { query: "forecast", limit: 3 })
      const finish = events[1]!._tag === "Finish" ? events[1]! : undefined
      assert.strictEqual(finish?.usage?.inputTokens, 50)
      assert.strictEqual(finish?.reason, "tool_calls")
    }))

  it.scoped("a search and its result go back as tool_search_call and tool_search_output, the output holding the definitions of the deferred tools it found", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["It will rain."] }))])
      const model = yield* buildModel(openAiModel(provider, { deferLoading: true }, OpenAiToolSearch.transformClient))
      yield* Stream.runDrain(model.stream(afterSearch))
      const body = provider.requests[0]!.body
      // the loaded tool is carried by the search's output, not by tools: the tools stay the same through the run
      assert.deepStrictEqual(toolsOf(body), ["tool_search (client)", "files__read_file"])
      const items = body.input.filter((item: { type?: string }) => item.type?.startsWith("tool_search"))
      assert.deepStrictEqual(items, [
        {
          type: "tool_search_call",
          call_id: "call_1",
          execution: "client",
          status: "completed",
          arguments: { query: "rain", limit: 2 }
        },
        {
          type: "tool_search_output",
          call_id: "call_1",
          execution: "client",
          status: "completed",
          // a tool the search named that is always offered is not loaded again
          tools: [{
            type: "function",
            name: "weather__get_forecast",
            description: "The forecast of a city",
            parameters: weather.parameters,
            strict: false,
            defer_loading: true
          }]
        }
      ])
      assert.notInclude(JSON.stringify(body.input), "function_call")
    }))

  it.scoped("a search that found nothing, or failed, goes back as an output that loads nothing", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(openAiEvents({ text: ["ok"] })),
        sse(openAiEvents({ text: ["ok"] }))
      ])
      const model = yield* buildModel(openAiModel(provider, { deferLoading: true }, OpenAiToolSearch.transformClient))
      const nothing = { tools: [], note: "No tool matched. Search again with other words for what the tool should do." }
      const failed = { error: { type: "InvalidArguments", message: "query is missing" } }
      for (const result of [searchResult(nothing), searchResult(failed, "TOOL_FAILED")]) {
        yield* Stream.runDrain(model.stream({
          ...first,
          messages: [...first.messages, Message.assistant("", [searchCall]), result]
        }))
      }
      for (const seen of provider.requests) {
        const output = seen.body.input.find((item: { type: string }) => item.type === "tool_search_output")
        assert.deepStrictEqual(output?.tools, [])
        assert.strictEqual(output?.call_id, "call_1")
      }
    }))

  it.scoped("without deferLoading the tools held back are not sent, and neither request nor answer is rewritten", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiToolSearchEvents("call_7", { query: "forecast" }))])
      const model = yield* buildModel(openAiModel(provider, {}, OpenAiToolSearch.transformClient))
      const events = Chunk.toArray(yield* Stream.runCollect(model.stream(afterSearch)))
      const body = provider.requests[0]!.body
      assert.deepStrictEqual(toolsOf(body), ["search_tools", "files__read_file", "weather__get_forecast"])
      assert.deepStrictEqual(body.input.map((item: { type?: string }) => item.type ?? "message"), [
        "message",
        "function_call",
        "function_call_output"
      ])
      // @effect/ai-openai skips a tool_search_call it is given as it is
      assert.notInclude(events.map((event) => event._tag), "ToolCall")
    }))

  it.scoped("an agent under MCP tool search: GPT is offered the search alone, searches, gets the definition it found and calls it", () =>
    Effect.gen(function*() {
      const forecast = { id: "call_2", name: "weather__get_forecast", pieces: [JSON.stringify({ city: "Paris" })] }
      const provider = yield* fakeProvider([
        sse(openAiToolSearchEvents("call_1", { query: "forecast of a city", limit: 1 })),
        sse(openAiEvents({ calls: [forecast] })),
        sse(openAiEvents({ text: ["Rain in Paris."] }))
      ])
      const { agent, stats } = searchingAgent(
        openAiModel(provider, { deferLoading: true }, OpenAiToolSearch.transformClient)
      )
      const answer = yield* Agent.run("Will it rain in Paris?").pipe(Effect.provide(agent))
      assert.strictEqual(answer.content, "Rain in Paris.")
      assert.deepStrictEqual(stats.calls, [{ server: "weather", name: "get_forecast", args: { city: "Paris" } }])

      const [first, second, third] = provider.requests.map((seen) => seen.body)
      // the search alone in every request: the 45 MCP tools are held back
      assert.deepStrictEqual(toolsOf(first), ["tool_search (client)"])
      assert.deepStrictEqual(toolsOf(second), ["tool_search (client)"])
      assert.deepStrictEqual(toolsOf(third), ["tool_search (client)"])
      assert.include(JSON.stringify(first.input), "Tool search is on: 45 tools")
      // what the search found goes back as its output; the call of the tool it loaded follows
      const output = second.input.find((item: { type: string }) => item.type === "tool_search_output")
      assert.deepStrictEqual(output.tools.map((tool: { name: string }) => tool.name), ["weather__get_forecast"])
      assert.strictEqual(output.call_id, "call_1")
      const types = third.input.map((item: { type?: string }) => item.type ?? "message")
      assert.deepStrictEqual(types.slice(-4), [
        "tool_search_call",
        "tool_search_output",
        "function_call",
        "function_call_output"
      ])
    }))
})

describe("OpenAI's own tool search, run by the Responses API (hosted)", () => {
  const withSystem: Model.ModelRequest = {
    ...first,
    messages: [Message.system("Tool search is on. Call search_tools with what you need to do."), ...first.messages]
  }
  const deferredOf = (body: { tools: Array<Record<string, unknown>> }) =>
    body.tools.map((tool) =>
      tool.type === "function" ? `${tool.name}${tool.defer_loading === true ? " (deferred)" : ""}` : String(tool.type)
    )

  it.scoped("the Responses API gets tool_search instead of the search function, the held-back tools deferred, and a system text that names it", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["ok"] }))])
      const model = yield* buildModel(openAiModel(provider, { deferLoading: true }, OpenAiToolSearch.hosted()))
      yield* Stream.runDrain(model.stream(withSystem))
      const body = provider.requests[0]!.body
      assert.deepStrictEqual(body.tools[0], { type: "tool_search" })
      assert.deepStrictEqual(deferredOf(body), [
        "tool_search",
        "files__read_file",
        "weather__get_forecast (deferred)",
        "stocks__get_quote (deferred)"
      ])
      assert.include(JSON.stringify(body.input), "Call tool_search with what you need to do.")
      assert.notInclude(JSON.stringify(body.input), "search_tools")
    }))

  it.scoped("without deferLoading the hosted transform sends the tools as they are", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["ok"] }))])
      const model = yield* buildModel(openAiModel(provider, {}, OpenAiToolSearch.hosted()))
      yield* Stream.runDrain(model.stream(withSystem))
      const body = provider.requests[0]!.body
      assert.deepStrictEqual(deferredOf(body), ["search_tools", "files__read_file"])
      assert.include(JSON.stringify(body.input), "Call search_tools with")
    }))

  it.scoped("an agent under MCP tool search: the API searches, GPT calls the tool it found in the same answer, and the search's items go back with every later request", () =>
    Effect.gen(function*() {
      const forecast = { id: "call_2", name: "weather__get_forecast", pieces: [JSON.stringify({ city: "Paris" })] }
      const provider = yield* fakeProvider([
        sse(openAiEvents({
          hostedSearch: { id: "1", query: "forecast of a city", found: ["weather__get_forecast"] },
          calls: [forecast]
        })),
        sse(openAiEvents({ calls: [{ id: "call_3", name: "weather__report_7", pieces: ["{}"] }] })),
        sse(openAiEvents({ text: ["Rain in Paris."] }))
      ])
      const { agent, stats } = searchingAgent(openAiModel(provider, { deferLoading: true }, OpenAiToolSearch.hosted()))
      const answer = yield* Agent.run("Will it rain in Paris?").pipe(Effect.provide(agent))
      assert.strictEqual(answer.content, "Rain in Paris.")
      assert.deepStrictEqual(stats.calls, [
        { server: "weather", name: "get_forecast", args: { city: "Paris" } },
        { server: "weather", name: "report_7", args: {} }
      ])

      const [first, second, third] = provider.requests.map((seen) => seen.body)
      const offered = deferredOf(first)
      assert.strictEqual(offered.length, 46)
      assert.strictEqual(offered[0], "tool_search")
      assert.isTrue(offered.slice(1).every((name) => name.endsWith(" (deferred)")))
      assert.deepStrictEqual(deferredOf(second), offered)
      assert.deepStrictEqual(deferredOf(third), offered)
      // the search's items, as a request takes them, right before the call that followed them
      const types = second.input.map((item: { type?: string }) => item.type ?? "message")
      assert.deepStrictEqual(types.slice(-4), [
        "tool_search_call",
        "tool_search_output",
        "function_call",
        "function_call_output"
      ])
      assert.deepStrictEqual(second.input.at(-4), {
        type: "tool_search_call",
        id: "tsc_1",
        call_id: null,
        execution: "server",
        status: "completed",
        arguments: { query: "forecast of a city" }
      })
      const output = second.input.at(-3)
      assert.strictEqual(output.id, "tso_1")
      assert.deepStrictEqual(output.tools.map((tool: { name: string }) => tool.name), ["weather__get_forecast"])
      assert.notProperty(output, "created_by")
      // and still there in the request after
      const later = third.input.map((item: { type?: string }) => item.type ?? "message")
      assert.deepStrictEqual(later.slice(-6), [
        "tool_search_call",
        "tool_search_output",
        "function_call",
        "function_call_output",
        "function_call",
        "function_call_output"
      ])
      assert.deepStrictEqual(third.input.slice(-6, -4), second.input.slice(-4, -2))
    }))
})
