/**
 * Client capabilities and the requests a server sends to the client: elicitation (form and
 * URL), sampling and roots, against SDK servers in-process.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Server as SdkServer } from "@modelcontextprotocol/sdk/server/index.js"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js"
import type {
  CallToolResult,
  ClientCapabilities,
  ServerNotification,
  ServerRequest
} from "@modelcontextprotocol/sdk/types.js"
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import type { Message } from "@zett/agent"
import { Agent, Model, ScriptedModel } from "@zett/agent"
import type { McpError } from "@zett/mcp"
import { McpElicitation, McpExtension, McpRoots, McpSampling, McpServerConfig, McpToolResult } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as TestClock from "effect/testing/TestClock"
import * as McpLayers from "./utils/mcpLayers.js"
import * as Processes from "./utils/processes.js"

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>

/** What the in-process server saw. */
interface Seen {
  capabilities: ClientCapabilities | undefined
  results: Array<unknown>
  errors: Array<string>
  cancelled: boolean
  rootsChanged: number
}

/** A service of the caller's, to see which context a handler runs in. */
const Caller = Context.Service<string>("test/Caller")

const newSeen = (): Seen => ({ capabilities: undefined, results: [], errors: [], cancelled: false, rootsChanged: 0 })

/** A server with one tool, `ask`, that runs `body` (which talks back to the client) and records what it got. */
const asking = (seen: Seen, body: (server: SdkMcpServer, extra: Extra) => Promise<unknown>) => () => {
  const server = new SdkMcpServer({ name: "asking", version: "1.0.0" })
  server.server.oninitialized = () => void (seen.capabilities = server.server.getClientCapabilities())
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => void seen.rootsChanged++)
  server.registerTool(
    "ask",
    { description: "asks the client", inputSchema: {} },
    async (_args, extra): Promise<CallToolResult> => {
      extra.signal.addEventListener("abort", () => void (seen.cancelled = true))
      try {
        const result = await body(server, extra)
        seen.results.push(result)
        return { content: [{ type: "text", text: JSON.stringify(result) }] }
      } catch (error) {
        seen.errors.push(String(error))
        return { content: [{ type: "text", text: String(error) }], isError: true }
      }
    }
  )
  return server
}

const definition = McpServerConfig.http({ name: "asking", url: "http://127.0.0.1:1/mcp" })

const form = {
  type: "object" as const,
  properties: {
    name: { type: "string" as const, title: "Name" },
    count: { type: "integer" as const, minimum: 1, default: 3 },
    color: { type: "string" as const, enum: ["red", "green"], default: "green" }
  },
  required: ["name"]
}

const elicitForm = (server: SdkMcpServer) =>
  server.server.elicitInput({ message: "Who are you?", requestedSchema: form })

/** Connects to `asking` with `handlers` (layers of McpElicitation, McpSampling, McpRoots) and calls `ask`. */
const callAsk = <E>(
  seen: Seen,
  body: (server: SdkMcpServer, extra: Extra) => Promise<unknown>,
  handlers: Layer.Layer<never, E> = Layer.empty
) =>
  Effect.gen(function*() {
    const factory = yield* NodeMcpClientFactory.makeInMemory({ asking: asking(seen, body) })
    const client = yield* factory.connect(definition)
    return yield* client.callTool("ask", {})
  }).pipe(Effect.scoped, Effect.provide(handlers))

const capture = () => {
  const lines: Array<
    { readonly level: string; readonly message: string; readonly annotations: Record<string, unknown> }
  > = []
  const layer = Layer.merge(
    Logger.layer([Logger.make(({ fiber, logLevel, message }) =>
      void lines.push({
        level: logLevel.toUpperCase(),
        message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
        annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
      })
    )]),
    Layer.succeed(References.MinimumLogLevel)("Debug")
  )
  return { lines, layer }
}

describe("client capabilities", () => {
  it.live("without handlers the client declares no capability", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      yield* callAsk(seen, async () => "nothing asked")
      assert.deepStrictEqual(seen.capabilities, {})
    }))

  it.live("each installed handler declares its capability, and only that one", () =>
    Effect.gen(function*() {
      const elicitation = newSeen()
      yield* callAsk(elicitation, async () => "-", McpElicitation.layerDecline)
      assert.deepStrictEqual(elicitation.capabilities, { elicitation: { form: { applyDefaults: true }, url: {} } })

      const all = newSeen()
      yield* callAsk(
        all,
        async () => "-",
        Layer.mergeAll(
          McpElicitation.layerDecline,
          McpSampling.layer({ maxTokens: 100, maxCallsPerRequest: 1 }),
          McpRoots.layer(["/tmp"]).pipe(Layer.orDie, Layer.provide(NodeServices.layer))
        )
      )
      assert.deepStrictEqual(all.capabilities, {
        elicitation: { form: { applyDefaults: true }, url: {} },
        sampling: {},
        roots: { listChanged: true }
      })
    }))
})

