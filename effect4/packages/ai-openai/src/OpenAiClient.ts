/**
 * The HTTP client of OpenAI's Responses API: `POST {apiUrl}/responses`, streamed, the key as a bearer token.
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
import * as Stream from "effect/Stream"

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  /** The client every request runs on: base URL, key, `transformClient`, the key kept out of errors. */
  readonly client: HttpClient.HttpClient
  /** The events of one streamed response to `body`. */
  readonly createResponseStream: (body: Record<string, unknown>) => Stream.Stream<ResponseStreamEvent, AiError.AiError>
}

/**
 * @since 1.0.0
 * @category context
 */
export class OpenAiClient extends Context.Service<OpenAiClient, Service>()("@zett/ai-openai/OpenAiClient") {}

/**
 * The token counts of a response, as far as they are read.
 *
 * @since 1.0.0
 * @category models
 */
export interface Usage {
  readonly input_tokens?: number | null
  readonly output_tokens?: number | null
  readonly input_tokens_details?: { readonly cached_tokens?: number | null } | null
}

/**
 * One output item of a response, as far as it is read.
 *
 * @since 1.0.0
 * @category models
 */
export interface OutputItem {
  readonly type: string
  readonly id?: string
  readonly call_id?: string | null
  readonly name?: string
  readonly arguments?: unknown
  readonly execution?: string
  readonly status?: string
}

/**
 * One event of a streamed response, as far as it is read.
 *
 * @since 1.0.0
 * @category models
 */
export interface ResponseStreamEvent {
  readonly type: string
  readonly output_index?: number
  readonly item_id?: string
  readonly delta?: string
  readonly item?: OutputItem
  readonly response?: {
    readonly output?: ReadonlyArray<OutputItem>
    readonly usage?: Usage | null
    readonly incomplete_details?: { readonly reason?: string | null } | null
    readonly error?: unknown
  }
  readonly code?: string | null
  readonly message?: string
}

const module = "OpenAiClient"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: AiProvider.ClientOptions): Effect.Effect<Service, never, HttpClient.HttpClient> =>
  Effect.map(
    AiProvider.makeHttpClient({ ...options, apiUrl: options.apiUrl ?? "https://api.openai.com/v1" }),
    (client): Service => ({
      client,
      createResponseStream: (body) =>
        AiProvider.serverSentEvents(
          client,
          HttpClientRequest.post("/responses").pipe(HttpClientRequest.bodyJsonUnsafe({ ...body, stream: true })),
          module
        ).pipe(Stream.mapEffect(AiProvider.parseJson<ResponseStreamEvent>(module)))
    })
  )

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: AiProvider.ClientOptions): Layer.Layer<OpenAiClient, never, HttpClient.HttpClient> =>
  Layer.effect(OpenAiClient, make(options))

/**
 * `layer` with the key and URL read through `Config` (e.g. `Config.Redacted("OPENAI_API_KEY")`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig: (
  options: AiProvider.ClientConfig
) => Layer.Layer<OpenAiClient, Config.ConfigError, HttpClient.HttpClient> = AiProvider.layerConfig(
  OpenAiClient,
  make
)
