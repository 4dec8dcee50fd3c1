/**
 * An `@effect/ai` `LanguageModel` for Google's Gemini API (`POST {baseUrl}/v1beta/models/{model}:streamGenerateContent
 * ?alt=sse`, key in `x-goog-api-key`).
 *
 * Written here over `@effect/platform`'s `HttpClient` because `@effect/ai-google` has no release for the installed
 * `@effect/ai` 0.37 (its newest, 0.15.0, wants `^0.36.0`).
 *
 * @since 0.1.0
 */
import * as Sse from "@effect/experimental/Sse"
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Tool from "@effect/ai/Tool"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { textOf } from "./internal/prompt.js"
import * as Streamed from "./internal/streamed.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly model: string
  /** Default `https://generativelanguage.googleapis.com`. */
  readonly apiUrl?: string | undefined
  readonly apiKey?: Redacted.Redacted | undefined
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

const module = "Gemini"

type Part =
  | { readonly text: string }
  | { readonly functionCall: { readonly id?: string; readonly name: string; readonly args: unknown } }
  | { readonly functionResponse: { readonly id?: string; readonly name: string; readonly response: unknown } }

interface Content {
  readonly role: "user" | "model"
  readonly parts: Array<Part>
}

/** @internal */
export const toContents = (prompt: Prompt.Prompt): { system: string; contents: Array<Content> } => {
  const system: Array<string> = []
  const contents: Array<Content> = []
  // consecutive messages of one role are one turn for Gemini
  const push = (role: Content["role"], parts: Array<Part>) => {
    if (parts.length === 0) return
    const last = contents.at(-1)
    if (last !== undefined && last.role === role) last.parts.push(...parts)
    else contents.push({ role, parts })
  }
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        system.push(message.content)
        break
      case "user":
        push("user", [{ text: textOf(message.content) }])
        break
      case "assistant": {
        const parts: Array<Part> = []
        const text = textOf(message.content)
        if (text !== "") parts.push({ text })
        for (const part of message.content) {
          if (part.type === "tool-call" && !part.providerExecuted) {
            parts.push({ functionCall: { id: part.id, name: part.name, args: part.params ?? {} } })
          }
        }
        push("model", parts)
        break
      }
      case "tool":
        push(
          "user",
          message.content.map((part) => ({
            functionResponse: { id: part.id, name: part.name, response: { result: part.result ?? null } }
          }))
        )
        break
    }
  }
  return { system: system.join("\n\n"), contents }
}

const body = (options: LanguageModel.ProviderOptions) => {
  const { contents, system } = toContents(options.prompt)
  return {
    contents,
    ...(system !== "" ? { systemInstruction: { parts: [{ text: system }] } } : {}),
    ...(options.tools.length > 0
      ? {
        tools: [{
          functionDeclarations: options.tools.map((tool) => ({
            name: tool.name,
            ...(Tool.getDescription(tool as any) !== undefined ? { description: Tool.getDescription(tool as any) } : {}),
            // JSON Schema as the agent holds it (Gemini's `parameters` takes only an OpenAPI subset)
            parametersJsonSchema: Tool.getJsonSchema(tool as any)
          }))
        }]
      }
      : {})
  }
}

