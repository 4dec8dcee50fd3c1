/**
 * The HTTP client of Google's Gemini API: `POST {apiUrl}/v1beta/models/{model}:streamGenerateContent?alt=sse`,
 * the key in `x-goog-api-key`.
 *
 * @since 1.0.0
 */
import * as AiProvider from "@zett/ai/AiProvider"
import type * as AiError from "effect/ai/AiError"
import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  /** The client every request runs on: base URL, key, `transformClient`, the key kept out of errors. */
  readonly client: HttpClient.HttpClient
  /** The chunks of one streamed answer of `model`. */
  readonly streamGenerateContent: (
    model: string,
    body: Record<string, unknown>
  ) => Stream.Stream<GenerateContentChunk, AiError.AiError>
}

/**
 * @since 1.0.0
 * @category context
 */
export class GoogleClient extends Context.Service<GoogleClient, Service>()("@zett/ai-google/GoogleClient") {}

/**
 * One chunk of a streamed answer, as far as it is read.
 *
 * @since 1.0.0
 * @category models
 */
export interface GenerateContentChunk {
  readonly candidates?: ReadonlyArray<{
    readonly content?: { readonly parts?: ReadonlyArray<Record<string, any>> }
    readonly finishReason?: string
  }>
  readonly usageMetadata?: {
    readonly promptTokenCount?: number
    readonly candidatesTokenCount?: number
    readonly totalTokenCount?: number
    readonly cachedContentTokenCount?: number
  }
  readonly error?: unknown
}

const module = "GoogleClient"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: AiProvider.ClientOptions): Effect.Effect<Service, never, HttpClient.HttpClient> =>
  Effect.map(
    AiProvider.makeHttpClient({
      ...options,
      // without `/v1beta`
      apiUrl: options.apiUrl ?? "https://generativelanguage.googleapis.com",
      authorize: (key) => HttpClientRequest.setHeader("x-goog-api-key", Redacted.value(key))
    }),
    (client): Service => ({
      client,
      streamGenerateContent: (model, body) =>
        AiProvider.serverSentEvents(
          client,
          HttpClientRequest.post(`/v1beta/models/${encodeURIComponent(model.toWellFormed())}:streamGenerateContent`)
            .pipe(
              HttpClientRequest.setUrlParam("alt", "sse"),
              HttpClientRequest.bodyJsonUnsafe(body)
            ),
          module
        ).pipe(Stream.mapEffect(AiProvider.parseJson<GenerateContentChunk>(module)))
    })
  )

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: AiProvider.ClientOptions): Layer.Layer<GoogleClient, never, HttpClient.HttpClient> =>
  Layer.effect(GoogleClient, make(options))

/**
 * `layer` with the key and URL read through `Config` (e.g. `Config.Redacted("GOOGLE_API_KEY")`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig: (
  options: AiProvider.ClientConfig
) => Layer.Layer<GoogleClient, Config.ConfigError, HttpClient.HttpClient> = AiProvider.layerConfig(GoogleClient, make)
