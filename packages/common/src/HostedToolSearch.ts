/**
 * What the model providers' own tool searches (run by the API: Anthropic's `tool_search_tool_bm25` and `_regex`
 * server tools, the Responses API's `tool_search`) leave in an answer, and how a later request carries it again.
 * A stateless request must send the search's part of an answer back, or the tools it loaded are unknown to the next
 * step; the provider packages drop that part, so a client keeps it (`Replay`) under the first call of a client tool
 * that followed it in the same answer, which the agent sends back in every later request of the run. Plain
 * TypeScript on the providers' JSON, so that both Effect lines share it.
 *
 * @since 0.1.0
 */

import * as JsonDepth from "./JsonDepth.js"

type Json = { readonly [key: string]: unknown }

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The parts of answers kept by the id of the call that followed them. Made with a client, it lives as long as the
 * client and serves all its conversations: every later request of a run reads its entries again, so past `limit`
 * entries the one read least recently goes (a conversation idle that long searches again when it goes on).
 *
 * @since 0.1.0
 * @category replay
 */
export interface Replay<A> {
  readonly keep: (callId: string, parts: A) => void
  readonly get: (callId: string) => A | undefined
}

/**
 * A replay store of at most `limit` answers (1,000 by default).
 *
 * @since 0.1.0
 * @category replay
 */
export const makeReplay = <A>(limit = 1_000): Replay<A> => {
  const kept = new Map<string, A>()
  return {
    keep: (callId, parts) => {
      kept.delete(callId)
      kept.set(callId, parts)
      if (kept.size > limit) kept.delete(kept.keys().next().value!)
    },
    get: (callId) => {
      const parts = kept.get(callId)
      if (parts !== undefined) {
        kept.delete(callId)
        kept.set(callId, parts)
      }
      return parts
    }
  }
}

/**
 * The text with every occurrence of a tool's name replaced by another's: the system text names the search tool the
 * model has.
 *
 * @since 0.1.0
 * @category requests
 */
export const renamed = (text: string, from: string, to: string): string => text.split(from).join(to)

// -----------------------------------------------------------------------------
// Anthropic's Messages API
// -----------------------------------------------------------------------------

/**
 * The two variants of Anthropic's own search tool: words ranked by BM25, or regular expressions Claude writes.
 *
 * @since 0.1.0
 * @category anthropic
 */
export type AnthropicVariant = "bm25" | "regex"

/**
 * The definition of Anthropic's search tool of a variant, as the Messages API takes it.
 *
 * @since 0.1.0
 * @category anthropic
 */
export const anthropicTool = (variant: AnthropicVariant): { readonly type: string; readonly name: string } => ({
  type: `tool_search_tool_${variant}_20251119`,
  name: `tool_search_tool_${variant}`
})

/**
 * Whether a content block of an answer is the search's: its `server_tool_use` or its `tool_search_tool_result`.
 *
 * @since 0.1.0
 * @category anthropic
 */
export const isAnthropicBlock = (block: unknown): block is Json =>
  isObject(block) &&
  ((block.type === "server_tool_use" && typeof block.name === "string" && block.name.startsWith("tool_search_tool_")) ||
    block.type === "tool_search_tool_result")

/**
 * The search's blocks of one answer, kept under the `tool_use` block that followed them, with the number of text
 * blocks between them and it (so they go back before that text, where they were).
 *
 * @since 0.1.0
 * @category anthropic
 */
export interface AnthropicKept {
  readonly blocks: ReadonlyArray<unknown>
  readonly before: number
}

/**
 * Reads one answer's content blocks in order (`search` for the search's, whole; `client` for every other) and
 * keeps the search's under the next `tool_use` block.
 *
 * @since 0.1.0
 * @category anthropic
 */
export const anthropicKeeper = (replay: Replay<AnthropicKept>): {
  readonly search: (block: unknown) => void
  readonly client: (block: unknown) => void
} => {
  let pending: Array<unknown> = []
  let texts = 0
  return {
    search: (block) => {
      pending.push(block)
      texts = 0
    },
    client: (block) => {
      if (!isObject(block) || pending.length === 0) return
      if (block.type === "text") texts++
      if (block.type === "tool_use" && typeof block.id === "string") {
        replay.keep(block.id, { blocks: pending, before: texts })
        pending = []
        texts = 0
      }
    }
  }
}

