/**
 * Running `zett` in-process: a captured `Output`, fake MCP servers behind a client factory, temporary
 * configuration files, and a `ConfigProvider` instead of the process environment.
 */
import type { Model } from "@zett/agent"
import { Cli, Output } from "@zett/cli"
import { McpClient, McpClientFactory, McpError } from "@zett/mcp"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Chunk from "effect/Chunk"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { identity } from "effect/Function"
import type * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as Fs from "node:fs"
import * as Path from "node:path"

type ListedTool = McpClient.ListToolsPage["tools"][number]
type CallResult = Effect.Effect.Success<ReturnType<McpClient.McpClient["callTool"]>>

export interface FakeServer {
  readonly tools?: ReadonlyArray<ListedTool>
  readonly listDelay?: Duration.DurationInput
  readonly connectError?: string
  /** A defect (a bug's throw) while it connects. */
  readonly connectDefect?: string
  readonly call?: (name: string, args: Record<string, unknown>) => CallResult
  /** Progress reports of every call, one a second (of the `TestClock`), before its result. */
  readonly progress?: ReadonlyArray<McpClient.Progress>
  /** What the server says of itself when connected to. */
  readonly instructions?: string
}

export const tool = (
  name: string,
  inputSchema: Record<string, unknown> = { type: "object" },
  description = `the ${name} tool`
): ListedTool => ({ name, description, inputSchema: inputSchema as ListedTool["inputSchema"] })

export const text = (value: string): CallResult => ({ content: [{ type: "text", text: value }] })

/** The tools of the bundled demo server, as it lists them. */
export const demoTools: ReadonlyArray<ListedTool> = [
  tool("add", {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { a: { type: "number", title: "A" }, b: { type: "number" } },
    required: ["a", "b"]
  }, "Adds two numbers and returns their sum"),
  tool("fail", { type: "object" }, "Always fails")
]

export const demoCall = (name: string, args: Record<string, unknown>): CallResult =>
  name === "add"
    ? {
      content: [{ type: "text", text: String(Number(args.a) + Number(args.b)) }],
      structuredContent: { sum: Number(args.a) + Number(args.b) }
    }
    : { content: [{ type: "text", text: "this tool always fails" }], isError: true }

/** A client factory over fake servers, counting connections opened and closed. */
export const fakeFactory = (servers: Record<string, FakeServer>) => {
  const stats = { opened: 0, closed: 0, peak: 0, calls: [] as Array<{ server: string; name: string; args: unknown }> }
  const factory = McpClientFactory.of((server) =>
    Effect.gen(function*() {
      stats.opened++
      stats.peak = Math.max(stats.peak, stats.opened - stats.closed)
      yield* Effect.addFinalizer(() => Effect.sync(() => void stats.closed++))
      const fake = servers[server.name]
      if (fake === undefined) {
        return yield* new McpError.McpConnectError({
          server: server.name,
          reason: "Start",
          description: "unknown server"
        })
      }
      if (fake.connectDefect !== undefined) return yield* Effect.die(new Error(fake.connectDefect))
      if (fake.connectError !== undefined) {
        return yield* new McpError.McpConnectError({
          server: server.name,
          reason: "Network",
          description: fake.connectError
        })
      }
      const client = McpClient.make({
        server: server.name,
        instructions: fake.instructions,
        listTools: () =>
          Effect.gen(function*() {
            if (fake.listDelay !== undefined) yield* Effect.sleep(fake.listDelay)
            return { tools: fake.tools ?? [], nextCursor: undefined }
          }),
        callTool: (name, args, options) =>
          Effect.gen(function*() {
            for (const report of fake.progress ?? []) {
              yield* Effect.sleep("1 second")
              options?.onProgress?.(report)
            }
            stats.calls.push({ server: server.name, name, args })
            return fake.call?.(name, args) ?? text(`${name} called`)
          })
      })
      return client
    })
  )
  return { factory, stats }
}

/** A temporary directory, removed when the scope closes. */
export const tempDir = TempDir.make("zett-cli-")

/** Writes `content` (JSON unless a string) to `dir/name` and returns the path. */
export const writeFile = (dir: string, name: string, content: unknown): string => {
  const file = Path.join(dir, name)
  Fs.mkdirSync(Path.dirname(file), { recursive: true })
  Fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2))
  return file
}

/** A configuration file of HTTP entries (never contacted: the fake factory answers by name). */
export const httpConfig = (dir: string, names: ReadonlyArray<string>, file = "mcp.json"): string =>
  writeFile(dir, file, {
    mcpServers: Object.fromEntries(names.map((name) => [name, { type: "http", url: `http://127.0.0.1:9/${name}` }]))
  })

export interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs `zett args` in-process. `env` replaces the process environment (HOME, ZETT_MODEL ...): by default it
 * is empty, so no real model and no real home directory are used.
 */
export const zett = (
  args: ReadonlyArray<string>,
  options?: {
    readonly clientFactory?: McpClientFactory.McpClientFactory["Type"]
    readonly model?: Layer.Layer<Model.Model>
    readonly env?: Readonly<Record<string, string>>
    readonly interactive?: boolean
    readonly colors?: boolean
  }
): Effect.Effect<Result> =>
  Effect.suspend(() => {
    const { captured, output } = Output.makeMemory({ interactive: options?.interactive, colors: options?.colors })
    return Cli.run(args).pipe(
      options?.clientFactory === undefined
        ? identity
        : Effect.provideService(McpClientFactory.McpClientFactory, options.clientFactory),
      options?.model === undefined ? identity : Effect.provide(options.model),
      Effect.provideService(Output.Output, output),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(options?.env ?? {})))),
      Effect.map((code) => ({ code, stdout: captured.stdout(), stderr: captured.stderr() }))
    )
  })

/** Waits (in real time, polled) until the wake-up times of the sleeps on the `TestClock` satisfy `ready`. */
const awaitSleepsWhere = (ready: (wakeUps: Chunk.Chunk<number>) => boolean) =>
  Effect.gen(function*() {
    while (!ready(yield* TestClock.sleeps())) {
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
    }
  })

/**
 * Waits until `count` sleeps are scheduled on the `TestClock`: the command reads files before it sleeps, so
 * adjusting the clock at once would come too early.
 */
export const awaitSleeps = (count: number) => awaitSleepsWhere((wakeUps) => Chunk.size(wakeUps) >= count)

/**
 * Waits until a fiber sleeps on the `TestClock` until `duration` from its current time: the one sleep a test means
 * to wake, which a spinner's own sleeps (every 80 ms) cannot stand in for. A busy machine may run the sleeping
 * fiber long after the clock was last adjusted.
 */
export const awaitSleepFor = (duration: Duration.DurationInput) =>
  Effect.flatMap(TestClock.currentTimeMillis, (now) => {
    const due = now + Duration.toMillis(duration)
    return awaitSleepsWhere((wakeUps) => Chunk.some(wakeUps, (at) => at === due))
  })

/** Escape sequences and carriage returns: what a spinner would leave in piped output. */
export const terminalControl = /\u001b\[|\r/
