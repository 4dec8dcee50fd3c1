/**
 * What the agent's extension and the `@effect/ai` toolkit share: the settings of discovery and calls, a snapshot's
 * servers resolved once, one server's discovery, one tool call with the reasons the model is given, and the
 * system text about the servers.
 */
import * as Tool from "@zett/agent/Tool"
import * as Tracing from "@zett/agent/Tracing"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as McpClient from "../McpClient.js"
import * as McpClientFactory from "../McpClientFactory.js"
import type * as McpConnections from "../McpConnections.js"
import type { McpRequestError, McpTimeoutError } from "../McpError.js"
import * as McpError from "../McpError.js"
import type * as McpExtension from "../McpExtension.js"
import * as McpServerConfig from "../McpServerConfig.js"
import type * as McpServers from "../McpServers.js"
import type * as McpTask from "../McpTask.js"
import type * as McpTool from "../McpTool.js"
import * as McpToolCache from "../McpToolCache.js"
import * as McpToolResult from "../McpToolResult.js"
import * as McpToolSearch from "../McpToolSearch.js"
import * as Metrics from "./metrics.js"
import * as ResourceTools from "./resourceTools.js"
import * as TaskTools from "./taskTools.js"

/** The options both take, as the user gives them (documented on `McpExtension.Options`). */
export type Options = Pick<
  McpExtension.Options,
  | "namespaceTools"
  | "connectTimeout"
  | "callTimeout"
  | "resetTimeoutOnProgress"
  | "maxCallTimeout"
  | "errorText"
  | "discoveryConcurrency"
  | "toolFilter"
  | "toolSearch"
  | "tasks"
>

export const defaultDiscoveryConcurrency = 16

/** The options with their defaults filled in. */
export interface Settings {
  readonly namespace: boolean
  readonly connectTimeout: Option.Option<Duration.Duration>
  readonly callTimeout: Option.Option<Duration.Duration>
  readonly resetOnProgress: boolean
  readonly maxCallTimeout: Option.Option<Duration.Duration>
  readonly errorText: McpToolResult.ErrorTextPolicy
  readonly discoveryConcurrency: number
  readonly toolFilter: ((server: McpServerConfig.McpServerConfig, tool: McpTool.McpTool) => boolean) | undefined
  readonly toolSearch: McpToolSearch.Options | undefined
  /** How many tools a search returns when the model does not say. */
  readonly searchLimit: number
  /** What a call answered with a task does: wait for it, or hand it to the model (`task_status`). */
  readonly tasks: McpTask.Mode
}

const optionalDuration = (input: Duration.DurationInput | null | undefined, fallback: Duration.DurationInput) =>
  input === null ? Option.none() : Option.some(Duration.decode(input ?? fallback))

export const settings = (options: Options): Settings => ({
  namespace: options.namespaceTools ?? true,
  connectTimeout: optionalDuration(options.connectTimeout, Duration.seconds(30)),
  callTimeout: optionalDuration(options.callTimeout, Duration.seconds(300)),
  resetOnProgress: options.resetTimeoutOnProgress ?? true,
  maxCallTimeout: optionalDuration(options.maxCallTimeout, Duration.hours(1)),
  errorText: options.errorText ?? McpToolResult.ErrorTextPolicy.toolText,
  discoveryConcurrency: options.discoveryConcurrency ?? defaultDiscoveryConcurrency,
  toolFilter: options.toolFilter,
  toolSearch: options.toolSearch,
  searchLimit: Math.max(1, Math.min(McpToolSearch.maxLimit, Math.floor(options.toolSearch?.limit ?? 5))),
  tasks: options.tasks ?? "wait"
})

export const discoveryDuration = Metric.timer("mcp_discovery_duration", "connect and list one server's tools")

const toolCallsDescription = "calls of MCP tools"

export const toolCalls = Metric.counter("mcp_tool_calls", { description: toolCallsDescription })

