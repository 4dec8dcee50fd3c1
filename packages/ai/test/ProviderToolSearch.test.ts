/**
 * What the pinned providers do with their APIs' own tool search, read on the wire formats of a fake provider: why
 * Zett offers its own `search_tools` instead (docs/toolsearch.md). When one of these fails after a provider
 * upgrade, provider-native tool search may have become possible.
 */
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { anthropicEvents, anthropicModel, buildModel, fakeProvider, openAiEvents, openAiModel, sse } from "./utils.js"

const weather = { name: "get_weather", description: "The weather of a city", parameters: { type: "object" } }
const request: Model.ModelRequest = { messages: [Message.user("Weather in Paris?")], tools: [weather], serverTools: [] }

describe("provider-native tool search with the pinned providers", () => {
  it.scoped("@effect/ai-openai sends a tool without defer_loading and no tool_search; it drops a hosted search's items, and the usage of the step that searched", () =>
    Effect.gen(function*() {
      const call = { id: "call_1", name: "get_weather", pieces: ["{\"city\":", "\"Paris\"}"] }
      const plain = openAiEvents({ calls: [call], usage: { input: 40, output: 5 } })
      // the Responses API's hosted tool search: a tool_search_call and its tool_search_output before the call
      const search = {
        type: "tool_search_call",
        id: "tsc_1",
        call_id: null,
        execution: "server",
        arguments: { query: "weather", paths: null },
        status: "completed"
      }
      const found = {
        type: "tool_search_output",
        id: "tso_1",
        call_id: null,
        execution: "server",
        status: "completed",
        tools: [{ type: "function", ...weather, defer_loading: true }]
      }
      const items = [search, found].flatMap((item, i) => [
        { event: "response.output_item.added", data: { type: "response.output_item.added", output_index: i, item } },
        { event: "response.output_item.done", data: { type: "response.output_item.done", output_index: i, item } }
      ])
      const events = plain.map((event) => {
        const data = event.data as { type: string; response?: { output: Array<unknown> } }
        return data.type === "response.completed"
          ? {
            ...event,
            data: { ...data, response: { ...data.response, output: [search, found, ...data.response!.output] } }
          }
          : event
      })
      const provider = yield* fakeProvider([sse([events[0]!, ...items, ...events.slice(1)]), sse(plain)])
      const model = yield* buildModel(openAiModel(provider))
      const tags = Effect.map(Stream.runCollect(model.stream(request)), (out) => Chunk.toArray(out).map((e) => e._tag))
      const searched = yield* tags
      // the same answer without the search: the call and the finish with its usage
      assert.deepStrictEqual(yield* tags, ["ToolCall", "Finish"])

      const tools = provider.requests[0]!.body.tools as Array<Record<string, unknown>>
      assert.deepStrictEqual(tools.map((tool) => tool.type), ["function"])
      assert.notProperty(tools[0], "defer_loading")
      // the call after the search arrives; the response.completed that lists the search's items does not decode,
      // so the step ends without a finish reason and without its usage
      assert.deepStrictEqual(searched, ["ToolCall"])
    }))

  it.scoped("@effect/ai-anthropic fails the answer in which Claude runs its tool search tool", () =>
    Effect.gen(function*() {
      const plain = anthropicEvents({ calls: [{ id: "toolu_1", name: "get_weather", pieces: ["{}"] }] })
      const shift = (event: (typeof plain)[number]) => {
        const data = event.data as { index?: number }
        return data.index === undefined ? event : { ...event, data: { ...data, index: data.index + 2 } }
      }
      const search = [
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: {} }
        },
        {
          type: "content_block_delta",
          index: 0,
          delta: { type: "input_json_delta", partial_json: "{\"query\":\"weather\"}" }
        },
        { type: "content_block_stop", index: 0 },
        {
          type: "content_block_start",
          index: 1,
          content_block: {
            type: "tool_search_tool_result",
            tool_use_id: "srvtoolu_1",
            content: {
              type: "tool_search_tool_search_result",
              tool_references: [{ type: "tool_reference", tool_name: "get_weather" }]
            }
          }
        },
        { type: "content_block_stop", index: 1 }
      ].map((data) => ({ event: data.type, data }))
      const provider = yield* fakeProvider([sse([plain[0]!, ...search, ...plain.slice(1).map(shift)]), sse(plain)])
      const model = yield* buildModel(anthropicModel(provider))
      const result = yield* Effect.either(Stream.runCollect(model.stream(request)))
      // the same answer without the search: the call and the finish
      const tags = Chunk.toArray(yield* Stream.runCollect(model.stream(request))).map((event) => event._tag)
      assert.deepStrictEqual(tags, ["ToolCall", "Finish"])

      const tools = provider.requests[0]!.body.tools as Array<Record<string, unknown>>
      assert.deepStrictEqual(tools.map((tool) => tool.name), ["get_weather"])
      assert.notProperty(tools[0], "defer_loading")
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) {
        assert.instanceOf(result.left, Model.ModelError)
        assert.strictEqual(result.left.reason, "InvalidResponse")
        assert.include(result.left.message, "could not be read")
      }
    }))
})
