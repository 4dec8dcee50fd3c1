import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { AmazonBedrockClient, AmazonBedrockLanguageModel } from "@zett/ai-amazon-bedrock"
import type { FakeProvider } from "@zett/testing/FakeProvider"
import { KEY } from "@zett/testing/ModelProbes"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export * from "@zett/testing/FakeProvider"
export * from "@zett/testing/ModelProbes"

const key = Redacted.make(KEY)

/** The Model on Bedrock's Converse API (a Bedrock API key) against the fake provider. */
export const bedrockModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "bedrock", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(AmazonBedrockLanguageModel.layer({ model: "anthropic.claude-3-5-haiku-20241022-v1:0" })),
    Layer.provide(AmazonBedrockClient.layer({ apiKey: key, apiUrl: provider.url })),
    Layer.provide(NodeHttpClient.layerUndici)
  )
