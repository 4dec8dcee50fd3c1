/**
 * A provider made of `AiProvider`'s parts (the client, server-sent events, a decoder, `streamingModel`) against an
 * HTTP server of the test's own (node:http, on a free port), under `AiModel`: what the server receives, what the
 * agent's Model reads, and what the errors keep of the key.
 */
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import { AiModel, AiProvider } from "@zett/ai"
import { LanguageModel, Prompt } from "effect/ai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { inspect } from "node:util"

const KEY = "sk-test-provider-0123456789"
const PROXY = "cHJveHktc2VjcmV0LXZhbHVl"

/** A tracer that keeps every span it makes (the built-in tracer's spans, so their attributes are recorded). */
const recordingTracer = () => {
  const spans: Array<Tracer.Span> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = Tracer.nativeTracer.span(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

/** Waits (on real time: the work is IO) until `condition` holds; dies after about 5 seconds. */
const eventually = (condition: () => boolean, what: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000 && !condition(); i++) yield* Effect.sleep("5 millis")
    if (!condition()) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

/** What an exporter would read of the spans: their names, attributes, events and status. */
const spanText = (spans: ReadonlyArray<Tracer.Span>) => inspect(spans, { depth: 20 })

interface Received {
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: any
}

/** An HTTP server that answers the n-th request with the n-th answer, and records each request. */
const server = (
  answers: ReadonlyArray<
    {
      readonly status?: number
      readonly events?: ReadonlyArray<unknown>
      readonly body?: string
      /** The answer's stream stays open after its events. */
      readonly open?: boolean
    }
  >
) =>
  Effect.acquireRelease(
    Effect.callback<
      { readonly url: string; readonly received: Array<Received>; readonly closed: () => number }
    >((resume) => {
      const received: Array<Received> = []
      let closed = 0
      const http = Http.createServer((request, response) => {
        response.on("close", () => void closed++)
        let text = ""
        request.on("data", (chunk) => text += chunk)
        request.on("end", () => {
          received.push({
            url: request.url ?? "",
            headers: request.headers,
            body: text === "" ? undefined : JSON.parse(text)
          })
          const answer = answers[Math.min(received.length - 1, answers.length - 1)]!
          if (answer.events === undefined) {
            response.writeHead(answer.status ?? 200, { "content-type": "application/json" }).end(answer.body ?? "")
            return
          }
          response.writeHead(200, { "content-type": "text/event-stream" })
          // an event given as text is sent as it is
          for (const event of answer.events) {
            response.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`)
          }
          if (answer.open !== true) response.end()
        })
      })
      http.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
          received,
          closed: () => closed,
          close: () => {
            http.closeAllConnections()
            http.close()
          }
        })))
    }),
    (started) => Effect.sync(() => (started as unknown as { close: () => void }).close())
  )

/** The provider's client, as a provider package has one. */
class FakeClient extends Context.Service<FakeClient, { readonly http: HttpClient.HttpClient }>()("test/FakeClient") {}

const clientLayer = (options: AiProvider.ClientOptions & { readonly apiUrl: string }) =>
  Layer.effect(FakeClient, Effect.map(AiProvider.makeHttpClient(options), (http) => FakeClient.of({ http })))

type Event =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "call"; readonly id: string; readonly name: string; readonly args: string }
  | { readonly type: "done"; readonly input: number; readonly output: number }

/** A provider module: a JSON request of turns and tool declarations, an answer of server-sent JSON events. */
const FakeLanguageModel = AiProvider.streamingModel("fake", FakeClient, {
  request: (client, model, options) => {
    const { system, turns } = AiProvider.toTurns<Record<string, unknown>>(options.prompt, {
      text: (text) => ({ text }),
      toolCall: (call) => ({ call: call.name, args: call.params }),
      toolResult: (result) => ({ result: result.name, value: result.result })
    })
    return AiProvider.serverSentEvents(
      client.http,
      HttpClientRequest.post("/chat").pipe(
        HttpClientRequest.bodyJsonUnsafe({ model, system, turns, tools: AiProvider.toolDeclarations(options.tools) })
      ),
      "FakeLanguageModel"
    ).pipe(Stream.mapEffect(AiProvider.parseJson<Event>("FakeLanguageModel")))
  },
  decoder: () => {
    let done: Event | undefined
    return {
      onChunk: (event) => {
        switch (event.type) {
          case "text":
            return [{ type: "text-delta", id: "t", delta: event.text }]
          case "call": {
            const parts = AiProvider.toolCallParts("FakeLanguageModel", {
              id: event.id,
              name: event.name,
              text: event.args
            })
            return parts._tag === "Success" ? parts.success : Effect.fail(parts.failure)
          }
          case "done":
            done = event
            return []
        }
      },
      onEnd: () =>
        done?.type === "done"
          ? Stream.make(AiProvider.finishPart("stop", { input: done.input, output: done.output }))
          : Stream.fail(AiProvider.malformedOutput("FakeLanguageModel", "the answer ended early"))
    }
  }
})

const modelLayer = (url: string, options: AiModel.Options = {}) =>
  AiModel.layer({ provider: "fake", redact: [Redacted.make(KEY)], retry: false, ...options }).pipe(
    Layer.provide(FakeLanguageModel.layer({ model: "fake-1" })),
    Layer.provide(clientLayer({ apiUrl: `${url}/v1/`, apiKey: Redacted.make(KEY) })),
    Layer.provide(FetchHttpClient.layer)
  )

const collect = (request: Model.ModelRequest) =>
  Effect.flatMap(Effect.service(Model.Model), (model) => Stream.runCollect(model.stream(request)))

describe("AiProvider", () => {
  it.live("a provider of its parts streams an answer: the request carries the model, turns, tools and key; the events reach the agent's Model", () =>
    Effect.gen(function*() {
      const { received, url } = yield* server([{
        events: [
          { type: "text", text: "Hel" },
          { type: "text", text: "lo" },
          { type: "call", id: "c1", name: "fs__read_file", args: "{\"path\":\"/x\"}" },
          { type: "done", input: 12, output: 3 }
        ]
      }])
      const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
      const events = yield* collect({
        messages: [
          Message.system("Be brief."),
          Message.user("Read /x"),
          new Message.AssistantMessage({
            content: "",
            toolCalls: [new Message.ToolCall({ id: "c0", name: "fs__read_file", arguments: { path: "/y" } })]
          }),
          new Message.ToolMessage({ toolCallId: "c0", name: "fs__read_file", content: "Y", status: "ok" }),
          Message.user("and /x")
        ],
        tools: [{ name: "fs__read_file", description: "Reads a file", parameters: schema }],
        serverTools: []
      }).pipe(Effect.provide(modelLayer(url)))
      assert.deepStrictEqual(events.map((event) => event._tag === "TextDelta" ? event.text : event._tag), [
        "Hel",
        "lo",
        "ToolCall",
        "Finish"
      ])
      const call = events[2] as Extract<Model.ModelEvent, { _tag: "ToolCall" }>
      assert.deepStrictEqual([call.call.id, call.call.name, call.call.arguments], ["c1", "fs__read_file", {
        path: "/x"
      }])
      assert.deepStrictEqual(
        events[3],
        Model.finish("stop", new Message.Usage({ inputTokens: 12, outputTokens: 3 }))
      )
      assert.strictEqual(received.length, 1)
      assert.strictEqual(received[0]!.url, "/v1/chat")
      assert.strictEqual(received[0]!.headers.authorization, `Bearer ${KEY}`)
      assert.strictEqual(received[0]!.headers.accept, "text/event-stream")
      assert.deepStrictEqual(received[0]!.body, {
        model: "fake-1",
        system: ["Be brief."],
        turns: [
          { role: "user", parts: [{ text: "Read /x" }] },
          { role: "assistant", parts: [{ call: "fs__read_file", args: { path: "/y" } }] },
          { role: "user", parts: [{ result: "fs__read_file", value: "Y" }, { text: "and /x" }] }
        ],
        tools: [{ name: "fs__read_file", description: "Reads a file", parameters: schema }]
      })
    }).pipe(Effect.scoped))

  it.live("interrupting the stream closes the provider's HTTP request", () =>
    Effect.gen(function*() {
      const { closed, received, url } = yield* server([{ events: [{ type: "text", text: "Hel" }], open: true }])
      const seen: Array<Model.ModelEvent> = []
      const fiber = yield* Effect.forkChild(
        Effect.flatMap(Effect.service(Model.Model), (model) =>
          Stream.runForEach(
            model.stream({ messages: [Message.user("hi")], tools: [], serverTools: [] }),
            (event) => Effect.sync(() => void seen.push(event))
          )).pipe(Effect.provide(modelLayer(url)))
      )
      yield* eventually(() => seen.length === 1, "the first delta")
      assert.deepStrictEqual([received.length, closed()], [1, 0], "the answer is still streaming")
      yield* Fiber.interrupt(fiber)
      yield* eventually(() => closed() === 1, "the request closed")
      assert.deepStrictEqual(seen, [Model.textDelta("Hel")])
    }).pipe(Effect.scoped))

  it.live("an argument text that does not parse reaches the agent as a call marked invalidArguments", () =>
    Effect.gen(function*() {
      const { url } = yield* server([{
        events: [{ type: "call", id: "c1", name: "fs__read_file", args: "{\"path\": \"/x\",}" }, {
          type: "done",
          input: 1,
          output: 1
        }]
      }])
      const events = yield* collect({ messages: [Message.user("read")], tools: [], serverTools: [] }).pipe(
        Effect.provide(modelLayer(url))
      )
      const call = events.find((event) => event._tag === "ToolCall")!.call
      assert.deepStrictEqual([call.id, call.arguments, call.invalidArguments], [
        "call_unparsed_1",
        "{\"path\": \"/x\",}",
        "invalid JSON at position 14: Expected double-quoted property name"
      ])
    }).pipe(Effect.scoped))

  it.live("an event nested deeper than 256 levels fails the answer as unreadable output before anything walks it", () =>
    Effect.gen(function*() {
      const deep = `{"type":"text","text":"hi","extra":${"[".repeat(100_000)}${"]".repeat(100_000)}}`
      const { url } = yield* server([{ events: [deep, { type: "done", input: 1, output: 1 }] }])
      const error = yield* Effect.flip(
        collect({ messages: [Message.user("hi")], tools: [], serverTools: [] }).pipe(Effect.provide(modelLayer(url)))
      )
      assert.deepStrictEqual([error._tag, error.reason], ["ModelError", "InvalidResponse"])
      assert.include(error.description, "a stream event nests deeper than 256 levels")
      // an event within the limit is read as before
      const shallow = `{"type":"text","text":"hi","extra":${"[".repeat(200)}${"]".repeat(200)}}`
      const ok = yield* server([{ events: [shallow, { type: "done", input: 1, output: 1 }] }])
      const events = yield* collect({ messages: [Message.user("hi")], tools: [], serverTools: [] }).pipe(
        Effect.provide(modelLayer(ok.url))
      )
      assert.isTrue(events.some((event) => event._tag === "TextDelta"))
    }).pipe(Effect.scoped))

  it.live("a 401 whose body echoes the key: the reason names no key, nor does the error effect/ai keeps", () =>
    Effect.gen(function*() {
      const { url } = yield* server([{
        status: 401,
        body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } })
      }])
      const error = yield* Effect.flip(
        collect({ messages: [Message.user("hi")], tools: [], serverTools: [] }).pipe(Effect.provide(modelLayer(url)))
      )
      assert.deepStrictEqual([error.reason, error.description], [
        "Http",
        "fake answered HTTP 401 (unauthorized: check the API key): Incorrect API key provided: <redacted>"
      ])
      // what effect/ai's own error holds, for an app that reads the LanguageModel directly
      const aiError = yield* Effect.flip(
        Effect.flatMap(
          Effect.service(LanguageModel.LanguageModel),
          (model) => Stream.runDrain(model.streamText({ prompt: Prompt.make("hi") }))
        ).pipe(
          Effect.provide(
            FakeLanguageModel.layer({ model: "fake-1" }).pipe(
              Layer.provideMerge(clientLayer({ apiUrl: `${url}/v1`, apiKey: Redacted.make(KEY) })),
              Layer.provideMerge(FetchHttpClient.layer)
            )
          )
        )
      )
      assert.strictEqual(aiError._tag, "AiError")
      assert.include(inspect(aiError, { depth: 10 }), "<redacted>")
      assert.notInclude(inspect(aiError, { depth: 10 }), KEY)
      assert.notInclude(JSON.stringify(aiError), KEY)
    }).pipe(Effect.scoped))

  it.live("an unreachable provider fails with a readable reason; its spans carry no key", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(Effect.map(server([{ body: "" }]), (started) => started.url))
      const { spans, tracer } = recordingTracer()
      const error = yield* Effect.flip(
        collect({ messages: [Message.user("hi")], tools: [], serverTools: [] }).pipe(
          Effect.provide(modelLayer(url)),
          // every header on the HTTP spans, as an app that records them has it
          Effect.provideService(HttpClient.TracerHeaderFilter, () => true),
          Effect.withTracer(tracer)
        )
      )
      assert.strictEqual(error.reason, "Unreachable")
      assert.include(error.description, `could not reach fake at ${url}/v1/chat (TransportError`)
      const http = spans.find((span) => span.attributes.get("http.request.method") === "POST")
      assert.isDefined(http, "the HTTP request's span")
      assert.strictEqual(http!.attributes.get("http.request.header.authorization"), "<redacted>")
      assert.notInclude(spanText(spans), KEY)
    }))

  it.live("credential headers the application's client adds (a proxy's) are redacted in what errors keep", () =>
    Effect.gen(function*() {
      const { url } = yield* server([{
        status: 403,
        body: JSON.stringify({ error: { message: "the gateway says no" } })
      }])
      const { spans, tracer } = recordingTracer()
      const proxied = (client: HttpClient.HttpClient) =>
        HttpClient.mapRequest(
          client,
          (request) =>
            request.pipe(
              HttpClientRequest.setHeader("proxy-authorization", `Basic ${PROXY}`),
              HttpClientRequest.setHeader("x-request-tag", "visible")
            )
        )
      const aiError = yield* Effect.flip(
        Effect.flatMap(
          Effect.service(LanguageModel.LanguageModel),
          (model) => Stream.runDrain(model.streamText({ prompt: Prompt.make("hi") }))
        ).pipe(
          Effect.provide(
            FakeLanguageModel.layer({ model: "fake-1" }).pipe(
              Layer.provideMerge(
                clientLayer({ apiUrl: `${url}/v1`, apiKey: Redacted.make(KEY), transformClient: proxied })
              ),
              Layer.provideMerge(FetchHttpClient.layer)
            )
          ),
          Effect.provideService(HttpClient.TracerHeaderFilter, () => true),
          Effect.withTracer(tracer)
        )
      )
      // effect/ai keeps the answer's status and body, not the request's headers
      assert.strictEqual(aiError.reason._tag, "AuthenticationError")
      for (const text of [inspect(aiError, { depth: 20 }), JSON.stringify(aiError)]) {
        assert.notInclude(text, PROXY)
        assert.notInclude(text, KEY)
      }
      // the HTTP span records the headers by name, the credentials redacted
      const http = spans.find((span) => span.attributes.get("http.request.method") === "POST")!
      assert.deepStrictEqual(
        [
          http.attributes.get("http.request.header.proxy-authorization"),
          http.attributes.get("http.request.header.authorization"),
          http.attributes.get("http.request.header.x-request-tag")
        ],
        ["<redacted>", "<redacted>", "visible"]
      )
      assert.notInclude(spanText(spans), PROXY)
    }).pipe(Effect.scoped))

  it.effect("toolCallParts reads empty argument text as {}; malformedOutput is effect/ai's InvalidOutputError", () =>
    Effect.gen(function*() {
      const result = AiProvider.toolCallParts("M", { id: "c", name: "t", text: "  " })
      assert.deepStrictEqual(result._tag === "Success" ? result.success : undefined, [
        { type: "tool-params-end", id: "c" },
        { type: "tool-call", id: "c", name: "t", params: {} }
      ])
      const failure = AiProvider.malformedOutput("M", "the answer ended early")
      assert.deepStrictEqual([failure.module, failure.method, failure.reason._tag, failure.reason.message], [
        "M",
        "streamText",
        "InvalidOutputError",
        "Invalid output: the answer ended early"
      ])
    }))
})
