/**
 * The model named in the environment: `ZETT_MODEL=<provider>:<model>`, with the provider's key
 * (`Config.redacted`) and base URL. Read through Effect's `Config`, so a test's `ConfigProvider` sets it. Each
 * provider's package loads only when a model of that provider is built, so `openai:` never loads Bedrock's code.
 *
 * @internal
 */
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import type { Model } from "@zett/agent"
import * as AiModel from "@zett/ai/AiModel"
import * as AiProvider from "@zett/ai/AiProvider"
import * as AnthropicToolSearch from "@zett/ai/AnthropicToolSearch"
import * as OpenAiToolSearch from "@zett/ai/OpenAiToolSearch"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * The providers `layerFromConfig` knows.
 *
 * @internal
 */
export type Provider = "openai" | "openai-chat" | "anthropic" | "google" | "bedrock"

/**
 * A model chosen through the environment: `ZETT_MODEL=openai:gpt-4.1-mini` (Responses API) or
 * `ZETT_MODEL=openai-chat:<model>` (Chat Completions, for servers without the Responses API) with `OPENAI_API_KEY`
 * and `OPENAI_BASE_URL`, or `ZETT_MODEL=anthropic:claude-...` with `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` (and
 * `ZETT_DEFER_LOADING=true` for the provider's own deferred loading under tool search, or `hosted` for its own search
 * too, `openai:` and `anthropic:`).
 *
 * @internal
 */
export interface ModelConfig {
  readonly provider: Provider
  readonly model: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  /** An OpenAI-compatible server (its `/v1` URL, e.g. `http://127.0.0.1:11434/v1` for Ollama) or an Anthropic proxy. */
  readonly baseUrl: Option.Option<string>
  /** Bedrock's region (`AWS_REGION`, default `us-east-1`), when no base URL is set. */
  readonly region?: string | undefined
  /**
   * `ZETT_DEFER_LOADING=true`, `openai:` and `anthropic:` only: the tools tool search holds back go to the model as
   * the provider's own deferred tools, and `search_tools`' results load them there (`OpenAiToolSearch`,
   * `AnthropicToolSearch`); `hosted`: the provider's own search finds and loads them (Anthropic's BM25 search).
   */
  readonly deferLoading?: boolean | "hosted" | undefined
}

const providers: Record<Provider, { readonly key: string; readonly url: string; readonly host: string }> = {
  openai: { key: "OPENAI_API_KEY", url: "OPENAI_BASE_URL", host: "api.openai.com" },
  "openai-chat": { key: "OPENAI_API_KEY", url: "OPENAI_BASE_URL", host: "api.openai.com" },
  anthropic: { key: "ANTHROPIC_API_KEY", url: "ANTHROPIC_BASE_URL", host: "api.anthropic.com" },
  google: { key: "GOOGLE_API_KEY", url: "GOOGLE_BASE_URL", host: "generativelanguage.googleapis.com" },
  bedrock: { key: "AWS_BEARER_TOKEN_BEDROCK", url: "BEDROCK_BASE_URL", host: "bedrock-runtime.<region>.amazonaws.com" }
}

// @effect/ai-openai calls `/v1/responses`, which Chat-Completions-only servers (llama.cpp, LM Studio, ...) lack
const responsesNotFound = "not found: the endpoint has no Responses API (/v1/responses) or no such model; " +
  "for a server that speaks only Chat Completions use openai-chat:<model>"

// `gen_ai.provider.name` as OpenTelemetry spells it: a Chat Completions server speaks OpenAI's API
const semconvProvider: Record<Provider, string> = {
  openai: "openai",
  "openai-chat": "openai",
  anthropic: "anthropic",
  google: "gcp.gemini",
  bedrock: "aws.bedrock"
}

const nonEmpty = <A>(config: Config.Config<A>, isEmpty: (a: A) => boolean) =>
  Config.option(config).pipe(Config.map(Option.filter((a) => !isEmpty(a))))

