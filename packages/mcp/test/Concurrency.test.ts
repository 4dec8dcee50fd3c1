/**
 * Requests that overlap: one interrupted while its connections close, and many on a fresh layer at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpExtension } from "@zett/mcp"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Crypto from "node:crypto"
import * as Faults from "@zett/testing/Faults"

/** Lines of the server's stderr (logged at debug level) that the test waits for, each by a part of its text. */
const stderrWatch = (parts: ReadonlyArray<string>) =>
  Effect.map(Effect.forEach(parts, () => Deferred.make<void>()), (seen) => ({
    seen,
    layer: Layer.merge(
      Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ message }) => {
          const text = String(message)
          parts.forEach((part, i) => text.includes(part) && Deferred.unsafeDone(seen[i]!, Exit.void))
        })
      ),
      Logger.minimumLogLevel(LogLevel.Debug)
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
  it.live("interrupted while a timed-out connect closes its stdio server: the close runs to its end, no process is left", () =>
    Effect.gen(function*() {
      const marker = Crypto.randomUUID()
      // a server that never answers `initialize`, and exits 3 s after the end of its input
      const server = Faults.stdioFault("slowpoke", marker, ["silent-initialize", "linger"], ["--linger=3000"])
      const { layer: logs, seen: [lingering, terminated] } = yield* stderrWatch(["stdin ended, lingering", "got SIGTERM"])
      // what reaches `process.on("unhandledRejection")` ends a host that has no such listener
      const rejections = yield* unhandledRejections
      const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
        Layer.provide(McpExtension.layer({ servers: [server], connectTimeout: "1 second" })),
        // the server gets 10 s to exit after the end of its input: it needs 3
        Layer.provide(Faults.factoryLayer({}, { closeTimeout: "10 seconds" })),
        Layer.provide(NodeContext.layer),
        Layer.provide(ScriptedModel.layer([{ text: "done" }])),
        Layer.provide(logs)
      )
      yield* Effect.gen(function*() {
        const request = yield* Effect.fork(Agent.run("go"))
        // the connect has timed out, and its close has ended the server's input: the server is lingering
        yield* Deferred.await(lingering!)
        const exit = yield* Fiber.interrupt(request)
        assert(Exit.isInterrupted(exit))
        assert.deepStrictEqual(Faults.withMarker(marker).map((p) => p.pid), [], "the server has exited")
        // by itself, in the time it was given: neither cut short by a signal, nor closed twice with a rejection
        assert.deepStrictEqual(rejections, [])
        assert.isFalse(yield* Deferred.isDone(terminated!), "the server got no SIGTERM")
      }).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped), 60_000)
})
