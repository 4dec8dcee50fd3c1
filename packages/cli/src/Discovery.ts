/**
 * Discovering what the configured MCP servers offer, for `zett tools` and `zett call`: each server is
 * connected in a scope of its own, listed page by page and converted as the extension converts it
 * (`McpTool.fromTool`), all under the connect timeout. A server that fails is reported, not fatal.
 *
 * @since 0.1.0
 */
import type { McpClientFactory } from "@zett/mcp"
import { McpClient, McpError, McpExtension, McpServer, McpTool } from "@zett/mcp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

/**
 * One tool as the model sees it, and what its definition costs in the prompt.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolReport {
  /** The exposed name the model calls. */
  readonly name: string
  /** The name on the server. */
  readonly remoteName: string
  readonly description: string
  readonly estimatedTokens: number
}

/**
 * What discovering one server found.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerReport {
  readonly server: string
  readonly transport: "stdio" | "streamable-http" | "sse"
  readonly status: "ok" | "unavailable"
  /** Why the server is unavailable, in a few words (never a secret). */
  readonly reason?: string | undefined
  /** Connect and list, in milliseconds. */
  readonly discoveryMillis: number
  readonly tools: ReadonlyArray<ToolReport>
  /** Tools the server lists that its `includeTools` / `excludeTools` keep from the model (remote names). */
  readonly filtered: ReadonlyArray<string>
  /** The sum of the tools' estimates. */
  readonly estimatedTokens: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Time to connect to and list one server (default 30 seconds); `None` disables it. */
  readonly connectTimeout?: Option.Option<Duration.Duration> | undefined
  /** Expose tools as `<server>__<tool>` (default true). */
  readonly namespace?: boolean | undefined
  /** How many servers are discovered at once (default `McpExtension.defaultDiscoveryConcurrency`, 16). */
  readonly concurrency?: number | undefined
}

/**
 * A rough count of the prompt tokens a tool definition costs: a quarter of the characters of the JSON of
 * its name, description and (cleaned) input schema, the parts a provider sends to the model.
 *
 * @since 0.1.0
 * @category utils
 */
export const estimateTokens = (tool: {
  readonly name: string
  readonly description: string
  readonly parameters: unknown
}): number =>
  Math.ceil(JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }).length / 4)

/**
 * The transport of a server definition, as `mcp.json` spells it.
 *
 * @since 0.1.0
 * @category utils
 */
export const transportOf = (server: McpServer.McpServer): ServerReport["transport"] =>
  server._tag === "McpHttpServer" ? server.transport : "stdio"

/**
 * Connects to `server` in the current scope and lists its tools, converted for the model, under the
 * connect timeout; the tools its `includeTools` / `excludeTools` keep from the model are set apart. The
 * connection stays open until the scope closes (so that `zett call` can use it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const connectAndList = (
  factory: McpClientFactory.McpClientFactory["Type"],
  server: McpServer.McpServer,
  options?: Options
): Effect.Effect<
  {
    readonly client: McpClient.McpClient
    readonly tools: ReadonlyArray<McpTool.McpTool>
    readonly filtered: ReadonlyArray<McpTool.McpTool>
  },
  McpError.McpConnectError | McpError.McpRequestError | McpError.McpTimeoutError,
  Scope.Scope
> => {
  const namespace = options?.namespace ?? true
  const limit = options?.connectTimeout ?? Option.some(Duration.seconds(30))
  return Effect.gen(function*() {
    const client = yield* factory.connect(server)
    const listed = yield* McpClient.discover(client, { namespace, prefix: McpServer.toolPrefix(server) })
    const tools = listed.filter((tool) => McpServer.allowsTool(server, tool.remoteName))
    const filtered = listed.filter((tool) => !McpServer.allowsTool(server, tool.remoteName))
    return { client, tools, filtered }
  }).pipe(
    McpError.within({ server: server.name, operation: "connect", limit }),
    Effect.withSpan("zett.discover", { attributes: { "mcp.server": server.name } })
  )
}

/**
 * The report of one tool.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolReport = (tool: McpTool.McpTool): ToolReport => ({
  name: tool.name,
  remoteName: tool.remoteName,
  description: tool.description,
  estimatedTokens: estimateTokens(tool)
})

/**
 * Discovers one server and closes its connection again. Never fails: an unreachable server is a report
 * with status `unavailable`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const discover = (
  factory: McpClientFactory.McpClientFactory["Type"],
  server: McpServer.McpServer,
  options?: Options
): Effect.Effect<ServerReport> =>
  Effect.scoped(Effect.timed(Effect.either(connectAndList(factory, server, options)))).pipe(
    Effect.map(([elapsed, result]): ServerReport => {
      const discoveryMillis = Math.round(Duration.toMillis(elapsed))
      const transport = transportOf(server)
      if (result._tag === "Left") {
        return {
          server: server.name,
          transport,
          status: "unavailable",
          reason: McpError.reasonOf(result.left),
          discoveryMillis,
          tools: [],
          filtered: [],
          estimatedTokens: 0
        }
      }
      const tools = result.right.tools.map(toolReport)
      return {
        server: server.name,
        transport,
        status: "ok",
        discoveryMillis,
        tools,
        filtered: result.right.filtered.map((tool) => tool.remoteName),
        estimatedTokens: tools.reduce((sum, tool) => sum + tool.estimatedTokens, 0)
      }
    })
  )

/**
 * Discovers every server concurrently; `onDone` is told as each one finishes (for a progress line). The
 * reports keep the order of `servers`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const discoverAll = (
  factory: McpClientFactory.McpClientFactory["Type"],
  servers: ReadonlyArray<McpServer.McpServer>,
  options?: Options & { readonly onDone?: ((report: ServerReport) => Effect.Effect<void>) | undefined }
): Effect.Effect<ReadonlyArray<ServerReport>> =>
  Effect.forEach(
    servers,
    (server) => Effect.tap(discover(factory, server, options), (report) => options?.onDone?.(report) ?? Effect.void),
    { concurrency: options?.concurrency ?? McpExtension.defaultDiscoveryConcurrency }
  )
