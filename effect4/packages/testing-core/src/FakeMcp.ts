/**
 * Fake MCP servers for the core's tests (the 3 line's `@zett/testing-core/FakeMcp` on Effect 4): a client factory over
 * `McpClient.make` drivers (every delay an Effect sleep, so `TestClock` drives it) that counts connects, closes and
 * calls. It imports only the core: no driver, no SDK, no server.
 */
import * as McpClient from "@zett/mcp/McpClient"
import * as McpClientFactory from "@zett/mcp/McpClientFactory"
import * as McpError from "@zett/mcp/McpError"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** A tool as a server lists it. */
export type Tool = McpClient.ListToolsPage["tools"][number]

/** A `tools/call` result as a server answers it. */
export type CallToolResult = Effect.Success<ReturnType<McpClient.McpClient["callTool"]>>

/** How a fake server behaves; every delay is an Effect sleep, so TestClock drives it. */
export interface FakeServer {
  readonly tools?: ReadonlyArray<Tool>
  /** pages of tools with explicit cursors (and a caching hint each, if any); overrides `tools` */
  readonly pages?: (
    cursor: string | undefined
  ) => { tools: ReadonlyArray<Tool>; nextCursor?: string; cache?: McpClient.CacheHint }
  /** The caching hint every page of `tools` carries (a server of 2026-07-28). */
  readonly cache?: McpClient.CacheHint | undefined
  readonly connectDelay?: Duration.Input | undefined
  readonly listDelay?: Duration.Input
  readonly connectError?: string | undefined
  /** What the server says of itself when connected to (`instructions`). */
  readonly instructions?: string | undefined
  readonly call?: (
    name: string,
    args: Record<string, unknown>,
    options?: McpClient.CallOptions
  ) => Effect.Effect<CallToolResult, McpError.McpRequestError>
  /** The rest of the driver, as `McpClient.make` takes it: list changes, other requests, notifications, skills. */
  readonly driver?: Omit<McpClient.Driver, "server" | "listTools" | "callTool" | "instructions"> | undefined
}

export const tool = (
  name: string,
  inputSchema: Record<string, unknown> = { type: "object" },
  description = `the ${name} tool`
): Tool => ({ name, description, inputSchema: inputSchema as Tool["inputSchema"] })

export const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] })

/** A client factory over fake servers that counts connects, closes and calls per server. */
export const fakeFactory = (servers: Record<string, FakeServer>) => {
  const stats = {
    connects: {} as Record<string, number>,
    closes: {} as Record<string, number>,
    calls: [] as Array<{ server: string; name: string; args: unknown }>,
    open: () => Object.keys(stats.connects).reduce((n, k) => n + stats.connects[k]! - (stats.closes[k] ?? 0), 0)
  }
  const factory = McpClientFactory.of((server: McpServerConfig.McpServerConfig) =>
    Effect.gen(function*() {
      const fake = servers[server.name]
      stats.connects[server.name] = (stats.connects[server.name] ?? 0) + 1
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => void (stats.closes[server.name] = (stats.closes[server.name] ?? 0) + 1))
      )
      if (fake === undefined) {
        return yield* new McpError.McpConnectError({
          server: server.name,
          reason: "Start",
          description: "unknown server"
        })
      }
      if (fake.connectDelay !== undefined) yield* Effect.sleep(fake.connectDelay)
      if (fake.connectError !== undefined) {
        return yield* new McpError.McpConnectError({
          server: server.name,
          reason: "Network",
          description: fake.connectError
        })
      }
      return McpClient.make({
        ...fake.driver,
        server: server.name,
        instructions: fake.instructions,
        listTools: (cursor) =>
          Effect.gen(function*() {
            if (fake.listDelay !== undefined) yield* Effect.sleep(fake.listDelay)
            if (fake.pages !== undefined) {
              const page = fake.pages(cursor)
              return { tools: page.tools, nextCursor: page.nextCursor, cache: page.cache }
            }
            return { tools: fake.tools ?? [], nextCursor: undefined, cache: fake.cache }
          }),
        callTool: (name, args, options) =>
          Effect.suspend(() => {
            stats.calls.push({ server: server.name, name, args })
            return fake.call?.(name, args, options) ?? Effect.succeed(text(`${name} called`))
          })
      })
    })
  )
  return { factory, stats }
}
