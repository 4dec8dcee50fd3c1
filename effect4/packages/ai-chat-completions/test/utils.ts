/**
 * A fake Chat Completions server on 127.0.0.1 (node:http): it answers each request with a scripted reply (JSON or
 * a streamed chat completion) and records what it received; the Model on `ChatCompletionsLanguageModel` against it;
 * waits on real time while the test's clock is a `TestClock`. The 3 line's `@zett/testing/FakeProvider` and
 * `ModelProbes`, as far as these tests use them, on Effect 4.
 */
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { ChatCompletionsClient, ChatCompletionsLanguageModel } from "@zett/ai-chat-completions"
import { type FakeProvider, KEY, type Reply } from "@zett/testing-core/FakeProvider"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export * from "@zett/testing-core/FakeProvider"

export interface ChatScript {
  readonly text?: ReadonlyArray<string>
  readonly calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly pieces: ReadonlyArray<string> }>
  readonly usage?: { readonly input: number; readonly output: number; readonly cached?: number }
  readonly interleave?: boolean
  readonly finishReason?: string
}

/**
 * The `data:` payloads of a streamed Chat Completions answer (`chat.completion.chunk` objects as OpenAI, llama.cpp
 * and vLLM send them): the role, text deltas, tool-call deltas by `index` (id and name in the first), the finish
 * reason, then a usage chunk with empty `choices`. `chatSse` adds the closing `[DONE]`.
 */
export const chatChunks = (options: ChatScript): Array<unknown> => {
  const chunk = (delta: unknown, finish_reason: string | null = null) => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_760_000_000,
    model: "local-model",
    choices: [{ index: 0, delta, logprobs: null, finish_reason }]
  })
  const chunks: Array<unknown> = [chunk({ role: "assistant", content: "" })]
  for (const text of options.text ?? []) chunks.push(chunk({ content: text }))
  const calls = options.calls ?? []
  calls.forEach((call, index) =>
    chunks.push(chunk({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
    }))
  )
  const piece = (index: number, text: string) => chunk({ tool_calls: [{ index, function: { arguments: text } }] })
  if (options.interleave === true) {
    const longest = Math.max(0, ...calls.map((call) => call.pieces.length))
    for (let i = 0; i < longest; i++) {
      calls.forEach((call, index) => {
        if (i < call.pieces.length) chunks.push(piece(index, call.pieces[i]!))
      })
    }
  } else {
    calls.forEach((call, index) => call.pieces.forEach((text) => chunks.push(piece(index, text))))
  }
  chunks.push(chunk({}, options.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop")))
  if (options.usage !== undefined) {
    chunks.push({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1_760_000_000,
      model: "local-model",
      choices: [],
      usage: {
        prompt_tokens: options.usage.input,
        completion_tokens: options.usage.output,
        total_tokens: options.usage.input + options.usage.output,
        ...(options.usage.cached !== undefined
          ? { prompt_tokens_details: { cached_tokens: options.usage.cached } }
          : {})
      }
    })
  }
  return chunks
}

/** A Chat Completions event stream: one `data:` line per chunk, then `data: [DONE]`. */
export const chatSse = (chunks: ReadonlyArray<unknown>): Reply => (res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  for (const data of chunks) res.write(`data: ${JSON.stringify(data)}\n\n`)
  res.end("data: [DONE]\n\n")
}

const key = Redacted.make(KEY)

/** The Model on Chat Completions against the fake provider. */
export const chatModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "openai-chat", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(ChatCompletionsLanguageModel.layer({ model: "local-model" })),
    Layer.provide(ChatCompletionsClient.layer({ apiKey: key, apiUrl: `${provider.url}/v1` })),
    Layer.provide(FetchHttpClient.layer)
  )
