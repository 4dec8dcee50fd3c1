/**
 * For writing an `@effect/ai` provider over `@effect/platform`'s `HttpClient`: what `@zett/ai-chat-completions`,
 * `@zett/ai-google` and `@zett/ai-amazon-bedrock` share. The HTTP client a provider's requests run on (base URL,
 * credential, the key kept out of errors and spans), the `AiError`s `AiModel` reads (HTTP failures, unreadable
 * output, a tool call whose arguments do not parse), the body of a streamed answer (bytes or server-sent events),
 * a `LanguageModel` from a stream alone, and the prompt as alternating turns.
 *
 * @since 0.1.0
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as AiModel from "@effect/ai/Model"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Tool from "@effect/ai/Tool"
import * as Sse from "@effect/experimental/Sse"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Config from "effect/Config"
import type { ConfigError } from "effect/ConfigError"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Http from "./internal/http.js"
import * as InternalPrompt from "./internal/prompt.js"

// -----------------------------------------------------------------------------
// the HTTP client
// -----------------------------------------------------------------------------

/**
 * What a provider's client takes, as `@effect/ai-openai`'s `OpenAiClient.layer` does.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions {
  /** Sent as the provider's credential, and cut out of every error body. */
  readonly apiKey?: Redacted.Redacted | undefined
  /** The provider's base URL; each provider has its default. */
  readonly apiUrl?: string | undefined
  /** Applied to the HTTP client after the base URL and the credential, like `@effect/ai-openai`'s option. */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * `ClientOptions` read through `Config`, e.g. `{ apiKey: Config.redacted("GOOGLE_API_KEY") }`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientConfig {
  readonly apiKey?: Config.Config<Redacted.Redacted | undefined> | undefined
  readonly apiUrl?: Config.Config<string | undefined> | undefined
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/**
 * A client's `layerConfig` from its `make`, as `@effect/ai-openai`'s `OpenAiClient.layerConfig`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = <I, S>(
  tag: Context.Tag<I, S>,
  make: (options: ClientOptions) => Effect.Effect<S, never, HttpClient.HttpClient>
) =>
(options: ClientConfig): Layer.Layer<I, ConfigError, HttpClient.HttpClient> => {
  const none = Config.succeed(undefined)
  return Config.all({ apiKey: options.apiKey ?? none, apiUrl: options.apiUrl ?? none }).pipe(
    Effect.flatMap((configs) => make({ ...configs, transformClient: options.transformClient })),
    Layer.effect(tag)
  )
}

/**
 * Keeps secrets out of every HTTP error @effect/ai builds from the client's requests. Its `HttpRequestError` /
 * `HttpResponseError` copy the request headers and the error body, and those errors reach the exit of its own
 * spans, where an exporter or an `inspect` shows them: `Headers` redact themselves only inside a logger. So the
 * request runs with the usual credential headers (`proxy-authorization`, `api-key`, `x-goog-api-key`,
 * `openai-organization`, `openai-project`) added to `Headers.currentRedactedNames` (which also redacts them in the
 * `http.client` span), what errors see of the request has every header named there read `<redacted>` (never on
 * the wire), and the secrets are cut out of error bodies (a proxy may echo the key in a 401). For
 * `@effect/ai-openai` and `@effect/ai-anthropic`, pass it as their `transformClient`.
 *
 * @since 0.1.0
 * @category http
 */
export const protectSecrets: (
  secrets: ReadonlyArray<Redacted.Redacted>
) => (client: HttpClient.HttpClient) => HttpClient.HttpClient = Http.protectSecrets

/**
 * The client a provider's requests run on: relative URLs resolved against `apiUrl` (a trailing `/` dropped), the
 * key set by `authorize`, `transformClient`, the key protected (`protectSecrets`), and any answer but 2xx a
 * `ResponseError`.
 *
 * @since 0.1.0
 * @category http
 */
export const makeHttpClient = (
  options: ClientOptions & {
    readonly apiUrl: string
    /** How the key goes on a request; default `Authorization: Bearer <key>`. */
    readonly authorize?:
      | ((
        apiKey: Redacted.Redacted
      ) => (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest)
      | undefined
  }
): Effect.Effect<HttpClient.HttpClient, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client) => {
    const apiKey = options.apiKey
    const authorize = options.authorize ?? ((key) => HttpClientRequest.bearerToken(key))
    return client.pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.prependUrl(options.apiUrl.replace(/\/+$/, "")),
          apiKey !== undefined ? authorize(apiKey) : identity
        )
      ),
      options.transformClient ?? identity,
      protectSecrets(apiKey !== undefined ? [apiKey] : []),
      HttpClient.filterStatusOk
    )
  })

// -----------------------------------------------------------------------------
// errors
// -----------------------------------------------------------------------------

/**
 * An HTTP failure as @effect/ai's own providers report it: `HttpRequestError` (not sent, or cut off) or
 * `HttpResponseError` (an answer that is not 2xx, with its body), which `AiModel` turns into readable reasons
 * and retries.
 *
 * @since 0.1.0
 * @category errors
 */
