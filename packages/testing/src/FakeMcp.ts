/**
 * Fake MCP servers for the core's tests: a client factory over `McpClient.make` drivers (every delay an Effect
 * sleep, so `TestClock` drives it) that counts connects, closes and calls, an agent with the MCP extension and a
 * scripted model that records every model request, and readers of a recorded request's system and tool messages.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/client"
import { Agent, type Message, ScriptedModel } from "@zett/agent"
import { McpClientFactory, McpError, McpExtension, type McpServerConfig } from "@zett/mcp"
import * as McpClient from "@zett/mcp/McpClient"
import type * as McpClientModule from "@zett/mcp/McpClient"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as McpLayers from "./McpLayers.js"

/** How a fake server behaves; every delay is an Effect sleep, so TestClock drives it. */
export interface FakeServer {
  readonly tools?: ReadonlyArray<Tool>
  /** pages of tools with explicit cursors; overrides `tools` */
  readonly pages?: (cursor: string | undefined) => { tools: ReadonlyArray<Tool>; nextCursor?: string }
  readonly connectDelay?: Duration.DurationInput | undefined
  readonly listDelay?: Duration.DurationInput
  readonly connectError?: string | undefined
  /** What the server says of itself when connected to (`instructions`). */
  readonly instructions?: string | undefined
  readonly call?: (
    name: string,
    args: Record<string, unknown>,
    options?: McpClientModule.CallOptions
  ) => Effect.Effect<CallToolResult, McpError.McpRequestError>
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
      const client = McpClient.make({
        server: server.name,
        instructions: fake.instructions,
        listTools: (cursor) =>
          Effect.gen(function*() {
            if (fake.listDelay !== undefined) yield* Effect.sleep(fake.listDelay)
            if (fake.pages !== undefined) {
              const page = fake.pages(cursor)
              return { tools: page.tools, nextCursor: page.nextCursor }
            }
            return { tools: fake.tools ?? [], nextCursor: undefined }
          }),
        callTool: (name, args, options) =>
          Effect.suspend(() => {
            stats.calls.push({ server: server.name, name, args })
            return fake.call?.(name, args, options) ?? Effect.succeed(text(`${name} called`))
          })
      })
      return client
    })
  )
  return { factory, stats }
}

/** An agent with the MCP extension over `servers` and a scripted model, recording every model request. */
export const agentWith = (
  options: McpLayers.Options,
  steps: ReadonlyArray<ScriptedModel.Step>,
  agentOptions: Agent.Options = {}
) => {
  const requests: Array<
    { messages: ReadonlyArray<Message.Message>; tools: ReadonlyArray<{ name: string; parameters: unknown }> }
  > = []
  const recorded = steps.map((step): ScriptedModel.Step => (request) => {
    requests.push({ messages: request.messages, tools: request.tools })
    return typeof step === "function" ? step(request) : step
  })
  const layer = Agent.layer({
    ...agentOptions,
    extensions: [McpExtension.McpExtension, ...(agentOptions.extensions ?? [])]
  }).pipe(
    Layer.provide(McpLayers.layerNode(options)),
    Layer.provide(ScriptedModel.layer(recorded))
  )
  return { layer, requests }
}

/** The system message of a recorded request. */
export const systemOf = (request: { messages: ReadonlyArray<Message.Message> }) =>
  request.messages[0]?._tag === "SystemMessage" ? request.messages[0].content : ""

/** The tool messages of a recorded request. */
export const toolMessages = (request: { messages: ReadonlyArray<Message.Message> }) =>
  request.messages.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage")
