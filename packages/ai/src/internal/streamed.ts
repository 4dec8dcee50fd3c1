import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/**
 * A `LanguageModel` whose endpoint only streams (the chat-completions, Gemini and Bedrock clients of this package):
 * `generateText` collects the stream, joining its text deltas into one text part.
 */
export const make = (
  streamText: (options: LanguageModel.ProviderOptions) => Stream.Stream<Response.StreamPartEncoded, AiError.AiError>
) =>
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
