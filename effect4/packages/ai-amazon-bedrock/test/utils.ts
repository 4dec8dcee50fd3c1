/**
 * A fake Bedrock runtime on 127.0.0.1 (node:http): it answers each request with a scripted reply (JSON or a
 * ConverseStream answer in AWS's binary event-stream encoding) and records what it received; the Model on
 * `AmazonBedrockLanguageModel` against it; waits on real time while the test's clock is a `TestClock`; the logs a
 * test reads. The 3 line's `@zett/testing/FakeProvider` and `ModelProbes`, as far as these tests use them, on
 * Effect 4.
 */
import { Message, Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { AmazonBedrockClient, AmazonBedrockLanguageModel } from "@zett/ai-amazon-bedrock"
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
import * as Zlib from "node:zlib"

export const KEY = "sk-test-0123456789abcdefSECRET"

export interface Seen {
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: any
}

export type Reply = (res: Http.ServerResponse) => void | Promise<void>

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
          const reply = replies[Math.min(requests.length - 1, replies.length - 1)]!
          void Promise.resolve(reply(res)).catch(() => res.destroy())
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

export interface StreamScript {
  readonly text?: ReadonlyArray<string>
  readonly calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly pieces: ReadonlyArray<string> }>
  readonly usage?: { readonly input: number; readonly output: number; readonly cached?: number }
}

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

const key = Redacted.make(KEY)

/** The Model on Bedrock's Converse API (a Bedrock API key) against the fake provider. */
export const bedrockModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "bedrock", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(AmazonBedrockLanguageModel.layer({ model: "anthropic.claude-3-5-haiku-20241022-v1:0" })),
    Layer.provide(AmazonBedrockClient.layer({ apiKey: key, apiUrl: provider.url })),
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
  messages: ReadonlyArray<Message.Message> = [Message.user("Hi")],
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