describe("client capabilities, as the services say", () => {
  it.live("a service says whether it is offered: one of your own that is not declares nothing; one that is declares its capability", () =>
    Effect.gen(function*() {
      const handle = () => Effect.succeed({ action: "decline" as const })
      const notOffered = newSeen()
      yield* callAsk(
        notOffered,
        async () => "-",
        Layer.succeed(McpElicitation.McpElicitation, { offered: false, handle })
      )
      assert.deepStrictEqual(notOffered.capabilities, {})
      const offered = newSeen()
      yield* callAsk(offered, async () => "-", Layer.succeed(McpElicitation.McpElicitation, { offered: true, handle }))
      assert.deepStrictEqual(offered.capabilities, { elicitation: { form: { applyDefaults: true }, url: {} } })
      // the defaults are not offered, the services made by the library are
      assert.isFalse(McpElicitation.none.offered || McpSampling.none.offered || McpRoots.none.offered)
      assert.isTrue(McpSampling.make({ maxTokens: 1, maxCallsPerRequest: 1 }).offered)
    }))
})

describe("elicitation", () => {
  it.live("the handler gets the server, message and schema; accepted content gets the schema's defaults", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const asked: Array<McpElicitation.Request> = []
      const result = yield* callAsk(
        seen,
        elicitForm,
        McpElicitation.layer((request) => {
          asked.push(request)
          return Effect.succeed({ action: "accept", content: { name: "Ada" } })
        })
      )
      assert.strictEqual(result.isError, undefined)
      assert.deepStrictEqual(asked, [{
        _tag: "Form",
        server: "asking",
        message: "Who are you?",
        requestedSchema: form
      }])
      assert.deepStrictEqual(seen.results, [{ action: "accept", content: { name: "Ada", count: 3, color: "green" } }])
    }))

  it.live("content that does not match the requested schema is refused before it is sent", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const logs = capture()
      const result = yield* callAsk(
        seen,
        elicitForm,
        McpElicitation.layer(() =>
          Effect.succeed({ action: "accept", content: { name: "Ada", count: 0, color: "blue" } })
        )
      ).pipe(Effect.provide(logs.layer))
      // the server got an error, never the content
      assert.deepStrictEqual(seen.results, [])
      assert.strictEqual(seen.errors.length, 1)
      assert.include(seen.errors[0], "-32602")
      assert.include(seen.errors[0], "does not match the requested schema")
      assert.include(seen.errors[0], "count")
      assert.notInclude(seen.errors[0], "blue")
      assert.isTrue(result.isError)
      const warning = logs.lines.find((line) => line.message.includes("elicitation refused"))
      assert.strictEqual(warning?.level, "WARN")
      assert.strictEqual(warning?.annotations["mcp.server"], "asking")
    }))

  it.live("decline and cancel reach the server as they are", () =>
    Effect.gen(function*() {
      for (const action of ["decline", "cancel"] as const) {
        const seen = newSeen()
        yield* callAsk(seen, elicitForm, McpElicitation.layer(() => Effect.succeed({ action })))
        assert.deepStrictEqual(seen.results, [{ action }])
      }
    }))

  it.live("the library's default declines, and says so in the logs", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const logs = capture()
      yield* callAsk(seen, elicitForm, McpElicitation.layerDecline).pipe(Effect.provide(logs.layer))
      assert.deepStrictEqual(seen.results, [{ action: "decline" }])
      const line = logs.lines.find((line) => line.message.includes("declined"))
      assert.strictEqual(
        line?.message,
        "MCP server asking asked the user (form): \"Who are you?\"; declined (no elicitation handler answers it)"
      )
      assert.strictEqual(line?.level, "WARN")
    }))

  it.live("URL mode: the handler gets the URL; an accept is sent without content", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const asked: Array<McpElicitation.Request> = []
      yield* callAsk(
        seen,
        (server) =>
          server.server.elicitInput({
            mode: "url",
            message: "Sign in",
            url: "https://example.test/login",
            elicitationId: "e-1"
          }),
        McpElicitation.layer((request) => {
          asked.push(request)
          return Effect.succeed({ action: "accept", content: { ignored: "yes" } })
        })
      )
      assert.deepStrictEqual(asked, [{
        _tag: "Url",
        server: "asking",
        message: "Sign in",
        url: "https://example.test/login",
        elicitationId: "e-1"
      }])
      assert.deepStrictEqual(seen.results, [{ action: "accept" }])
    }))

  it.live("interrupting the call interrupts the elicitation: the server sees the call cancelled, nothing runs on", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const started = yield* Deferred.make<void>()
      let interrupted = false
      const handler = McpElicitation.layer(() =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))
        )
      )
      const fiber = yield* Effect.forkChild(callAsk(seen, elicitForm, handler))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      assert.isTrue(interrupted)
      // notifications/cancelled reached the server: its tool's signal aborted
      assert.isTrue(yield* Processes.eventually(() => seen.cancelled, 2_000))
      assert.deepStrictEqual(seen.results, [])
    }))

  it.live("an elicitation belongs to the one call in flight when it came: a later call's end leaves it alone", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const started = yield* Deferred.make<void>()
      let interrupted = false
      // the first call asks; the second just waits until the test ends it
      let calls = 0
      const body = (server: SdkMcpServer, extra: Extra) =>
        ++calls === 1
          ? elicitForm(server)
          : new Promise((resolve) => extra.signal.addEventListener("abort", () => resolve("aborted")))
      const handler = McpElicitation.layer(() =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))
        )
      )
      yield* Effect.gen(function*() {
        const factory = yield* NodeMcpClientFactory.makeInMemory({ asking: asking(seen, body) })
        const client = yield* factory.connect(definition)
        const first = yield* Effect.forkChild(client.callTool("ask", {}))
        yield* Deferred.await(started)
        const second = yield* Effect.forkChild(client.callTool("ask", {}))
        yield* Effect.sleep("50 millis")
        // the elicitation came while one call was in flight: ending the other call leaves it alone
        yield* Fiber.interrupt(second)
        assert.isFalse(interrupted)
        yield* Fiber.interrupt(first)
        assert.isTrue(interrupted)
      }).pipe(Effect.scoped, Effect.provide(handler))
    }))

  it.live("with two calls in flight when it came, the elicitation runs on until both have ended", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const started = yield* Deferred.make<void>()
      let interrupted = false
      let calls = 0
      let go: () => void = () => {}
      const ready = new Promise<void>((resolve) => (go = resolve))
      const body = async (server: SdkMcpServer, extra: Extra) => {
        if (++calls === 2) go()
        if (calls === 1) {
          await ready
          return elicitForm(server)
        }
        return new Promise((resolve) => extra.signal.addEventListener("abort", () => resolve("aborted")))
      }
      const handler = McpElicitation.layer(() =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))
        )
      )
      yield* Effect.gen(function*() {
        const factory = yield* NodeMcpClientFactory.makeInMemory({ asking: asking(seen, body) })
        const client = yield* factory.connect(definition)
        const first = yield* Effect.forkChild(client.callTool("ask", {}))
        const second = yield* Effect.forkChild(client.callTool("ask", {}))
        yield* Deferred.await(started)
        yield* Fiber.interrupt(first)
        assert.isFalse(interrupted)
        yield* Fiber.interrupt(second)
        assert.isTrue(yield* Processes.eventually(() => interrupted, 2_000))
      }).pipe(Effect.scoped, Effect.provide(handler))
    }))

  it.live("what the handler gets from the server is scrubbed of the server's secrets", () =>
    Effect.gen(function*() {
      const secret = "elicit-secret-5f2c"
      const asked: Array<McpElicitation.Request> = []
      const seen = newSeen()
      yield* Effect.gen(function*() {
        const factory = yield* NodeMcpClientFactory.makeInMemory({
          asking: asking(seen, (server) =>
            server.server.elicitInput({ message: `Is ${secret} yours?`, requestedSchema: form }))
        })
        const client = yield* factory.connect(
          McpServerConfig.http({ name: "asking", url: "http://127.0.0.1:1/mcp", headers: { "X-Key": secret } })
        )
        yield* client.callTool("ask", {})
      }).pipe(
        Effect.scoped,
        Effect.provide(McpElicitation.layer((request) => (asked.push(request), Effect.succeed({ action: "cancel" }))))
      )
      assert.strictEqual(asked[0]?.message, "Is <redacted> yours?")
      assert.deepStrictEqual(seen.results, [{ action: "cancel" }])
    }))

  it.live("a request during a call runs with the calling fiber's services; one outside any call with the factory's", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      let sdk: SdkMcpServer | undefined
      const callers: Array<string> = []
      const handler = McpElicitation.layer(() =>
        Effect.map(Effect.serviceOption(Caller), (caller) => {
          callers.push(Option.getOrElse(caller, () => "none"))
          return { action: "decline" as const }
        })
      )
      yield* Effect.gen(function*() {
        const factory = yield* NodeMcpClientFactory.makeInMemory({
          asking: asking(seen, (server) => {
            sdk = server
            return elicitForm(server)
          })
        }).pipe(Effect.provideService(Caller, "the factory's"))
        // connected by one fiber, called by two others: each request runs where it belongs
        const client = yield* factory.connect(definition).pipe(Effect.provideService(Caller, "the connecting fiber's"))
        yield* client.callTool("ask", {}).pipe(Effect.provideService(Caller, "the first call's"))
        yield* client.callTool("ask", {}).pipe(Effect.provideService(Caller, "the second call's"))
        yield* Effect.promise(() => sdk!.server.elicitInput({ message: "Still there?", requestedSchema: form }))
      }).pipe(Effect.scoped, Effect.provide(handler))
      assert.deepStrictEqual(callers, ["the first call's", "the second call's", "the factory's"])
    }))

  it.effect("the elicitation runs in the call's fiber: a timeout on the call (TestClock) interrupts it", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const started = yield* Deferred.make<void>()
      let interrupted = false
      const handler = McpElicitation.layer(() =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))
        )
      )
      const fiber = yield* Effect.forkChild(
        Effect.gen(function*() {
          const factory = yield* NodeMcpClientFactory.makeInMemory({ asking: asking(seen, elicitForm) })
          const client = yield* factory.connect(definition)
          return yield* client.callTool("ask", {}).pipe(Effect.timeoutOption("30 seconds"))
        }).pipe(Effect.scoped, Effect.provide(handler))
      )
      yield* Deferred.await(started)
      yield* TestClock.adjust("31 seconds")
      const result = yield* Fiber.join(fiber)
      assert.isTrue(Option.isNone(result))
      assert.isTrue(interrupted)
    }))
})