/**
 * Is a model configured? `None` when `ZETT_MODEL` is unset or empty (the demo then falls back to the scripted
 * model); fails when it is set but malformed or its provider's key is missing.
 *
 * @internal
 */
export const configured: Effect.Effect<Option.Option<ModelConfig>, ConfigError.ConfigError> = Effect.gen(function*() {
  const spec = yield* nonEmpty(Config.string("ZETT_MODEL"), (s) => s.trim() === "")
  if (Option.isNone(spec)) return Option.none()
  const text = spec.value.trim()
  const colon = text.indexOf(":")
  const provider = (colon < 0 ? "" : text.slice(0, colon).toLowerCase()) as Provider
  const model = colon < 0 ? "" : text.slice(colon + 1).trim()
  if (!(provider in providers) || model === "") {
    return yield* Effect.fail(ConfigError.InvalidData(
      ["ZETT_MODEL"],
      `expected openai:<model>, openai-chat:<model>, anthropic:<model>, google:<model> or bedrock:<model>, got ${
        JSON.stringify(text.slice(0, 80))
      }`
    ))
  }
  const names = providers[provider]
  // `Redacted.value` only to test for an empty value
  const apiKey = yield* nonEmpty(Config.redacted(names.key), (key) => Redacted.value(key).trim() === "")
  const baseUrl = yield* nonEmpty(Config.string(names.url), (url) => url.trim() === "").pipe(
    Effect.map(Option.map((url) => url.trim().replace(/\/+$/, "")))
  )
  if (Option.isNone(apiKey) && Option.isNone(baseUrl)) {
    return yield* Effect.fail(ConfigError.MissingData(
      [names.key],
      `${names.key} is needed for ${names.host}; for a local server without a key set ${names.url}`
    ))
  }
  const region = provider === "bedrock"
    ? Option.getOrUndefined(yield* nonEmpty(Config.string("AWS_REGION"), (region) => region.trim() === ""))
    : undefined
  const deferLoading = yield* Config.literal("hosted")("ZETT_DEFER_LOADING").pipe(
    Config.orElse(() => Config.boolean("ZETT_DEFER_LOADING")),
    Config.withDefault(false)
  )
  if (deferLoading && provider !== "anthropic" && provider !== "openai") {
    return yield* Effect.fail(ConfigError.InvalidData(
      ["ZETT_DEFER_LOADING"],
      `deferred loading is OpenAI's Responses API's and Anthropic's (openai:<model>, anthropic:<model>); ${provider}: ` +
        "models get search_tools alone"
    ))
  }
  return Option.some<ModelConfig>({
    provider,
    model,
    apiKey,
    baseUrl,
    ...(region !== undefined ? { region } : {}),
    ...(deferLoading ? { deferLoading } : {})
  })
})

type Options = Omit<AiModel.Options, "provider">

