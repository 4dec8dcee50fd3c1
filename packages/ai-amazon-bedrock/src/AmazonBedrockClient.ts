/**
 * The HTTP client of Amazon Bedrock's runtime: `POST {apiUrl}/model/{model}/converse-stream`, answered in AWS's
 * binary event-stream encoding (`application/vnd.amazon.eventstream`), authenticated with a Bedrock API key
 * (`Authorization: Bearer`). Requests signed with SigV4 (access key and secret) are not supported.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as AiProvider from "@zett/ai/AiProvider"
import * as AwsEventStream from "@zett/common/AwsEventStream"
import type { ConfigError } from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

/**
 * @since 0.1.0
 * @category context
 */
export class AmazonBedrockClient extends Context.Tag("@zett/ai-amazon-bedrock/AmazonBedrockClient")<
  AmazonBedrockClient,
  Service
>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The client every request runs on: base URL, key, `transformClient`, the key kept out of errors. */
  readonly client: HttpClient.HttpClient
  /** The messages of one streamed Converse answer of `model` (a model or inference profile id). */
  readonly converseStream: (
    model: string,
    body: Record<string, unknown>
  ) => Stream.Stream<EventMessage, AiError.AiError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options extends AiProvider.ClientOptions {
  /** The region of the default URL `https://bedrock-runtime.{region}.amazonaws.com`; default `us-east-1`. */
  readonly region?: string | undefined
}

const module = "AmazonBedrockClient"

/**
 * One decoded message of the event stream: its string headers (`:event-type`, `:message-type`, ...) and its
 * payload (`@zett/common`'s `AwsEventStream`, which splits the bytes into messages).
 *
 * @since 0.1.0
 * @category models
 */
export type EventMessage = AwsEventStream.EventMessage

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Service, never, HttpClient.HttpClient> =>
  Effect.map(
    AiProvider.makeHttpClient({
      ...options,
      apiUrl: options.apiUrl ?? `https://bedrock-runtime.${options.region ?? "us-east-1"}.amazonaws.com`
    }),
    (client): Service => ({
      client,
      converseStream: (model, body) =>
        Stream.suspend(() =>
          AiProvider.responseBytes(
            client,
            HttpClientRequest.post(`/model/${encodeURIComponent(model.toWellFormed())}/converse-stream`).pipe(
              HttpClientRequest.setHeader("accept", "application/vnd.amazon.eventstream"),
              HttpClientRequest.setBody(HttpBody.unsafeJson(body))
            ),
            module
          ).pipe(Stream.mapConcat(AwsEventStream.makeFramer()))
        )
    })
  )

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<AmazonBedrockClient, never, HttpClient.HttpClient> =>
  Layer.effect(AmazonBedrockClient, make(options))

/**
 * `layer` with the key and URL read through `Config` (e.g. `Config.redacted("AWS_BEARER_TOKEN_BEDROCK")`), for the
 * default region.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: (
  options: AiProvider.ClientConfig
) => Layer.Layer<AmazonBedrockClient, ConfigError, HttpClient.HttpClient> = AiProvider.layerConfig(
  AmazonBedrockClient,
  make
)