describe("elicitation in an agent", () => {
  it.effect("the extension's callTimeout (TestClock) cancels an unanswered elicitation; the model reads the timeout", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const started = yield* Deferred.make<void>()
      let interrupted = false
      let toolResult: unknown
      const handler = McpElicitation.layer(() =>
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => void (interrupted = true)))
        )
      )
      const mcp = McpLayers.layer({ servers: [definition], callTimeout: "30 seconds" }).pipe(
        Layer.provide(
          NodeMcpClientFactory.layerInMemory({ asking: asking(seen, elicitForm) }).pipe(Layer.provide(handler))
        ),
        Layer.provide(NodeServices.layer)
      )
      const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
        Layer.provide(mcp),
        Layer.provide(ScriptedModel.layer([
          { toolCalls: [{ name: "asking__ask" }] },
          (request) => (toolResult = (request.messages.at(-1) as Message.ToolMessage).content, { text: "gave up" })
        ]))
      )
      const fiber = yield* Effect.forkChild(Agent.run("ask me").pipe(Effect.provide(layer)))
      yield* Deferred.await(started)
      yield* TestClock.adjust("31 seconds")
      const reply = yield* Fiber.join(fiber)
      assert.strictEqual(reply.content, "gave up")
      assert.isTrue(interrupted)
      assert.deepStrictEqual(toolResult, {
        error: { type: "Timeout", message: "asking__ask did not finish within 30s" }
      })
      assert.isTrue(yield* Processes.eventually(() => seen.cancelled, 2_000))
    }))
})

