/**
 * Anthropic's deferred loading under tool search, read on the Messages API's wire format of a fake provider: what
 * the tools of each request are, how a search's result goes back, and what the agent gets of the answers.
 */
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Agent, Message, type Model } from "@zett/agent"
import { AiModel, AnthropicToolSearch } from "@zett/ai"
import { McpClientFactory, McpServerConfig, McpServers, McpToolCache, McpToolSearch } from "@zett/mcp"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import { fakeFactory, tool } from "@zett/testing-core/FakeMcp"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { anthropicEvents, anthropicModel, buildModel, fakeProvider, json, searchingAgent, sse } from "./utils.js"

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

const toolMessage = (toolCallId: string, content: unknown, status: Message.ToolStatus = "ok") =>
  new Message.ToolMessage({ toolCallId, name: "search_tools", status, content })

const first: Model.ModelRequest = {
  messages: [Message.user("Will it rain in Paris?")],
  tools: [search],
  serverTools: [],
  deferredTools: [weather, stocks],
  toolSearch: "search_tools"
}

// the run after a search that found the forecast: loaded (offered), and still among the deferred tools
const afterSearch: Model.ModelRequest = {
  ...first,
  messages: [
    ...first.messages,
    Message.assistant("", [
      new Message.ToolCall({ id: "toolu_1", name: "search_tools", arguments: { query: "rain" } })
    ]),
    toolMessage("toolu_1", {
      tools: [{ name: "weather__get_forecast", description: "The forecast of a city" }, {
        name: "files__read_file",
        description: "A tool always offered"
      }],
      note: "These tools are loaded now: call them by name."
    })
  ],
  tools: [search, weather]
}

const toolsOf = (body: { tools: Array<Record<string, unknown>> }) =>
  body.tools.map((tool) => `${tool.name}${tool.defer_loading === true ? " (deferred)" : ""}`)

