import { HostedToolSearch } from "@zett/common"
import { assert, describe, it } from "vitest"

describe("HostedToolSearch", () => {
  it("a replay keeps at most its limit of answers, the oldest going first; keeping an id again makes it the newest", () => {
    const replay = HostedToolSearch.makeReplay<string>(2)
    replay.keep("a", "first")
    replay.keep("b", "second")
    replay.keep("a", "first again")
    replay.keep("c", "third")
    assert.strictEqual(replay.get("b"), undefined)
    assert.strictEqual(replay.get("a"), "first again")
    assert.strictEqual(replay.get("c"), "third")
  })

  it("a replay read again keeps its entry: past the limit the entry read least recently goes, not one a run still sends", () => {
    const replay = HostedToolSearch.makeReplay<string>(2)
    replay.keep("a", "first")
    replay.keep("b", "second")
    // a later request of a's run reads it again
    assert.strictEqual(replay.get("a"), "first")
    replay.keep("c", "third")
    assert.strictEqual(replay.get("b"), undefined)
    assert.strictEqual(replay.get("a"), "first")
    assert.strictEqual(replay.get("c"), "third")
  })

  it("Anthropic: a search's input nested deeper than 64 levels is not kept (the block goes back with the input it started with)", () => {
    const replay = HostedToolSearch.makeReplay<HostedToolSearch.AnthropicKept>()
    const isSearch = HostedToolSearch.anthropicEvents(replay)
    const start = { type: "server_tool_use", id: "srv_1", name: "tool_search_tool_regex", input: {} }
    const deep = `{"pattern":${"[".repeat(10_000)}${"]".repeat(10_000)}}`
    for (
      const event of [
        { type: "content_block_start", index: 0, content_block: start },
        { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: deep } },
        { type: "content_block_stop", index: 0 },
        {
          type: "content_block_start",
          index: 1,
          content_block: { type: "tool_use", id: "toolu_1", name: "x", input: {} }
        }
      ]
    ) isSearch(event)
    assert.deepStrictEqual(replay.get("toolu_1"), { blocks: [start], before: 0 })
    // the whole request it goes back in can be written
    assert.doesNotThrow(() =>
      JSON.stringify(HostedToolSearch.withAnthropicKept([{ type: "tool_use", id: "toolu_1" }], replay))
    )
  })

  it("Anthropic: a stream's search blocks are said to be the search's, kept whole under the next tool_use, and put back before the text that followed them", () => {
    const replay = HostedToolSearch.makeReplay<HostedToolSearch.AnthropicKept>()
    const isSearch = HostedToolSearch.anthropicEvents(replay)
    const events = [
      { type: "message_start", message: { content: [] } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "server_tool_use", id: "srv_1", name: "tool_search_tool_regex", input: {} }
      },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{\"pattern\":" } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "\"weather\"}" } },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: {
          type: "tool_search_tool_result",
          tool_use_id: "srv_1",
          content: {
            type: "tool_search_tool_search_result",
            tool_references: [{ type: "tool_reference", tool_name: "get_weather" }]
          }
        }
      },
      { type: "content_block_stop", index: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Looking." } },
      { type: "content_block_stop", index: 2 },
      {
        type: "content_block_start",
        index: 3,
        content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} }
      },
      { type: "content_block_stop", index: 3 },
      // another server tool is not the search's
      {
        type: "content_block_start",
        index: 4,
        content_block: { type: "server_tool_use", id: "srv_2", name: "web_search", input: {} }
      }
    ]
    assert.deepStrictEqual(events.map(isSearch), [
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false
    ])
    const kept = replay.get("toolu_1")
    assert.strictEqual(kept?.before, 1)
    assert.deepStrictEqual(kept?.blocks[0], {
      type: "server_tool_use",
      id: "srv_1",
      name: "tool_search_tool_regex",
      input: { pattern: "weather" }
    })
    const call = { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} }
    const other = { type: "tool_use", id: "toolu_9", name: "get_weather", input: {} }
    const text = { type: "text", text: "Looking." }
    assert.deepStrictEqual(
      HostedToolSearch.withAnthropicKept([text, call, other], replay).map((block) => (block as { type: string }).type),
      ["server_tool_use", "tool_search_tool_result", "text", "tool_use", "tool_use"]
    )
    // without the text in the message (a provider that dropped it), right before the call
    assert.deepStrictEqual(
      HostedToolSearch.withAnthropicKept([call], replay).map((block) => (block as { type: string }).type),
      ["server_tool_use", "tool_search_tool_result", "tool_use"]
    )
  })

  it("Anthropic: a search followed by text only keeps nothing; the search tool's definition names its variant", () => {
    const replay = HostedToolSearch.makeReplay<HostedToolSearch.AnthropicKept>()
    const keep = HostedToolSearch.anthropicKeeper(replay)
    keep.search({ type: "server_tool_use", id: "srv_1", name: "tool_search_tool_bm25", input: { query: "x" } })
    keep.client({ type: "text", text: "Nothing fits." })
    assert.deepStrictEqual(HostedToolSearch.withAnthropicKept([{ type: "text", text: "Nothing fits." }], replay), [
      { type: "text", text: "Nothing fits." }
    ])
    assert.deepStrictEqual(HostedToolSearch.anthropicTool("bm25"), {
      type: "tool_search_tool_bm25_20251119",
      name: "tool_search_tool_bm25"
    })
  })

  it("OpenAI: the API's search items are kept as a request takes them under the next function call; client-executed ones are not", () => {
    const replay = HostedToolSearch.makeReplay<ReadonlyArray<unknown>>()
    const keep = HostedToolSearch.openAiKeeper(replay)
    const call = {
      type: "tool_search_call",
      id: "tsc_1",
      call_id: null,
      execution: "server",
      status: "completed",
      arguments: { query: "weather" },
      created_by: "model"
    }
    const output = {
      type: "tool_search_output",
      id: "tso_1",
      call_id: null,
      execution: "server",
      status: "completed",
      tools: [{ type: "function", name: "get_weather" }],
      created_by: "server"
    }
    keep({ ...call, status: "in_progress" }, false)
    keep(call, true)
    keep(output, true)
    keep({
      type: "tool_search_call",
      id: "tsc_2",
      call_id: "c",
      execution: "client",
      status: "completed",
      arguments: {}
    }, true)
    keep({ type: "function_call", call_id: "call_1", name: "get_weather", arguments: "{}" }, false)
    keep({ type: "function_call", call_id: "call_2", name: "get_weather", arguments: "{}" }, false)
    assert.deepStrictEqual(replay.get("call_1"), [
      {
        type: "tool_search_call",
        id: "tsc_1",
        call_id: null,
        execution: "server",
        status: "completed",
        arguments: { query: "weather" }
      },
      {
        type: "tool_search_output",
        id: "tso_1",
        call_id: null,
        execution: "server",
        status: "completed",
        tools: [{ type: "function", name: "get_weather" }]
      }
    ])
    assert.strictEqual(replay.get("call_2"), undefined)
  })
})
