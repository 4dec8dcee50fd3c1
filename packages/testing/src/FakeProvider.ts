/**
 * A fake model provider on 127.0.0.1 for tests: it answers each request with a scripted reply (JSON or
 * server-sent events) and records what it received, plus builders for the OpenAI Responses API and the
 * Anthropic Messages API event streams that `@effect/ai-openai` and `@effect/ai-anthropic` read.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Zlib from "node:zlib"

/** One request as the fake provider saw it. */
export interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: any
}

export type Reply = (res: Http.ServerResponse, req: Http.IncomingMessage, seen: Seen) => void | Promise<void>

export interface FakeProvider {
  readonly url: string
  readonly requests: Array<Seen>
  /** Requests whose connection closed before the reply ended. */
  readonly aborted: Array<number>
}

/**
 * A provider on 127.0.0.1 (port 0) for the test's scope: the n-th request gets the n-th reply (the last one
 * repeats).
 */
export const fakeProvider = (replies: ReadonlyArray<Reply>): Effect.Effect<FakeProvider, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: Http.Server; readonly provider: FakeProvider }>((resume) => {
      const requests: Array<Seen> = []
      const aborted: Array<number> = []
      const server = Http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          const seen: Seen = {
            method: req.method ?? "",
            url: req.url ?? "",
            headers: req.headers,
            body: text === "" ? undefined : JSON.parse(text)
          }
          const index = requests.push(seen) - 1
          res.on("close", () => {
            if (!res.writableFinished) aborted.push(index)
          })
          const reply = replies[Math.min(index, replies.length - 1)]!
          void Promise.resolve(reply(res, req, seen)).catch(() => res.destroy())
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ server, provider: { url: `http://127.0.0.1:${port}`, requests, aborted } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ provider }) => provider))

/** A JSON answer. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (res) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

/**
 * A server-sent event stream. With `hold`, the reply stops before event `hold.before` until `hold.until`
 * resolves; with `open`, the connection stays open after the last event.
 */
export const sse = (
  events: ReadonlyArray<{ readonly event?: string; readonly data: unknown }>,
  options: {
    readonly hold?: { readonly before: number; readonly until: Promise<unknown> }
    readonly open?: boolean
  } = {}
): Reply =>
async (res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  for (let i = 0; i < events.length; i++) {
    if (options.hold !== undefined && options.hold.before === i) await options.hold.until
    const { data, event } = events[i]!
    res.write(`${event !== undefined ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`)
  }
  if (options.open !== true) res.end()
}

// -----------------------------------------------------------------------------
// OpenAI Responses API stream events
// -----------------------------------------------------------------------------

const response = (
  status: string,
  output: ReadonlyArray<unknown>,
  usage?: { input: number; output: number; cached?: number }
) => ({
  id: "resp_1",
  object: "response",
  created_at: 1_760_000_000,
  status,
  error: null,
  incomplete_details: null,
  instructions: null,
  model: "gpt-4.1-mini",
  output,
  parallel_tool_calls: true,
  tool_choice: "auto",
  tools: [],
  metadata: {},
  temperature: 1,
  top_p: 1,
  usage: usage === undefined ? null : {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cached ?? 0 },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input + usage.output
  }
})

export interface OpenAiCall {
  readonly id: string
  readonly name: string
  /** The argument text in the pieces the provider streams it. */
  readonly pieces: ReadonlyArray<string>
}

/**
 * A search the provider ran itself before the answer's text and calls (its own tool search): its call's id, what the
 * model searched for, and the names of the tools it found (Anthropic: tool references; OpenAI: deferred function
 * definitions). With `error`, Anthropic's search failed with that code.
 */
export interface HostedSearch {
  readonly id: string
  readonly query: string
  readonly found: ReadonlyArray<string>
  readonly error?: string
}

/** What a scripted provider stream says: text deltas, then tool calls (their arguments in pieces). */
export interface StreamScript {
  readonly text?: ReadonlyArray<string>
  readonly calls?: ReadonlyArray<OpenAiCall>
  readonly usage?: { input: number; output: number; cached?: number }
  /** A search the provider ran first (its own tool search), the tool's name Anthropic's (`tool_search_tool_bm25`). */
  readonly hostedSearch?: HostedSearch
}

/** One server-sent event. */
export interface SseEvent {
  readonly event: string
  readonly data: unknown
}