describe("sampling", () => {
  const ask = (text: string, maxTokens = 50) => (server: SdkMcpServer) =>
    server.server.createMessage({ messages: [{ role: "user", content: { type: "text", text } }], maxTokens })

  it.live("a request runs through the given model", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const prompts: Array<unknown> = []
      const model = ScriptedModel.layer([(request) => {
        prompts.push(request.messages.map((m) => m.content))
        return { text: "four" }
      }])
      yield* callAsk(seen, ask("2 + 2?"), McpSampling.layer({ model, maxTokens: 100, maxCallsPerRequest: 1 }))
      assert.deepStrictEqual(prompts, [["2 + 2?"]])
      // a model that does not say its name
      assert.deepStrictEqual(seen.results, [{
        role: "assistant",
        content: { type: "text", text: "four" },
        model: "unknown",
        stopReason: "endTurn"
      }])
    }))

  it.live("the result names the model that answered", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const model = Layer.succeed(Model.Model, {
        ...ScriptedModel.make([{ text: "four" }]),
        info: { provider: "openai", model: "gpt-4.1-mini" }
      })
      yield* callAsk(seen, ask("2 + 2?"), McpSampling.layer({ model, maxTokens: 100, maxCallsPerRequest: 1 }))
      assert.deepStrictEqual(seen.results, [{
        role: "assistant",
        content: { type: "text", text: "four" },
        model: "gpt-4.1-mini",
        stopReason: "endTurn"
      }])
    }))

  it.live("a given model layer stays open while it answers, and is released after (zett call's HTTP model)", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const events: Array<string> = []
      // like a model over an HTTP client: its connections are closed with the layer's scope
      const model = Layer.unwrap(Effect.gen(function*() {
        let open = true
        yield* Effect.addFinalizer(() => Effect.sync(() => (open = false, events.push("released"))))
        return ScriptedModel.layer([
          () => (events.push(open ? "answered while open" : "answered after release"), { text: "four" })
        ])
      }))
      yield* callAsk(seen, ask("2 + 2?"), McpSampling.layer({ model, maxTokens: 100, maxCallsPerRequest: 1 }))
      assert.deepStrictEqual(events, ["answered while open", "released"])
      assert.deepStrictEqual(seen.results, [{
        role: "assistant",
        content: { type: "text", text: "four" },
        model: "unknown",
        stopReason: "endTurn"
      }])
    }))

  it.live("a request over maxCallsPerRequest is refused with an error naming the limit", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const model = ScriptedModel.layer([{ text: "one" }, { text: "two" }])
      yield* callAsk(
        seen,
        async (server) => [await ask("first")(server), await ask("second")(server)],
        McpSampling.layer({ model, maxTokens: 100, maxCallsPerRequest: 1 })
      )
      assert.deepStrictEqual(seen.results, [])
      assert.strictEqual(seen.errors.length, 1)
      assert.include(seen.errors[0], "more than 1 sampling requests in one request (sampling.maxCallsPerRequest)")
    }))

  it.live("a call the server fails after its sampling request was refused says why: the refusal, not the server's error", () =>
    Effect.gen(function*() {
      // a server whose tool fails with a JSON-RPC error when its sampling request is refused
      const failing = () => {
        const server = new SdkServer({ name: "asking", version: "1.0.0" }, { capabilities: { tools: {} } })
        server.setRequestHandler(
          ListToolsRequestSchema,
          async () => ({ tools: [{ name: "ask", inputSchema: { type: "object" as const } }] })
        )
        server.setRequestHandler(CallToolRequestSchema, async () => {
          await server.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "hi" } }],
            maxTokens: 50
          })
          return { content: [] }
        })
        return server
      }
      const error = yield* Effect.gen(function*() {
        const factory = yield* NodeMcpClientFactory.makeInMemory({ asking: failing })
        const client = yield* factory.connect(definition)
        return yield* Effect.flip(client.callTool("ask", {}))
      }).pipe(
        Effect.scoped,
        Effect.provide(
          McpSampling.layer({ model: ScriptedModel.layer([{ text: "no" }]), maxTokens: 100, maxCallsPerRequest: 0 })
        )
      )
      assert.strictEqual(error._tag, "McpRequestError")
      const failure = error as McpError.McpRequestError
      assert.strictEqual(failure.reason, "Refused")
      assert.strictEqual(
        McpToolResult.describeFailure(
          McpToolResult.RemoteFailure.RequestError({ error: failure }),
          McpToolResult.ErrorTextPolicy.toolText
        ),
        "the server failed to run the tool (the client refused a request the server made during the call: sampling request of MCP server " +
          "asking refused: more than 0 sampling requests in one request (sampling.maxCallsPerRequest))"
      )
    }))

  it.live("a request asking for more than maxTokens is refused; one the user declines too", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      const model = ScriptedModel.layer([{ text: "never" }])
      yield* callAsk(seen, ask("long", 5000), McpSampling.layer({ model, maxTokens: 100, maxCallsPerRequest: 5 }))
      assert.include(seen.errors[0], "it asks for up to 5000 tokens, more than the 100 allowed (sampling.maxTokens)")

      const declined = newSeen()
      yield* callAsk(
        declined,
        ask("short"),
        McpSampling.layer({ model, maxTokens: 100, maxCallsPerRequest: 5, approve: () => Effect.succeed(false) })
      )
      assert.include(declined.errors[0], "the user declined it")
    }))

  it.live("through the agent: its model answers, and each agent request has its own count", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      let connections = 0
      const results: Array<unknown> = []
      const lastResult = (request: { readonly messages: ReadonlyArray<Message.Message> }) =>
        results.push((request.messages.at(-1) as Message.ToolMessage).content)
      // one pooled connection serves both agent requests: the count is the request's, not the connection's
      const mcp = McpLayers.layer({ servers: [definition], connectionPool: { idleTimeToLive: "1 minute" } }).pipe(
        Layer.provide(
          NodeMcpClientFactory.layerInMemory({ asking: () => (connections++, asking(seen, ask("hi"))()) }).pipe(
            Layer.provide(McpSampling.layer({ maxTokens: 100, maxCallsPerRequest: 1 }))
          )
        ),
        Layer.provide(NodeServices.layer)
      )
      const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
        Layer.provide(mcp),
        Layer.provide(ScriptedModel.layer([
          { toolCalls: [{ name: "asking__ask" }] },
          { text: "first sample" },
          (request) => (lastResult(request), { text: "one" }),
          { toolCalls: [{ name: "asking__ask" }] },
          { text: "second sample" },
          (request) => (lastResult(request), { text: "two" })
        ]))
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("first")
        yield* agent.run("second")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(seen.errors, [])
      assert.deepStrictEqual(seen.results.map((r) => (r as { content: { text: string } }).content.text), [
        "first sample",
        "second sample"
      ])
      assert.strictEqual(results.length, 2)
      assert.strictEqual(connections, 1)
    }))

  it.live("without a model of its own and outside an agent, a request is refused", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      yield* callAsk(seen, ask("hi"), McpSampling.layer({ maxTokens: 100, maxCallsPerRequest: 5 }))
      assert.include(seen.errors[0], "no model is available to answer it")
    }))
})

