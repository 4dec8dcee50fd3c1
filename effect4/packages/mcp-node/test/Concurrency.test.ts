/**
 * Requests that overlap: one interrupted while a connection of its own closes, and many on a fresh layer at once.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Agent, Message, Model, ScriptedModel } from "@zett/agent"
import { McpExtension } from "@zett/mcp"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Stream from "effect/Stream"
import * as Crypto from "node:crypto"
import * as Faults from "./utils/faults.js"
import * as McpLayers from "./utils/mcpLayers.js"

/** Lines of the server's stderr (logged at debug level) that the test waits for, each by a part of its text. */
const stderrWatch = (parts: ReadonlyArray<string>) =>
  Effect.map(Effect.forEach(parts, () => Deferred.make<void>()), (seen) => ({
    seen,
    layer: Layer.merge(
      Logger.layer([Logger.make(({ message }) => {
        const text = String(message)
        parts.forEach((part, i) => text.includes(part) && Deferred.doneUnsafe(seen[i]!, Exit.void))
      })]),
      Layer.succeed(References.MinimumLogLevel)("Debug")
    )
  }))

/** The promise rejections nobody handled while the scope is open. */
const unhandledRejections = Effect.acquireRelease(
  Effect.sync(() => {
    const rejections: Array<unknown> = []
    const listener = (reason: unknown) => void rejections.push(reason)
    process.on("unhandledRejection", listener)
    return { rejections, listener }
  }),
  ({ listener }) => Effect.sync(() => void process.off("unhandledRejection", listener))
).pipe(Effect.map(({ rejections }) => rejections))

describe("an interrupted request", () => {
  it.live(
    "interrupted while a timed-out connect closes its stdio server: the close runs to its end, no process is left",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        // a server that never answers `initialize`, and exits 3 s after the end of its input
        const server = Faults.stdioFault("slowpoke", marker, ["silent-initialize", "linger"], ["--linger=3000"])
        const { layer: logs, seen: [lingering, terminated] } = yield* stderrWatch([
          "stdin ended, lingering",
          "got SIGTERM"
        ])
        // what reaches `process.on("unhandledRejection")` ends a host that has no such listener
        const rejections = yield* unhandledRejections
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(McpLayers.layer({ servers: [server], connectTimeout: "1 second" })),
          // the server gets 10 s to exit after the end of its input: it needs 3
          Layer.provide(Faults.factoryLayer({}, { closeTimeout: "10 seconds" })),
          Layer.provide(NodeServices.layer),
          Layer.provide(ScriptedModel.layer([{ text: "done" }])),
          Layer.provide(logs)
        )
        yield* Effect.gen(function*() {
          const request = yield* Effect.forkChild(Agent.run("go"))
          // the connect has timed out, and its close has ended the server's input: the server is lingering
          yield* Deferred.await(lingering!)
          // Effect 4's `Fiber.interrupt` gives nothing back: the exit is awaited
          yield* Fiber.interrupt(request)
          const exit = yield* Fiber.await(request)
          assert(Exit.hasInterrupts(exit))
          assert.deepStrictEqual(Faults.withMarker(marker).map((p) => p.pid), [], "the server has exited")
          // by itself, in the time it was given: neither cut short by a signal, nor closed twice with a rejection
          assert.deepStrictEqual(rejections, [])
          assert.isFalse(yield* Deferred.isDone(terminated!), "the server got no SIGTERM")
          // Effect 4: a logger given to a layer's construction does not reach the effect it is provided to
        }).pipe(Effect.provide(layer.pipe(Layer.provideMerge(logs))))
      }).pipe(Effect.scoped)
  )
})

/**
 * A model whose first turn calls `tool` and whose next turn ends the request; `onResult` is told of each tool
 * result as the model sees it.
 */
const callingModel = (tool: string, onResult: (result: Message.ToolMessage) => void) =>
  Model.Model.of({
    stream: (request) =>
      Stream.unwrap(Effect.sync((): Stream.Stream<Model.ModelEvent> => {
        const usage = new Message.Usage({ inputTokens: 0, outputTokens: 0 })
        const result = request.messages.find((m): m is Message.ToolMessage => m._tag === "ToolMessage")
        if (result === undefined) {
          return Stream.make(
            {
              _tag: "ToolCall" as const,
              call: new Message.ToolCall({ id: "c1", name: tool, arguments: { text: "hi" } })
            },
            { _tag: "Finish" as const, reason: "tool_calls" as const, usage }
          )
        }
        onResult(result)
        return Stream.make({ _tag: "TextDelta" as const, text: "done" }, {
          _tag: "Finish" as const,
          reason: "stop" as const,
          usage
        })
      }))
  })

describe("many requests on a fresh layer", () => {
  // Real servers, since what matters is the order in which this process starts them and reads their answers.
  // TestClock holds every timeout, so no call is cut short and nothing depends on the machine's speed. It cannot
  // show the late answer as time: the delay was real time spent inside one turn of the event loop, while no
  // Effect clock moves, and the answer was then read at the first poll for I/O as always. What the delay changed
  // is what happened before that poll: every other connection's spawn (`npm run soak -- --burst 100` counts the
  // calls that end more than a second after their server answered).
  it.effect(
    "50 at once: every call succeeds, and the first answer is read before the other connections have all started",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const server = Faults.stdioFault("calm", marker, ["none"])
        const results: Array<Message.ToolMessage> = []
        // the server processes running when the first answer reached its request
        let startedAtFirstAnswer: number | undefined
        const model = callingModel("calm__echo", (result) => {
          startedAtFirstAnswer ??= Faults.withMarker(marker).length
          results.push(result)
        })
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(McpLayers.layer({ servers: [server], connectTimeout: "30 seconds", callTimeout: "2 seconds" })),
          Layer.provide(Faults.factoryLayer({})),
          Layer.provide(NodeServices.layer),
          Layer.provide(Layer.succeed(Model.Model, model)),
          Layer.provide(Layer.merge(Logger.layer([]), Layer.succeed(References.MinimumLogLevel)("None")))
        )
        // every request lists the tools (one of them discovers for all), then connects its own server to call
        yield* Effect.forEach(Array.from({ length: 50 }), () => Agent.run("go"), {
          concurrency: "unbounded",
          discard: true
        }).pipe(
          Effect.provide(layer)
        )
        assert.strictEqual(results.length, 50)
        assert.deepStrictEqual(results.filter((r) => r.status !== "ok").map((r) => r.content), [])
        // Started together, the 49 connections spawned their servers back to back in one turn of the event loop,
        // and the first answer, already there, was read only after that turn.
        assert.isBelow(startedAtFirstAnswer!, 25, "servers running when the first answer was read")
        assert.deepStrictEqual(Faults.withMarker(marker).map((p) => p.pid), [], "no server is left")
      })
  )
})
