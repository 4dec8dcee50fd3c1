/**
 * A fake Gemini API server on 127.0.0.1 (node:http): it answers each request with a scripted reply (JSON or
 * server-sent events) and records what it received; the Model on `GoogleLanguageModel` against it; waits on real
 * time while the test's clock is a `TestClock`; the logs and spans a test reads. The 3 line's
 * `@zett/testing/FakeProvider` and `ModelProbes`, as far as these tests use them, on Effect 4.
 */
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { GoogleClient, GoogleLanguageModel } from "@zett/ai-google"
import { type FakeProvider, KEY } from "@zett/testing-core/FakeProvider"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export * from "@zett/testing-core/FakeProvider"

export interface StreamScript {
  readonly text?: ReadonlyArray<string>
  readonly calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly pieces: ReadonlyArray<string> }>
  readonly usage?: { readonly input: number; readonly output: number; readonly cached?: number }
}

/**
 * The `data:` payloads of a streamed Gemini answer (`GenerateContentResponse` objects): one per text piece, the
 * function calls (whole, as Gemini sends them; `pieces` are joined) in one chunk, then the finish with
 * `usageMetadata`. Write them with `sse(geminiChunks(...).map((data) => ({ data })))`.
 */
export const geminiChunks = (options: StreamScript): Array<unknown> => {
  const chunk = (parts: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
    modelVersion: "gemini-test"
  })
  const chunks: Array<unknown> = (options.text ?? []).map((text) => chunk([{ text }]))
  const calls = options.calls ?? []
  if (calls.length > 0) {
    chunks.push(
      chunk(calls.map((call) => ({ functionCall: { name: call.name, args: JSON.parse(call.pieces.join("")) } })))
    )
  }
  chunks.push({
    ...chunk([{ text: "" }], { finishReason: "STOP" }),
    usageMetadata: {
      promptTokenCount: options.usage?.input ?? 0,
      candidatesTokenCount: options.usage?.output ?? 0,
      totalTokenCount: (options.usage?.input ?? 0) + (options.usage?.output ?? 0),
      ...(options.usage?.cached !== undefined ? { cachedContentTokenCount: options.usage.cached } : {})
    }
  })
  return chunks
}

const key = Redacted.make(KEY)

/** The Model on Google's Gemini API against the fake provider. */
export const geminiModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "google", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(GoogleLanguageModel.layer({ model: "gemini-2.5-flash" })),
    Layer.provide(GoogleClient.layer({ apiKey: key, apiUrl: provider.url })),
    Layer.provide(FetchHttpClient.layer)
  )