export const httpError =
  (module: string, method: string) => (error: HttpClientError.HttpClientError): Effect.Effect<never, AiError.AiError> =>
    error._tag === "RequestError"
      ? Effect.fail(AiError.HttpRequestError.fromRequestError({ module, method, error }))
      : AiError.HttpResponseError.fromResponseError({ module, method, error })

/**
 * An answer that cannot be read.
 *
 * @since 0.1.0
 * @category errors
 */
export const malformedOutput = (module: string, description: string, cause?: unknown): AiError.AiError =>
  new AiError.MalformedOutput({
    module,
    method: "streamText",
    description,
    ...(cause !== undefined ? { cause } : {})
  })

/**
 * The parts of a finished tool call: its argument text parsed as `@effect/ai`'s providers parse it (empty text
 * is `{}`), or the failure they report for text that does not parse ("Failed to securely parse tool call
 * parameters ..."), which `AiModel` turns into a call marked `invalidArguments`.
 *
 * @since 0.1.0
 * @category errors
 */
export const toolCallParts = (
  module: string,
  call: { readonly id: string; readonly name: string; readonly text: string }
): Either.Either<ReadonlyArray<Response.StreamPartEncoded>, AiError.AiError> => {
  const text = call.text.trim() === "" ? "{}" : call.text
  try {
    const params = Tool.unsafeSecureJsonParse(text)
    return Either.right([
      { type: "tool-params-end", id: call.id },
      { type: "tool-call", id: call.id, name: call.name, params }
    ])
  } catch (cause) {
    return Either.left(malformedOutput(
      module,
      `Failed to securely parse tool call parameters for tool '${call.name}':\nParameters: ${text}`,
      cause
    ))
  }
}

// -----------------------------------------------------------------------------
// streamed answers
// -----------------------------------------------------------------------------

/**
 * The body of the answer to `request`, its HTTP failures as `httpError` reports them.
 *
 * @since 0.1.0
 * @category streams
 */
export const responseBytes = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  module: string
): Stream.Stream<Uint8Array, AiError.AiError> =>
  client.execute(request).pipe(
    Effect.map((response) => response.stream),
    Stream.unwrapScoped,
    Stream.catchAll((error) => Stream.fromEffect(httpError(module, "streamText")(error)))
  )

/**
 * The `data` of each server-sent event of the answer to `request` (`text/event-stream`); an event over the size
 * limit fails as unreadable output.
 *
 * @since 0.1.0
 * @category streams
 */
export const serverSentEvents = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  module: string
): Stream.Stream<string, AiError.AiError> =>
  responseBytes(client, HttpClientRequest.setHeader(request, "accept", "text/event-stream"), module).pipe(
    Stream.decodeText(),
    Stream.pipeThroughChannel(Sse.makeChannel()),
    Stream.catchAll((error) =>
      Stream.fail(AiError.isAiError(error) ? error : malformedOutput(module, "a stream event is too large", error))
    ),
    Stream.map((event) => event.data)
  )

/**
 * One event's data read as JSON.
 *
 * @since 0.1.0
 * @category streams
 */
export const parseJson = <A>(module: string) => (data: string): Effect.Effect<A, AiError.AiError> =>
  Effect.try({
    try: () => JSON.parse(data) as A,
    catch: (cause) => malformedOutput(module, "a stream event is not JSON", cause)
  })

/**
 * A `LanguageModel` whose endpoint only streams: `generateText` collects the stream, joining its text deltas into
 * one text part.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeLanguageModel = (
  streamText: (options: LanguageModel.ProviderOptions) => Stream.Stream<Response.StreamPartEncoded, AiError.AiError>
): Effect.Effect<LanguageModel.Service> =>
  LanguageModel.make({
    streamText,
    generateText: (options) =>
      Stream.runCollect(streamText(options)).pipe(
        Effect.map((parts) => {
          const out: Array<Response.PartEncoded> = []
          let text = ""
          for (const part of parts) {
            if (part.type === "text-delta") text += part.delta
            else if (part.type === "tool-call" || part.type === "finish") out.push(part)
          }
          return text === "" ? out : [{ type: "text" as const, text }, ...out]
        })
      )
  })

/**
 * How one streamed answer becomes `@effect/ai` parts; a fresh one decodes each answer.
 *
 * @since 0.1.0
 * @category streams
 */
export interface Decoder<A> {
  /** The parts of one chunk of the answer (an event, a message). */
  readonly onChunk: (
    chunk: A
  ) =>
    | ReadonlyArray<Response.StreamPartEncoded>
    | Effect.Effect<ReadonlyArray<Response.StreamPartEncoded>, AiError.AiError>
  /** What follows the last chunk: the end of open parts, the `finish` (or a failure). */
  readonly onEnd: () => Stream.Stream<Response.StreamPartEncoded, AiError.AiError>
}

/**
 * What a provider's `LanguageModel` is made of.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelOptions {
  /** The model as the provider names it. */
  readonly model: string
}

