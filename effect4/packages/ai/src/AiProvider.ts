/**
 * For writing an `effect/ai` provider over `effect/http`'s `HttpClient`: what a provider of Zett's own shares. The
 * HTTP client a provider's requests run on (base URL, credential, the key kept out of errors and spans), the
 * `AiError`s `AiModel` reads (HTTP failures, unreadable output, a tool call whose arguments do not parse), the body
 * of a streamed answer (bytes or server-sent events), a `LanguageModel` from a stream alone, and the prompt as
 * alternating turns.
 *
 * @since 1.0.0
 */
import * as JsonDepth from "@zett/common/JsonDepth"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as AiModel from "effect/ai/Model"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as Config from "effect/Config"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import { identity } from "effect/Function"
import * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { scrub } from "./internal/failure.js"
import * as InternalPrompt from "./internal/prompt.js"

// -----------------------------------------------------------------------------
// the HTTP client
// -----------------------------------------------------------------------------

/**
 * What a provider's client takes, as `@effect/ai-openai`'s `OpenAiClient.layer` does.
 *
 * @since 1.0.0
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
 * `ClientOptions` read through `Config`, e.g. `{ apiKey: Config.Redacted("GOOGLE_API_KEY") }`.
 *
 * @since 1.0.0
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
 * @since 1.0.0
 * @category layers
 */
export const layerConfig = <I, S>(
  tag: Context.Key<I, S>,
  make: (options: ClientOptions) => Effect.Effect<S, never, HttpClient.HttpClient>
) =>
(options: ClientConfig): Layer.Layer<I, Config.ConfigError, HttpClient.HttpClient> => {
  const none = Config.succeed(undefined)
  return Layer.effect(
    tag,
    Effect.gen(function*() {
      const configs = yield* Config.all({ apiKey: options.apiKey ?? none, apiUrl: options.apiUrl ?? none })
      return yield* make({ ...configs, transformClient: options.transformClient })
    })
  )
}

/**
 * Headers that carry a credential to a provider or a proxy in front of it, besides the ones `effect/http` redacts
 * by default (`authorization`, `cookie`, `set-cookie`, `x-api-key`).
 */
const providerSecretHeaders: ReadonlyArray<string> = [
  "proxy-authorization",
  "api-key",
  "x-goog-api-key",
  "openai-organization",
  "openai-project"
]

/**
 * Keeps secrets out of what a provider's requests leave behind. `effect/http` no longer copies a request's headers
 * into its errors (an `HttpClientError` shows the method and the redacted URL) and its `Headers` redact themselves
 * wherever they are shown, by `Headers.CurrentRedactedNames`: so the request runs with the usual credential headers
 * (`proxy-authorization`, `api-key`, `x-goog-api-key`, `openai-organization`, `openai-project`) added to those names
 * (the `http.client` span redacts them too), and the secrets are cut out of the body of an answer that is not 2xx,
 * which `effect/ai` keeps in its errors (a proxy may echo the key in a 401). For `@effect/ai-openai` and
 * `@effect/ai-anthropic`, pass it as their `transformClient`.
 *
 * @since 1.0.0
 * @category http
 */
