import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { GoogleClient, GoogleLanguageModel } from "@zett/ai-google"
import type { FakeProvider } from "@zett/testing/FakeProvider"
import { KEY } from "@zett/testing/ModelProbes"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export * from "@zett/testing/FakeProvider"
export * from "@zett/testing/ModelProbes"

const key = Redacted.make(KEY)

/** The Model on Google's Gemini API against the fake provider. */
export const geminiModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "google", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(GoogleLanguageModel.layer({ model: "gemini-2.5-flash" })),
    Layer.provide(GoogleClient.layer({ apiKey: key, apiUrl: provider.url })),
    Layer.provide(NodeHttpClient.layerUndici)
  )