/** The two items of a hosted tool search, by status: the model's call, and what the server found. */
const hostedSearchItems = (
  search: NonNullable<StreamScript["hostedSearch"]>
): ReadonlyArray<(status: string) => unknown> => {
  const call = (status: string) => ({
    type: "tool_search_call",
    id: `tsc_${search.id}`,
    call_id: null,
    execution: "server",
    arguments: { query: search.query },
    status,
    created_by: "model"
  })
  const found = (status: string) => ({
    type: "tool_search_output",
    id: `tso_${search.id}`,
    call_id: null,
    execution: "server",
    status,
    tools: search.found.map((name) => ({
      type: "function",
      name,
      parameters: { type: "object", properties: {} },
      strict: false,
      defer_loading: true
    })),
    created_by: "server"
  })
  return [call, found]
}

/** The events of a Responses API stream: text deltas, then function calls, then `response.completed`. */
export const openAiEvents = (
  options: StreamScript
): Array<SseEvent> => {
  const events: Array<{ event: string; data: unknown }> = []
  let sequence = 0
  const push = (data: { readonly type: string } & Record<string, unknown>) =>
    events.push({ event: data.type, data: { ...data, sequence_number: sequence++ } })
  const output: Array<unknown> = []
  push({ type: "response.created", response: response("in_progress", []) })
  let index = 0
  const search = options.hostedSearch
  if (search !== undefined) {
    for (const item of hostedSearchItems(search)) {
      push({ type: "response.output_item.added", output_index: index, item: item("in_progress") })
      push({ type: "response.output_item.done", output_index: index, item: item("completed") })
      output.push(item("completed"))
      index++
    }
  }
  if (options.text !== undefined) {
    const message = (content: ReadonlyArray<unknown>, status: string) => ({
      type: "message",
      id: "msg_1",
      status,
      role: "assistant",
      content
    })
    const text = options.text.join("")
    push({ type: "response.output_item.added", output_index: index, item: message([], "in_progress") })
    for (const delta of options.text) {
      push({
        type: "response.output_text.delta",
        item_id: "msg_1",
        output_index: index,
        content_index: 0,
        delta,
        logprobs: []
      })
    }
    const done = message([{ type: "output_text", text, annotations: [], logprobs: [] }], "completed")
    push({ type: "response.output_item.done", output_index: index, item: done })
    output.push(done)
    index++
  }
  for (const call of options.calls ?? []) {
    const item = (args: string, status: string) => ({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: args,
      status
    })
    push({ type: "response.output_item.added", output_index: index, item: item("", "in_progress") })
    for (const delta of call.pieces) {
      push({ type: "response.function_call_arguments.delta", item_id: `fc_${call.id}`, output_index: index, delta })
    }
    const done = item(call.pieces.join(""), "completed")
    push({ type: "response.output_item.done", output_index: index, item: done })
    output.push(done)
    index++
  }
  push({ type: "response.completed", response: response("completed", output, options.usage) })
  return events
}

/**
 * The events of a Responses API stream in which the model runs a client-executed tool search: a `tool_search_call`
 * item (added without its arguments, done with them), then `response.completed` listing it.
 */
export const openAiToolSearchEvents = (
  callId: string,
  args: Record<string, unknown>,
  usage?: { input: number; output: number }
): Array<SseEvent> => {
  const item = (status: string, withArguments: boolean) => ({
    type: "tool_search_call",
    id: `tsc_${callId}`,
    call_id: callId,
    execution: "client",
    ...(withArguments ? { arguments: args } : {}),
    status
  })
  return [
    { type: "response.created", response: response("in_progress", []) },
    { type: "response.output_item.added", output_index: 0, item: item("in_progress", false) },
    { type: "response.output_item.done", output_index: 0, item: item("completed", true) },
    { type: "response.completed", response: response("completed", [item("completed", true)], usage) }
  ].map((data, sequence) => ({ event: data.type, data: { ...data, sequence_number: sequence } }))
}

// -----------------------------------------------------------------------------
// Anthropic Messages API stream events
// -----------------------------------------------------------------------------

