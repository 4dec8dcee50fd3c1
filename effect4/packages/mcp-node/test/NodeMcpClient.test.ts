/**
 * `McpClient` as the Node driver makes it (`NodeMcpClientFactory.layerInMemory`, `NodeMcpClient.fromSdkClient`)
 * against SDK servers in this process: pages, results, errors, cancellation on the server, lenient listing,
 * spans, and the connection's timer of `callWithin`. The core's own parts of `McpClient` are tested in
 * packages/mcp/test/McpClient.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client"
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError as SdkMcpError
} from "@modelcontextprotocol/sdk/types.js"
import { Scrubber } from "@zett/agent"
import type { McpClient } from "@zett/mcp"
import { McpClientFactory, McpError, McpServerConfig } from "@zett/mcp"
import { NodeMcpClient, NodeMcpClientFactory } from "@zett/mcp-node"
import { logged } from "@zett/testing-core/CapturedLogs"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import * as Tracer from "effect/Tracer"
import { z } from "zod"
import * as RecordingTracer from "./utils/recordingTracer.js"

const pages: ReadonlyArray<ReadonlyArray<string>> = [["a1", "a2"], ["b1"], ["c1", "c2"]]

interface Probe {
  readonly started: Deferred.Deferred<string>
  readonly aborted: Deferred.Deferred<string>
  readonly closed: Deferred.Deferred<void>
}

const makeProbe = Effect.all({
  started: Deferred.make<string>(),
  aborted: Deferred.make<string>(),
  closed: Deferred.make<void>()
})

/** A low-level SDK server: paginated tools, a blocking tool that reports its `extra.signal`, errors. */
const lowLevelServer = (probe: Probe) => () => {
  const server = new Server({ name: "low", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const cursor = request.params?.cursor
    if (cursor === "block") {
      Deferred.doneUnsafe(probe.started, Exit.succeed("tools/list"))
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }))
      Deferred.doneUnsafe(probe.aborted, Exit.succeed(String(extra.signal.reason)))
      return { tools: [] }
    }
    const index = cursor === undefined ? 0 : Number(cursor)
    return {
      tools: pages[index]!.map((name) => ({ name, inputSchema: { type: "object" as const } })),
      ...(index + 1 < pages.length ? { nextCursor: String(index + 1) } : {})
    }
  })
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    switch (request.params.name) {
      case "block": {
        Deferred.doneUnsafe(probe.started, Exit.succeed("tools/call"))
        await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }))
        Deferred.doneUnsafe(probe.aborted, Exit.succeed(String(extra.signal.reason)))
        return { content: [] }
      }
      case "structured":
        return { content: [{ type: "text", text: "{\"x\":42}" }], structuredContent: { x: 42 } }
      case "failing":
        return { content: [{ type: "text", text: "no such city" }], isError: true }
      case "legacy":
        return { toolResult: { answer: 42 } }
      case "legacy-text":
        return { toolResult: "plain" }
      case "invalid":
        throw new SdkMcpError(ErrorCode.InvalidParams, `bad argument ${JSON.stringify(request.params.arguments)}`)
      default:
        throw new SdkMcpError(ErrorCode.MethodNotFound, `unknown tool ${request.params.name}`)
    }
  })
  server.onclose = () => Deferred.doneUnsafe(probe.closed, Exit.void)
  return server
}

/** A high-level SDK server (Zod shapes), as users write them. */
const highLevelServer = () => {
  const server = new SdkMcpServer({ name: "high", version: "1.0.0" })
  server.registerTool("add", { inputSchema: { a: z.number(), b: z.number() } }, ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }]
  }))
  return server
}

const low = McpServerConfig.stdio({ name: "low", command: "unused" })
const high = McpServerConfig.stdio({ name: "high", command: "unused" })

const connectTo = (server: McpServerConfig.McpServerConfig, probe: Probe) =>
  McpClientFactory.McpClientFactory.pipe(
    Effect.flatMap((factory) => factory.connect(server)),
    Effect.provide(NodeMcpClientFactory.layerInMemory({ low: lowLevelServer(probe), high: highLevelServer }))
  )