const callCounter = (server: McpServerConfig.McpServerConfig, outcome: "ok" | "failed") =>
  Metrics.taggedIncrement("mcp_tool_calls", toolCallsDescription, [["mcp.server", server.name], ["outcome", outcome]])

/**
 * A server of a configuration snapshot with what is derived from it once per snapshot: its cache key and its call
 * counters (`Metric.tagged` would build and hash a new key on every call).
 */
export interface Resolved {
  readonly server: McpServerConfig.McpServerConfig
  readonly key: McpToolCache.Key
  readonly ok: Effect.Effect<void>
  readonly failed: Effect.Effect<void>
}

/**
 * The servers of a snapshot, resolved once per snapshot (the configuration hands out the same snapshot until a
 * file changes); `extend` adds what a caller keeps per server.
 */
export const resolver = <A extends Resolved>(
  settings: Settings,
  extend: (resolved: Resolved) => A
): (snapshot: McpServers.Snapshot) => ReadonlyArray<A> => {
  let resolution: { readonly snapshot: McpServers.Snapshot; readonly servers: ReadonlyArray<A> } | undefined
  return (snapshot) => {
    if (resolution?.snapshot === snapshot) return resolution.servers
    const servers = snapshot.servers.map((server) =>
      extend({
        server,
        key: McpToolCache.key(server, { namespace: settings.namespace }),
        ok: callCounter(server, "ok"),
        failed: callCounter(server, "failed")
      })
    )
    resolution = { snapshot, servers }
    return servers
  }
}

/**
 * The factory with a watch on every connection: its `notifications/tools/list_changed` drops the server's cached
 * tool list for as long as the connection lives (pooled, that is past the request that opened it). With `listen`,
 * each connection also asks for those notifications (`McpClient.listen`: a server of 2026-07-28 sends them only
 * when asked), beside the connect so that it costs the connect no round trip; a server that refuses is heard of
 * when it is next listed.
 */
export const watched = (
  factory: McpClientFactory.McpClientFactory["Type"],
  cache: McpToolCache.McpToolCache["Type"],
  settings: Settings,
  options: { readonly listen: boolean } = { listen: false }
): McpClientFactory.McpClientFactory["Type"] =>
  McpClientFactory.of((server, connectOptions) =>
    Effect.tap(
      factory.connect(server, connectOptions),
      (client) =>
        Effect.flatMap(Effect.runtime<never>(), (runtime) => {
          const invalidate = cache.invalidate(McpToolCache.key(server, { namespace: settings.namespace }))
          const watch = client.onToolListChanged(() => void Runtime.runFork(runtime)(invalidate))
          // the cached list's verdict no longer held (the server speaks another era now): the list goes with it, so
          // that the next listing stores what the server speaks
          const given = connectOptions?.verdict
          const stale = given !== undefined && client.verdict !== undefined && given.kind !== client.verdict.kind
          const watching = options.listen ? Effect.zipRight(watch, listen(client, server)) : watch
          return stale ? Effect.zipRight(invalidate, watching) : watching
        })
    )
  )

const listen = (client: McpClient.McpClient, server: McpServerConfig.McpServerConfig) =>
  Effect.forkScoped(
    Effect.catchAll(client.listen({ toolsListChanged: true }), (error) =>
      Effect.logDebug(`MCP server ${server.name}: it does not send tool changes (${error.description})`))
  )

/**
 * Connect (lazily, shared with calls) and list, under one connectTimeout: the tools, the server's caching hint, and
 * what the connection found out about the server's revisions.
 */
export const discover = (
  settings: Settings,
  connections: McpConnections.McpConnections,
  server: McpServerConfig.McpServerConfig
): Effect.Effect<McpToolCache.Listing, McpError.McpConnectError | McpError.McpRequestError | McpTimeoutError> =>
  McpClient.connectAndDiscover(connections.get(server), server, {
    namespace: settings.namespace,
    limit: settings.connectTimeout
  }).pipe(
    Effect.map(({ client, hint, tools }): McpToolCache.Listing => ({
      tools,
      ...(client.verdict !== undefined ? { verdict: client.verdict } : {}),
      ...(client.instructions !== undefined && client.instructions !== "" ? { instructions: client.instructions } : {}),
      ...(hint !== undefined ? { hint } : {})
    })),
    Metric.trackDuration(Metric.tagged(discoveryDuration, "mcp.server", server.name)),
    Effect.withSpan("McpExtension.discover", { attributes: { "mcp.server": server.name } })
  )