interface GeminiChunk {
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

const finishReasons: Record<string, Response.FinishReason> = {
  STOP: "stop",
  MAX_TOKENS: "length",
  SAFETY: "content-filter",
  RECITATION: "content-filter",
  BLOCKLIST: "content-filter",
  PROHIBITED_CONTENT: "content-filter",
  MALFORMED_FUNCTION_CALL: "error"
}

const makeState = () => {
  let textId: string | undefined
  let calls = 0
  let finish: Response.FinishReason | undefined
  let usage: GeminiChunk["usageMetadata"]
  const onChunk = (chunk: GeminiChunk): Array<Response.StreamPartEncoded> => {
    const parts: Array<Response.StreamPartEncoded> = []
    if (chunk.error !== undefined && chunk.error !== null) parts.push({ type: "error", error: chunk.error })
    if (chunk.usageMetadata !== undefined) usage = chunk.usageMetadata
    for (const candidate of chunk.candidates ?? []) {
      for (const part of candidate.content?.parts ?? []) {
        if (typeof part.text === "string" && part.text !== "" && part.thought !== true) {
          if (textId === undefined) {
            textId = "text_0"
            parts.push({ type: "text-start", id: textId })
          }
          parts.push({ type: "text-delta", id: textId, delta: part.text })
        } else if (typeof part.functionCall === "object" && part.functionCall !== null) {
          const call = part.functionCall as { id?: string; name?: string; args?: unknown }
          const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${calls}`
          calls++
          parts.push({ type: "tool-call", id, name: call.name ?? "", params: call.args ?? {} })
        }
      }
      if (typeof candidate.finishReason === "string") finish = finishReasons[candidate.finishReason] ?? "other"
    }
    return parts
  }
  const onEnd = (): Array<Response.StreamPartEncoded> => [
    ...(textId !== undefined ? [{ type: "text-end" as const, id: textId }] : []),
    {
      type: "finish",
      reason: calls > 0 ? "tool-calls" : finish ?? "stop",
      usage: {
        inputTokens: usage?.promptTokenCount,
        outputTokens: usage?.candidatesTokenCount,
        totalTokens: usage?.totalTokenCount,
        ...(usage?.cachedContentTokenCount !== undefined ? { cachedInputTokens: usage.cachedContentTokenCount } : {})
      }
    }
  ]
  return { onChunk, onEnd }
}

const httpError = (error: HttpClientError.HttpClientError): Effect.Effect<never, AiError.AiError> =>
  error._tag === "RequestError"
    ? Effect.fail(AiError.HttpRequestError.fromRequestError({ module, method: "streamText", error }))
    : AiError.HttpResponseError.fromResponseError({ module, method: "streamText", error })

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const client = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest((request) =>
      request.pipe(
        HttpClientRequest.prependUrl((options.apiUrl ?? "https://generativelanguage.googleapis.com").replace(/\/+$/, "")),
        options.apiKey !== undefined
          ? HttpClientRequest.setHeader("x-goog-api-key", Redacted.value(options.apiKey))
          : identity
      )
    ),
    options.transformClient ?? identity,
    HttpClient.filterStatusOk
  )

  const streamText = (providerOptions: LanguageModel.ProviderOptions): Stream.Stream<
    Response.StreamPartEncoded,
    AiError.AiError
  > =>
    Stream.suspend(() => {
      const state = makeState()
      const request = HttpClientRequest.post(
        `/v1beta/models/${encodeURIComponent(options.model)}:streamGenerateContent`
      ).pipe(
        HttpClientRequest.setUrlParam("alt", "sse"),
        HttpClientRequest.setHeader("accept", "text/event-stream"),
        HttpClientRequest.setBody(HttpBody.unsafeJson(body(providerOptions)))
      )
      const events = client.execute(request).pipe(
        Effect.map((response) => response.stream),
        Stream.unwrapScoped,
        Stream.decodeText(),
        Stream.pipeThroughChannel(Sse.makeChannel()),
        Stream.catchAll((error) =>
          error._tag === "RequestError" || error._tag === "ResponseError"
            ? Stream.fromEffect(httpError(error))
            : Stream.fail(new AiError.MalformedOutput({ module, method: "streamText", description: "a stream event is too large", cause: error }))
        ),
        Stream.mapEffect((event) =>
          Effect.try({
            try: () => JSON.parse(event.data) as GeminiChunk,
            catch: (cause) =>
              new AiError.MalformedOutput({ module, method: "streamText", description: "a stream event is not JSON", cause })
          })
        ),
        Stream.mapConcat(state.onChunk)
      )
      return Stream.concat(events, Stream.suspend(() => Stream.fromIterable(state.onEnd())))
    })

  return yield* Streamed.make(streamText)
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))
