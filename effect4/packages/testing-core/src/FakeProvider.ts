/**
 * A fake model provider on 127.0.0.1 (node:http) for the providers' tests: it answers each request with a scripted
 * reply (JSON, server-sent events, or what a provider's own helper writes) and records what it received; a request
 * to a Model, waits on real time while the test's clock is a `TestClock`, and the logs and spans a test reads. The
 * 3 line's `@zett/testing/FakeProvider` and `ModelProbes`, as far as the providers' tests use them, on Effect 4;
 * each provider's test/utils.ts adds its wire format's answers and its Model.
 */
import * as Message from "@zett/agent/Message"
import * as Model from "@zett/agent/Model"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import * as Tracer from "effect/Tracer"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { inspect } from "node:util"

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

/** A server-sent event stream. */
export const sse = (events: ReadonlyArray<{ readonly event?: string; readonly data: unknown }>): Reply => (res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  for (const { data, event } of events) {
    res.write(`${event !== undefined ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`)
  }
  res.end()
}

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

/** A tracer that keeps every span (the built-in tracer's, so attributes and events are recorded) and shows each. */
export const captureSpans = () => {
  const spans: Array<{ readonly name: string; readonly text: () => string }> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = Tracer.nativeTracer.span(options)
      spans.push({
        name: span.name,
        text: () => {
          const status = span.status
          const failure = status._tag === "Ended" && Exit.isFailure(status.exit)
            ? Cause.pretty(status.exit.cause)
            : undefined
          return inspect({ name: span.name, attributes: span.attributes, span, failure }, { depth: 20 })
        }
      })
      return span
    }
  })
  return { spans, tracer }
}