/**
 * Reads a streamed answer's events (their JSON) in order, and says of each whether it is the search's (a block's
 * start, delta or stop): those are kept, the `server_tool_use` with the input its deltas spell, and the rest read as
 * client blocks.
 *
 * @since 0.1.0
 * @category anthropic
 */
export const anthropicEvents = (replay: Replay<AnthropicKept>): (event: unknown) => boolean => {
  const keep = anthropicKeeper(replay)
  const open = new Map<unknown, { readonly block: Json; input: string }>()
  return (event) => {
    if (!isObject(event)) return false
    if (event.type === "content_block_start") {
      if (isAnthropicBlock(event.content_block)) {
        open.set(event.index, { block: event.content_block, input: "" })
        return true
      }
      keep.client(event.content_block)
      return false
    }
    const block = open.get(event.index)
    if (block === undefined) return false
    if (event.type === "content_block_delta") {
      if (isObject(event.delta) && typeof event.delta.partial_json === "string") block.input += event.delta.partial_json
      return true
    }
    if (event.type === "content_block_stop") {
      open.delete(event.index)
      const input = block.input === "" ? undefined : parse(block.input)
      keep.search(input === undefined ? block.block : { ...block.block, input })
      return true
    }
    return false
  }
}

/** How deep the input of a search's call may nest: it is written again in every later request of its run. */
const maxInputDepth = 64

const parse = (text: string): unknown => {
  if (JsonDepth.deeperThan(text, maxInputDepth)) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * An assistant message's content blocks with what the search answered before each of its calls put back.
 *
 * @since 0.1.0
 * @category anthropic
 */
export const withAnthropicKept = <B>(
  content: ReadonlyArray<B>,
  replay: Replay<AnthropicKept>
): Array<B | unknown> => {
  const blocks: Array<B | unknown> = []
  for (const block of content) {
    const kept = isObject(block) && block.type === "tool_use" && typeof block.id === "string"
      ? replay.get(block.id)
      : undefined
    if (kept !== undefined) {
      let at = blocks.length
      for (
        let n = kept.before;
        n > 0 && at > 0 && isObject(blocks[at - 1]) && (blocks[at - 1] as Json).type === "text";
        n--
      ) {
        at--
      }
      blocks.splice(at, 0, ...kept.blocks)
    }
    blocks.push(block)
  }
  return blocks
}

// -----------------------------------------------------------------------------
// OpenAI's Responses API
// -----------------------------------------------------------------------------

/**
 * The name (and type) of the Responses API's own search tool.
 *
 * @since 0.1.0
 * @category openai
 */
export const openAiTool = "tool_search"

/**
 * Whether an output item is the API's search's: a `tool_search_call` or `tool_search_output` it ran itself.
 *
 * @since 0.1.0
 * @category openai
 */
export const isOpenAiItem = (item: unknown): item is Json =>
  isObject(item) && (item.type === "tool_search_call" || item.type === "tool_search_output") &&
  item.execution !== "client"

/**
 * An output item of the search as an input item takes it (an answer's item has fields a request's does not).
 *
 * @since 0.1.0
 * @category openai
 */
export const openAiInput = (item: Json): Json => {
  const fields = [
    "type",
    "id",
    "call_id",
    "execution",
    "status",
    item.type === "tool_search_call" ? "arguments" : "tools"
  ]
  return Object.fromEntries(fields.flatMap((field) => item[field] === undefined ? [] : [[field, item[field]]]))
}

/**
 * Reads one answer's output items in order (`done`: the item is whole) and keeps the search's under the next
 * function call.
 *
 * @since 0.1.0
 * @category openai
 */
export const openAiKeeper = (replay: Replay<ReadonlyArray<unknown>>): (item: unknown, done: boolean) => void => {
  let pending: Array<unknown> = []
  return (item, done) => {
    if (isOpenAiItem(item)) {
      if (done) pending.push(openAiInput(item))
    } else if (isObject(item) && item.type === "function_call" && typeof item.call_id === "string") {
      if (pending.length > 0) replay.keep(item.call_id, pending)
      pending = []
    }
  }
}
