/**
 * The pieces of `zett demo`: the bundled example MCP server (a real SDK server, started over stdio), a
 * scripted model that calls its `add` tool, and a client factory wrapper that counts connections and
 * records the server processes, so the demo can show that everything was closed.
 *
 * @since 0.1.0
 */
import type { Extension, Message, Model } from "@zett/agent"
import * as ScriptedModel from "@zett/agent/ScriptedModel"
import * as McpClientFactory from "@zett/mcp/McpClientFactory"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { createRequire } from "node:module"
import * as Path from "node:path"

/**
 * The bundled example server's script: `examples/demo-server.mjs` of `@zett/mcp`.
 *
 * @since 0.1.0
 * @category constants
 */
export const serverScript: string = Path.join(
  Path.dirname(createRequire(import.meta.url).resolve("@zett/mcp/package.json")),
  "examples",
  "demo-server.mjs"
)

/**
 * The bundled example server, run by this Node.js as a stdio child process.
 *
 * @since 0.1.0
 * @category constructors
 */
export const server = (): McpServerConfig.McpStdioServer =>
  McpServerConfig.stdio({ name: "demo", command: process.execPath, args: [serverScript] })

/**
 * What the demo asks.
 *
 * @since 0.1.0
 * @category constants
 */
export const prompt = "What is 2 + 40? Use the demo server's add tool."

const sumOf = (message: Message.ToolMessage | undefined): unknown =>
  message?.status === "ok" ? (message.content as { readonly sum?: unknown } | null)?.sum : undefined

/**
 * The scripted model of the demo: it calls `demo__add` with 2 and 40, then answers with the sum the
 * server returned (or says what went wrong).
 *
 * @since 0.1.0
 * @category layers
 */
export const scriptedModel: Layer.Layer<Model.Model> = ScriptedModel.layer([
  (request) =>
    request.tools.some((tool) => tool.name === "demo__add")
      ? { text: "I'll ask the demo server.", toolCalls: [{ name: "demo__add", arguments: { a: 2, b: 40 } }] }
      : { text: "The demo server's add tool is not available." },
  (request) => {
    const result = request.messages.findLast((m): m is Message.ToolMessage => m._tag === "ToolMessage")
    const sum = sumOf(result)
    return sum === undefined
      ? { text: `The add tool did not return a sum: ${JSON.stringify(result?.content ?? null)}` }
      : { text: `2 + 40 = ${String(sum)}` }
  }
])

/**
 * A client factory that counts the connections it opened and closed, and remembers the process ids of the
 * stdio servers it started (from the connections themselves, not from the process table).
 *
 * @since 0.1.0
 * @category models
 */
export interface Tracker {
  readonly factory: McpClientFactory.McpClientFactory["Type"]
  readonly opened: () => number
  readonly closed: () => number
  /** The process ids of the stdio servers connected so far. */
  readonly pids: () => ReadonlyArray<number>
  /** Those still running. */
  readonly live: () => ReadonlyArray<number>
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Wraps `factory` to count its connections. A connection counts as closed once its scope has closed it
 * (the count is taken after the connection's own finalizer), failed connects included.
 *
 * @since 0.1.0
 * @category constructors
 */
export const track = (factory: McpClientFactory.McpClientFactory["Type"]): Tracker => {
  let opened = 0
  let closed = 0
  const pids = new Set<number>()
  return {
    factory: McpClientFactory.of((server) =>
      Effect.gen(function*() {
        // registered before the connection's finalizer, so it runs after it
        yield* Effect.addFinalizer(() => Effect.sync(() => closed++))
        opened++
        const client = yield* factory.connect(server)
        if (client.pid !== undefined && !pids.has(client.pid)) {
          pids.add(client.pid)
          yield* Effect.logDebug(`MCP server ${server.name} runs as process ${client.pid}`)
        }
        return client
      })
    ),
    opened: () => opened,
    closed: () => closed,
    pids: () => [...pids],
    live: () => [...pids].filter(isRunning)
  }
}

/**
 * Waits (up to `within`, default 2 seconds) until none of the tracked processes is running; returns those
 * still running.
 *
 * @since 0.1.0
 * @category utils
 */
export const awaitGone = (
  tracker: Tracker,
  within: number = 2_000
): Effect.Effect<ReadonlyArray<number>> =>
  Effect.repeat(
    Effect.sync(() => tracker.live()),
    // polled: a process ended by a signal is gone a moment later, when the kernel has delivered it
    Schedule.passthrough(
      Schedule.spaced("20 millis").pipe(
        Schedule.whileInput((left: ReadonlyArray<number>) => left.length > 0),
        Schedule.upTo(Duration.millis(within))
      )
    )
  )

/**
 * Records what the demo's tool calls returned to the model, so the demo checks the result it received rather
 * than the text of its answer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const observeResults = (): {
  readonly extension: Extension.Extension
  readonly sum: () => unknown
} => {
  let received: Message.ToolMessage | undefined
  return {
    extension: {
      name: "demo-results",
      afterTool: (_context, call, result) => Effect.sync(() => void (call.name === "demo__add" && (received = result)))
    },
    sum: () => sumOf(received)
  }
}