export const protectSecrets =
  (secrets: ReadonlyArray<Redacted.Redacted>) => (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.transform(client, (effect, request) =>
      Effect.flatMap(effect, (response) => {
        if (response.status < 400) return Effect.succeed(response)
        return Effect.map(response.text, (text) => {
          const headers = new globalThis.Headers(response.headers)
          headers.delete("content-length")
          return HttpClientResponse.fromWeb(
            request,
            new globalThis.Response(scrub(text, secrets), { status: response.status, headers })
          )
        })
      }).pipe(Effect.updateService(Headers.CurrentRedactedNames, (names) => [...names, ...providerSecretHeaders])))

/**
 * The client a provider's requests run on: relative URLs resolved against `apiUrl` (a trailing `/` dropped), the
 * key set by `authorize`, `transformClient`, the key protected (`protectSecrets`), and any answer but 2xx a
 * `StatusCodeError`.
 *
 * @since 1.0.0
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
  Effect.map(Effect.service(HttpClient.HttpClient), (client) => {
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
 * An HTTP failure as `effect/ai`'s own providers report it: a request that did not go out or was cut off is a
 * `NetworkError`; an answer that is not 2xx is the reason its status names (`reasonFromHttpStatus`: a
 * `RateLimitError` for 429, an `AuthenticationError` for 401 and 403, ...) with the status, the headers and the
 * body kept, which `AiModel` turns into readable reasons and retries.
 *
 * @since 1.0.0
 * @category errors
 */
export const httpError = (module: string, method: string) =>
(
  error: HttpClientError.HttpClientError
): Effect.Effect<never, AiError.AiError> => {
  const reason = error.reason
  if (reason._tag === "TransportError" || reason._tag === "EncodeError" || reason._tag === "InvalidUrlError") {
    return Effect.fail(AiError.make({
      module,
      method,
      reason: AiError.NetworkError.fromHttpClientError(
        error as HttpClientError.HttpClientError & {
          readonly reason: HttpClientError.RequestError
        }
      )
    }))
  }
  const response = reason.response
  return Effect.flatMap(
    Effect.orElseSucceed(response.text, () => undefined),
    (body) =>
      Effect.fail(AiError.make({
        module,
        method,
        reason: AiError.reasonFromHttpStatus({
          status: response.status,
          http: {
            response: { status: response.status, headers: Headers.redact(response.headers, redactedNames) },
            ...(body !== undefined && body !== "" ? { body } : {})
          },
          ...(reason.description !== undefined ? { description: reason.description } : {})
        })
      }))
  )
}

const redactedNames = ["set-cookie", ...providerSecretHeaders]

/**
 * An answer that cannot be read.
 *
 * @since 1.0.0
 * @category errors
 */
export const malformedOutput = (module: string, description: string): AiError.AiError =>
  AiError.make({ module, method: "streamText", reason: new AiError.InvalidOutputError({ description }) })

/**
 * The parts of a finished tool call: its argument text parsed as `effect/ai` parses it (`Tool.unsafeSecureJsonParse`;
 * empty text is `{}`), or, for text that does not parse, the failure `AiModel` turns into a call marked
 * `invalidArguments` ("Failed to securely parse tool call parameters ...").
 *
 * @since 1.0.0
 * @category errors
 */
export const toolCallParts = (
  module: string,
  call: { readonly id: string; readonly name: string; readonly text: string }
): Result.Result<ReadonlyArray<Response.StreamPartEncoded>, AiError.AiError> => {
  const text = call.text.trim() === "" ? "{}" : call.text
  try {
    const params = Tool.unsafeSecureJsonParse(text)
    return Result.succeed([
      { type: "tool-params-end", id: call.id },
      { type: "tool-call", id: call.id, name: call.name, params }
    ])
  } catch {
    return Result.fail(malformedOutput(
      module,
      `Failed to securely parse tool call parameters for tool '${call.name}':\nParameters: ${text}`
    ))
  }
}

// -----------------------------------------------------------------------------
// streamed answers
// -----------------------------------------------------------------------------

/**
 * The body of the answer to `request`, its HTTP failures as `httpError` reports them.
 *
 * @since 1.0.0
 * @category streams
 */
export const responseBytes = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  module: string
): Stream.Stream<Uint8Array, AiError.AiError> =>
  client.execute(request).pipe(
    Effect.map((response) => response.stream),
    Stream.unwrap,
    Stream.catch((error) => Stream.fromEffect(httpError(module, "streamText")(error)))
  )

/**
 * The `data` of each server-sent event of the answer to `request` (`text/event-stream`, decoded by
 * `effect/encoding`'s `Sse`); an event over the size limit fails as unreadable output.
 *
 * @since 1.0.0
 * @category streams
 */
export const serverSentEvents = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest,
  module: string
): Stream.Stream<string, AiError.AiError> =>
  responseBytes(client, HttpClientRequest.setHeader(request, "accept", "text/event-stream"), module).pipe(
    Stream.decodeText,
    Stream.pipeThroughChannel(Sse.decode()),
    Stream.catch((error) =>
      Stream.fail(
        AiError.isAiError(error) ? error : malformedOutput(module, `a stream event could not be read (${error._tag})`)
      )
    ),
    Stream.map((event) => event.data)
  )

/**
 * How deep an event may nest: what a provider sends is written again (a call's arguments, a search's items kept for
 * later requests) by `JSON.stringify`, which recurses once per level. A call's arguments come as text, so real
 * events nest a few levels.
 */
const maxEventDepth = 256

/**
 * One event's data read as JSON.
 *
 * @since 1.0.0
 * @category streams
 */
export const parseJson = <A>(module: string) => (data: string): Effect.Effect<A, AiError.AiError> =>
  JsonDepth.deeperThan(data, maxEventDepth)
    ? Effect.fail(malformedOutput(module, `a stream event nests deeper than ${maxEventDepth} levels`))
    : Effect.try({
      try: () => JSON.parse(data) as A,
      catch: () => malformedOutput(module, "a stream event is not JSON")
    })