/**
 * The `make`, `layer` and `model` of a provider's `LanguageModel` module, as `@effect/ai-openai`'s
 * `OpenAiLanguageModel` has them: `request` streams the chunks of an answer on the provider's client, a fresh
 * `decoder` turns each answer's chunks into parts, `model` is the model as `@effect/ai`'s `Model` (named
 * `provider`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const streamingModel = <const Provider extends string, I, S, A>(
  provider: Provider,
  client: Context.Tag<I, S>,
  options: {
    readonly request: (
      client: S,
      model: string,
      options: LanguageModel.ProviderOptions
    ) => Stream.Stream<A, AiError.AiError>
    readonly decoder: () => Decoder<A>
  }
): {
  readonly make: (options: ModelOptions) => Effect.Effect<LanguageModel.Service, never, I>
  readonly layer: (options: ModelOptions) => Layer.Layer<LanguageModel.LanguageModel, never, I>
  readonly model: (model: string) => AiModel.Model<Provider, LanguageModel.LanguageModel, I>
} => {
  const make = ({ model }: ModelOptions) =>
    Effect.flatMap(client, (service) =>
      makeLanguageModel((providerOptions) =>
        Stream.suspend(() => {
          const state = options.decoder()
          return Stream.concat(
            Stream.mapConcatEffect(options.request(service, model, providerOptions), (chunk) => {
              const parts = state.onChunk(chunk)
              return Effect.isEffect(parts) ? parts : Effect.succeed(parts)
            }),
            Stream.suspend(state.onEnd)
          )
        })
      ))
  const layer = (options: ModelOptions) => Layer.effect(LanguageModel.LanguageModel, make(options))
  return { make, layer, model: (model) => AiModel.make(provider, layer({ model })) }
}

/**
 * The `finish` part: the reason and the token usage as the provider counted it.
 *
 * @since 0.1.0
 * @category streams
 */
export const finishPart = (reason: Response.FinishReason, usage: {
  readonly input?: number | undefined
  readonly output?: number | undefined
  readonly total?: number | undefined
  readonly cached?: number | undefined
}): Response.StreamPartEncoded => ({
  type: "finish",
  reason,
  usage: {
    inputTokens: usage.input,
    outputTokens: usage.output,
    totalTokens: usage.total,
    ...(typeof usage.cached === "number" ? { cachedInputTokens: usage.cached } : {})
  }
})

// -----------------------------------------------------------------------------
// the prompt
// -----------------------------------------------------------------------------

/**
 * A tool as the provider is offered it: its name, description and the JSON Schema of its parameters (for
 * `AiModel`'s tools, the agent's schema unchanged).
 *
 * @since 0.1.0
 * @category prompt
 */
export interface ToolDeclaration {
  readonly name: string
  readonly description?: string
  readonly parameters: unknown
}

/**
 * @since 0.1.0
 * @category prompt
 */
export const toolDeclarations = (tools: LanguageModel.ProviderOptions["tools"]): Array<ToolDeclaration> =>
  tools.map((tool) => {
    const description = Tool.getDescription(tool as any)
    return {
      name: tool.name,
      ...(description !== undefined ? { description } : {}),
      parameters: Tool.getJsonSchema(tool as any)
    }
  })

/**
 * One turn of a conversation whose roles must alternate.
 *
 * @since 0.1.0
 * @category prompt
 */
export interface Turn<Part> {
  readonly role: "user" | "assistant"
  readonly parts: Array<Part>
}

/**
 * The prompt as a wire format whose roles alternate (Gemini, Bedrock's Converse) takes it: the system messages
 * apart, consecutive messages of one role joined into one turn, tool results in a user turn, tool calls the
 * provider ran itself left out.
 *
 * @since 0.1.0
 * @category prompt
 */
export const toTurns = <Part>(prompt: Prompt.Prompt, part: {
  readonly text: (text: string) => Part
  readonly toolCall: (call: Prompt.ToolCallPart) => Part
  readonly toolResult: (result: Prompt.ToolResultPart) => Part
}): { readonly system: Array<string>; readonly turns: Array<Turn<Part>> } => {
  const system: Array<string> = []
  const turns: Array<Turn<Part>> = []
  const push = (role: Turn<Part>["role"], parts: Array<Part>) => {
    if (parts.length === 0) return
    const last = turns.at(-1)
    if (last !== undefined && last.role === role) { for (const part of parts) last.parts.push(part) }
    else turns.push({ role, parts })
  }
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        system.push(message.content)
        break
      case "user":
        push("user", [part.text(InternalPrompt.textOf(message.content))])
        break
      case "assistant": {
        const parts: Array<Part> = []
        const text = InternalPrompt.textOf(message.content)
        if (text !== "") parts.push(part.text(text))
        for (const content of message.content) {
          if (content.type === "tool-call" && !content.providerExecuted) parts.push(part.toolCall(content))
        }
        push("assistant", parts)
        break
      }
      case "tool":
        push("user", message.content.map(part.toolResult))
        break
    }
  }
  return { system, turns }
}

/**
 * The text parts of a message's content, joined (what a wire format without parts takes).
 *
 * @since 0.1.0
 * @category prompt
 */
export const textOf: (parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>) => string =
  InternalPrompt.textOf
