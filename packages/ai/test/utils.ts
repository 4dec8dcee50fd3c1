import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { AiModel } from "@zett/ai"
import { Model } from "@zett/agent"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import * as TestClock from "effect/TestClock"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { inspect } from "node:util"

const ModelTag = Model.Model

export const KEY = "sk-test-0123456789abcdefSECRET"

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

/** A promise with its resolver, to hold a reply until the test has seen something. */
export const gate = <A = void>() => {
  let open!: (a: A) => void
  const promise = new Promise<A>((resolve) => (open = resolve))
  return { promise, open }
}

const tick = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))

/** Waits (on real time: the work is IO) until `condition` holds; fails after about 5 seconds. */
export const eventually = (condition: () => boolean, what: string): Effect.Effect<void> => {
  const loop = (n: number): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (condition()) return Effect.void
      if (n > 1000) return Effect.dieMessage(`timed out waiting for ${what}`)
      return Effect.zipRight(tick, loop(n + 1))
    })
  return loop(0)
}

/** Waits until a fiber sleeps on the TestClock (a retry delay), then returns the pending wake-up times. */
export const pendingSleep: Effect.Effect<ReadonlyArray<number>> = Effect.suspend(() => {
  const loop = (n: number): Effect.Effect<ReadonlyArray<number>> =>
    Effect.flatMap(TestClock.sleeps(), (sleeps) => {
      if (sleeps.length > 0) return Effect.succeed(Array.from(sleeps))
      if (n > 1000) return Effect.dieMessage("timed out waiting for a retry delay")
      return Effect.zipRight(tick, Effect.suspend(() => loop(n + 1)))
    })
  return loop(0)
})

/**
 * Every span the code under test opens. `text` is what an exporter records (attributes, events, the pretty
 * failure); `failure` is the raw error a span ended with, for a deeper look.
 */
export const captureSpans = () => {
  const spans: Array<{ readonly name: string; readonly text: () => string; readonly failure: () => unknown }> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const attributes = new Map<string, unknown>()
      const events: Array<unknown> = []
      let status: Tracer.SpanStatus = { _tag: "Started", startTime }
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId: `span${spans.length}`,
        traceId: "trace",
        parent,
        context,
        get status() {
          return status
        },
        attributes,
        links,
        sampled: true,
        kind,
        end: (endTime, exit) => void (status = { _tag: "Ended", startTime, endTime, exit }),
        attribute: (key, value) => void attributes.set(key, value),
        event: (name, _time, attributes) => void events.push({ name, attributes }),
        addLinks: () => {}
      }
      const failed = () => status._tag === "Ended" && Exit.isFailure(status.exit) ? status.exit.cause : undefined
      spans.push({
        name,
        text: () => {
          const cause = failed()
          return inspect({ name, attributes, events, failure: cause && Cause.pretty(cause) }, { depth: 20 })
        },
        failure: () => {
          const cause = failed()
          return cause && Cause.squash(cause)
        }
      })
      return span
    },
    context: (f) => f()
  })
  return { spans, tracer }
}

/** Every log line at every level, rendered with its annotations and cause. */
export const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ annotations, cause, logLevel, message }) => {
    lines.push(
      [logLevel.label, inspect(message, { depth: 10 }), inspect(annotations, { depth: 10 }), Cause.pretty(cause)]
        .join(" ")
    )
  })
  const layer = Layer.merge(Logger.add(logger), Logger.minimumLogLevel(LogLevel.All))
  return { lines, layer }
}

const client = NodeHttpClient.layerUndici

/** Builds a model layer in the test's scope (the HTTP client lives as long as the scope). */
export const buildModel = <E>(layer: Layer.Layer<Model.Model, E>): Effect.Effect<Model.Model["Type"], E, Scope.Scope> =>
  Layer.build(layer).pipe(Effect.map(Context.get(ModelTag)))

/** The Model on @effect/ai-openai against the fake provider. */
export const openAiModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layerModelConfig({
    provider: "openai",
    model: "gpt-4.1-mini",
    apiKey: Option.some(Redacted.make(KEY)),
    baseUrl: Option.some(`${provider.url}/v1`)
  }, options).pipe(Layer.provide(client))

/** The Model on @effect/ai-anthropic against the fake provider. */
export const anthropicModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layerModelConfig({
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    apiKey: Option.some(Redacted.make(KEY)),
    baseUrl: Option.some(provider.url)
  }, options).pipe(Layer.provide(client))

// -----------------------------------------------------------------------------
// OpenAI Responses API stream events
// -----------------------------------------------------------------------------

const response = (status: string, output: ReadonlyArray<unknown>, usage?: { input: number; output: number }) => ({
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
    input_tokens_details: { cached_tokens: 0 },
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

/** The events of a Responses API stream: text deltas, then function calls, then `response.completed`. */
export const openAiEvents = (
  options: {
    readonly text?: ReadonlyArray<string>
    readonly calls?: ReadonlyArray<OpenAiCall>
    readonly usage?: { input: number; output: number }
  }
): Array<{ readonly event: string; readonly data: unknown }> => {
  const events: Array<{ event: string; data: unknown }> = []
  let sequence = 0
  const push = (data: { readonly type: string } & Record<string, unknown>) =>
    events.push({ event: data.type, data: { ...data, sequence_number: sequence++ } })
  const output: Array<unknown> = []
  push({ type: "response.created", response: response("in_progress", []) })
  let index = 0
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

// -----------------------------------------------------------------------------
// Anthropic Messages API stream events
// -----------------------------------------------------------------------------

/** The events of a Messages API stream: a text block, then tool_use blocks, then the stop. */
export const anthropicEvents = (
  options: {
    readonly text?: ReadonlyArray<string>
    readonly calls?: ReadonlyArray<OpenAiCall>
    readonly usage?: { input: number; output: number }
  }
): Array<{ readonly event: string; readonly data: unknown }> => {
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
