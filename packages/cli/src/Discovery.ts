/**
 * Discovering what the configured MCP servers offer, for `zett tools` and `zett call`: each server is
 * connected in a scope of its own, listed page by page and converted as the extension converts it
 * (`McpTool.fromTool`), all under the connect timeout. A server that fails is reported, not fatal.
 *
 * @since 0.1.0
 */
import type { McpClientFactory, McpTool } from "@zett/mcp"
import * as McpClient from "@zett/mcp/McpClient"
import * as McpError from "@zett/mcp/McpError"
import * as McpExtension from "@zett/mcp/McpExtension"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
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
  /** The prompt tokens of its definition, in `tokenEncoding`. */
  readonly tokens: number
  /** What it takes: its input schema as the model gets it. */
  readonly inputSchema: McpTool.McpTool["parameters"]
}

/**
 * What discovering one server found.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServerReport {
  readonly server: string
  /** The transport used: `sse` for a server reached through the fallback from Streamable HTTP. */
  readonly transport: "stdio" | "streamable-http" | "sse"
  /** The protocol revision the server was spoken to in (`2026-07-28`, `2025-11-25` ...), once connected. */
  readonly protocolVersion?: string | undefined
  readonly status: "ok" | "unavailable"
  /** Why the server is unavailable, in a few words (never a secret). */
  readonly reason?: string | undefined
  /** The server is unavailable because it needs an OAuth login (`zett auth login <server>`). */
  readonly needsAuth?: boolean | undefined
  /** Connect and list, in milliseconds. */
  readonly discoveryMillis: number
  readonly tools: ReadonlyArray<ToolReport>
  /** Tools the server lists that its `includeTools` / `excludeTools` keep from the model (remote names). */
  readonly filtered: ReadonlyArray<string>
  /** The sum of the tools' tokens. */
  readonly tokens: number
  /** What the server said of itself when connected to (`instructions`); tool search reads it as context. */
  readonly instructions?: string | undefined
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
 * The encoding tokens are counted in: OpenAI's `o200k_base` (GPT-4o, GPT-4.1, the o-series). Other model
 * families tokenize differently, so the counts are labelled with it.
 *
 * @since 0.1.0
 * @category constants
 */
export const tokenEncoding = "o200k_base"

// the encoding's tables (about 2 MB of JavaScript) load on the first count, not with the command
const encoding = Effect.promise(() => import("gpt-tokenizer/encoding/o200k_base"))

// special tokens (`<|endoftext|>`) in a description are text to the model, as they are to a provider
const plainText = { disallowedSpecial: new Set<string>() }

/**
 * The prompt tokens a tool definition costs, counted in `tokenEncoding`: the JSON of its name, description and
 * (cleaned) input schema, the parts a provider sends to the model. A provider adds its own framing, so this is
 * the definitions' share, not a bill.
 *
 * @since 0.1.0
 * @category utils
 */
export const countTokens = (tool: {
  readonly name: string
  readonly description: string
  readonly parameters: unknown
}): Effect.Effect<number> =>
  Effect.map(encoding, (tokenizer) =>
    tokenizer.countTokens(
      JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }),
      plainText
    ))

/**
 * The transport of a server definition, as `mcp.json` spells it.
 *
 * @since 0.1.0
 * @category utils
 */
export const transportOf = (server: McpServerConfig.McpServerConfig): ServerReport["transport"] =>
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
  server: McpServerConfig.McpServerConfig,
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
  return McpClient.connectAndDiscover(factory.connect(server), server, { namespace, limit }).pipe(
    Effect.map(({ client, tools: listed }) => ({
      client,
      tools: listed.filter((tool) => McpServerConfig.allowsTool(server, tool.remoteName)),
      filtered: listed.filter((tool) => !McpServerConfig.allowsTool(server, tool.remoteName))
    })),
    Effect.withSpan("zett.discover", { attributes: { "mcp.server": server.name } })
  )
}

/**
 * The report of one tool.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolReport = (tool: McpTool.McpTool): Effect.Effect<ToolReport> =>
  Effect.map(countTokens(tool), (tokens) => ({
    name: tool.name,
    remoteName: tool.remoteName,
    description: tool.description,
    tokens,
    inputSchema: tool.parameters
  }))

/**
 * Discovers one server and closes its connection again. Never fails: an unreachable server is a report
 * with status `unavailable`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const discover = (
  factory: McpClientFactory.McpClientFactory["Type"],
  server: McpServerConfig.McpServerConfig,
  options?: Options
): Effect.Effect<ServerReport> =>
  Effect.scoped(Effect.timed(Effect.either(
    connectAndList(factory, server, options).pipe(
      // a fault in one server's bookkeeping (a store, a name) loses that server, not the command
      Effect.catchAllDefect((defect) =>
        Effect.fail(`internal error: ${(defect instanceof Error ? defect.message : String(defect)).split("\n", 1)[0]}`)
      )
    )
  ))).pipe(
    Effect.flatMap(([elapsed, result]) => {
      const discoveryMillis = Math.round(Duration.toMillis(elapsed))
      const transport = transportOf(server)
      if (result._tag === "Left") {
        const error = result.left
        return Effect.succeed<ServerReport>({
          server: server.name,
          transport,
          status: "unavailable",
          reason: typeof error === "string" ? error : McpError.reasonOf(error),
          ...(typeof error !== "string" && error._tag === "McpConnectError" && error.reason === "NeedsAuthorization"
            ? { needsAuth: true }
            : {}),
          discoveryMillis,
          tools: [],
          filtered: [],
          tokens: 0
        })
      }
      const client = result.right.client
      return Effect.map(Effect.forEach(result.right.tools, toolReport), (tools): ServerReport => ({
        server: server.name,
        transport: client.transport === "sse" || client.transport === "streamable-http" || client.transport === "stdio"
          ? client.transport
          : transport,
        ...(client.protocolVersion !== undefined ? { protocolVersion: client.protocolVersion } : {}),
        status: "ok",
        discoveryMillis,
        tools,
        filtered: result.right.filtered.map((tool) => tool.remoteName),
        tokens: tools.reduce((sum, tool) => sum + tool.tokens, 0),
        ...(client.instructions !== undefined && client.instructions !== ""
          ? { instructions: client.instructions }
          : {})
      }))
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
  servers: ReadonlyArray<McpServerConfig.McpServerConfig>,
  options?: Options & { readonly onDone?: ((report: ServerReport) => Effect.Effect<void>) | undefined }
): Effect.Effect<ReadonlyArray<ServerReport>> =>
  Effect.forEach(
    servers,
    (server) => Effect.tap(discover(factory, server, options), (report) => options?.onDone?.(report) ?? Effect.void),
    { concurrency: options?.concurrency ?? McpExtension.defaultDiscoveryConcurrency }
  )
