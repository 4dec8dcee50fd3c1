/**
 * The MCP extension for `@zett/agent`: discovers the tools of every configured server at the start of a
 * request, registers them under namespaced names, and calls them when the model asks.
 *
 * One request, top to bottom:
 *
 * 1. `onTool`: the configuration is checked (one `stat`), every server's tool list is looked up
 *    concurrently in the cache or discovered under `connectTimeout`, and the tools are registered.
 * 2. `onState`: the system message says where servers are configured, how their tools are named and which
 *    servers are unavailable.
 * 3. The model calls a tool: the server connects lazily (once per request) and the call runs under
 *    `callTimeout`; interruption cancels it on the server.
 * 4. The request scope closes (success, failure, interruption, compaction): every connection closes.
 *
 * @since 0.1.0
 */
import type { Extension, Message } from "@zett/agent"
import { Model, Tool, Tracing } from "@zett/agent"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Metrics from "./internal/metrics.js"
import * as McpClient from "./McpClient.js"
import * as McpClientFactory from "./McpClientFactory.js"
import * as McpConnections from "./McpConnections.js"
import type { McpConfigError, McpRequestError, McpTimeoutError } from "./McpError.js"
import * as McpError from "./McpError.js"
import * as McpSampling from "./McpSampling.js"
import * as McpServer from "./McpServer.js"
import * as McpServers from "./McpServers.js"
import * as McpTool from "./McpTool.js"
import * as McpToolCache from "./McpToolCache.js"
import * as McpToolResult from "./McpToolResult.js"
import * as ResourceTools from "./internal/resourceTools.js"

/**
 * The options of the original `McpExtension` (C1) that concern discovery and calls, plus the error text policy
 * (D8). The servers come from `McpServers`, the connections from the `McpClientFactory` in context.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The registration name (A4); default `"mcp"`. */
  readonly name?: string | undefined
  /** Expose tools as `<server>__<tool>` (default true, E1). */
  readonly namespaceTools?: boolean | undefined
  /** Time to connect to and list one server (default 30 seconds); `null` disables it. */
  readonly connectTimeout?: Duration.DurationInput | null | undefined
  /** Time for one tool call (default 300 seconds); `null` disables it. */
  readonly callTimeout?: Duration.DurationInput | null | undefined
  /**
   * Whether a progress report of the server (`notifications/progress`) starts `callTimeout` afresh (default
   * true), so a long job that keeps reporting is not cut off; `maxCallTimeout` still caps it.
   */
  readonly resetTimeoutOnProgress?: boolean | undefined
  /**
   * The most one call may take however often it reports progress (default 1 hour); `null` is no cap. It applies
   * only while progress starts the timeout afresh.
   */
  readonly maxCallTimeout?: Duration.DurationInput | null | undefined
  /** How long a server's tool list is reused (default 300 seconds); zero disables the cache. */
  readonly toolsCacheTtl?: Duration.DurationInput | undefined
  /**
   * The tool cache, in place of the in-memory one of `toolsCacheTtl`; e.g.
   * `McpToolCache.layerRedis(...)` to share tool lists across the processes of a fleet.
   */
  readonly toolCache?: Layer.Layer<McpToolCache.McpToolCache> | undefined
  /** Which remote error text the model may see (default `McpToolResult.ErrorTextPolicy.toolText`). */
  readonly errorText?: McpToolResult.ErrorTextPolicy | undefined
  /**
   * Opt-in: keep each server's connection open across requests, in the layer's scope, until it has been
   * unused for `idleTimeToLive`; a request's first call then costs no spawn. By default every request opens
   * and closes its own connections.
   */
  readonly connectionPool?: { readonly idleTimeToLive: Duration.DurationInput } | undefined
  /**
   * How many servers are discovered at once (default `defaultDiscoveryConcurrency`, 16): discovery stays
   * concurrent, but a configuration of thousands of servers neither starts thousands of processes at once
   * nor saturates the event loop until every connect looks timed out.
   */
  readonly discoveryConcurrency?: number | undefined
  /**
   * Which discovered tools reach the model, after each server's own `includeTools` and `excludeTools`. A
   * filtered tool is not registered, so a call to it is refused like a call to an unknown tool.
   */
  readonly toolFilter?: ((server: McpServer.McpServer, tool: McpTool.McpTool) => boolean) | undefined
  /**
   * `"tools"`: every server's resources reach the model through two more tools, `<prefix>__list_resources` and
   * `<prefix>__read_resource` (issue 13); a server's own `resources: "tools"` does it for that server alone.
   * Off by default. A tool of the server's own with one of these names wins.
   */
  readonly resources?: "tools" | undefined
}

