/**
 * An `@effect/ai` `LanguageModel` for Amazon Bedrock's Converse API, streamed (`POST {baseUrl}/model/{model}/converse
 * -stream`, answered in AWS's binary event-stream encoding), authenticated with a Bedrock API key
 * (`Authorization: Bearer`).
 *
 * Written here over `@effect/platform`'s `HttpClient` because `@effect/ai-amazon-bedrock` has no release for the
 * installed `@effect/ai` 0.37 (its newest, 0.15.0, wants `^0.35.0` and `@effect/ai-anthropic` `^0.25.0`).
 * Requests signed with SigV4 (access key and secret) are not supported yet.
 *
 * @since 0.1.0
 */
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
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { textOf } from "./internal/prompt.js"
import * as Streamed from "./internal/streamed.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** A model or inference profile id, e.g. `anthropic.claude-3-5-haiku-20241022-v1:0`. */
  readonly model: string
  /** Default `https://bedrock-runtime.{region}.amazonaws.com`. */
  readonly apiUrl?: string | undefined
  readonly region?: string | undefined
  readonly apiKey?: Redacted.Redacted | undefined
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

const module = "Bedrock"

type Block = Record<string, unknown>

/** @internal */
export const toMessages = (prompt: Prompt.Prompt) => {
  const system: Array<{ text: string }> = []
  const messages: Array<{ role: "user" | "assistant"; content: Array<Block> }> = []
  // Converse wants the roles to alternate: consecutive messages of one role are one message
  const push = (role: "user" | "assistant", content: Array<Block>) => {
    if (content.length === 0) return
    const last = messages.at(-1)
    if (last !== undefined && last.role === role) last.content.push(...content)
    else messages.push({ role, content })
  }
  for (const message of prompt.content) {
    switch (message.role) {
      case "system":
        system.push({ text: message.content })
        break
      case "user":
        push("user", [{ text: textOf(message.content) }])
        break
      case "assistant": {
        const content: Array<Block> = []
        const text = textOf(message.content)
        if (text !== "") content.push({ text })
        for (const part of message.content) {
          if (part.type === "tool-call" && !part.providerExecuted) {
            content.push({ toolUse: { toolUseId: part.id, name: part.name, input: part.params ?? {} } })
          }
        }
        push("assistant", content)
        break
      }
      case "tool":
        push(
          "user",
          message.content.map((part) => ({
            toolResult: {
              toolUseId: part.id,
              content: [{ json: { result: part.result ?? null } }],
              status: part.isFailure ? "error" : "success"
            }
          }))
        )
        break
    }
  }
  return { system, messages }
}

const body = (options: LanguageModel.ProviderOptions) => {
  const { messages, system } = toMessages(options.prompt)
  return {
    messages,
    ...(system.length > 0 ? { system } : {}),
    ...(options.tools.length > 0
      ? {
        toolConfig: {
          tools: options.tools.map((tool) => ({
            toolSpec: {
              name: tool.name,
              ...(Tool.getDescription(tool as any) !== undefined ? { description: Tool.getDescription(tool as any) } : {}),
              inputSchema: { json: Tool.getJsonSchema(tool as any) }
            }
          }))
        }
      }
      : {})
  }
}

// -----------------------------------------------------------------------------
// the event-stream encoding (application/vnd.amazon.eventstream)
// -----------------------------------------------------------------------------

/** One decoded message: its string headers (`:event-type`, `:message-type`, ...) and its payload. */
interface EventMessage {
  readonly headers: Record<string, string>
  readonly payload: Uint8Array
}

const decoder = new TextDecoder()

/**
 * Splits bytes into event-stream messages: a 12-byte prelude (total length, headers length, CRC), the headers
 * (name length, name, type 7 = string with a 2-byte length; other types skipped by their size), the payload and a
 * 4-byte CRC. The CRCs are not checked: TLS already protects the bytes.
 */
const makeFramer = () => {
  let buffer = new Uint8Array(0)
  return (chunk: Uint8Array): Array<EventMessage> => {
    const joined = new Uint8Array(buffer.length + chunk.length)
    joined.set(buffer)
    joined.set(chunk, buffer.length)
    buffer = joined
    const out: Array<EventMessage> = []
    while (buffer.length >= 12) {
      const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength)
      const total = view.getUint32(0)
      const headersLength = view.getUint32(4)
      if (buffer.length < total) break
      const headers: Record<string, string> = {}
      let at = 12
      const end = 12 + headersLength
      while (at < end) {
        const nameLength = view.getUint8(at)
        const name = decoder.decode(buffer.subarray(at + 1, at + 1 + nameLength))
        at += 1 + nameLength
        const type = view.getUint8(at)
        at += 1
        const fixed: Record<number, number> = { 0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16 }
        if (type === 6 || type === 7) {
          const length = view.getUint16(at)
          if (type === 7) headers[name] = decoder.decode(buffer.subarray(at + 2, at + 2 + length))
          at += 2 + length
        } else {
          at += fixed[type] ?? 0
        }
      }
      out.push({ headers, payload: buffer.slice(end, total - 4) })
      buffer = buffer.slice(total)
    }
    return out
  }
}

