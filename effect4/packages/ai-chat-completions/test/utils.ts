/**
 * A fake Chat Completions server on 127.0.0.1 (node:http): it answers each request with a scripted reply (JSON or
 * a streamed chat completion) and records what it received; the Model on `ChatCompletionsLanguageModel` against it;
 * waits on real time while the test's clock is a `TestClock`. The 3 line's `@zett/testing/FakeProvider` and
 * `ModelProbes`, as far as these tests use them, on Effect 4.
 */
import { type Message, Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { ChatCompletionsClient, ChatCompletionsLanguageModel } from "@zett/ai-chat-completions"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export const KEY = "sk-test-0123456789abcdefSECRET"

export interface Seen {
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: any
}

export type Reply = (res: Http.ServerResponse) => void

export interface FakeProvider {
  readonly url: string
  readonly requests: Array<Seen>
}

/** The server, for the length of the scope: the n-th request gets the n-th reply (the last one after that). */
export const fakeProvider = (replies: ReadonlyArray<Reply>): Effect.Effect<FakeProvider, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly provider: FakeProvider; readonly server: Http.Server }>((resume) => {
      const requests: Array<Seen> = []
      const server = Http.createServer((req, res) => {
        let text = ""
        req.on("data", (chunk) => text += chunk)
        req.on("end", () => {
          requests.push({ url: req.url ?? "", headers: req.headers, body: text === "" ? undefined : JSON.parse(text) })
          replies[Math.min(requests.length - 1, replies.length - 1)]!(res)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          provider: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests },
          server
        })))
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ provider }) => provider))

/** A JSON answer. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (res) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

export interface ChatScript {
  readonly text?: ReadonlyArray<string>
  readonly calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly pieces: ReadonlyArray<string> }>
  readonly usage?: { readonly input: number; readonly output: number; readonly cached?: number }
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

const key = Redacted.make(KEY)

/** The Model on Chat Completions against the fake provider. */
export const chatModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "openai-chat", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(ChatCompletionsLanguageModel.layer({ model: "local-model" })),
    Layer.provide(ChatCompletionsClient.layer({ apiKey: key, apiUrl: `${provider.url}/v1` })),
    Layer.provide(FetchHttpClient.layer)
  )

/** The Model service of a layer, built in the current scope. */
export const buildModel = <E>(layer: Layer.Layer<Model.Model, E>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, Model.Model))

/** Two tools a provider's request is offered. */
export const tools: Model.ModelRequest["tools"] = [
  {
    name: "fs__read_file",
    description: "Reads a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
  },
  { name: "math__add", description: "Adds", parameters: { type: "object", properties: { a: { type: "number" } } } }
]

/** A model request: the messages (one user message by default) and the tools offered (none by default). */
export const request = (
  messages: ReadonlyArray<Message.Message>,
  offered: Model.ModelRequest["tools"] = []
): Model.ModelRequest => ({ messages, tools: offered, serverTools: [] })

const pause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))

/** Waits (on real time: the work is IO) until `condition` holds; dies after about 5 seconds. */
export const eventually = (condition: () => boolean, what: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000 && !condition(); i++) yield* pause
    if (!condition()) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

// Effect 4's `TestClock` has no `sleeps()`: its implementation keeps the pending sleeps in a field of that name
const sleepsOf = (clock: TestClock.TestClock): ReadonlyArray<{ readonly timestamp: number }> =>
  (clock as unknown as { readonly sleeps: ReadonlyArray<{ readonly timestamp: number }> }).sleeps

/** Waits until a fiber sleeps on the TestClock (a retry delay), then returns how long each pending sleep is, in ms. */
export const pendingSleep: Effect.Effect<ReadonlyArray<number>> = TestClock.testClockWith((clock) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000 && sleepsOf(clock).length === 0; i++) yield* pause
    const now = clock.currentTimeMillisUnsafe()
    const sleeps = sleepsOf(clock)
    if (sleeps.length === 0) return yield* Effect.die(new Error("timed out waiting for a retry delay"))
    return sleeps.map((sleep) => sleep.timestamp - now)
  })
)

/** The lines logged at any level, as `LEVEL message`. */
export const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) =>
    void lines.push(`${logLevel.toUpperCase()} ${(Array.isArray(message) ? message : [message]).map(String).join(" ")}`)
  )
  return { lines, layer: Logger.layer([logger]) }
}
