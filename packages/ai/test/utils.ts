import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import { Agent, type Model } from "@zett/agent"
import { AiModel, AiProvider } from "@zett/ai"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { fakeFactory, layer as fakeMcp, tool } from "@zett/testing-core/FakeMcp"
import type { FakeProvider } from "@zett/testing/FakeProvider"
import { KEY } from "@zett/testing/ModelProbes"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

export * from "@zett/testing/FakeProvider"
export * from "@zett/testing/ModelProbes"

const client = NodeHttpClient.layerUndici
const key = Redacted.make(KEY)

/**
 * The Model on @effect/ai-openai (tool schemas sent unchanged, `strict: false`) at `apiUrl` (its `/v1` URL), the
 * key protected as `AiProvider.protectSecrets` does it (then `transformClient`), on the application's HTTP client.
 */
export const openAiLayer = (
  apiUrl: string,
  options: Omit<AiModel.Options, "provider"> = {},
  transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient = (client) => client
): Layer.Layer<Model.Model, never, HttpClient.HttpClient> =>
  AiModel.layer({
    ...options,
    provider: "openai",
    redact: [...(options.redact ?? []), key],
    info: { provider: "openai", model: "gpt-4.1-mini" }
  }).pipe(
    Layer.provide(OpenAiLanguageModel.layer({ model: "gpt-4.1-mini", config: { strict: false } })),
    Layer.provide(
      OpenAiClient.layer({
        apiKey: key,
        apiUrl,
        transformClient: (client) => transformClient(AiProvider.protectSecrets([key])(client))
      })
    )
  )

/** The Model on @effect/ai-openai against the fake provider (with `transformClient` after the key's protection). */
export const openAiModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {},
  transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
): Layer.Layer<Model.Model> => openAiLayer(`${provider.url}/v1`, options, transformClient).pipe(Layer.provide(client))

/** The Model on @effect/ai-anthropic against the fake provider (with `transformClient` after the key's protection). */
export const anthropicModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {},
  transformClient: (client: HttpClient.HttpClient) => HttpClient.HttpClient = (client) => client
): Layer.Layer<Model.Model> =>
  AiModel.layer({
    ...options,
    provider: "anthropic",
    redact: [...(options.redact ?? []), key],
    info: { provider: "anthropic", model: "claude-sonnet-4-5" }
  }).pipe(
    Layer.provide(AnthropicLanguageModel.layer({ model: "claude-sonnet-4-5" })),
    Layer.provide(
      AnthropicClient.layer({
        apiKey: key,
        apiUrl: provider.url,
        transformClient: (client) => transformClient(AiProvider.protectSecrets([key])(client))
      })
    ),
    Layer.provide(client)
  )

/**
 * An agent with the MCP extension over two fake servers past tool search's threshold (weather: `get_forecast` and 29
 * reports; files: 15 operations) on `model`, and what the servers were called with.
 */
export const searchingAgent = (model: Layer.Layer<Model.Model>) => {
  const weatherTools = [
    tool("get_forecast", { type: "object", properties: { city: { type: "string" } } }, "The forecast of a city"),
    ...Array.from({ length: 29 }, (_, i) => tool(`report_${i}`, { type: "object" }, `Weather report number ${i}`))
  ]
  const fileTools = Array.from(
    { length: 15 },
    (_, i) => tool(`file_op_${i}`, { type: "object" }, `A file operation number ${i}`)
  )
  const { factory, stats } = fakeFactory({ weather: { tools: weatherTools }, files: { tools: fileTools } })
  const agent = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
    Layer.provide(fakeMcp({
      servers: ["weather", "files"].map((name) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })),
      clientFactory: factory
    })),
    Layer.provide(model)
  )
  return { agent, stats }
}
