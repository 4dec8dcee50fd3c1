/**
 * A fake Responses API server on 127.0.0.1 (node:http, from `@zett/testing-core/FakeProvider`) and the Model on
 * `OpenAiLanguageModel` against it; the events of a streamed response as the 3 line's `openAiEvents` writes them.
 */
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { OpenAiClient, OpenAiLanguageModel } from "@zett/ai-openai"
import { type FakeProvider, KEY } from "@zett/testing-core/FakeProvider"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export * from "@zett/testing-core/FakeProvider"

export interface StreamScript {
  /** A search the API ran first (its own tool search): the names of the tools it loaded. */
  readonly hostedSearch?: { readonly id: string; readonly query: string; readonly found: ReadonlyArray<string> }
  /** A search the model asks the client to run (a client-executed `tool_search_call`), with its call id. */
  readonly clientSearch?: { readonly callId: string; readonly arguments: unknown }
  readonly text?: ReadonlyArray<string>
  readonly calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly pieces: ReadonlyArray<string> }>
  readonly usage?: { readonly input: number; readonly output: number; readonly cached?: number }
}

const response = (status: string, output: ReadonlyArray<unknown>, usage?: StreamScript["usage"]) => ({
  id: "resp_1",
  object: "response",
  status,
  error: null,
  incomplete_details: null,
  model: "gpt-5.4",
  output,
  usage: usage === undefined ? null : {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cached ?? 0 },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input + usage.output
  }
})

/** The server-sent events of a streamed response: searches, the text, each function call, then the completion. */
export const openAiEvents = (options: StreamScript): Array<{ readonly event: string; readonly data: unknown }> => {
  const events: Array<{ event: string; data: unknown }> = []
  let sequence = 0
  const push = (data: { readonly type: string } & Record<string, unknown>) =>
    events.push({ event: data.type, data: { ...data, sequence_number: sequence++ } })
  const output: Array<unknown> = []
  push({ type: "response.created", response: response("in_progress", []) })
  let index = 0
  const item = (added: unknown, done: unknown) => {
    push({ type: "response.output_item.added", output_index: index, item: added })
    push({ type: "response.output_item.done", output_index: index, item: done })
    output.push(done)
    index++
  }
  const hosted = options.hostedSearch
  if (hosted !== undefined) {
    const call = (status: string) => ({
      type: "tool_search_call",
      id: `tsc_${hosted.id}`,
      call_id: null,
      execution: "server",
      arguments: { query: hosted.query },
      status,
      created_by: "model"
    })
    const found = (status: string) => ({
      type: "tool_search_output",
      id: `tso_${hosted.id}`,
      call_id: null,
      execution: "server",
      status,
      tools: hosted.found.map((name) => ({
        type: "function",
        name,
        parameters: { type: "object" },
        defer_loading: true
      })),
      created_by: "server"
    })
    item(call("in_progress"), call("completed"))
    item(found("in_progress"), found("completed"))
  }
  const client = options.clientSearch
  if (client !== undefined) {
    const call = (status: string, withArguments: boolean) => ({
      type: "tool_search_call",
      id: `tsc_${client.callId}`,
      call_id: client.callId,
      execution: "client",
      ...(withArguments ? { arguments: client.arguments } : {}),
      status
    })
    item(call("in_progress", false), call("completed", true))
  }
  if (options.text !== undefined) {
    const message = (content: ReadonlyArray<unknown>, status: string) => ({
      type: "message",
      id: "msg_1",
      status,
      role: "assistant",
      content
    })
    push({ type: "response.output_item.added", output_index: index, item: message([], "in_progress") })
    for (const delta of options.text) {
      push({ type: "response.output_text.delta", item_id: "msg_1", output_index: index, content_index: 0, delta })
    }
    const done = message([{ type: "output_text", text: options.text.join(""), annotations: [] }], "completed")
    push({ type: "response.output_item.done", output_index: index, item: done })
    output.push(done)
    index++
  }
  for (const call of options.calls ?? []) {
    const fc = (args: string, status: string) => ({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: args,
      status
    })
    push({ type: "response.output_item.added", output_index: index, item: fc("", "in_progress") })
    for (const delta of call.pieces) {
      push({ type: "response.function_call_arguments.delta", item_id: `fc_${call.id}`, output_index: index, delta })
    }
    const done = fc(call.pieces.join(""), "completed")
    push({ type: "response.output_item.done", output_index: index, item: done })
    output.push(done)
    index++
  }
  push({ type: "response.completed", response: response("completed", output, options.usage) })
  return events
}

const key = Redacted.make(KEY)

/** The Model on OpenAI's Responses API against the fake provider (with `hostedSearch`, the API's own search). */
export const openAiModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {},
  hostedSearch?: boolean
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "openai", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(OpenAiLanguageModel.layer({ model: "gpt-5.4", hostedSearch })),
    Layer.provide(OpenAiClient.layer({ apiKey: key, apiUrl: `${provider.url}/v1` })),
    Layer.provide(FetchHttpClient.layer)
  )