const listAll = (client: McpClient.McpClient) =>
  Effect.gen(function*() {
    const names: Array<string> = []
    let cursor: string | undefined = undefined
    do {
      const page: McpClient.ListToolsPage = yield* client.listTools(cursor)
      for (const tool of page.tools) names.push(tool.name)
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return names
  })

describe("McpClient", () => {
  it.effect("listTools returns one page per call with its cursor", () =>
    Effect.gen(function*() {
      const client = yield* connectTo(low, yield* makeProbe)
      assert.strictEqual(client.server, "low")
      const first = yield* client.listTools()
      assert.deepStrictEqual(first.tools.map((tool) => tool.name), ["a1", "a2"])
      assert.strictEqual(first.nextCursor, "1")
      assert.deepStrictEqual(yield* listAll(client), ["a1", "a2", "b1", "c1", "c2"])
      const last = yield* client.listTools("2")
      assert.strictEqual(last.nextCursor, undefined)
    }))

  it.effect("callTool returns structuredContent and isError results as values (E7)", () =>
    Effect.gen(function*() {
      const client = yield* connectTo(low, yield* makeProbe)
      const structured = yield* client.callTool("structured", {})
      assert.deepStrictEqual(structured.structuredContent, { x: 42 })
      assert.deepStrictEqual(structured.content, [{ type: "text", text: "{\"x\":42}" }])
      const failing = yield* client.callTool("failing", {})
      assert.strictEqual(failing.isError, true)
      assert.deepStrictEqual(failing.content, [{ type: "text", text: "no such city" }])
    }))

  it.effect("callTool converts the 2024-10-07 toolResult shape", () =>
    Effect.gen(function*() {
      const client = yield* connectTo(low, yield* makeProbe)
      const legacy = yield* client.callTool("legacy", {})
      assert.deepStrictEqual(legacy.structuredContent, { answer: 42 })
      assert.deepStrictEqual(legacy.content, [{ type: "text", text: "{\"answer\":42}" }])
      assert.isFalse("toolResult" in legacy)
      const text = yield* client.callTool("legacy-text", {})
      assert.deepStrictEqual(text.content, [{ type: "text", text: "plain" }])
      assert.strictEqual(text.structuredContent, undefined)
    }))

  it.effect("a JSON-RPC error is a Remote McpRequestError with the code and a readable description", () =>
    Effect.gen(function*() {
      const client = yield* connectTo(low, yield* makeProbe)
      const error = yield* Effect.flip(client.callTool("invalid", { city: "Atlantis" }))
      assert.strictEqual(error._tag, "McpRequestError")
      assert.strictEqual(error.server, "low")
      assert.strictEqual(error.method, "tools/call")
      assert.strictEqual(error.code, ErrorCode.InvalidParams)
      assert.strictEqual(error.reason, "Remote")
      assert.strictEqual(error.description, "bad argument {\"city\":\"Atlantis\"}")
      assert.strictEqual(error.message, "low: tools/call failed: bad argument {\"city\":\"Atlantis\"} (code -32602)")
      assert.isTrue(McpError.isMcpError(error))
    }))

  it.effect("interrupting callTool aborts the request on the server (notifications/cancelled)", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const client = yield* connectTo(low, probe)
      const fiber = yield* Effect.forkChild(client.callTool("block", {}))
      assert.strictEqual(yield* Deferred.await(probe.started), "tools/call")
      yield* Fiber.interrupt(fiber)
      // the server's handler sees its signal abort: only a cancellation notification does that
      const reason = yield* Deferred.await(probe.aborted)
      assert.isString(reason)
      // the connection is still usable
      const result = yield* client.callTool("structured", {})
      assert.deepStrictEqual(result.structuredContent, { x: 42 })
    }))

  it.effect("interrupting listTools aborts the request on the server", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const client = yield* connectTo(low, probe)
      const fiber = yield* Effect.forkChild(client.listTools("block"))
      assert.strictEqual(yield* Deferred.await(probe.started), "tools/list")
      yield* Fiber.interrupt(fiber)
      yield* Deferred.await(probe.aborted)
    }))

  it.effect("a caller's timeout interrupts the call and cancels it on the server", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const scope = yield* Scope.make()
      const client = yield* connectTo(low, probe).pipe(Scope.provide(scope))
      const fiber = yield* Effect.forkChild(
        client.callTool("block", {}).pipe(
          Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail("timed out") })
        )
      )
      yield* Deferred.await(probe.started)
      yield* TestClock.adjust("10 seconds")
      assert.deepStrictEqual(yield* Fiber.join(fiber).pipe(Effect.flip), "timed out")
      yield* Deferred.await(probe.aborted)
      yield* Scope.close(scope, Exit.void)
    }))

  it.effect("the SDK's own request timeout is disabled", () =>
    Effect.gen(function*() {
      // a stand-in for the SDK Client that records the request options it gets
      const seen: Array<{ readonly timeout?: number; readonly signal?: AbortSignal }> = []
      const fake = {
        getNegotiatedProtocolVersion: () => undefined,
        getProtocolEra: () => undefined,
        getInstructions: () => undefined,
        request: async (
          { method }: { readonly method: string },
          _schema: unknown,
          options: { timeout?: number; signal?: AbortSignal }
        ) => {
          seen.push(options)
          return method === "tools/call" ? { content: [] } : { tools: [] }
        }
      }
      const client = NodeMcpClient.fromSdkClient(fake as never, { server: "fake" })
      yield* client.listTools()
      yield* client.callTool("x", {})
      assert.strictEqual(seen.length, 2)
      for (const options of seen) {
        // larger than the SDK's 60 s default, and still a valid setTimeout delay (larger ones fire at once)
        assert.isTrue(options.timeout! > 60_000 * 60 * 24)
        assert.isTrue(options.timeout! <= 2 ** 31 - 1)
      }
      // a listing gets an AbortSignal; a call its own abort signal (internal/callSignal), with every member the SDK
      // reads, not aborted (an interruption aborts it: "the call's own abort signal" below)
      assert.instanceOf(seen[0]!.signal, AbortSignal)
      const signal = seen[1]!.signal!
      assert.isFalse(signal.aborted)
      assert.strictEqual(signal.reason, undefined)
      for (const member of ["throwIfAborted", "addEventListener", "removeEventListener"] as const) {
        assert.strictEqual(typeof signal[member], "function")
      }
    }))

  it.effect("request errors never carry a secret of the server (B2)", () =>
    Effect.gen(function*() {
      const secret = "tok-9f8e7d6c5b"
      const fake = {
        getNegotiatedProtocolVersion: () => undefined,
        getProtocolEra: () => undefined,
        getInstructions: () => undefined,
        request: async ({ method }: { readonly method: string }) => {
          if (method === "tools/call") {
            throw new ProtocolError(ProtocolErrorCode.InternalError, `upstream rejected Bearer ${secret}`)
          }
          throw new Error(`socket hang up while sending ${secret}`)
        }
      }
      const client = NodeMcpClient.fromSdkClient(fake as never, {
        server: "fake",
        scrubber: Scrubber.make([Redacted.make(secret)])
      })
      const call = yield* Effect.flip(client.callTool("x", {}))
      const list = yield* Effect.flip(client.listTools())
      assert.strictEqual(call.description, "upstream rejected Bearer <redacted>")
      assert.strictEqual(call.code, ErrorCode.InternalError)
      assert.strictEqual(list.description, "socket hang up while sending <redacted>")
      for (const error of [call, list]) {
        assert.notInclude(error.message, secret)
        assert.notInclude(String(error), secret)
        assert.notInclude(JSON.stringify(error), secret)
        // the original cause held the secret: it is dropped
        assert.strictEqual(error.cause, undefined)
      }
    }))
})