describe("Anthropic's deferred loading under tool search", () => {
  it.scoped("the tools held back go to the Messages API with defer_loading and the search tool without, under the tool search beta", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      const model = yield* buildModel(
        anthropicModel(provider, { deferLoading: true }, AnthropicToolSearch.transformClient)
      )
      yield* Stream.runDrain(model.stream(first))
      const seen = provider.requests[0]!
      assert.deepStrictEqual(toolsOf(seen.body), [
        "search_tools",
        "weather__get_forecast (deferred)",
        "stocks__get_quote (deferred)"
      ])
      // the definition a search loads is the tool's own
      assert.deepStrictEqual(seen.body.tools[1], {
        name: "weather__get_forecast",
        description: "The forecast of a city",
        input_schema: { type: "object", properties: { city: { type: "string" } } },
        defer_loading: true
      })
      assert.include(String(seen.headers["anthropic-beta"]).split(","), AnthropicToolSearch.beta)
    }))

  it.scoped("a search's result goes back as tool_reference blocks of the deferred tools it found, and a tool it loaded stays deferred", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["It will rain."] }))])
      const model = yield* buildModel(
        anthropicModel(provider, { deferLoading: true }, AnthropicToolSearch.transformClient)
      )
      yield* Stream.runDrain(model.stream(afterSearch))
      const body = provider.requests[0]!.body
      // the same tools as before the search: the prompt cache of the tools holds
      assert.deepStrictEqual(toolsOf(body), [
        "search_tools",
        "weather__get_forecast (deferred)",
        "stocks__get_quote (deferred)"
      ])
      const result = body.messages[2].content[0]
      // a tool the search named that is not deferred (always offered) is not referenced
      assert.deepStrictEqual(result.content, [{ type: "tool_reference", tool_name: "weather__get_forecast" }])
      assert.strictEqual(result.tool_use_id, "toolu_1")
      assert.strictEqual(result.is_error, false)
      assert.strictEqual(body.messages[1].content[0].name, "search_tools")
    }))

  it.scoped("a call of a deferred tool reaches the agent as a tool call, with the usage of its step", () =>
    Effect.gen(function*() {
      const call = { id: "toolu_2", name: "stocks__get_quote", pieces: ["{\"symbol\":", "\"ACME\"}"] }
      const provider = yield* fakeProvider([sse(anthropicEvents({ calls: [call], usage: { input: 30, output: 4 } }))])
      const model = yield* buildModel(
        anthropicModel(provider, { deferLoading: true }, AnthropicToolSearch.transformClient)
      )
      const events = Chunk.toArray(yield* Stream.runCollect(model.stream(first)))
      assert.deepStrictEqual(events.map((event) => event._tag), ["ToolCall", "Finish"])
      const toolCall = events[0]!._tag === "ToolCall" ? events[0]!.call : undefined
      assert.strictEqual(toolCall?.name, "stocks__get_quote")
      assert.deepStrictEqual(toolCall?.arguments, { symbol: "ACME" })
      assert.strictEqual(toolCall?.invalidArguments, undefined)
      const finish = events[1]!._tag === "Finish" ? events[1]! : undefined
      assert.strictEqual(finish?.usage?.inputTokens, 30)
    }))

  it.scoped("a search that found nothing, or failed, goes back as it was", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({ text: ["ok"] })),
        sse(anthropicEvents({ text: ["ok"] }))
      ])
      const model = yield* buildModel(
        anthropicModel(provider, { deferLoading: true }, AnthropicToolSearch.transformClient)
      )
      const call = Message.assistant("", [
        new Message.ToolCall({ id: "toolu_1", name: "search_tools", arguments: { query: "rain" } })
      ])
      const nothing = { tools: [], note: "No tool matched. Search again with other words for what the tool should do." }
      yield* Stream.runDrain(model.stream({
        ...first,
        messages: [...first.messages, call, toolMessage("toolu_1", nothing)]
      }))
      const failed = { error: { type: "InvalidArguments", message: "query is missing" } }
      yield* Stream.runDrain(model.stream({
        ...first,
        messages: [...first.messages, call, toolMessage("toolu_1", failed, "TOOL_FAILED")]
      }))
      const [empty, failure] = provider.requests.map((seen) => seen.body.messages[2].content[0])
      assert.deepStrictEqual(JSON.parse(empty.content), nothing)
      assert.strictEqual(failure.is_error, true)
      assert.deepStrictEqual(JSON.parse(failure.content), failed)
    }))

  it.scoped("without deferLoading the tools held back are not sent, and nothing is rewritten", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      const model = yield* buildModel(anthropicModel(provider, {}, AnthropicToolSearch.transformClient))
      yield* Stream.runDrain(model.stream(afterSearch))
      const seen = provider.requests[0]!
      assert.deepStrictEqual(toolsOf(seen.body), ["search_tools", "weather__get_forecast"])
      assert.strictEqual(typeof seen.body.messages[2].content[0].content, "string")
      assert.notInclude(String(seen.headers["anthropic-beta"] ?? ""), AnthropicToolSearch.beta)
    }))

  it.scoped("an agent under MCP tool search: Claude is offered every held-back tool deferred, searches, gets references and calls what it found", () =>
    Effect.gen(function*() {
      const search = {
        id: "toolu_1",
        name: "search_tools",
        pieces: [JSON.stringify({ query: "forecast of a city", limit: 1 })]
      }
      const forecast = { id: "toolu_2", name: "weather__get_forecast", pieces: [JSON.stringify({ city: "Paris" })] }
      const provider = yield* fakeProvider([
        sse(anthropicEvents({ calls: [search] })),
        sse(anthropicEvents({ calls: [forecast] })),
        sse(anthropicEvents({ text: ["Rain in Paris."] }))
      ])
      const { agent, stats } = searchingAgent(
        anthropicModel(provider, { deferLoading: true }, AnthropicToolSearch.transformClient)
      )
      const answer = yield* Agent.run("Will it rain in Paris?").pipe(Effect.provide(agent))
      assert.strictEqual(answer.content, "Rain in Paris.")
      assert.deepStrictEqual(stats.calls, [{ server: "weather", name: "get_forecast", args: { city: "Paris" } }])

      const [first, second, third] = provider.requests.map((seen) => seen.body)
      // every MCP tool is in every request, all but the search tool deferred, in the same order
      const offered = toolsOf(first)
      assert.strictEqual(offered.length, 46)
      assert.strictEqual(offered[0], "search_tools")
      assert.isTrue(offered.slice(1).every((name) => name.endsWith(" (deferred)")))
      assert.deepStrictEqual(toolsOf(second), offered)
      assert.deepStrictEqual(toolsOf(third), offered)
      // the system text says tools are searched
      assert.include(JSON.stringify(first.system), "Tool search is on: 45 tools")
      // the search's result goes back as a reference to what it found
      const results = second.messages.flatMap((message: { content: unknown }) =>
        Array.isArray(message.content)
          ? message.content.filter((block: { type: string }) => block.type === "tool_result")
          : []
      )
      assert.deepStrictEqual(results[0].content, [{ type: "tool_reference", tool_name: "weather__get_forecast" }])
    }))
})

