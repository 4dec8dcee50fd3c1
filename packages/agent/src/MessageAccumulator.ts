/**
 * Conversation memory across the runs of one agent, kept in memory (A12).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { Extension } from "./Extension.js"
import type { Message } from "./Message.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface MessageAccumulator extends Extension {
  /** The conversation as of the last successful run or compaction. */
  readonly messages: Effect.Effect<ReadonlyArray<Message>>
}

/**
 * Restores the stored conversation before the new user message is appended, and stores the conversation
 * after a successful run (a failed or cancelled run leaves the memory as it was).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: { readonly name?: string | undefined }): MessageAccumulator => {
  let stored: ReadonlyArray<Message> = []
  return {
    name: options?.name ?? "message-accumulator",
    messages: Effect.sync(() => stored),
    onMessage: (context) => context.replaceMessages(stored),
    onSuccess: (context) => Effect.map(context.messages, (messages) => void (stored = messages.slice())),
    onCompact: (context) => context.replaceMessages(stored),
    afterCompact: (context) => Effect.map(context.messages, (messages) => void (stored = messages.slice()))
  }
}