/** A low-level SDK server whose one page of tools holds malformed ones. */
const sloppyServer = () => {
  const server = new Server({ name: "sloppy", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, async () =>
    ({
      tools: [
        { name: "good", inputSchema: { type: "object" } },
        { name: "untyped", inputSchema: { properties: { q: { type: "string" } } } },
        { name: "bad-schema", inputSchema: "nope" },
        42,
        null,
        { name: 7, inputSchema: { type: "object" } },
        { name: "x".repeat(100), inputSchema: [] },
        { name: "nested", inputSchema: { type: "object", properties: 5 } },
        { name: "typed-array", inputSchema: { type: "array" } },
        { name: "null-schema", inputSchema: null },
        { name: "ordered", inputSchema: { properties: {}, type: "object" } }
      ],
      nextCursor: "2"
    }) as never)
  return server
}

describe("McpClient, lenient listing", () => {
  it.effect("a malformed tool costs only itself: the rest are listed, each skipped one is named in a warning", () =>
    Effect.gen(function*() {
      const factory = yield* McpClientFactory.McpClientFactory
      const client = yield* factory.connect(McpServerConfig.stdio({ name: "sloppy", command: "unused" }))
      const [page, lines] = yield* logged(client.listTools())
      assert.deepStrictEqual(page, {
        tools: [
          { name: "good", inputSchema: { type: "object" } },
          // a schema without `type` is an object schema
          { name: "untyped", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
          { name: "ordered", inputSchema: { type: "object", properties: {} } }
        ],
        nextCursor: "2"
      })
      const skipped = (tool: string, problem: string) => ({
        level: "WARN",
        text: `MCP server sloppy: tool ${tool} is skipped: ${problem}`,
        server: "sloppy"
      })
      assert.deepStrictEqual(lines, [
        skipped("bad-schema", "inputSchema: Invalid input: expected object, received string"),
        skipped("(unnamed)", "Invalid input: expected object, received number"),
        skipped("(unnamed)", "Invalid input: expected object, received null"),
        skipped("(unnamed)", "name: Invalid input: expected string, received number"),
        skipped(`${"x".repeat(80)}…`, "inputSchema: Invalid input: expected object, received array"),
        skipped("nested", "inputSchema.properties: Invalid input: expected record, received number"),
        skipped("typed-array", "inputSchema.type: Invalid input: expected \"object\""),
        skipped("null-schema", "inputSchema: Invalid input: expected object, received null")
      ])
    }).pipe(Effect.provide(NodeMcpClientFactory.layerInMemory({ sloppy: sloppyServer }))))
})

describe("McpClient, exactly", () => {
  it.effect("listTools sends a cursor only when it has one; a failed listing names tools/list", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const fake = {
        getNegotiatedProtocolVersion: () => undefined,
        getProtocolEra: () => undefined,
        getInstructions: () => undefined,
        request: async ({ params }: { readonly params: unknown }) => {
          seen.push(params)
          if (seen.length === 3) throw new Error("down")
          return { tools: [] }
        }
      }
      const client = NodeMcpClient.fromSdkClient(fake as never, { server: "fake" })
      yield* client.listTools()
      yield* client.listTools("c")
      const error = yield* Effect.flip(client.listTools())
      assert.deepStrictEqual(seen, [undefined, { cursor: "c" }, undefined])
      assert.deepStrictEqual([error.server, error.method, error.reason, error.description], [
        "fake",
        "tools/list",
        "Unknown",
        "down"
      ])
    }))

  it.effect("spans capture no stack trace (a warm call stays thin): a failure's trace names the span alone", () =>
    Effect.gen(function*() {
      const tracer = Tracer.make({ span: (options) => Tracer.nativeTracer.span(options) })
      const fake = {
        getNegotiatedProtocolVersion: () => undefined,
        getProtocolEra: () => undefined,
        getInstructions: () => undefined,
        request: async () => {
          throw new Error("down")
        }
      }
      const client = NodeMcpClient.fromSdkClient(fake as never, { server: "fake" })
      // Effect 4 has no `Effect.cause`: the failure's cause is read from its exit
      const causeOf = <A, E>(self: Effect.Effect<A, E>) =>
        Effect.map(
          Effect.exit(Effect.withTracer(self, tracer)),
          (exit) => Exit.isFailure(exit) ? exit.cause : Cause.empty
        )
      const list = yield* causeOf(client.listTools())
      const call = yield* causeOf(client.callTool("x", {}))
      // the span's frame has no location; Effect 4 opens the error's own cause after it (` {`)
      assert.match(Cause.pretty(list), /^ {4}at tools\/list( \{)?$/m)
      assert.match(Cause.pretty(call), /^ {4}at tools\/call x( \{)?$/m)
    }))

  it.effect("a listing without malformed tools logs nothing", () =>
    Effect.gen(function*() {
      const client = yield* connectTo(low, yield* makeProbe)
      const [page, lines] = yield* logged(client.listTools())
      assert.strictEqual(page.tools.length, 2)
      assert.deepStrictEqual(lines, [])
    }))
})

describe("NodeMcpClientFactory.layerInMemory", () => {
  it.effect("connects SDK Servers and McpServers by name; closing the scope closes both sides", () =>
    Effect.gen(function*() {
      const probe = yield* makeProbe
      const scope = yield* Scope.make()
      const lowClient = yield* connectTo(low, probe).pipe(Scope.provide(scope))
      const highClient = yield* connectTo(high, probe).pipe(Scope.provide(scope))
      const sum = yield* highClient.callTool("add", { a: 40, b: 2 })
      assert.deepStrictEqual(sum.content, [{ type: "text", text: "42" }])
      assert.isFalse(yield* Deferred.isDone(probe.closed))
      yield* Scope.close(scope, Exit.void)
      yield* Deferred.await(probe.closed)
      const after = yield* Effect.flip(lowClient.callTool("structured", {}))
      assert.strictEqual(after._tag, "McpRequestError")
    }))

  it.effect("an unknown name or a failing server factory is an McpConnectError", () =>
    Effect.gen(function*() {
      const unknown = yield* Effect.flip(
        connectTo(McpServerConfig.stdio({ name: "nope", command: "x" }), yield* makeProbe)
      )
      assert.strictEqual(unknown._tag, "McpConnectError")
      assert.strictEqual(unknown.message, "nope: no in-memory server of this name")
      const broken = yield* McpClientFactory.McpClientFactory.pipe(
        Effect.flatMap((factory) => factory.connect(McpServerConfig.stdio({ name: "broken", command: "x" }))),
        Effect.provide(NodeMcpClientFactory.layerInMemory({
          broken: () => {
            throw new Error("cannot build")
          }
        })),
        Effect.flip
      )
      assert.strictEqual(broken.message, "broken: in-memory server failed: cannot build")
    }))

  it.effect("spans McpClientFactory.connect, tools/list and tools/call {tool} follow the MCP conventions", () =>
    Effect.gen(function*() {
      const { spans, tracer } = yield* RecordingTracer.make
      const client = yield* connectTo(low, yield* makeProbe).pipe(Effect.withTracer(tracer))
      yield* client.listTools().pipe(Effect.withTracer(tracer))
      yield* client.callTool("structured", {}).pipe(Effect.withTracer(tracer))
      const byName = (name: string) => spans.find((span) => span.name === name)!
      assert.deepStrictEqual(Object.fromEntries(byName("McpClientFactory.connect").attributes), {
        "mcp.server": "low",
        "network.transport": "inproc"
      })
      assert.deepStrictEqual(Object.fromEntries(byName("tools/list").attributes), {
        "mcp.method.name": "tools/list",
        "mcp.server": "low"
      })
      const call = byName("tools/call structured")
      assert.strictEqual(call.kind, "client")
      assert.deepStrictEqual(Object.fromEntries(call.attributes), {
        "mcp.method.name": "tools/call",
        "mcp.server": "low",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "structured"
      })
    }))
})

describe("McpClient.callWithin, the connection's timer", () => {
  /**
   * A server whose `wait` tool answers only when cancelled; it records which labels started and were cancelled,
   * and the reason of each cancellation (what its request signal was aborted with).
   */
  const waiting = (
    seen: { readonly started: Array<string>; readonly cancelled: Array<string>; readonly reasons?: Array<string> }
  ) =>
  () => {
    const server = new Server({ name: "waiting", version: "1.0.0" }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }))
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const label = String(request.params.arguments?.label)
      seen.started.push(label)
      await new Promise((resolve) => extra.signal.addEventListener("abort", resolve, { once: true }))
      seen.reasons?.push(String(extra.signal.reason))
      seen.cancelled.push(label)
      return { content: [] }
    })
    return server
  }
  const limits = (timeout: string): McpClient.CallLimits => ({
    server: "waiting",
    timeout: Option.some(Duration.fromInputUnsafe(timeout as Duration.Input)),
    resetOnProgress: true,
    maxTimeout: Option.none()
  })
  /** Waits in real time (the test's clock is a `TestClock`) until `check` holds. */
  const until = (check: () => boolean) =>
    Effect.gen(function*() {
      for (let i = 0; i < 2_000 && !check(); i++) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 2)))
      assert.isTrue(check(), "the condition never held")
    })

  it.effect("a shorter deadline than the one the timer sleeps for wakes it; each call ends at its own, and is cancelled", () =>
    Effect.gen(function*() {
      const seen = { started: [] as Array<string>, cancelled: [] as Array<string> }
      const client = yield* McpClientFactory.McpClientFactory.pipe(
        Effect.flatMap((factory) => factory.connect(McpServerConfig.stdio({ name: "waiting", command: "unused" }))),
        Effect.provide(NodeMcpClientFactory.layerInMemory({ waiting: waiting(seen) }))
      )
      const long = yield* Effect.forkChild(client.callWithin("wait", { label: "long" }, limits("10 minutes")))
      yield* until(() => seen.started.includes("long"))
      const short = yield* Effect.forkChild(client.callWithin("wait", { label: "short" }, limits("30 seconds")))
      yield* until(() => seen.started.includes("short"))
      yield* TestClock.adjust("31 seconds")
      const first = yield* Fiber.join(short).pipe(Effect.flip)
      assert.strictEqual(first._tag, "McpTimeoutError")
      assert.strictEqual(Duration.toMillis((first as McpError.McpTimeoutError).timeout), 30_000)
      yield* until(() => seen.cancelled.includes("short"))
      // the long call goes on
      assert.isTrue(long.pollUnsafe() === undefined)
      assert.deepStrictEqual(seen.cancelled, ["short"])
      yield* TestClock.adjust("10 minutes")
      const second = yield* Fiber.join(long).pipe(Effect.flip)
      assert.strictEqual(Duration.toMillis((second as McpError.McpTimeoutError).timeout), 600_000)
      yield* until(() => seen.cancelled.includes("long"))
      // after both expired, a new call is timed again
      const next = yield* Effect.forkChild(client.callWithin("wait", { label: "next" }, limits("5 seconds")))
      yield* until(() => seen.started.includes("next"))
      yield* TestClock.adjust("6 seconds")
      assert.strictEqual((yield* Fiber.join(next).pipe(Effect.flip))._tag, "McpTimeoutError")
      yield* until(() => seen.cancelled.includes("next"))
    }))

  it.effect("the call's own abort signal (internal/callSignal): an interruption and a timeout each cancel it once, with their reason; callTool's too", () =>
    Effect.gen(function*() {
      const seen = { started: [] as Array<string>, cancelled: [] as Array<string>, reasons: [] as Array<string> }
      const client = yield* McpClientFactory.McpClientFactory.pipe(
        Effect.flatMap((factory) => factory.connect(McpServerConfig.stdio({ name: "waiting", command: "unused" }))),
        Effect.provide(NodeMcpClientFactory.layerInMemory({ waiting: waiting(seen) }))
      )
      const interrupted = yield* Effect.forkChild(
        client.callWithin("wait", { label: "interrupted" }, limits("1 minute"))
      )
      yield* until(() => seen.started.includes("interrupted"))
      yield* Fiber.interrupt(interrupted)
      yield* until(() => seen.cancelled.includes("interrupted"))
      const timed = yield* Effect.forkChild(client.callWithin("wait", { label: "timed" }, limits("5 seconds")))
      yield* until(() => seen.started.includes("timed"))
      yield* TestClock.adjust("6 seconds")
      const error = yield* Fiber.join(timed).pipe(Effect.flip)
      yield* until(() => seen.cancelled.includes("timed"))
      assert.deepStrictEqual(seen.cancelled, ["interrupted", "timed"])
      assert.deepStrictEqual(seen.reasons, ["AbortError: This operation was aborted", String(error)])
      // callTool is callWithin without a deadline: the same signal, aborted by an interruption
      const plain = yield* Effect.forkChild(client.callTool("wait", { label: "plain" }))
      yield* until(() => seen.started.includes("plain"))
      yield* Fiber.interrupt(plain)
      yield* until(() => seen.cancelled.includes("plain"))
      assert.deepStrictEqual(seen.reasons.at(-1), "AbortError: This operation was aborted")
    }))
})