/** The events of a Messages API stream: a text block, then tool_use blocks, then the stop. */
export const anthropicEvents = (
  options: StreamScript
): Array<SseEvent> => {
  const events: Array<{ event: string; data: unknown }> = []
  const push = (data: { readonly type: string } & Record<string, unknown>) => events.push({ event: data.type, data })
  push({
    type: "message_start",
    message: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: options.usage?.input ?? 0, output_tokens: 1 }
    }
  })
  let index = 0
  const search = options.hostedSearch
  if (search !== undefined) {
    push({
      type: "content_block_start",
      index,
      content_block: { type: "server_tool_use", id: search.id, name: "tool_search_tool_bm25", input: {} }
    })
    const input = JSON.stringify({ query: search.query })
    for (const partial_json of [input.slice(0, 5), input.slice(5)]) {
      push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })
    }
    push({ type: "content_block_stop", index })
    index++
    const content = search.error !== undefined
      ? { type: "tool_search_tool_result_error", error_code: search.error }
      : {
        type: "tool_search_tool_search_result",
        tool_references: search.found.map((tool_name) => ({ type: "tool_reference", tool_name }))
      }
    push({
      type: "content_block_start",
      index,
      content_block: { type: "tool_search_tool_result", tool_use_id: search.id, content }
    })
    push({ type: "content_block_stop", index })
    index++
  }
  if (options.text !== undefined) {
    push({ type: "content_block_start", index, content_block: { type: "text", text: "" } })
    for (const text of options.text) {
      push({ type: "content_block_delta", index, delta: { type: "text_delta", text } })
    }
    push({ type: "content_block_stop", index })
    index++
  }
  for (const call of options.calls ?? []) {
    push({
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} }
    })
    for (const partial_json of call.pieces) {
      push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })
    }
    push({ type: "content_block_stop", index })
    index++
  }
  push({
    type: "message_delta",
    delta: { stop_reason: (options.calls ?? []).length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: options.usage?.output ?? 0 }
  })
  push({ type: "message_stop" })
  return events
}

// -----------------------------------------------------------------------------
// OpenAI Chat Completions stream chunks
// -----------------------------------------------------------------------------

/** What a scripted Chat Completions stream says; with `interleave`, the calls' argument pieces alternate. */
export interface ChatScript extends StreamScript {
  readonly interleave?: boolean
  readonly finishReason?: string
}

/**
 * The `data:` payloads of a streamed Chat Completions answer (`chat.completion.chunk` objects as OpenAI, llama.cpp
 * and vLLM send them): the role, text deltas, tool-call deltas by `index` (id and name in the first), the finish
 * reason, then a usage chunk with empty `choices`. `chatSse` adds the closing `[DONE]`.
 */