describe("Anthropic's own search, run by the Messages API (hosted)", () => {
  const withSystem: Model.ModelRequest = {
    ...first,
    messages: [Message.system("Tool search is on. Call search_tools with what you need to do."), ...first.messages]
  }

  it.scoped("the Messages API gets its search tool instead of search_tools, the held-back tools deferred, and a system text that names it", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      const model = yield* buildModel(anthropicModel(provider, { deferLoading: true }, AnthropicToolSearch.hosted()))
      yield* Stream.runDrain(model.stream(withSystem))
      const seen = provider.requests[0]!
      assert.deepStrictEqual(seen.body.tools[0], {
        type: "tool_search_tool_bm25_20251119",
        name: "tool_search_tool_bm25"
      })
      assert.deepStrictEqual(toolsOf(seen.body), [
        "tool_search_tool_bm25",
        "weather__get_forecast (deferred)",
        "stocks__get_quote (deferred)"
      ])
      assert.include(JSON.stringify(seen.body.system), "Call tool_search_tool_bm25 with what you need to do.")
      assert.notInclude(JSON.stringify(seen.body.system), "search_tools")
      assert.include(String(seen.headers["anthropic-beta"]).split(","), AnthropicToolSearch.beta)

      const regex = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      const regexModel = yield* buildModel(
        anthropicModel(regex, { deferLoading: true }, AnthropicToolSearch.hosted("regex"))
      )
      yield* Stream.runDrain(regexModel.stream(withSystem))
      assert.deepStrictEqual(regex.requests[0]!.body.tools[0], {
        type: "tool_search_tool_regex_20251119",
        name: "tool_search_tool_regex"
      })
    }))

  it.scoped("an answer nested deeper than 256 levels is left as it came (no edit writes it again); a base URL that does not parse fails as a request, not a defect", () =>
    Effect.gen(function*() {
      const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`
      const provider = yield* fakeProvider([(res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text",` +
            `"text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1},` +
            `"extra":${deep}}`
        )
      }])
      const generate = (apiUrl: string) =>
        LanguageModel.generateText({ prompt: Prompt.make("hi") }).pipe(
          Effect.provideService(AiModel.DeferredTools, {
            names: new Set(["weather__get_forecast"]),
            toolSearch: "search_tools"
          }),
          Effect.provide(
            AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
              Layer.provide(AnthropicClient.layer({
                apiKey: Redacted.make("sk-ant-deep-test"),
                apiUrl,
                transformClient: AnthropicToolSearch.hosted()
              })),
              Layer.provide(NodeHttpClient.layerUndici)
            )
          )
        )
      const response = yield* generate(provider.url)
      assert.strictEqual(response.text, "ok")
      assert.strictEqual(provider.requests.length, 1)
      const failed = yield* Effect.exit(generate("http://127.0.0.1:99999"))
      assert.isTrue(Exit.isFailure(failed) && Cause.isFailType(failed.cause), String(failed))
    }))

  it.scoped("without deferLoading the hosted transform sends the tools as they are and leaves the answer alone", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      const model = yield* buildModel(anthropicModel(provider, {}, AnthropicToolSearch.hosted()))
      const events = Chunk.toArray(yield* Stream.runCollect(model.stream(withSystem)))
      const seen = provider.requests[0]!
      assert.deepStrictEqual(toolsOf(seen.body), ["search_tools"])
      assert.include(JSON.stringify(seen.body.system), "Call search_tools with")
      assert.notInclude(String(seen.headers["anthropic-beta"] ?? ""), AnthropicToolSearch.beta)
      assert.deepStrictEqual(events.map((event) => event._tag), ["TextDelta", "Finish"])
    }))

  it.scoped("an agent under MCP tool search: the API searches, Claude calls the tool it found in the same answer, and the search goes back with every later request", () =>
    Effect.gen(function*() {
      const forecast = { id: "toolu_2", name: "weather__get_forecast", pieces: [JSON.stringify({ city: "Paris" })] }
      const report = { id: "toolu_3", name: "weather__report_7", pieces: ["{}"] }
      const provider = yield* fakeProvider([
        sse(anthropicEvents({
          hostedSearch: { id: "srvtoolu_1", query: "forecast of a city", found: ["weather__get_forecast"] },
          text: ["Let me look."],
          calls: [forecast]
        })),
        sse(anthropicEvents({
          hostedSearch: { id: "srvtoolu_2", query: "report", found: [], error: "unavailable" },
          calls: [report]
        })),
        sse(anthropicEvents({ text: ["Rain in Paris."] }))
      ])
      const { agent, stats } = searchingAgent(
        anthropicModel(provider, { deferLoading: true }, AnthropicToolSearch.hosted())
      )
      const answer = yield* Agent.run("Will it rain in Paris?").pipe(Effect.provide(agent))
      assert.strictEqual(answer.content, "Rain in Paris.")
      // the agent ran the tools Claude called; the searches were the API's, never a call of search_tools
      assert.deepStrictEqual(stats.calls, [
        { server: "weather", name: "get_forecast", args: { city: "Paris" } },
        { server: "weather", name: "report_7", args: {} }
      ])

      const [first, second, third] = provider.requests.map((seen) => seen.body)
      const offered = toolsOf(first)
      assert.strictEqual(offered.length, 46)
      assert.strictEqual(offered[0], "tool_search_tool_bm25")
      assert.isTrue(offered.slice(1).every((name) => name.endsWith(" (deferred)")))
      assert.deepStrictEqual(toolsOf(second), offered)
      assert.deepStrictEqual(toolsOf(third), offered)
      assert.include(JSON.stringify(first.system), "Call tool_search_tool_bm25 with what you need to do")

      // the first answer's search, whole and where it was (before its text), in the second and third requests
      const searched = [
        {
          type: "server_tool_use",
          id: "srvtoolu_1",
          name: "tool_search_tool_bm25",
          input: { query: "forecast of a city" }
        },
        {
          type: "tool_search_tool_result",
          tool_use_id: "srvtoolu_1",
          content: {
            type: "tool_search_tool_search_result",
            tool_references: [{ type: "tool_reference", tool_name: "weather__get_forecast" }]
          }
        }
      ]
      type Block = { readonly type: string; readonly id?: string }
      const assistants = (body: { messages: Array<{ role: string; content: Array<Block> }> }) =>
        body.messages.filter((message) => message.role === "assistant").map((message) => message.content)
      const [inSecond] = assistants(second)
      assert.deepStrictEqual(inSecond!.map((block) => block.type), [
        "server_tool_use",
        "tool_search_tool_result",
        "text",
        "tool_use"
      ])
      assert.deepStrictEqual(inSecond!.slice(0, 2), <Array<unknown>> searched)
      const [again, failed] = assistants(third)
      assert.deepStrictEqual(again, inSecond)
      // a search that failed goes back too, with its error
      assert.deepStrictEqual(
        failed!.slice(0, 2),
        <Array<unknown>> [
          { type: "server_tool_use", id: "srvtoolu_2", name: "tool_search_tool_bm25", input: { query: "report" } },
          {
            type: "tool_search_tool_result",
            tool_use_id: "srvtoolu_2",
            content: { type: "tool_search_tool_result_error", error_code: "unavailable" }
          }
        ]
      )
      assert.strictEqual(failed![2]!.id, "toolu_3")
    }))
})