/** Whether a listed tool reaches the model: the server's `includeTools`/`excludeTools`, then `toolFilter`. */
export const allows = (settings: Settings, server: McpServerConfig.McpServerConfig, tool: McpTool.McpTool): boolean =>
  McpServerConfig.allowsTool(server, tool.remoteName) &&
  (settings.toolFilter === undefined || settings.toolFilter(server, tool))

/** What a caller hears of a call while it runs: its progress reports and the states of its task. */
export interface Listeners {
  readonly onProgress: (progress: McpClient.Progress) => void
  readonly onTask: (task: McpTask.Task) => void
}

/** Runs a call with listeners of its progress and task; they are the caller's until the call is done. */
export type Observe = <A, E>(run: (listeners: Listeners) => Effect.Effect<A, E>) => Effect.Effect<A, E>

/** The reason a connect failed, as a tool failure the model reads. */
export const unavailableError = (
  server: McpServerConfig.McpServerConfig,
  error: McpError.McpConnectError | McpTimeoutError
) => new Tool.ToolError({ reason: "Unavailable", message: `${server.name}: ${McpError.reasonOf(error)}` })

/** A server's own `timeout`, or `callTimeout`. */
export const callLimit = (
  settings: Settings,
  server: McpServerConfig.McpServerConfig
): Option.Option<Duration.Duration> => server.timeout === undefined ? settings.callTimeout : Option.some(server.timeout)

/** A server's connection, lazily under `connectTimeout`, failing as a tool failure the model reads. */
export const connectFor = (
  settings: Settings,
  connections: McpConnections.McpConnections,
  server: McpServerConfig.McpServerConfig
) =>
  connections.getWithin(server, settings.connectTimeout).pipe(
    Effect.mapError((error) => unavailableError(server, error))
  )

/**
 * One tool call: the server's connection (lazily, under connectTimeout), the call under callTimeout (a server's
 * own `timeout` wins), the result as the model sees it, and every failure as a `ToolError` with the reason the
 * model is given. The warm path: no generator, no context provided around the call, one match for every outcome.
 * `agentLimit`, the agent's time limit for the tool (`RunContext.toolTimeout`), bounds the call's own limits: the
 * call is timed once, by its connection (the extension's tools keep their own time, `Tool.timesItself`).
 */
export const callTool = (
  settings: Settings,
  connections: McpConnections.McpConnections,
  resolved: Resolved,
  tool: McpTool.McpTool,
  args: unknown,
  observe?: Observe | undefined,
  agentLimit?: Duration.Duration | undefined
): Effect.Effect<unknown, Tool.ToolError> => {
  const server = resolved.server
  return Effect.flatMap(
    Effect.catchAll(
      connections.getWithin(server, settings.connectTimeout),
      (error) => Effect.zipRight(resolved.failed, unavailableError(server, error))
    ),
    (client) => {
      // a cached tool says how it runs as a task (a connection that did not list its tools would list them)
      const limits: McpClient.CallLimits = {
        ...callLimits(settings, server, agentLimit),
        taskSupport: tool.taskSupport ?? "forbidden"
      }
      const input = (args ?? {}) as Record<string, unknown>
      const called = observe === undefined
        ? client.callWithin(tool.remoteName, input, limits)
        : observe((listeners) => client.callWithin(tool.remoteName, input, { ...limits, ...listeners }))
      return Effect.matchEffect(called, {
        onFailure: (error) => Effect.zipRight(resolved.failed, failure(connections, server, tool, error, settings)),
        onSuccess: (result) => {
          // a task handed to the model (`tasks: "handle"`)
          if (settings.tasks === "handle") {
            const handled = TaskTools.handled(result)
            if (Option.isSome(handled)) return Effect.as(resolved.ok, handled.value)
          }
          const outcome = McpToolResult.toResult(result, settings.errorText)
          return outcome._tag === "Failure"
            ? Effect.zipRight(resolved.failed, new Tool.ToolError({ reason: "ToolFailed", message: outcome.message }))
            : Effect.as(resolved.ok, outcome.value)
        }
      })
    }
  ).pipe(
    Tracing.traced(
      "McpExtension.call",
      () => ({ attributes: { "mcp.server": server.name, "gen_ai.tool.name": tool.remoteName } })
    )
  )
}

