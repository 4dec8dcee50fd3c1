/**
 * An `@effect/ai` `LanguageModel` for Amazon Bedrock's Converse API, streamed (`converse-stream`).
 *
 * Written here because `@effect/ai-amazon-bedrock` has no release for the `@effect/ai` of this workspace (0.37):
 * its newest, 0.15.0, peers `@effect/ai` `^0.35.0` and `@effect/ai-anthropic` `^0.25.0`. Delete this package when
 * `@effect/ai-amazon-bedrock` has a release on the Effect 3 line that peers the `@effect/ai` used here.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as AiProvider from "@zett/ai/AiProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { AmazonBedrockClient, type EventMessage } from "./AmazonBedrockClient.js"

const module = "AmazonBedrockLanguageModel"

type Block = Record<string, unknown>

/**
 * The prompt as Converse's `messages` (roles alternate: consecutive messages of one role are one message) and
 * its `system` blocks.
 *
 * @internal
 */
export const toMessages = (prompt: Prompt.Prompt) => {
  const { system, turns } = AiProvider.toTurns<Block>(prompt, {
    text: (text) => ({ text }),
    toolCall: (call) => ({ toolUse: { toolUseId: call.id, name: call.name, input: call.params ?? {} } }),
    toolResult: (result) => ({
      toolResult: {
        toolUseId: result.id,
        content: [{ json: { result: result.result ?? null } }],
        status: result.isFailure ? "error" : "success"
      }
    })
  })
  return {
    system: system.map((text) => ({ text })),
    messages: turns.map((turn) => ({ role: turn.role, content: turn.parts }))
  }
}

const body = (options: LanguageModel.ProviderOptions) => {
  const { messages, system } = toMessages(options.prompt)
  return {
    messages,
    ...(system.length > 0 ? { system } : {}),
    ...(options.tools.length > 0
      ? {
        toolConfig: {
          tools: AiProvider.toolDeclarations(options.tools).map(({ parameters, ...tool }) => ({
            toolSpec: { ...tool, inputSchema: { json: parameters } }
          }))
        }
      }
      : {})
  }
}

const decoder = new TextDecoder()

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

// A piece of a tool call's input JSON, kept for the call's end and streamed as it came.
const toolInputDelta = (call: OpenCall | undefined, delta: any, parts: Array<Response.StreamPartEncoded>): void => {
  if (call === undefined || typeof delta?.toolUse?.input !== "string") return
  call.text += delta.toolUse.input
  parts.push({ type: "tool-params-delta", id: call.id, delta: delta.toolUse.input })
}

const makeDecoder = (): AiProvider.Decoder<EventMessage> => {
  const calls = new Map<number, OpenCall>()
  let textId: string | undefined
  let finish: Response.FinishReason | undefined
  let usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number; cacheReadInputTokens?: number } = {}

  const onChunk = (
    message: EventMessage
  ): Effect.Effect<Array<Response.StreamPartEncoded>, AiError.AiError> =>
    Effect.suspend(() => {
      const type = message.headers[":event-type"] ?? message.headers[":exception-type"] ?? ""
      let data: any
      try {
        data = JSON.parse(decoder.decode(message.payload))
      } catch (cause) {
        return Effect.fail(AiProvider.malformedOutput(module, `event ${type} is not JSON`, cause))
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
          const text = data?.delta?.text
          if (typeof text === "string" && text !== "") {
            if (textId === undefined) {
              textId = "text_0"
              parts.push({ type: "text-start", id: textId })
            }
            parts.push({ type: "text-delta", id: textId, delta: text })
          }
          toolInputDelta(calls.get(Number(data?.contentBlockIndex)), data?.delta, parts)
          break
        }
        case "contentBlockStop": {
          const index = Number(data?.contentBlockIndex)
          const call = calls.get(index)
          if (call !== undefined) {
            calls.delete(index)
            // a call that does not parse fails the stream, as @effect/ai-anthropic does; AiModel marks the call
            const done = AiProvider.toolCallParts(module, call)
            if (Either.isLeft(done)) return Effect.fail(done.left)
            for (const part of done.right) parts.push(part)
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

  const onEnd = () =>
    Stream.fromIterable([
      ...(textId !== undefined ? [{ type: "text-end" as const, id: textId }] : []),
      AiProvider.finishPart(finish ?? "stop", {
        input: usage.inputTokens,
        output: usage.outputTokens,
        total: usage.totalTokens,
        cached: usage.cacheReadInputTokens
      })
    ])
  return { onChunk, onEnd }
}

/**
 * `make` and `layer` build the `LanguageModel` of a model (a model or inference profile id, e.g.
 * `anthropic.claude-3-5-haiku-20241022-v1:0`) on the `AmazonBedrockClient`; `model(name)` is it as `@effect/ai`'s
 * `Model`, like `OpenAiLanguageModel.model`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const { layer, make, model } = AiProvider.streamingModel("amazon-bedrock", AmazonBedrockClient, {
  request: (client, model, options) => client.converseStream(model, body(options)),
  decoder: makeDecoder
})