export const chatChunks = (options: ChatScript): Array<unknown> => {
  const chunk = (delta: unknown, finish_reason: string | null = null) => ({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1_760_000_000,
    model: "local-model",
    choices: [{ index: 0, delta, logprobs: null, finish_reason }]
  })
  const chunks: Array<unknown> = [chunk({ role: "assistant", content: "" })]
  for (const text of options.text ?? []) chunks.push(chunk({ content: text }))
  const calls = options.calls ?? []
  calls.forEach((call, index) =>
    chunks.push(chunk({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
    }))
  )
  const piece = (index: number, text: string) => chunk({ tool_calls: [{ index, function: { arguments: text } }] })
  if (options.interleave === true) {
    const longest = Math.max(0, ...calls.map((call) => call.pieces.length))
    for (let i = 0; i < longest; i++) {
      calls.forEach((call, index) => {
        if (i < call.pieces.length) chunks.push(piece(index, call.pieces[i]!))
      })
    }
  } else {
    calls.forEach((call, index) => call.pieces.forEach((text) => chunks.push(piece(index, text))))
  }
  chunks.push(chunk({}, options.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop")))
  if (options.usage !== undefined) {
    chunks.push({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1_760_000_000,
      model: "local-model",
      choices: [],
      usage: {
        prompt_tokens: options.usage.input,
        completion_tokens: options.usage.output,
        total_tokens: options.usage.input + options.usage.output,
        ...(options.usage.cached !== undefined
          ? { prompt_tokens_details: { cached_tokens: options.usage.cached } }
          : {})
      }
    })
  }
  return chunks
}

/** A Chat Completions event stream: one `data:` line per chunk, then `data: [DONE]`. */
export const chatSse = (chunks: ReadonlyArray<unknown>): Reply => (res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  for (const data of chunks) res.write(`data: ${JSON.stringify(data)}\n\n`)
  res.end("data: [DONE]\n\n")
}

// -----------------------------------------------------------------------------
// Gemini streamGenerateContent (alt=sse) chunks
// -----------------------------------------------------------------------------

/**
 * The `data:` payloads of a streamed Gemini answer (`GenerateContentResponse` objects): one per text piece, the
 * function calls (whole, as Gemini sends them; `pieces` are joined) in one chunk, then the finish with
 * `usageMetadata`. Write them with `sse(geminiChunks(...).map((data) => ({ data })))`.
 */
export const geminiChunks = (options: StreamScript): Array<unknown> => {
  const chunk = (parts: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
    modelVersion: "gemini-test"
  })
  const chunks: Array<unknown> = (options.text ?? []).map((text) => chunk([{ text }]))
  const calls = options.calls ?? []
  if (calls.length > 0) {
    chunks.push(
      chunk(calls.map((call) => ({ functionCall: { name: call.name, args: JSON.parse(call.pieces.join("")) } })))
    )
  }
  chunks.push({
    ...chunk([{ text: "" }], { finishReason: "STOP" }),
    usageMetadata: {
      promptTokenCount: options.usage?.input ?? 0,
      candidatesTokenCount: options.usage?.output ?? 0,
      totalTokenCount: (options.usage?.input ?? 0) + (options.usage?.output ?? 0),
      ...(options.usage?.cached !== undefined ? { cachedContentTokenCount: options.usage.cached } : {})
    }
  })
  return chunks
}

// -----------------------------------------------------------------------------
// Bedrock ConverseStream (application/vnd.amazon.eventstream)
// -----------------------------------------------------------------------------

/** The events of a ConverseStream answer: messageStart, a text block, toolUse blocks, messageStop, metadata. */
export const bedrockEvents = (options: StreamScript): Array<{ readonly type: string; readonly payload: unknown }> => {
  const events: Array<{ type: string; payload: unknown }> = [{ type: "messageStart", payload: { role: "assistant" } }]
  let index = 0
  if (options.text !== undefined) {
    for (const text of options.text) {
      events.push({ type: "contentBlockDelta", payload: { contentBlockIndex: index, delta: { text } } })
    }
    events.push({ type: "contentBlockStop", payload: { contentBlockIndex: index } })
    index++
  }
  for (const call of options.calls ?? []) {
    events.push({
      type: "contentBlockStart",
      payload: { contentBlockIndex: index, start: { toolUse: { toolUseId: call.id, name: call.name } } }
    })
    for (const input of call.pieces) {
      events.push({ type: "contentBlockDelta", payload: { contentBlockIndex: index, delta: { toolUse: { input } } } })
    }
    events.push({ type: "contentBlockStop", payload: { contentBlockIndex: index } })
    index++
  }
  events.push({
    type: "messageStop",
    payload: { stopReason: (options.calls ?? []).length > 0 ? "tool_use" : "end_turn" }
  })
  events.push({
    type: "metadata",
    payload: {
      usage: {
        inputTokens: options.usage?.input ?? 0,
        outputTokens: options.usage?.output ?? 0,
        totalTokens: (options.usage?.input ?? 0) + (options.usage?.output ?? 0),
        ...(options.usage?.cached !== undefined ? { cacheReadInputTokens: options.usage.cached } : {})
      },
      metrics: { latencyMs: 100 }
    }
  })
  return events
}

/** One message of AWS's event-stream encoding, with its CRCs, as Bedrock sends it. */
export const eventStreamMessage = (headers: Record<string, string>, payload: unknown): Buffer => {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const n = Buffer.from(name, "utf8")
      const v = Buffer.from(value, "utf8")
      const head = Buffer.alloc(1 + n.length + 1 + 2)
      head.writeUInt8(n.length, 0)
      n.copy(head, 1)
      head.writeUInt8(7, 1 + n.length)
      head.writeUInt16BE(v.length, 2 + n.length)
      return Buffer.concat([head, v])
    })
  )
  const body = Buffer.from(JSON.stringify(payload), "utf8")
  const total = 12 + headerBytes.length + body.length + 4
  const prelude = Buffer.alloc(8)
  prelude.writeUInt32BE(total, 0)
  prelude.writeUInt32BE(headerBytes.length, 4)
  const preludeCrc = Buffer.alloc(4)
  preludeCrc.writeUInt32BE(Zlib.crc32(prelude), 0)
  const withoutCrc = Buffer.concat([prelude, preludeCrc, headerBytes, body])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(Zlib.crc32(withoutCrc), 0)
  return Buffer.concat([withoutCrc, crc])
}

/** A ConverseStream answer; `split` cuts the bytes in pieces of that size, so messages arrive across reads. */
export const bedrockStream = (
  events: ReadonlyArray<{ readonly type: string; readonly payload: unknown }>,
  options: { readonly split?: number } = {}
): Reply =>
async (res) => {
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" })
  const bytes = Buffer.concat(
    events.map(({ payload, type }) =>
      eventStreamMessage(
        { ":event-type": type, ":content-type": "application/json", ":message-type": "event" },
        payload
      )
    )
  )
  const size = options.split ?? bytes.length
  for (let at = 0; at < bytes.length; at += size) {
    res.write(bytes.subarray(at, at + size))
    await new Promise((resolve) => setImmediate(resolve))
  }
  res.end()
}