/** A call's limits: a server's own `timeout` (Cline, Gemini CLI) overrides the extension's; the agent's caps both. */
const callLimits = (
  settings: Settings,
  server: McpServerConfig.McpServerConfig,
  agentLimit: Duration.Duration | undefined
): McpClient.CallLimits => {
  const timeout = callLimit(settings, server)
  if (agentLimit === undefined) {
    return {
      server: server.name,
      timeout,
      resetOnProgress: settings.resetOnProgress,
      maxTimeout: settings.maxCallTimeout,
      task: settings.tasks
    }
  }
  // the agent's limit holds whatever the progress: with `resetOnProgress` it caps the call as `maxTimeout` does
  const capped = (limit: Option.Option<Duration.Duration>) =>
    Option.some(Option.match(limit, { onNone: () => agentLimit, onSome: (own) => Duration.min(own, agentLimit) }))
  return {
    server: server.name,
    timeout: capped(timeout),
    resetOnProgress: settings.resetOnProgress,
    maxTimeout: settings.resetOnProgress ? capped(settings.maxCallTimeout) : settings.maxCallTimeout,
    task: settings.tasks
  }
}

const failure = (
  connections: McpConnections.McpConnections,
  server: McpServerConfig.McpServerConfig,
  tool: McpTool.McpTool,
  error: McpRequestError | McpTimeoutError,
  settings: Settings
): Effect.Effect<never, Tool.ToolError> =>
  error._tag === "McpTimeoutError"
    ? new Tool.ToolError({
      reason: "Timeout",
      message: error.reason === "Stalled"
        ? `${tool.name} reported no progress for ${Duration.format(error.timeout)}`
        : `${tool.name} did not finish within ${Duration.format(error.timeout)}`
    })
    : Effect.zipRight(
      // a closed connection is not reused, by this request or (pooled) by the next one
      error.code === McpError.connectionClosedCode ? connections.invalidate(server) : Effect.void,
      new Tool.ToolError({
        reason: "RequestFailed",
        message: McpToolResult.describeFailure(McpToolResult.RemoteFailure.RequestError({ error }), settings.errorText),
        cause: error
      })
    )

/** A server left out, and why in a few words. */
export interface Unavailable {
  readonly server: string
  readonly reason: string
}

const formatCount = (n: number) => n.toLocaleString("en-US")

/**
 * One readable line for a list of unavailable servers, however long: servers that failed for the same reason
 * are grouped, a few names of each group are shown, and the rest are counted.
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
  if (others > 0) {
    parts.push(`${formatCount(others)} more ${others === 1 ? "server" : "servers"} failed for other reasons`)
  }
  return parts.join("; ")
}

/** Notes a server as unavailable, with a warning naming it. */
export const markUnavailable = (
  unavailable: Array<Unavailable>,
  server: McpServerConfig.McpServerConfig,
  reason: string
): Effect.Effect<void> =>
  Effect.sync(() => void unavailable.push({ server: server.name, reason })).pipe(
    Effect.zipRight(Effect.logWarning(`MCP server ${server.name} is unavailable: ${reason}`)),
    Effect.annotateLogs("mcp.server", server.name)
  )

/**
 * The system text about the servers: where they are configured, how their tools are named, which servers'
 * resources are tools, which servers are unavailable.
 */