// the language model of each provider, from its package, loaded on first use
const languageModels: {
  readonly [P in Provider]: (
    config: ModelConfig,
    client: AiProvider.ClientOptions
  ) => Promise<Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient>>
} = {
  openai: async (config, client) => {
    const [OpenAiClient, OpenAiLanguageModel] = await Promise.all([
      import("@effect/ai-openai/OpenAiClient"),
      import("@effect/ai-openai/OpenAiLanguageModel")
    ])
    const protect = client.transformClient ?? ((c: HttpClient.HttpClient) => c)
    const search = config.deferLoading === "hosted"
      ? OpenAiToolSearch.hosted()
      : config.deferLoading === true
      ? OpenAiToolSearch.transformClient
      : undefined
    const transformClient = search === undefined ? protect : (c: HttpClient.HttpClient) => search(protect(c))
    // tool schemas sent with `strict: false`, so they reach the model unchanged
    return OpenAiLanguageModel.layer({ model: config.model, config: { strict: false } }).pipe(
      Layer.provide(OpenAiClient.layer({ ...client, transformClient }))
    )
  },
  anthropic: async (config, client) => {
    const [AnthropicClient, AnthropicLanguageModel] = await Promise.all([
      import("@effect/ai-anthropic/AnthropicClient"),
      import("@effect/ai-anthropic/AnthropicLanguageModel")
    ])
    const protect = client.transformClient ?? ((c: HttpClient.HttpClient) => c)
    const search = config.deferLoading === "hosted"
      ? AnthropicToolSearch.hosted("bm25")
      : config.deferLoading === true
      ? AnthropicToolSearch.transformClient
      : undefined
    const transformClient = search === undefined ? protect : (c: HttpClient.HttpClient) => search(protect(c))
    return AnthropicLanguageModel.layer({ model: config.model }).pipe(
      Layer.provide(AnthropicClient.layer({ ...client, transformClient }))
    )
  },
  "openai-chat": async (config, client) => {
    const [ChatCompletionsClient, ChatCompletionsLanguageModel] = await Promise.all([
      import("@zett/ai-chat-completions/ChatCompletionsClient"),
      import("@zett/ai-chat-completions/ChatCompletionsLanguageModel")
    ])
    return ChatCompletionsLanguageModel.layer({ model: config.model }).pipe(
      Layer.provide(ChatCompletionsClient.layer(client))
    )
  },
  google: async (config, client) => {
    const [GoogleClient, GoogleLanguageModel] = await Promise.all([
      import("@zett/ai-google/GoogleClient"),
      import("@zett/ai-google/GoogleLanguageModel")
    ])
    return GoogleLanguageModel.layer({ model: config.model }).pipe(Layer.provide(GoogleClient.layer(client)))
  },
  bedrock: async (config, client) => {
    const [AmazonBedrockClient, AmazonBedrockLanguageModel] = await Promise.all([
      import("@zett/ai-amazon-bedrock/AmazonBedrockClient"),
      import("@zett/ai-amazon-bedrock/AmazonBedrockLanguageModel")
    ])
    return AmazonBedrockLanguageModel.layer({ model: config.model }).pipe(
      Layer.provide(AmazonBedrockClient.layer({ ...client, region: config.region }))
    )
  }
}

/**
 * The `Model` for a `ModelConfig`. The key never reaches an error reason, a log or a span: the provider's
 * requests run under `AiProvider.protectSecrets`, and the key (with `options.redact`) is cut out of every reason.
 *
 * @internal
 */
export const layer = (
  config: ModelConfig,
  options: Options = {}
): Layer.Layer<Model.Model, never, HttpClient.HttpClient> => {
  const redact = [...(options.redact ?? []), ...Option.toArray(config.apiKey)]
  const modelOptions: AiModel.Options = {
    ...options,
    provider: config.provider,
    redact,
    ...(config.deferLoading === true || config.deferLoading === "hosted" ? { deferLoading: true } : {}),
    ...(config.provider === "openai" ? { notFound: responsesNotFound } : {}),
    // OpenTelemetry names the provider by its API: a Chat Completions server speaks OpenAI's
    info: { provider: semconvProvider[config.provider], model: config.model }
  }
  const client: AiProvider.ClientOptions = {
    apiKey: Option.getOrUndefined(config.apiKey),
    apiUrl: Option.getOrUndefined(config.baseUrl),
    transformClient: AiProvider.protectSecrets(redact)
  }
  return AiModel.layer(modelOptions).pipe(
    Layer.provide(Layer.unwrapEffect(Effect.promise(() => languageModels[config.provider](config, client))))
  )
}

/**
 * The `Model` the environment names (see `configured`); fails with a `ConfigError` when none is configured.
 *
 * @internal
 */
export const layerFromConfig = (
  options: Options = {}
): Layer.Layer<Model.Model, ConfigError.ConfigError, HttpClient.HttpClient> =>
  Layer.unwrapEffect(
    Effect.flatMap(configured, (config) =>
      Option.match(config, {
        onNone: () =>
          Effect.fail(
            ConfigError.MissingData(
              ["ZETT_MODEL"],
              "set ZETT_MODEL to openai:<model>, openai-chat:<model>, anthropic:<model>, google:<model> or bedrock:<model>"
            )
          ),
        onSome: (config) => Effect.succeed(layer(config, options))
      }))
  )
