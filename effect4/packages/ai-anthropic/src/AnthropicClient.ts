/**
 * The HTTP client of Anthropic's Messages API: `POST {apiUrl}/v1/messages`, streamed, the key in `x-api-key`, the
 * API version in `anthropic-version`.
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
 * The version of the Messages API every request names.
 *
 * @since 1.0.0
 * @category constants
 */
export const apiVersion = "2023-06-01"

/**
 * @since 1.0.0
 * @category models
 */
export interface Service {
  /** The client every request runs on: base URL, key, `transformClient`, the key kept out of errors. */
  readonly client: HttpClient.HttpClient
  /** The events of one streamed answer to `body`; `betas` go in the `anthropic-beta` header. */
  readonly createMessageStream: (
    body: Record<string, unknown>,
    betas: ReadonlyArray<string>
  ) => Stream.Stream<MessageStreamEvent, AiError.AiError>
}

/**
 * @since 1.0.0
 * @category context
 */
export class AnthropicClient
  extends Context.Service<AnthropicClient, Service>()("@zett/ai-anthropic/AnthropicClient")
{}

/**
 * The token counts of an answer, as far as they are read.
 *
 * @since 1.0.0
 * @category models
 */
export interface Usage {
  readonly input_tokens?: number | null
  readonly output_tokens?: number | null
  readonly cache_read_input_tokens?: number | null
}

/**
 * One event of a streamed answer, as far as it is read.
 *
 * @since 1.0.0
 * @category models
 */
export interface MessageStreamEvent {
  readonly type: string
  readonly index?: number
  readonly message?: { readonly usage?: Usage }
  readonly content_block?: {
    readonly type: string
    readonly id?: string
    readonly name?: string
    readonly text?: string
  }
  readonly delta?: {
    readonly type?: string
    readonly text?: string
    readonly partial_json?: string
    readonly stop_reason?: string | null
  }
  readonly usage?: Usage
  readonly error?: unknown
}

const module = "AnthropicClient"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: AiProvider.ClientOptions): Effect.Effect<Service, never, HttpClient.HttpClient> =>
  Effect.map(
    AiProvider.makeHttpClient({
      ...options,
      // without `/v1`
      apiUrl: options.apiUrl ?? "https://api.anthropic.com",
      authorize: (key) => HttpClientRequest.setHeader("x-api-key", Redacted.value(key))
    }),
    (client): Service => ({
      client,
      createMessageStream: (body, betas) =>
        AiProvider.serverSentEvents(
          client,
          HttpClientRequest.post("/v1/messages").pipe(
            HttpClientRequest.setHeader("anthropic-version", apiVersion),
            betas.length > 0 ? HttpClientRequest.setHeader("anthropic-beta", betas.join(",")) : (request) => request,
            HttpClientRequest.bodyJsonUnsafe({ ...body, stream: true })
          ),
          module
        ).pipe(Stream.mapEffect(AiProvider.parseJson<MessageStreamEvent>(module)))
    })
  )

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: AiProvider.ClientOptions): Layer.Layer<AnthropicClient, never, HttpClient.HttpClient> =>
  Layer.effect(AnthropicClient, make(options))

/**
 * `layer` with the key and URL read through `Config` (e.g. `Config.Redacted("ANTHROPIC_API_KEY")`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig: (
  options: AiProvider.ClientConfig
) => Layer.Layer<AnthropicClient, Config.ConfigError, HttpClient.HttpClient> = AiProvider.layerConfig(
  AnthropicClient,
  make
)
