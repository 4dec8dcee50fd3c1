import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { ChatCompletionsClient, ChatCompletionsLanguageModel } from "@zett/ai-chat-completions"
import type { FakeProvider } from "@zett/testing/FakeProvider"
import { KEY } from "@zett/testing/ModelProbes"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export * from "@zett/testing/FakeProvider"
export * from "@zett/testing/ModelProbes"

const key = Redacted.make(KEY)

/** The Model on Chat Completions against the fake provider. */
export const chatModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "openai-chat", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(ChatCompletionsLanguageModel.layer({ model: "local-model" })),
    Layer.provide(ChatCompletionsClient.layer({ apiKey: key, apiUrl: `${provider.url}/v1` })),
    Layer.provide(NodeHttpClient.layerUndici)
  )