/**
 * The default of `Options.discoveryConcurrency`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultDiscoveryConcurrency = 16

/**
 * The extension value, as a service so that layers can build it.
 *
 * @since 0.1.0
 * @category tags
 */
export class McpExtension extends Context.Tag("@zett/mcp/McpExtension")<McpExtension, Extension.Extension<McpConfigError>>() {}

/**
 * The default registration name.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultName = "mcp"

/**
 * How long discovering one server took (connect and list), tagged with the server name.
 *
 * @since 0.1.0
 * @category metrics
 */
export const discoveryDuration = Metric.timer("mcp_discovery_duration", "connect and list one server's tools")

const toolCallsDescription = "calls of MCP tools"

/**
 * Tool calls, tagged with the server name and `outcome` (`ok` or `failed`).
 *
 * @since 0.1.0
 * @category metrics
 */
export const toolCalls = Metric.counter("mcp_tool_calls", { description: toolCallsDescription })

// Keyed once per server and outcome (`Metric.tagged` would build and hash a new key on every call).
const callCounters = new Map<string, Effect.Effect<void>>()
const counted = (server: McpServer.McpServer, outcome: "ok" | "failed") => {
  const key = `${outcome}:${server.name}`
  let counter = callCounters.get(key)
  // Stryker disable next-line ConditionalExpression: tagged counters of one name and tags are one metric, however often made
  if (counter === undefined) {
    counter = Metrics.taggedIncrement("mcp_tool_calls", toolCallsDescription, [["mcp.server", server.name], ["outcome", outcome]])
    callCounters.set(key, counter)
  }
  return counter
}

/**
 * A server left out of this request, and why in a few words.
 *
 * @since 0.1.0
 * @category models
 */
export interface Unavailable {
  readonly server: string
  readonly reason: string
}

const formatCount = (n: number) => n.toLocaleString("en-US")

/**
 * One readable line for a list of unavailable servers, however long: servers that failed for the same reason
 * are grouped, a few names of each group are shown, and the rest are counted (`9,998 more servers failed the
 * same way`).
 *
 * @since 0.1.0
 * @category utils
 */
export const summarizeUnavailable = (
  unavailable: ReadonlyArray<Unavailable>,
  options?: { readonly groups?: number | undefined; readonly namesPerGroup?: number | undefined }
): string => {
  const maxGroups = options?.groups ?? 10
  const namesPerGroup = options?.namesPerGroup ?? 3
  const groups = new Map<string, Array<string>>()
  for (const { reason, server } of unavailable) {
    const names = groups.get(reason)
    if (names === undefined) groups.set(reason, [server])
    else names.push(server)
  }
  const parts: Array<string> = []
  let others = 0
  let shown = 0
  for (const [reason, names] of groups) {
    if (shown++ >= maxGroups) {
      others += names.length
      continue
    }
    for (const name of names.slice(0, namesPerGroup)) parts.push(`${name} (${reason})`)
    const rest = names.length - namesPerGroup
    if (rest > 0) parts.push(`${formatCount(rest)} more ${rest === 1 ? "server" : "servers"} failed the same way`)
  }
  if (others > 0) parts.push(`${formatCount(others)} more ${others === 1 ? "server" : "servers"} failed for other reasons`)
  return parts.join("; ")
}

