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
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as AiModel from "@effect/ai/Model"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { AiProvider } from "@zett/ai"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { AmazonBedrockClient, type EventMessage } from "./AmazonBedrockClient.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** A model or inference profile id, e.g. `anthropic.claude-3-5-haiku-20241022-v1:0`. */
  readonly model: string
}

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
            // a call that does not parse fails the stream, as @effect/ai-anthropic does; AiModel marks the call
            const done = AiProvider.toolCallParts(module, call)
            if (Either.isLeft(done)) return Effect.fail(done.left)
            parts.push(...done.right)
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

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const client = yield* AmazonBedrockClient
  return yield* AiProvider.makeLanguageModel((providerOptions) =>
    Stream.suspend(() => {
      const state = makeState()
      return Stream.concat(
        client.converseStream(options.model, body(providerOptions)).pipe(Stream.mapConcatEffect(state.onEvent)),
        Stream.suspend(() => Stream.fromIterable(state.onEnd()))
      )
    })
  )
})

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<LanguageModel.LanguageModel, never, AmazonBedrockClient> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The model as `@effect/ai`'s `Model`, like `@effect/ai-amazon-bedrock`'s `AmazonBedrockLanguageModel.model`.
 *
 * @since 0.1.0
 * @category ai models
 */
export const model = (
  model: string
): AiModel.Model<"amazon-bedrock", LanguageModel.LanguageModel, AmazonBedrockClient> =>
  AiModel.make("amazon-bedrock", layer({ model }))
