/**
 * A fake Messages API server on 127.0.0.1 (node:http, from `@zett/testing-core/FakeProvider`) and the Model on
 * `AnthropicLanguageModel` against it; the events of a streamed answer as the 3 line's `anthropicEvents` writes them.
 */
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { AnthropicClient, AnthropicLanguageModel } from "@zett/ai-anthropic"
import { type FakeProvider, KEY } from "@zett/testing-core/FakeProvider"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export * from "@zett/testing-core/FakeProvider"

export interface StreamScript {
  /** A search the API ran first (its own BM25 search): the names it found, or the error code it failed with. */
  readonly hostedSearch?: {
    readonly id: string
    readonly query: string
    readonly found: ReadonlyArray<string>
    readonly error?: string
  }
  readonly text?: ReadonlyArray<string>
  readonly calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly pieces: ReadonlyArray<string> }>
  readonly usage?: { readonly input: number; readonly output: number; readonly cached?: number }
  /** The answer's `stop_reason` (by default `tool_use` with calls, else `end_turn`). */
  readonly stopReason?: string
}

/** The server-sent events of a streamed answer: the text block, then each tool_use block, then the stop. */
export const anthropicEvents = (options: StreamScript): Array<{ readonly event: string; readonly data: unknown }> => {
  const events: Array<{ event: string; data: unknown }> = []
  const push = (data: { readonly type: string } & Record<string, unknown>) => events.push({ event: data.type, data })
  push({
    type: "message_start",
    message: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      usage: {
        input_tokens: options.usage?.input ?? 0,
        output_tokens: 1,
        ...(options.usage?.cached !== undefined ? { cache_read_input_tokens: options.usage.cached } : {})
      }
    }
  })
  let index = 0
  const search = options.hostedSearch
  if (search !== undefined) {
    push({
      type: "content_block_start",
      index,
      content_block: { type: "server_tool_use", id: search.id, name: "tool_search_tool_bm25", input: {} }
    })
    push({
      type: "content_block_delta",
      index,
      delta: { type: "input_json_delta", partial_json: JSON.stringify({ query: search.query }) }
    })
    push({ type: "content_block_stop", index })
    index++
    push({
      type: "content_block_start",
      index,
      content_block: {
        type: "tool_search_tool_result",
        tool_use_id: search.id,
        content: search.error !== undefined
          ? { type: "tool_search_tool_result_error", error_code: search.error }
          : {
            type: "tool_search_tool_search_result",
            tool_references: search.found.map((tool_name) => ({ type: "tool_reference", tool_name }))
          }
      }
    })
    push({ type: "content_block_stop", index })
    index++
  }
  if (options.text !== undefined) {
    push({ type: "content_block_start", index, content_block: { type: "text", text: "" } })
    for (const text of options.text) push({ type: "content_block_delta", index, delta: { type: "text_delta", text } })
    push({ type: "content_block_stop", index })
    index++
  }
  for (const call of options.calls ?? []) {
    push({
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} }
    })
    for (const partial_json of call.pieces) {
      push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })
    }
    push({ type: "content_block_stop", index })
    index++
  }
  push({
    type: "message_delta",
    delta: {
      stop_reason: options.stopReason ?? ((options.calls ?? []).length > 0 ? "tool_use" : "end_turn"),
      stop_sequence: null
    },
    usage: { output_tokens: options.usage?.output ?? 0 }
  })
  push({ type: "message_stop" })
  return events
}

const key = Redacted.make(KEY)

/** The Model on Anthropic's Messages API against the fake provider (with `hostedSearch`, the API's own search). */
export const anthropicModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {},
  hostedSearch?: "bm25" | "regex"
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "anthropic", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5", hostedSearch })),
    Layer.provide(AnthropicClient.layer({ apiKey: key, apiUrl: provider.url })),
    Layer.provide(FetchHttpClient.layer)
  )