export const describe = (
  settings: Settings,
  snapshot: McpServers.Snapshot,
  unavailable: ReadonlyArray<Unavailable>,
  resourcesAsTools: (server: McpServerConfig.McpServerConfig) => boolean
): string => {
  const lines = [
    snapshot.path === undefined
      ? "MCP servers are configured in code."
      : `MCP servers are configured in ${snapshot.path}.`
  ]
  if (settings.namespace) {
    lines.push("Tools named <server>__<tool> belong to the MCP server <server>.")
    // names that are not usable as they are (`github.com`, `My Server`) prefix their tools differently
    for (const server of snapshot.servers) {
      const prefix = McpServerConfig.toolPrefix(server)
      if (prefix !== server.name) {
        lines.push(`Tools named ${prefix}__<tool> belong to the MCP server ${JSON.stringify(server.name)}.`)
      }
    }
  }
  const withResources = snapshot.servers.filter((server) =>
    resourcesAsTools(server) && !unavailable.some((down) => down.server === server.name)
  )
  if (withResources.length > 0) {
    const prefixes = withResources.map((server) => McpServerConfig.toolPrefix(server))
    lines.push(
      `Resources (documents and data) of MCP servers, and the resource links in their tool results, are listed with ` +
        `<server>__${ResourceTools.listSuffix} and read with <server>__${ResourceTools.readSuffix} (for ${
          prefixes.join(", ")
        }).`
    )
  }
  if (unavailable.length > 0) {
    lines.push(`Unavailable MCP servers (their tools are missing): ${summarizeUnavailable(unavailable)}.`)
  }
  return lines.join("\n")
}

const defectMessage = (defect: unknown): string =>
  (defect instanceof Error ? defect.message : String(defect)).split("\n", 1)[0]!.slice(0, 300)

/**
 * Every server's tools, from the cache or discovered, in configuration order whatever order discovery finished
 * in (so duplicates resolve stably); a server that fails is noted as unavailable and the others go on. `use` turns
 * a server's tool list into what the caller registers.
 */
export const discoverAll = <A extends Resolved, B>(
  settings: Settings,
  cache: McpToolCache.McpToolCache["Type"],
  connections: McpConnections.McpConnections,
  resolved: ReadonlyArray<A>,
  unavailable: Array<Unavailable>,
  use: (entry: A, tools: ReadonlyArray<McpTool.McpTool>, listing: McpToolCache.Listing) => ReadonlyArray<B>
): Effect.Effect<ReadonlyArray<B>> =>
  Effect.gen(function*() {
    const keys = resolved.map((entry) => entry.key)
    const toolsOf = (i: number) => {
      const entry = resolved[i]!
      return cache.lookup(entry.key, discover(settings, connections, entry.server)).pipe(
        Effect.map((listing) => {
          // a connection this request opens to the server need not ask what it speaks
          connections.learn(entry.server, listing.verdict)
          return use(entry, listing.tools, listing)
        }),
        Effect.catchAll((error) => Effect.as(markUnavailable(unavailable, entry.server, McpError.reasonOf(error)), [])),
        // a fault in one server's bookkeeping (a store, a name) loses that server, not the request
        Effect.catchAllDefect((defect) =>
          Effect.as(markUnavailable(unavailable, entry.server, `internal error: ${defectMessage(defect)}`), [])
        )
      )
    }
    // The cached servers one after another, the others concurrently: a fiber per server would cost a warm
    // request more than its lookups.
    const fresh = yield* Effect.forEach(keys, cache.has)
    const discovered: Array<ReadonlyArray<B>> = new Array(keys.length)
    const missing = keys.flatMap((_, i) => fresh[i] ? [] : [i])
    yield* Effect.forEach(missing, (i) => Effect.map(toolsOf(i), (tools) => void (discovered[i] = tools)), {
      concurrency: missing.length > 1 ? settings.discoveryConcurrency : 1,
      discard: true
    })
    for (let i = 0; i < keys.length; i++) if (fresh[i]) discovered[i] = yield* toolsOf(i)
    return discovered.flat()
  })