describe("Anthropic's deferred loading with McpToolkit in an @effect/ai loop", () => {
  it.scoped("with deferLoading the toolkit's held-back tools go deferred, a search's result loads the found one by reference, and its call runs with no refresh", () =>
    Effect.gen(function*() {
      // generateText asks for a whole message, not a stream
      const message = (content: ReadonlyArray<{ readonly type: string; readonly [key: string]: unknown }>) =>
        json(200, {
          id: "msg_01",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content,
          stop_reason: content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 2 }
        })
      const provider = yield* fakeProvider([
        message([{
          type: "tool_use",
          id: "toolu_1",
          name: "search_tools",
          input: { query: "forecast of a city", limit: 1 }
        }]),
        message([{ type: "tool_use", id: "toolu_2", name: "weather__get_forecast", input: { city: "Paris" } }]),
        message([{ type: "text", text: "Rain in Paris." }])
      ])
      const { factory, stats } = fakeFactory({
        weather: {
          tools: [
            tool(
              "get_forecast",
              { type: "object", properties: { city: { type: "string" } } },
              "The forecast of a city"
            ),
            ...Array.from(
              { length: 44 },
              (_, i) => tool(`report_${i}`, { type: "object" }, `Weather report number ${i}`)
            )
          ]
        }
      })
      const key = Redacted.make("sk-ant-toolkit-test")
      const layer = Layer.mergeAll(
        McpServers.layer([McpServerConfig.http({ name: "weather", url: "http://127.0.0.1:1/weather" })]),
        Layer.succeed(McpClientFactory.McpClientFactory, factory),
        McpToolCache.layerMemory(),
        AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" }).pipe(
          Layer.provide(AnthropicClient.layer({
            apiKey: key,
            apiUrl: provider.url,
            transformClient: AnthropicToolSearch.transformClient
          })),
          Layer.provide(NodeHttpClient.layerUndici)
        )
      )
      const answer = yield* Effect.gen(function*() {
        const mcp = yield* McpToolkit.make({ deferLoading: true })
        // the transform reads which tools the provider holds back
        const deferred = { names: new Set(mcp.deferred.map((t) => t.name)), toolSearch: McpToolSearch.toolName }
        let prompt = Prompt.make("Will it rain in Paris?")
        for (let step = 0; step < 3; step++) {
          const response = yield* LanguageModel.generateText({ prompt, toolkit: mcp.toolkit }).pipe(
            Effect.provideService(AiModel.DeferredTools, deferred)
          )
          if (response.toolCalls.length === 0) return response.text
          prompt = Prompt.merge(prompt, Prompt.fromResponseParts(response.content))
        }
        return "no answer"
      }).pipe(Effect.provide(layer))
      assert.strictEqual(answer, "Rain in Paris.")
      assert.deepStrictEqual(stats.calls, [{ server: "weather", name: "get_forecast", args: { city: "Paris" } }])
      const [first, second, third] = provider.requests.map((seen) => seen.body)
      const offered = toolsOf(first)
      // every MCP tool deferred, search_tools (after them in the toolkit) not
      assert.strictEqual(offered.length, 46)
      assert.deepStrictEqual(offered.filter((name) => !name.endsWith(" (deferred)")), ["search_tools"])
      assert.deepStrictEqual(toolsOf(second), offered)
      assert.deepStrictEqual(toolsOf(third), offered)
      assert.include(
        JSON.stringify(second.messages),
        "{\"type\":\"tool_reference\",\"tool_name\":\"weather__get_forecast\"}"
      )
    }))
})