interface RequestState {
  readonly snapshot: McpServers.Snapshot
  readonly connections: McpConnections.McpConnections
  readonly unavailable: Array<Unavailable>
  /** The tools registered per server name, replaced when the server's tool list changes. */
  readonly registered: Map<string, ReadonlyArray<Tool.Tool>>
  /** Servers whose connection announced `notifications/tools/list_changed` since their tools were listed. */
  readonly changed: Set<McpServer.McpServer>
  readonly serverRequests: ServerRequestContext
}

/**
 * What a server's request during one of this request's calls may use: the agent's model (as this extension's
 * `onModelRequest` sees it) and the request's sampling count.
 */
interface ServerRequestContext {
  readonly counter: McpSampling.RequestCounter["Type"]
  model: Model.Model["Type"] | undefined
  // the model is there only once the agent called it
  context: Context.Context<McpSampling.RequestCounter> | undefined
}

/** The services a server request during one of the request's calls runs with (made once per request). */
const serverRequestContext = (requests: ServerRequestContext): Context.Context<never> => {
  let context = requests.context
  // Stryker disable next-line ConditionalExpression: a cache; built again, the context holds the same counter and model
  if (context === undefined) {
    const counted = Context.make(McpSampling.RequestCounter, requests.counter)
    context = requests.context = requests.model === undefined ? counted : Context.add(counted, Model.Model, requests.model)
  }
  return context as Context.Context<never>
}

/**
 * Progress reports of one call, published to `onEvent` as `ToolProgress` events in the order they came, by
 * one fiber at a time, started when a report arrives (a call that reports nothing starts none).
 */
const progressPublisher = (
  context: Extension.RunContext,
  call: Message.ToolCall,
  runtime: Runtime.Runtime<never>
) => {
  const queue: Array<McpClient.Progress> = []
  let running = false
  let fiber: Fiber.RuntimeFiber<void> | undefined
  const drain: Effect.Effect<void> = Effect.suspend(() => {
    const next = queue.shift()
    if (next === undefined) {
      running = false
      return Effect.void
    }
    return Effect.zipRight(
      context.publish({
        _tag: "ToolProgress",
        runId: context.runId,
        toolCallId: call.id,
        tool: call.name,
        progress: next.progress,
        ...(next.total !== undefined ? { total: next.total } : {}),
        ...(next.message !== undefined ? { message: next.message } : {})
      }),
      drain
    )
  })
  return {
    onProgress: (progress: McpClient.Progress) => {
      queue.push(progress)
      if (running) return
      running = true
      fiber = Runtime.runFork(runtime)(drain)
    },
    /** Waits until every report so far is published: a call's events come before its result. */
    flush: Effect.suspend(() => fiber === undefined ? Effect.void : Fiber.await(fiber))
  }
}

const optionalDuration = (input: Duration.DurationInput | null | undefined, fallback: Duration.DurationInput) =>
  input === null ? Option.none() : Option.some(Duration.decode(input ?? fallback))

