/**
 * The HTTP client of an OpenAI-compatible server's Chat Completions API: `POST {apiUrl}/chat/completions`,
 * streamed as server-sent events, the key as a bearer token.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as AiProvider from "@zett/ai/AiProvider"
import type { ConfigError } from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/**
 * @since 0.1.0
 * @category context
 */
export class ChatCompletionsClient extends Context.Tag("@zett/ai-chat-completions/ChatCompletionsClient")<
  ChatCompletionsClient,
  Service
>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The client every request runs on: base URL, key, `transformClient`, the key kept out of errors. */
  readonly client: HttpClient.HttpClient
  /** The chunks of one streamed chat completion (`stream: true`), up to `[DONE]`. */
  readonly createChatCompletionStream: (body: Record<string, unknown>) => Stream.Stream<ChatChunk, AiError.AiError>
}

/**
 * One chunk of a streamed chat completion, as far as it is read.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChatChunk {
  readonly choices?: ReadonlyArray<{
    readonly index?: number
    readonly delta?: {
      readonly content?: string | null
      readonly reasoning_content?: string | null
      readonly tool_calls?:
        | ReadonlyArray<{
          readonly index?: number
          readonly id?: string | null
          readonly function?: { readonly name?: string | null; readonly arguments?: string | null }
        }>
        | null
    }
    readonly finish_reason?: string | null
  }>
  readonly usage?: ChunkUsage | null
  readonly error?: unknown
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ChunkUsage {
  readonly prompt_tokens?: number
  readonly completion_tokens?: number
  readonly total_tokens?: number
  readonly prompt_tokens_details?: { readonly cached_tokens?: number } | null
}

const module = "ChatCompletionsClient"

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: AiProvider.ClientOptions): Effect.Effect<Service, never, HttpClient.HttpClient> =>
  Effect.map(
    // the server's `/v1` URL, e.g. `http://127.0.0.1:8080/v1`
    AiProvider.makeHttpClient({ ...options, apiUrl: options.apiUrl ?? "https://api.openai.com/v1" }),
    (client): Service => ({
      client,
      createChatCompletionStream: (body) =>
        AiProvider.serverSentEvents(
          client,
          HttpClientRequest.post("/chat/completions").pipe(
            HttpClientRequest.setBody(
              HttpBody.unsafeJson({ ...body, stream: true, stream_options: { include_usage: true } })
            )
          ),
          module
        ).pipe(
          Stream.takeWhile((data) => data.trim() !== "[DONE]"),
          Stream.mapEffect(AiProvider.parseJson<ChatChunk>(module))
        )
    })
  )

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: AiProvider.ClientOptions
): Layer.Layer<ChatCompletionsClient, never, HttpClient.HttpClient> =>
  Layer.effect(ChatCompletionsClient, make(options))

/**
 * `layer` with the key and URL read through `Config` (e.g. `Config.redacted("OPENAI_API_KEY")`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: (
  options: AiProvider.ClientConfig
) => Layer.Layer<ChatCompletionsClient, ConfigError, HttpClient.HttpClient> = AiProvider.layerConfig(
  ChatCompletionsClient,
  make
)