const stopReasons: Record<string, Response.FinishReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  content_filtered: "content-filter",
  guardrail_intervened: "content-filter"
}

interface OpenCall {
  readonly id: string
  readonly name: string
  text: string
}

const makeState = () => {
  const calls = new Map<number, OpenCall>()
  let textId: string | undefined
  let finish: Response.FinishReason | undefined
  let usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number; cacheReadInputTokens?: number } = {}

  const onEvent = (
    message: EventMessage
  ): Effect.Effect<Array<Response.StreamPartEncoded>, AiError.AiError> =>
    Effect.suspend(() => {
      const type = message.headers[":event-type"] ?? message.headers[":exception-type"] ?? ""
      let data: any
      try {
        data = JSON.parse(decoder.decode(message.payload))
      } catch (cause) {
        return Effect.fail(
          new AiError.MalformedOutput({ module, method: "streamText", description: `event ${type} is not JSON`, cause })
        )
      }
      const parts: Array<Response.StreamPartEncoded> = []
      if (message.headers[":message-type"] === "exception") {
        parts.push({ type: "error", error: { type, message: data?.message ?? data?.Message } })
        return Effect.succeed(parts)
      }
      switch (type) {
        case "contentBlockStart": {
          const toolUse = data?.start?.toolUse
          if (toolUse !== undefined) {
            const call = { id: String(toolUse.toolUseId), name: String(toolUse.name), text: "" }
            calls.set(Number(data.contentBlockIndex), call)
            parts.push({ type: "tool-params-start", id: call.id, name: call.name })
          }
          break
        }
        case "contentBlockDelta": {
          const delta = data?.delta
          if (typeof delta?.text === "string" && delta.text !== "") {
            if (textId === undefined) {
              textId = "text_0"
              parts.push({ type: "text-start", id: textId })
            }
            parts.push({ type: "text-delta", id: textId, delta: delta.text })
          }
          const call = calls.get(Number(data?.contentBlockIndex))
          if (call !== undefined && typeof delta?.toolUse?.input === "string") {
            call.text += delta.toolUse.input
            parts.push({ type: "tool-params-delta", id: call.id, delta: delta.toolUse.input })
          }
          break
        }
        case "contentBlockStop": {
          const index = Number(data?.contentBlockIndex)
          const call = calls.get(index)
          if (call !== undefined) {
            calls.delete(index)
            const text = call.text.trim() === "" ? "{}" : call.text
            try {
              const params = Tool.unsafeSecureJsonParse(text)
              parts.push({ type: "tool-params-end", id: call.id }, { type: "tool-call", id: call.id, name: call.name, params })
            } catch (cause) {
              // as @effect/ai-anthropic does; AiModel turns it into a marked call
              return Effect.fail(
                new AiError.MalformedOutput({
                  module,
                  method: "streamText",
                  description: `Failed to securely parse tool call parameters for tool '${call.name}':\nParameters: ${text}`,
                  cause
                })
              )
            }
          }
          break
        }
        case "messageStop":
          finish = stopReasons[String(data?.stopReason)] ?? "other"
          break
        case "metadata":
          usage = data?.usage ?? {}
          break
      }
      return Effect.succeed(parts)
    })

  const onEnd = (): Array<Response.StreamPartEncoded> => [
    ...(textId !== undefined ? [{ type: "text-end" as const, id: textId }] : []),
    {
      type: "finish",
      reason: finish ?? "stop",
      usage: {
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        totalTokens: usage.totalTokens,
        ...(usage.cacheReadInputTokens !== undefined ? { cachedInputTokens: usage.cacheReadInputTokens } : {})
      }
    }
  ]
  return { onEvent, onEnd }
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
  const apiUrl = options.apiUrl ?? `https://bedrock-runtime.${options.region ?? "us-east-1"}.amazonaws.com`
  const client = (yield* HttpClient.HttpClient).pipe(
    HttpClient.mapRequest((request) =>
      request.pipe(
        HttpClientRequest.prependUrl(apiUrl.replace(/\/+$/, "")),
        options.apiKey !== undefined ? HttpClientRequest.bearerToken(options.apiKey) : identity
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
      const frame = makeFramer()
      const request = HttpClientRequest.post(`/model/${encodeURIComponent(options.model)}/converse-stream`).pipe(
        HttpClientRequest.setHeader("accept", "application/vnd.amazon.eventstream"),
        HttpClientRequest.setBody(HttpBody.unsafeJson(body(providerOptions)))
      )
      const events = client.execute(request).pipe(
        Effect.map((response) => response.stream),
        Stream.unwrapScoped,
        Stream.catchAll((error) => Stream.fromEffect(httpError(error))),
        Stream.mapConcat(frame),
        Stream.mapConcatEffect(state.onEvent)
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