/**
 * Builds the extension from the configuration, tool cache and client factory in context. A connection pool,
 * when asked for, lives in the `Scope` of the caller (the layer's).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  options: Omit<Options, "toolCache"> = {}
) {
  const configuration = yield* McpServers.McpServers
  const cache = yield* McpToolCache.McpToolCache
  const factory = yield* McpClientFactory.McpClientFactory
  const namespace = options.namespaceTools ?? true
  const connectTimeout = optionalDuration(options.connectTimeout, Duration.seconds(30))
  const callTimeout = optionalDuration(options.callTimeout, Duration.seconds(300))
  const resetOnProgress = options.resetTimeoutOnProgress ?? true
  const maxCallTimeout = optionalDuration(options.maxCallTimeout, Duration.hours(1))
  const errorText = options.errorText ?? McpToolResult.ErrorTextPolicy.toolText
  const discoveryConcurrency = options.discoveryConcurrency ?? defaultDiscoveryConcurrency
  // A connection's `notifications/tools/list_changed` drops the server's cached tool list for as long as the
  // connection lives (pooled, that is past the request that opened it).
  const watched = McpClientFactory.of((server) =>
    Effect.tap(factory.connect(server), (client) =>
      client.onToolListChanged === undefined ? Effect.void : Effect.flatMap(Effect.runtime<never>(), (runtime) => {
        const invalidate = cache.invalidate(McpToolCache.key(server, { namespace }))
        return client.onToolListChanged!(() => void Runtime.runFork(runtime)(invalidate))
      }))
  )
  const source = options.connectionPool === undefined
    ? McpConnections.direct(watched)
    : yield* McpConnections.pooled(watched, options.connectionPool)
  // The request's own watch, while it holds the connection: its next model turn lists the tools again.
  const requestSource = (changed: Set<McpServer.McpServer>): McpConnections.Source => ({
    acquire: (server) =>
      Effect.tap(source.acquire(server), (client) =>
        client.onToolListChanged === undefined ? Effect.void : client.onToolListChanged(() => void changed.add(server))),
    invalidate: source.invalidate,
    isOpen: source.isOpen
  })
  /** Connect (lazily, shared with calls) and list, under one connectTimeout; converted once per cache entry. */
  const discover = (state: RequestState, server: McpServer.McpServer) =>
    state.connections.get(server).pipe(
      Effect.flatMap((client) => McpClient.discover(client, { namespace, prefix: McpServer.toolPrefix(server) })),
      McpError.within({ server: server.name, operation: "connect", limit: connectTimeout }),
      Metric.trackDuration(Metric.tagged(discoveryDuration, "mcp.server", server.name)),
      Effect.withSpan("McpExtension.discover", { attributes: { "mcp.server": server.name } })
    )

  // The warm call path (issue 14): no generator, no context provided around the call, one match for every
  // outcome; the call counter is bumped in the branch that knows the outcome.
  const call = (
    state: RequestState,
    server: McpServer.McpServer,
    tool: McpTool.McpTool,
    args: unknown,
    toolCall: Message.ToolCall,
    context: Extension.RunContext
  ): Effect.Effect<unknown, Tool.ToolError> =>
    Effect.flatMap(
      Effect.catchAll(state.connections.getWithin(server, connectTimeout), (error) =>
        Effect.zipRight(
          counted(server, "failed"),
          new Tool.ToolError({ type: "Unavailable", message: `${server.name}: ${McpError.reasonOf(error)}` })
        )),
      (client) => {
        const limits: McpClient.CallLimits = {
          server: server.name,
          // a server's own `timeout` (Cline, Gemini CLI) overrides the extension's
          timeout: server.timeout === undefined ? callTimeout : Option.some(server.timeout),
          resetOnProgress,
          maxTimeout: maxCallTimeout,
          context: serverRequestContext(state.serverRequests)
        }
        const args_ = (args ?? {}) as Record<string, unknown>
        // progress events only when an extension reads them; published before the call's outcome is handed on
        // (after it, not as a finalizer: an interrupted call does not wait for an observer)
        const called = !context.observed
          ? McpClient.callWithin(client, tool.remoteName, args_, limits)
          : Effect.flatMap(Effect.runtime<never>(), (runtime) => {
            const publisher = progressPublisher(context, toolCall, runtime)
            return Effect.flatten(Effect.zipLeft(
              Effect.exit(McpClient.callWithin(client, tool.remoteName, args_, { ...limits, onProgress: publisher.onProgress })),
              publisher.flush
            ))
          })
        return Effect.matchEffect(called, {
          onFailure: (error) => Effect.zipRight(counted(server, "failed"), failure(state, server, tool, error)),
          onSuccess: (result) => {
            const outcome = McpToolResult.toResult(result, errorText)
            return outcome._tag === "Failure"
              ? Effect.zipRight(counted(server, "failed"), new Tool.ToolError({ type: "ToolError", message: outcome.message }))
              : Effect.as(counted(server, "ok"), outcome.value)
          }
        })
      }
    ).pipe(
      Tracing.traced("McpExtension.call", () => ({ attributes: { "mcp.server": server.name, "gen_ai.tool.name": tool.remoteName } }))
    )
  const failure = (
    state: RequestState,
    server: McpServer.McpServer,
    tool: McpTool.McpTool,
    error: McpRequestError | McpTimeoutError
  ): Effect.Effect<never, Tool.ToolError> =>
    error._tag === "McpTimeoutError"
      ? new Tool.ToolError({
        type: "TimeoutError",
        message: error.sinceProgress === true
          ? `${tool.name} reported no progress for ${Duration.format(error.timeout)}`
          : `${tool.name} did not finish within ${Duration.format(error.timeout)}`
      })
      : Effect.zipRight(
        // a closed connection is not reused, by this request or (pooled) by the next one
        error.code === McpError.connectionClosedCode ? state.connections.invalidate(server) : Effect.void,
        new Tool.ToolError({
          type: "RemoteError",
          message: McpToolResult.describeFailure(McpToolResult.RemoteFailure.RequestError({ error }), errorText),
          cause: error
        })
      )

  const toolFilter = options.toolFilter
  const allowed = (server: McpServer.McpServer, tool: McpTool.McpTool) =>
    McpServer.allowsTool(server, tool.remoteName) && (toolFilter === undefined || toolFilter(server, tool))

  // The agent tools of a server's cached tool list are built once and shared by every request while the list
  // and the definition last (the cache hands out the same array while it is fresh; the configuration the same
  // definition until the file changes). A handler finds its request's state through the run context.
  const requests = new WeakMap<Extension.RunContext, RequestState>()
  const built = new WeakMap<ReadonlyArray<McpTool.McpTool>, {
    readonly server: McpServer.McpServer
    readonly tools: ReadonlyArray<Tool.Tool>
  }>()
  const handlerOf = (server: McpServer.McpServer, tool: McpTool.McpTool) =>
  (args: unknown, toolCall: Message.ToolCall, context: Extension.RunContext): Effect.Effect<unknown, Tool.ToolError> => {
    const state = requests.get(context)
    return state === undefined
      ? new Tool.ToolError({ type: "Unavailable", message: `${server.name}: called outside the request that registered ${tool.name}` })
      : call(state, server, tool, args, toolCall, context)
  }
  const toAgentTools = (server: McpServer.McpServer, tools: ReadonlyArray<McpTool.McpTool>): ReadonlyArray<Tool.Tool> => {
    const known = built.get(tools)
    if (known !== undefined && known.server === server) return known.tools
    const agentTools = tools.filter((tool) => allowed(server, tool)).map((tool) =>
      Tool.dynamic(tool.name, {
        description: tool.description,
        parameters: tool.parameters,
        guidelines: false,
        handler: handlerOf(server, tool)
      })
    )
    built.set(tools, { server, tools: agentTools })
    return agentTools
  }

  /** A server's tools in one request: the shared ones, and its resources as tools when asked for. */
  const requestTools = (state: RequestState, server: McpServer.McpServer, tools: ReadonlyArray<McpTool.McpTool>) => {
    const shared = toAgentTools(server, tools)
    return resourcesAsTools(server) ? shared.concat(resourceTools(state, server)) : shared
  }

  const resourcesAsTools = (server: McpServer.McpServer) => server.resources === "tools" || options.resources === "tools"

  // after the server's own tools, so that one of the same name wins (registration keeps the first); only for
  // the servers of `resourcesAsTools` (`requestTools` asks)
  const resourceTools = (state: RequestState, server: McpServer.McpServer): ReadonlyArray<Tool.Tool> =>
    ResourceTools.make({
      server,
      prefix: McpServer.toolPrefix(server),
      connect: state.connections.getWithin(server, connectTimeout).pipe(
        Effect.mapError((error) =>
          new Tool.ToolError({ type: "Unavailable", message: `${server.name}: ${McpError.reasonOf(error)}` })
        )
      ),
      limit: server.timeout === undefined ? callTimeout : Option.some(server.timeout),
      errorText
    })

  const unavailable = (state: RequestState, server: McpServer.McpServer, reason: string) =>
    Effect.sync(() => void state.unavailable.push({ server: server.name, reason })).pipe(
      Effect.zipRight(Effect.logWarning(`MCP server ${server.name} is unavailable: ${reason}`)),
      Effect.annotateLogs("mcp.server", server.name)
    )

  const discoverAll = (context: Extension.RunContext, serverRequests: ServerRequestContext) =>
    Effect.gen(function*() {
      const snapshot = yield* configuration.current
      const changed = new Set<McpServer.McpServer>()
      const state: RequestState = {
        snapshot,
        connections: yield* McpConnections.make({ source: requestSource(changed), scope: context.scope }),
        unavailable: [],
        registered: new Map(),
        changed,
        serverRequests
      }
      requests.set(context, state)
      const keys = snapshot.servers.map((server) => McpToolCache.key(server, { namespace }))
      const toolsOf = (i: number) => {
        const server = snapshot.servers[i]!
        return cache.lookup(keys[i]!, discover(state, server)).pipe(
          Effect.map((tools) => {
            const agentTools = requestTools(state, server, tools)
            state.registered.set(server.name, agentTools)
            return agentTools
          }),
          Effect.catchAll((error) => Effect.as(unavailable(state, server, McpError.reasonOf(error)), []))
        )
      }
      // The cached servers one after another, the others concurrently: a fiber per server would cost a warm
      // request more than its lookups (issue 14).
      const fresh = yield* Effect.forEach(keys, cache.has)
      // Stryker disable next-line ArrayDeclaration: a size hint; every index is assigned below
      const discovered: Array<ReadonlyArray<Tool.Tool>> = new Array(keys.length)
      const missing = keys.flatMap((_, i) => fresh[i] ? [] : [i])
      yield* Effect.forEach(missing, (i) => Effect.map(toolsOf(i), (tools) => void (discovered[i] = tools)), {
        // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; one server or none runs alike at any concurrency
        concurrency: missing.length > 1 ? discoveryConcurrency : 1,
        // Stryker disable next-line BooleanLiteral: the collected results are dropped by the yield either way
        discard: true
      })
      // Stryker disable next-line EqualityOperator: `fresh[keys.length]` is undefined, so one more round does nothing
      for (let i = 0; i < keys.length; i++) if (fresh[i]) discovered[i] = yield* toolsOf(i)
      // Registered in configuration order, whatever order discovery finished in, so duplicates resolve stably.
      yield* context.tools.registerAll(discovered.flat())
      return state
    })

  /**
   * Lists again the tools of a server that announced a change, and replaces its tools in the request. A tool
   * of another server that won a name stays; a listing that fails keeps the tools listed before.
   */
  const refreshServer = (context: Extension.RunContext, state: RequestState, server: McpServer.McpServer) => {
    // a change announced while listing again is listed at the next turn
    state.changed.delete(server)
    const key = McpToolCache.key(server, { namespace })
    return cache.invalidate(key).pipe(
      Effect.zipRight(cache.lookup(key, discover(state, server))),
      Effect.flatMap((tools) =>
        Effect.suspend(() => {
          // Stryker disable next-line ArrayDeclaration: a made-up entry has no name, so no tool of the request is it
          const before = state.registered.get(server.name) ?? []
          const after = requestTools(state, server, tools)
          state.registered.set(server.name, after)
          const gone = before.filter((tool) => context.tools.get(tool.name) === tool)
          // Stryker disable next-line ObjectLiteral,BooleanLiteral: the removals' results are dropped either way
          return Effect.forEach(gone, (tool) => context.tools.remove(tool.name), { discard: true }).pipe(
            Effect.zipRight(context.tools.registerAll(after)),
            Effect.zipRight(Effect.logDebug(`MCP server ${server.name} changed its tools: ${after.length} now`))
          )
        })
      ),
      Effect.catchAll((error) =>
        Effect.logWarning(
          `MCP server ${server.name} changed its tools, but listing them failed (${McpError.reasonOf(error)}); ` +
            "its tools listed before stay"
        )
      ),
      Effect.annotateLogs("mcp.server", server.name)
    )
  }
  /** `refreshServer` for each server that announced a change. */
  const refresh = (context: Extension.RunContext, state: RequestState) =>
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the results are dropped by onState's zipRight either way
    Effect.forEach(Array.from(state.changed), (server) => refreshServer(context, state, server), { discard: true })

  const describe = (state: RequestState) => {
    const lines = [
      state.snapshot.path === undefined
        ? "MCP servers are configured in code."
        : `MCP servers are configured in ${state.snapshot.path}.`
    ]
    if (namespace) {
      lines.push("Tools named <server>__<tool> belong to the MCP server <server>.")
      // names that are not usable as they are (`github.com`, `My Server`) prefix their tools differently
      for (const server of state.snapshot.servers) {
        const prefix = McpServer.toolPrefix(server)
        if (prefix !== server.name) lines.push(`Tools named ${prefix}__<tool> belong to the MCP server ${JSON.stringify(server.name)}.`)
      }
    }
    const withResources = state.snapshot.servers.filter((server) =>
      resourcesAsTools(server) && !state.unavailable.some((down) => down.server === server.name)
    )
    if (withResources.length > 0) {
      const prefixes = withResources.map((server) => McpServer.toolPrefix(server))
      lines.push(
        `Resources (documents and data) of MCP servers, and the resource links in their tool results, are listed with ` +
          `<server>__${ResourceTools.listSuffix} and read with <server>__${ResourceTools.readSuffix} (for ${prefixes.join(", ")}).`
      )
    }
    if (state.unavailable.length > 0) {
      lines.push(`Unavailable MCP servers (their tools are missing): ${summarizeUnavailable(state.unavailable)}.`)
    }
    return lines.join("\n")
  }

  // The request's state (its configuration snapshot, connections and unavailable servers) lives in the hooks
  // built for it; a compaction pass neither discovers nor calls tools.
  const extension: Extension.Extension<McpConfigError> = {
    name: options.name ?? defaultName,
    request: (context) =>
      Effect.sync((): Extension.Hooks<McpConfigError> => {
        // Stryker disable next-line ConditionalExpression,StringLiteral: a compaction pass runs only onCompact and afterCompact, hooks these lack
        if (context.kind === "compact") return {}
        let state: RequestState | undefined
        const serverRequests: ServerRequestContext = { counter: McpSampling.counter(), model: undefined, context: undefined }
        return {
          onTool: (context) => Effect.map(discoverAll(context, serverRequests), (discovered) => void (state = discovered)),
          // the last hook before the model call: a list change announced during the turn is seen by this call
          onState: (context) => {
            // Stryker disable next-line ConditionalExpression: onTool runs before a run's first onState, and a failed onTool ends the run
            if (state === undefined) return Effect.void
            const current = state
            const described = Effect.suspend(() => context.addState(describe(current)))
            // Stryker disable next-line ConditionalExpression: a shortcut; refreshing no server does nothing
            return current.changed.size === 0 ? described : Effect.zipRight(refresh(context, current), described)
          },
          // the agent's model, for servers' sampling requests during this request's calls
          onModelRequest: (_context, request, next) => {
            // Stryker disable next-line ConditionalExpression: a shortcut; `next` is the same chain on every turn of the run
            if (serverRequests.model === undefined) {
              serverRequests.model = Model.Model.of({ stream: next })
              serverRequests.context = undefined
            }
            return next(request)
          }
        }
      })
  }
  return extension
})

/**
 * The extension, with the servers of the `McpServers` and the client factory in context (`NodeMcpClientFactory`
 * of `@zett/mcp-node` for the SDK, or a factory of your own) and an in-memory tool cache with `toolsCacheTtl`
 * (or `toolCache`). Nothing in it is platform-specific; `NodeMcpExtension.layer` of `@zett/mcp-node` adds the
 * SDK's factory.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<McpExtension, never, McpClientFactory.McpClientFactory | McpServers.McpServers> =>
  Layer.scoped(McpExtension, make(options)).pipe(
    Layer.provide(options.toolCache ?? McpToolCache.layerMemory({ ttl: options.toolsCacheTtl ?? Duration.seconds(300) }))
  )
