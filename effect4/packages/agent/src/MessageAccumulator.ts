/**
 * Conversation memory across the runs of one agent, kept in memory: each run starts from the messages of the
 * runs before it.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { Extension, RunContext } from "./Extension.js"
import type { Message } from "./Message.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface MessageAccumulator extends Extension {
  /** The conversation as of the last successful run or compaction. */
  readonly messages: Effect.Effect<ReadonlyArray<Message>>
}

/**
 * Restores the stored conversation before the new user message is appended, and stores the conversation
 * after a successful run (a failed or cancelled run leaves the memory as it was). Each request restores the
 * conversation as it was when the request started (its `request` state), whatever other runs store meanwhile.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options?: { readonly name?: string | undefined }): MessageAccumulator => {
  const stored = Ref.makeUnsafe<ReadonlyArray<Message>>([])
  const store = (context: RunContext) =>
    Effect.flatMap(context.messages, (messages) => Ref.set(stored, messages.slice()))
  return {
    name: options?.name ?? "message-accumulator",
    messages: Ref.get(stored),
    request: () =>
      Effect.map(Ref.get(stored), (restored) => ({
        onMessage: (context) => context.replaceMessages(restored),
        onSuccess: store,
        onCompact: (context) => context.replaceMessages(restored),
        afterCompact: store
      }))
  }
}