/**
 * A `LanguageModel` whose endpoint only streams: `generateText` collects the stream, joining its text deltas into
 * one text part.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeLanguageModel = (
  streamText: (options: LanguageModel.ProviderOptions) => Stream.Stream<Response.StreamPartEncoded, AiError.AiError>
): Effect.Effect<LanguageModel.LanguageModel> =>
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
 * How one streamed answer becomes `effect/ai` parts; a fresh one decodes each answer.
 *
 * @since 1.0.0
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
 * @since 1.0.0
 * @category models
 */
export interface ModelOptions {
  /** The model as the provider names it. */
  readonly model: string
}

/**
 * The `make`, `layer` and `model` of a provider's `LanguageModel` module, as `@effect/ai-openai`'s
 * `OpenAiLanguageModel` has them: `request` streams the chunks of an answer on the provider's client, a fresh
 * `decoder` turns each answer's chunks into parts, `model` is the model as `effect/ai`'s `Model` (named
 * `provider`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const streamingModel = <const Provider extends string, I, S, A>(
  provider: Provider,
  client: Context.Key<I, S>,
  options: {
    readonly request: (
      client: S,
      model: string,
      options: LanguageModel.ProviderOptions
    ) => Stream.Stream<A, AiError.AiError>
    readonly decoder: () => Decoder<A>
  }
): {
  readonly make: (options: ModelOptions) => Effect.Effect<LanguageModel.LanguageModel, never, I>
  readonly layer: (options: ModelOptions) => Layer.Layer<LanguageModel.LanguageModel, never, I>
  readonly model: <const Name extends string>(model: Name) => AiModel.Model<Provider, LanguageModel.LanguageModel, I>
} => {
  const make = ({ model }: ModelOptions) =>
    Effect.flatMap(Effect.service(client), (service) =>
      makeLanguageModel((providerOptions) =>
        Stream.suspend(() => {
          const state = options.decoder()
          return Stream.concat(
            Stream.flatMap(options.request(service, model, providerOptions), (chunk) => {
              const parts = state.onChunk(chunk)
              return Effect.isEffect(parts) ? Stream.fromIterableEffect(parts) : Stream.fromIterable(parts)
            }),
            Stream.suspend(state.onEnd)
          )
        })
      ))
  const layer = (options: ModelOptions): Layer.Layer<LanguageModel.LanguageModel, never, I> =>
    Layer.effect(LanguageModel.LanguageModel, make(options))
  return { make, layer, model: (model) => AiModel.make(provider, model, layer({ model })) }
}

/**
 * The `finish` part: the reason and the token usage as the provider counted it (`cached`: the input tokens read
 * from the provider's prompt cache).
 *
 * @since 1.0.0
 * @category streams
 */
export const finishPart = (reason: Response.FinishReason, usage: {
  readonly input?: number | undefined
  readonly output?: number | undefined
  readonly cached?: number | undefined
}): Response.StreamPartEncoded => ({
  type: "finish",
  reason,
  usage: {
    inputTokens: {
      ...(usage.input !== undefined ? { total: usage.input } : {}),
      ...(typeof usage.cached === "number" ? { cacheRead: usage.cached } : {})
    },
    outputTokens: usage.output !== undefined ? { total: usage.output } : {}
  }
})

// -----------------------------------------------------------------------------
// the prompt
// -----------------------------------------------------------------------------

/**
 * A tool as the provider is offered it: its name, description and the JSON Schema of its parameters (for
 * `AiModel`'s tools, the agent's schema unchanged).
 *
 * @since 1.0.0
 * @category prompt
 */
export interface ToolDeclaration {
  readonly name: string
  readonly description?: string
  readonly parameters: unknown
}

/**
 * @since 1.0.0
 * @category prompt
 */
export const toolDeclarations = (tools: LanguageModel.ProviderOptions["tools"]): Array<ToolDeclaration> =>
  tools.map((tool) => {
    const description = Tool.getDescription(tool)
    return {
      name: tool.name,
      ...(description !== undefined ? { description } : {}),
      parameters: Tool.getJsonSchema(tool)
    }
  })

/**
 * One turn of a conversation whose roles must alternate.
 *
 * @since 1.0.0
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
 * @since 1.0.0
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
        push(
          "user",
          message.content.flatMap((content) => content.type === "tool-result" ? [part.toolResult(content)] : [])
        )
        break
    }
  }
  return { system, turns }
}

/**
 * The text parts of a message's content, joined (what a wire format without parts takes).
 *
 * @since 1.0.0
 * @category prompt
 */
export const textOf: (parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>) => string =
  InternalPrompt.textOf
