/**
 * The model named in the environment: `ZETT_MODEL=openai:<model>` or `anthropic:<model>`, with the provider's
 * key (`Config.redacted`) and base URL. Read through Effect's `Config`, so a test's `ConfigProvider` sets it.
 *
 * @since 0.1.0
 */
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Model } from "@zett/agent"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AiModel from "./AiModel.js"
import * as Bedrock from "./Bedrock.js"
import * as Gemini from "./Gemini.js"
import * as OpenAiChat from "./OpenAiChat.js"
import { protectSecrets } from "./internal/http.js"


/**
 * The providers `layerFromConfig` knows.
 *
 * @since 0.1.0
 * @category models
 */
export type Provider = "openai" | "openai-chat" | "anthropic" | "google" | "bedrock"

/**
 * A model chosen through the environment: `ZETT_MODEL=openai:gpt-4.1-mini` (Responses API) or
 * `ZETT_MODEL=openai-chat:<model>` (Chat Completions, for servers without the Responses API) with `OPENAI_API_KEY`
 * and `OPENAI_BASE_URL`, or `ZETT_MODEL=anthropic:claude-...` with `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AiModelConfig {
  readonly provider: Provider
  readonly model: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  /** An OpenAI-compatible server (its `/v1` URL, e.g. `http://127.0.0.1:11434/v1` for Ollama) or an Anthropic proxy. */
  readonly baseUrl: Option.Option<string>
  /** Bedrock's region (`AWS_REGION`, default `us-east-1`), when no base URL is set. */
  readonly region?: string | undefined
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
 * @since 0.1.0
 * @category config
 */
export const configured: Effect.Effect<Option.Option<AiModelConfig>, ConfigError.ConfigError> = Effect.gen(function*() {
  const spec = yield* nonEmpty(Config.string("ZETT_MODEL"), (s) => s.trim() === "")
  if (Option.isNone(spec)) return Option.none()
  const text = spec.value.trim()
  const colon = text.indexOf(":")
  const provider = (colon < 0 ? "" : text.slice(0, colon).toLowerCase()) as Provider
  const model = colon < 0 ? "" : text.slice(colon + 1).trim()
  if (!(provider in providers) || model === "") {
    return yield* Effect.fail(ConfigError.InvalidData(
      ["ZETT_MODEL"],
      `expected openai:<model>, openai-chat:<model>, anthropic:<model>, google:<model> or bedrock:<model>, got ${JSON.stringify(text.slice(0, 80))}`
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
  return Option.some<AiModelConfig>({ provider, model, apiKey, baseUrl, ...(region !== undefined ? { region } : {}) })
})

/**
 * The `Model` for an `AiModelConfig`, on `@effect/ai-openai` (Responses API, tool schemas sent with `strict: false`
 * so they reach the model unchanged), `OpenAiChat` (Chat Completions) or `@effect/ai-anthropic`. The key is cut out of error bodies before
 * @effect/ai keeps them (they reach its spans) and out of every error reason.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  config: AiModelConfig,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model, never, HttpClient.HttpClient> => {
  const apiKey = Option.getOrUndefined(config.apiKey)
  const apiUrl = Option.getOrUndefined(config.baseUrl)
  const redact = [...(options.redact ?? []), ...Option.toArray(config.apiKey)]
  const modelOptions: AiModel.Options = {
    ...options,
    provider: config.provider,
    redact,
    // OpenTelemetry names the provider by its API: a Chat Completions server speaks OpenAI's
    info: { provider: semconvProvider[config.provider], model: config.model }
  }
  const transformClient = protectSecrets(redact)
  switch (config.provider) {
    case "openai":
      return AiModel.layer({ ...modelOptions, notFound: responsesNotFound }).pipe(
        Layer.provide(OpenAiLanguageModel.layer({ model: config.model, config: { strict: false } })),
        Layer.provide(OpenAiClient.layer({ apiKey, apiUrl, transformClient }))
      )
    case "openai-chat":
      return AiModel.layer(modelOptions).pipe(
        Layer.provide(OpenAiChat.layer({ model: config.model, apiKey, apiUrl, transformClient }))
      )
    case "google":
      return AiModel.layer(modelOptions).pipe(
        Layer.provide(Gemini.layer({ model: config.model, apiKey, apiUrl, transformClient }))
      )
    case "bedrock":
      return AiModel.layer(modelOptions).pipe(
        Layer.provide(Bedrock.layer({ model: config.model, apiKey, apiUrl, region: config.region, transformClient }))
      )
    case "anthropic":
      return AiModel.layer(modelOptions).pipe(
        Layer.provide(AnthropicLanguageModel.layer({ model: config.model })),
        Layer.provide(AnthropicClient.layer({ apiKey, apiUrl, transformClient }))
      )
  }
}

/**
 * The `Model` the environment names (see `configured`); fails with a `ConfigError` when none is configured.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFromConfig = (
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model, ConfigError.ConfigError, HttpClient.HttpClient> =>
  Layer.unwrapEffect(
    Effect.flatMap(configured, (config) =>
      Option.match(config, {
        onNone: () =>
          Effect.fail(ConfigError.MissingData(["ZETT_MODEL"], "set ZETT_MODEL to openai:<model>, openai-chat:<model>, anthropic:<model>, google:<model> or bedrock:<model>")),
        onSome: (config) => Effect.succeed(layer(config, options))
      }))
  )

/**
 * `layerFromConfig` with Node's HTTP client (undici).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFromConfigNode = (
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model, ConfigError.ConfigError> =>
  layerFromConfig(options).pipe(Layer.provide(NodeHttpClient.layerUndici))