describe("roots", () => {
  it.live("roots/list is answered with file:// URIs; a change sends roots/list_changed", () =>
    Effect.gen(function*() {
      const seen = newSeen()
      let sdk: SdkMcpServer | undefined
      const refused = yield* Effect.flip(
        McpRoots.make(["/srv", "https://example.test/x"]).pipe(Effect.provide(NodeServices.layer))
      )
      assert.strictEqual(refused.reason, "UnsupportedScheme")
      assert.strictEqual(refused.message, "roots: \"https://example.test/x\": a root must be a path or a file:// URI")
      const roots = yield* McpRoots.make(["/srv/project", { path: "/srv/docs", name: "docs" }, {
        uri: "file:///srv/x"
      }]).pipe(
        Effect.provide(NodeServices.layer)
      )
      yield* Effect.gen(function*() {
        const factory = yield* NodeMcpClientFactory.makeInMemory({
          asking: asking(seen, async (server) => {
            sdk = server
            return server.server.listRoots()
          })
        })
        const client = yield* factory.connect(definition)
        yield* client.callTool("ask", {})
        assert.deepStrictEqual(seen.errors, [])
        assert.deepStrictEqual(seen.results, [{
          roots: [
            { uri: "file:///srv/project" },
            { uri: "file:///srv/docs", name: "docs" },
            { uri: "file:///srv/x" }
          ]
        }])
        yield* roots.set(["/srv/other"])
        assert.isTrue(yield* Processes.eventually(() => seen.rootsChanged === 1, 2_000))
        // with no call in flight, the server's own request is answered in the connection's scope
        const now = yield* Effect.promise(() => sdk!.server.listRoots())
        assert.deepStrictEqual(now.roots, [{ uri: "file:///srv/other" }])
      }).pipe(Effect.scoped, Effect.provideService(McpRoots.McpRoots, roots))
    }))
})
