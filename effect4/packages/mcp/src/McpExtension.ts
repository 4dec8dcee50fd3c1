/**
 * The MCP extension for `@zett/agent`: discovers the tools of every configured server at the start of a
 * request, registers them under namespaced names, and calls them when the model asks.
 *
 * One request, top to bottom:
 *
 * 1. `onTool`: the configuration is checked, every server's tool list is looked up concurrently in the cache or
 *    discovered under `connectTimeout`, and the tools are registered.
 * 2. `onState`: the system message says where servers are configured, how their tools are named and which
 *    servers are unavailable.
 * 3. The model calls a tool: the server connects lazily (once per request) and the call runs under
 *    `callTimeout`, within the agent's own limit for tools; interruption cancels it on the server.
 * 4. The request scope closes (success, failure, interruption, compaction): every connection closes.
 *
 * @since 1.0.0
 */
import type { Extension, Message } from "@zett/agent"
import * as Tool from "@zett/agent/Tool"
import * as EditDistance from "@zett/common/EditDistance"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as ResourceTools from "./internal/resourceTools.js"
import * as SearchTools from "./internal/searchTools.js"
import * as Session from "./internal/session.js"
import * as SkillTools from "./internal/skillTools.js"
import * as TaskTools from "./internal/taskTools.js"
import type * as McpClient from "./McpClient.js"
import * as McpClientFactory from "./McpClientFactory.js"
import * as McpConnections from "./McpConnections.js"
import type { McpConfigError } from "./McpError.js"
import * as McpError from "./McpError.js"
import * as McpSampling from "./McpSampling.js"
import * as McpServerConfig from "./McpServerConfig.js"
import * as McpServers from "./McpServers.js"
import type * as McpTask from "./McpTask.js"
import type * as McpTool from "./McpTool.js"
import * as McpToolCache from "./McpToolCache.js"
import type * as McpToolResult from "./McpToolResult.js"
import * as McpToolSearch from "./McpToolSearch.js"

/**
 * What the extension discovers and how it calls. The servers come from `McpServers`, the connections from the
 * `McpClientFactory` in context.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** The registration name, unique within the agent; default `"mcp"`. */
  readonly name?: string | undefined
  /** Expose tools as `<server>__<tool>` (default true), so that two servers' tools of one name do not meet. */
  readonly namespaceTools?: boolean | undefined
  /** Time to connect to and list one server (default 30 seconds); `null` disables it. */
  readonly connectTimeout?: Duration.Input | null | undefined
  /** Time for one tool call (default 300 seconds); `null` disables it. A server's own `timeout` wins. */
  readonly callTimeout?: Duration.Input | null | undefined
  /**
   * Whether a progress report of the server (`notifications/progress`) starts `callTimeout` afresh (default
   * true), so a long job that keeps reporting is not cut off; `maxCallTimeout` still caps it.
   */
  readonly resetTimeoutOnProgress?: boolean | undefined
  /**
   * The most one call may take however often it reports progress (default 1 hour); `null` is no cap. It applies
   * only while progress starts the timeout afresh.
   */
  readonly maxCallTimeout?: Duration.Input | null | undefined
  /** Which remote error text the model may see (default `McpToolResult.ErrorTextPolicy.toolText`). */
  readonly errorText?: McpToolResult.ErrorTextPolicy | undefined
  /**
   * Opt-in: keep each server's connection open across requests, in the layer's scope, until it has been
   * unused for `idleTimeToLive`; a request's first call then costs no spawn. By default every request opens
   * and closes its own connections.
   */
  readonly connectionPool?: { readonly idleTimeToLive: Duration.Input } | undefined
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
  readonly toolFilter?: ((server: McpServerConfig.McpServerConfig, tool: McpTool.McpTool) => boolean) | undefined
  /**
   * `"tools"`: every server's resources reach the model through two more tools, `<prefix>__list_resources` and
   * `<prefix>__read_resource`; a server's own `resources: "tools"` does it for that server alone.
   * Off by default. A tool of the server's own with one of these names wins.
   */
  readonly resources?: "tools" | undefined
  /**
   * Tool search (`McpToolSearch`): when a request's MCP tools pass the threshold (by default, more than 40 tools or
   * about 20,000 tokens of definitions), the model gets `search_tools` and the tools of each server's `alwaysLoad`
   * instead of every definition; a search loads what it found for the rest of the run, and a call to a tool not
   * loaded loads it. `{ mode: "off" }` offers every tool; `{ mode: "always" }` searches whatever the count.
   */
  readonly toolSearch?: McpToolSearch.Options | undefined
  /**
   * What a call does when its server answers it with a task (the Tasks extension): `"wait"` (the default) waits for
   * the task within `callTimeout`, publishing its states as `ToolTask` events, and gives the model its result;
   * `"handle"` gives the model the task's server, id and status at once, and the tool `task_status` to check it,
   * wait for it or cancel it later in the run or in a later request.
   */
  readonly tasks?: McpTask.Mode | undefined
}

/**
 * The default of `Options.discoveryConcurrency`.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultDiscoveryConcurrency: number = Session.defaultDiscoveryConcurrency

/**
 * The extension value, as a service so that layers can build it.
 *
 * @since 1.0.0
 * @category tags
 */
export class McpExtension
  extends Context.Service<McpExtension, Extension.Extension<McpConfigError>>()("@zett/mcp/McpExtension")
{}

/**
 * The default registration name.
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultName = "mcp"

/**
 * How long discovering one server took (connect and list), tagged with the server name.
 *
 * @since 1.0.0
 * @category metrics
 */
export const discoveryDuration = Session.discoveryDuration

/**
 * Tool calls, tagged with the server name and `outcome` (`ok` or `failed`).
 *
 * @since 1.0.0
 * @category metrics
 */
export const toolCalls = Session.toolCalls

/**
 * A server left out of this request, and why in a few words.
 *
 * @since 1.0.0
 * @category models
 */
export interface Unavailable extends Session.Unavailable {}

/**
 * One readable line for a list of unavailable servers, however long: servers that failed for the same reason
 * are grouped, a few names of each group are shown, and the rest are counted (`9,998 more servers failed the
 * same way`).
 *
 * @since 1.0.0
 * @category utils
 */
export const summarizeUnavailable: (
  unavailable: ReadonlyArray<Unavailable>,
  options?: { readonly groups?: number | undefined; readonly namesPerGroup?: number | undefined }
) => string = Session.summarizeUnavailable

/**
 * A server of a configuration snapshot with what the extension derives from it once per snapshot, and the agent
 * tools of the tool list the cache last handed out, shared by the requests while the list lasts.
 */
interface Resolved extends Session.Resolved {
  shared: {
    readonly tools: ReadonlyArray<McpTool.McpTool>
    /** The tools that reach the model (`Session.allows`), in the order of `agentTools`. */
    readonly allowed: ReadonlyArray<McpTool.McpTool>
    readonly agentTools: ReadonlyArray<Tool.Tool>
  } | undefined
}

interface RequestState {
  readonly snapshot: McpServers.Snapshot
  readonly resolved: ReadonlyArray<Resolved>
  readonly connections: McpConnections.McpConnections
  readonly unavailable: Array<Unavailable>
  /** The tools registered per server name, replaced when the server's tool list changes. */
  readonly registered: Map<string, ReadonlyArray<Tool.Tool>>
  /** Servers whose connection announced `notifications/tools/list_changed` since their tools were listed. */
  readonly changed: Set<McpServerConfig.McpServerConfig>
  /** The skills of the servers with `skills: true`, listed once per request; and why a listing failed. */
  readonly skills: Array<SkillTools.Listed>
  readonly skillFailures: Array<string>
  /** Under tool search: what is held back and what the index is made of; `undefined` when every tool is offered. */
  search: SearchState | undefined
}

/** A server's tools in a request, as the cache handed them out. */
interface Listed extends NonNullable<Resolved["shared"]> {
  readonly server: McpServerConfig.McpServerConfig
  readonly instructions: string | undefined
}

/** A request's MCP tools under tool search. */
interface SearchState {
  /** Every MCP tool of the request by exposed name (the first of a name), loaded or not. */
  readonly byName: Map<string, Tool.Tool>
  /** The servers' lists as the cache handed them out (the index's version), in configuration order. */
  groups: ReadonlyArray<SearchTools.Group>
  /** How many tools were held back when the request started. */
  readonly deferred: number
  /** The definitions of the held-back tools, for the version of the lists in `groups`. */
  heldBack?: { readonly groups: ReadonlyArray<SearchTools.Group>; readonly definitions: ReadonlyArray<Tool.Definition> }
}

/** A request's state, in the request's context; discovery fills it in. */
interface RequestCell {
  state: RequestState | undefined
}

/**
 * Progress reports and task states of one call, published to `onEvent` as `ToolProgress` and `ToolTask` events in
 * the order they came, by one fiber at a time, started when a report arrives (a call that reports nothing starts
 * none).
 */
const progressPublisher = (
  context: Extension.RunContext,
  call: Message.ToolCall,
  services: Context.Context<never>
) => {
  const queue: Array<Extension.AgentEvent> = []
  let running = false
  let fiber: Fiber.Fiber<void> | undefined
  const drain: Effect.Effect<void> = Effect.suspend(() => {
    const next = queue.shift()
    if (next === undefined) {
      running = false
      return Effect.void
    }
    return Effect.andThen(context.publish(next), drain)
  })
  const push = (event: Extension.AgentEvent) => {
    queue.push(event)
    if (running) return
    running = true
    fiber = Effect.runForkWith(services)(drain)
  }
  return {
    onProgress: (progress: McpClient.Progress) =>
      push({
        _tag: "ToolProgress",
        runId: context.runId,
        toolCallId: call.id,
        tool: call.name,
        progress: progress.progress,
        ...(progress.total !== undefined ? { total: progress.total } : {}),
        ...(progress.message !== undefined ? { message: progress.message } : {})
      }),
    onTask: (task: McpTask.Task) =>
      push({
        _tag: "ToolTask",
        runId: context.runId,
        toolCallId: call.id,
        tool: call.name,
        taskId: task.taskId,
        status: task.status,
        ...(task.statusMessage !== undefined ? { message: task.statusMessage } : {})
      }),
    /** Waits until every report so far is published: a call's events come before its result. */
    flush: Effect.suspend(() => fiber === undefined ? Effect.void : Effect.asVoid(Fiber.await(fiber)))
  }
}

/**
 * What the extension's functions share, made once by `make` for the extension's life: the services in context,
 * the settings, the connections' source, the index of the search tool and the tag of a request's state.
 */
interface Env {
  readonly options: Options
  readonly settings: Session.Settings
  readonly configuration: McpServers.McpServers["Service"]
  readonly cache: McpToolCache.McpToolCache["Service"]
  readonly embedder: McpToolSearch.Embedder | undefined
  readonly source: McpConnections.Source
  /** What the extension derives from the servers, once per configuration snapshot. */
  readonly resolve: (snapshot: McpServers.Snapshot) => ReadonlyArray<Resolved>
  /** The search tool's index: one per version of the tool lists, whichever request searches. */
  readonly indexCell: SearchTools.IndexCell
  /**
   * A request's state is a service of the request (the agent provides it to every tool call of the request), under
   * a tag of this extension's own: two MCP extensions of one agent keep theirs apart.
   */
  readonly currentRequest: Context.Service<RequestCell, RequestCell>
}

/**
 * Builds the extension from the configuration, tool cache and client factory in context. A connection pool,
 * when asked for, lives in the `Scope` of the caller (the layer's).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(
  options: Options = {}
) {
  const cache = yield* McpToolCache.McpToolCache
  const factory = yield* McpClientFactory.McpClientFactory
  const settings = Session.settings(options)
  const name = options.name ?? defaultName
  // a pooled connection outlives the requests: it asks to hear of its server's tool changes (2026-07-28)
  const watched = Session.watched(factory, cache, settings, { listen: options.connectionPool !== undefined })
  const env: Env = {
    options,
    settings,
    configuration: yield* McpServers.McpServers,
    cache,
    embedder: yield* McpToolSearch.Embeddings,
    source: options.connectionPool === undefined
      ? McpConnections.direct(watched)
      : yield* McpConnections.pooled(watched, options.connectionPool),
    // concurrent requests that resolve one snapshot twice get equal values
    resolve: Session.resolver(settings, (resolved): Resolved => ({ ...resolved, shared: undefined })),
    indexCell: SearchTools.indexCell(),
    currentRequest: Context.Service<RequestCell>(`@zett/mcp/McpExtension/${name}/request`)
  }
  // a compaction pass neither discovers nor calls tools
  const extension: Extension.Extension<McpConfigError> = {
    name,
    request: (context) => Effect.sync(() => context.kind === "compact" ? {} : hooks(env, { state: undefined }))
  }
  return extension
})

/** The hooks of one request, whose state (configuration snapshot, connections, unavailable servers) is `cell`'s. */
const hooks = (env: Env, cell: RequestCell): Extension.Hooks<McpConfigError> => ({
  // the request's services, which the agent provides to its tool calls: a server's sampling request during one of
  // them runs there (with the agent's model), counted against this request
  services: Context.make(env.currentRequest, cell).pipe(
    Context.add(McpSampling.RequestCounter, McpSampling.counter())
  ),
  onTool: (context) => Effect.asVoid(discoverAll(env, context, cell)),
  // under tool search, a call to a tool held back loads it first: a real tool is never an unknown one
  onToolCall: (context, call, next) =>
    Effect.suspend(() => {
      const search = cell.state?.search
      return search === undefined || context.tools.get(call.name) !== undefined
        ? next(call)
        : loadHeldBack(search, context, call, next)
    }),
  // the last hook before the model call: a list change announced during the turn is seen by this call
  onState: (context) => {
    const current = cell.state
    // onTool runs before a run's first onState, and a failed onTool ends the run
    if (current === undefined) return Effect.void
    const described = Effect.suspend(() => context.addState(describe(env, current)))
    return current.changed.size === 0 ? described : Effect.andThen(refresh(env, context, current), described)
  },
  // under tool search, what is held back goes with the request, for a provider that loads tools itself
  onModelRequest: (_context, request, next) => {
    const current = cell.state
    if (current?.search === undefined) return next(request)
    return next({
      ...request,
      deferredTools: heldBack(current, current.search),
      toolSearch: McpToolSearch.toolName
    })
  }
})

/**
 * The connections' source of one request: the extension's, with the request's own watch while it holds a
 * connection, so that its next model turn lists the tools again.
 */
const requestSource = (env: Env, changed: Set<McpServerConfig.McpServerConfig>): McpConnections.Source => ({
  acquire: (server, connectOptions) =>
    Effect.tap(
      env.source.acquire(server, connectOptions),
      (client) => client.onToolListChanged(() => void changed.add(server))
    ),
  invalidate: env.source.invalidate,
  isOpen: env.source.isOpen
})

// progress events only when an extension reads them; published before the call's outcome is handed on (after it,
// not as a finalizer: an interrupted call does not wait for an observer)
const call = (
  env: Env,
  state: RequestState,
  resolved: Resolved,
  tool: McpTool.McpTool,
  args: unknown,
  toolCall: Message.ToolCall,
  context: Extension.RunContext
): Effect.Effect<unknown, Tool.ToolError> =>
  Session.callTool(
    env.settings,
    state.connections,
    resolved,
    tool,
    args,
    context.observed ? observeProgress(context, toolCall) : undefined,
    context.toolTimeout
  )

const observeProgress = (context: Extension.RunContext, toolCall: Message.ToolCall): Session.Observe => (run) =>
  Effect.contextWith((services: Context.Context<never>) => {
    const publisher = progressPublisher(context, toolCall, services)
    return Effect.flatten(Effect.tap(Effect.exit(run(publisher)), () => publisher.flush))
  })

// The agent tools of a server's cached tool list are built once and shared by every request while the list and the
// snapshot last (the cache hands out the same array while it is fresh). A handler reads its request's state from
// the context it runs in.
const handlerOf = (env: Env, resolved: Resolved, tool: McpTool.McpTool) =>
(
  args: unknown,
  toolCall: Message.ToolCall,
  context: Extension.RunContext
): Effect.Effect<unknown, Tool.ToolError> =>
  Effect.contextWith((services: Context.Context<never>) => {
    const cell = Context.getOption(services, env.currentRequest)
    const state = Option.isSome(cell) ? cell.value.state : undefined
    return state === undefined
      ? Effect.fail(
        new Tool.ToolError({
          reason: "Unavailable",
          message: `${resolved.server.name}: called outside the request that registered ${tool.name}`
        })
      )
      : call(env, state, resolved, tool, args, toolCall, context)
  })

const toAgentTools = (
  env: Env,
  resolved: Resolved,
  tools: ReadonlyArray<McpTool.McpTool>
): ReadonlyArray<Tool.Tool> => {
  if (resolved.shared !== undefined && resolved.shared.tools === tools) return resolved.shared.agentTools
  const server = resolved.server
  const allowed = tools.filter((tool) => Session.allows(env.settings, server, tool))
  const agentTools = allowed.map((tool) =>
    Tool.dynamic(tool.name, {
      description: tool.description,
      parameters: tool.parameters,
      guidelines: false,
      // the call is timed by its connection, within the agent's limit (Session.callTool)
      timesItself: true,
      handler: handlerOf(env, resolved, tool)
    })
  )
  resolved.shared = { tools, allowed, agentTools }
  return agentTools
}

/** A server's tools in one request: the shared ones, and its resources as tools when asked for. */
const requestTools = (env: Env, state: RequestState, resolved: Resolved, tools: ReadonlyArray<McpTool.McpTool>) => {
  const shared = toAgentTools(env, resolved, tools)
  return resourcesAsTools(env, resolved.server) ? shared.concat(resourceTools(env, state, resolved.server)) : shared
}

const resourcesAsTools = (env: Env, server: McpServerConfig.McpServerConfig) =>
  server.resources === "tools" || env.options.resources === "tools"

// after the server's own tools, so that one of the same name wins (registration keeps the first); only for the
// servers of `resourcesAsTools` (`requestTools` asks)
const resourceTools = (
  env: Env,
  state: RequestState,
  server: McpServerConfig.McpServerConfig
): ReadonlyArray<Tool.Tool> =>
  ResourceTools.make({
    server,
    prefix: McpServerConfig.toolPrefix(server),
    connect: Session.connectFor(env.settings, state.connections, server),
    limit: Session.callLimit(env.settings, server),
    errorText: env.settings.errorText
  })

const discoverAll = (env: Env, context: Extension.RunContext, cell: RequestCell) =>
  Effect.gen(function*() {
    const snapshot = yield* env.configuration.current
    const resolved = env.resolve(snapshot)
    const changed = new Set<McpServerConfig.McpServerConfig>()
    const state: RequestState = {
      snapshot,
      resolved,
      connections: yield* McpConnections.make({ source: requestSource(env, changed), scope: context.scope }),
      unavailable: [],
      registered: new Map(),
      changed,
      skills: [],
      skillFailures: [],
      search: undefined
    }
    cell.state = state
    const lists = new Map<Resolved, Listed>()
    const discovered = yield* Session.discoverAll(
      env.settings,
      env.cache,
      state.connections,
      resolved,
      state.unavailable,
      (entry, tools, listing) => {
        const agentTools = requestTools(env, state, entry, tools)
        state.registered.set(entry.server.name, agentTools)
        lists.set(entry, { server: entry.server, instructions: listing.instructions, ...entry.shared! })
        return agentTools
      }
    )
    // Registered in configuration order, whatever order discovery finished in, so duplicates resolve stably.
    yield* context.tools.registerAll(searchOrAll(
      env,
      state,
      discovered,
      resolved.flatMap((entry) => {
        const list = lists.get(entry)
        return list === undefined ? [] : [list]
      })
    ))
    yield* context.tools.registerAll(yield* listSkills(env, state))
    if (env.settings.tasks === "handle") yield* context.tools.registerAll([taskStatusTool(env, state)])
    return state
  })

/**
 * What a request registers: every tool, or, when tool search applies to its MCP tools, the search tool, the
 * always-loaded tools and the tools the extension makes itself (resources); the rest are held in `state.search`.
 */
const searchOrAll = (
  env: Env,
  state: RequestState,
  discovered: ReadonlyArray<Tool.Tool>,
  lists: ReadonlyArray<Listed>
): ReadonlyArray<Tool.Tool> => {
  const mcpTools = lists.flatMap((list) => list.agentTools)
  if (!McpToolSearch.isActive(env.settings.toolSearch, mcpTools)) return discovered
  const byName = new Map<string, Tool.Tool>()
  const offered: Array<Tool.Tool> = []
  const groups = lists.map((list): SearchTools.Group => ({
    server: list.server,
    tools: list.allowed,
    instructions: list.instructions
  }))
  lists.forEach((list, i) =>
    list.allowed.forEach((tool, j) => {
      const agentTool = list.agentTools[j]!
      if (!byName.has(agentTool.name)) byName.set(agentTool.name, agentTool)
      if (SearchTools.alwaysLoaded(groups[i]!, tool)) offered.push(agentTool)
    })
  )
  const own = new Set(mcpTools)
  const search: SearchState = { byName, groups, deferred: mcpTools.length - offered.length }
  state.search = search
  return [searchTool(env, search), ...offered, ...discovered.filter((tool) => !own.has(tool))]
}

const searchTool = (env: Env, search: SearchState): Tool.Tool => {
  const servers = search.groups.map((group) => group.server.name)
  const limit = env.settings.searchLimit
  const definition = SearchTools.definition(servers, search.deferred, limit)
  return Tool.dynamic(definition.name, {
    description: definition.description,
    parameters: definition.parameters,
    guidelines: false,
    handler: (args, _call, context) =>
      Result.match(SearchTools.readArguments(args, servers, limit), {
        onFailure: (message) => Effect.fail(new Tool.ToolError({ reason: "InvalidArguments", message })),
        onSuccess: ({ limit, query, server }) =>
          Effect.flatMap(
            SearchTools.search(env.indexCell, search.groups, env.embedder, query, { server, limit }),
            (hits) => {
              const load = hits.flatMap((hit) => {
                const tool = search.byName.get(hit.tool.name)
                return tool === undefined || context.tools.get(tool.name) !== undefined ? [] : [tool]
              })
              return Effect.as(context.tools.registerAll(load), SearchTools.result(hits))
            }
          )
      })
  })
}

/**
 * A call to a tool that is not registered, under tool search: a tool held back is loaded, then called; a name no
 * server has fails with the closest of every MCP tool, loaded or not, and how to find the right one.
 */
const loadHeldBack = (
  search: SearchState,
  context: Extension.RunContext,
  call: Message.ToolCall,
  next: (call: Message.ToolCall) => Effect.Effect<unknown, unknown>
): Effect.Effect<unknown, unknown> => {
  const tool = search.byName.get(call.name)
  // `next` looks the tool up when it is called: after the registration
  if (tool !== undefined) return Effect.andThen(context.tools.register(tool), Effect.suspend(() => next(call)))
  const names = EditDistance.closest(call.name, search.byName.keys())
  return Effect.fail(
    new Tool.ToolError({
      reason: "UnknownTool",
      message: `there is no tool named ${JSON.stringify(call.name.slice(0, 100))}; ` +
        (names.length === 0 ? "" : `the closest names are ${names.join(", ")}; `) +
        `${McpToolSearch.toolName} finds tools by what they do`
    })
  )
}

// The tool the model checks, waits for and cancels the tasks it was handed with (`tasks: "handle"`): any server of
// the configuration, since a task may have been handed in an earlier request.
const taskStatusTool = (env: Env, state: RequestState): Tool.Tool => {
  const servers = state.resolved.map((entry) => entry.server.name)
  const definition = TaskTools.definition(servers)
  return Tool.dynamic(definition.name, {
    description: definition.description,
    parameters: definition.parameters,
    guidelines: false,
    // a wait is bounded by the call time limit, within the agent's: it then tells the state, not a timeout
    timesItself: true,
    handler: (args, toolCall, context) =>
      Result.match(TaskTools.readArguments(args, servers), {
        onFailure: (message) => Effect.fail(new Tool.ToolError({ reason: "InvalidArguments", message })),
        onSuccess: (parsed) => {
          const server = state.resolved.find((entry) => entry.server.name === parsed.server)!.server
          const own = Session.callLimit(env.settings, server)
          const agent = context.toolTimeout
          const limit = agent === undefined
            ? own
            : Option.some(Option.match(own, { onNone: () => agent, onSome: (own) => Duration.min(own, agent) }))
          const run = (onStatus?: (task: McpTask.Task) => void) =>
            Effect.flatMap(
              Session.connectFor(env.settings, state.connections, server),
              (client) => TaskTools.run(client, parsed, limit, env.settings.errorText, onStatus)
            )
          // a wait's states are ToolTask events of this tool call, as a call's own wait's are
          return context.observed && parsed.action === "wait"
            ? Effect.contextWith((services: Context.Context<never>) => {
              const publisher = progressPublisher(context, toolCall, services)
              return Effect.flatten(Effect.tap(Effect.exit(run(publisher.onTask)), () => publisher.flush))
            })
            : run()
        }
      })
  })
}

// The skills of the servers that ask for them, listed (no file read) in the request's connections; a server with
// skills gets its load tool.
const listSkills = (env: Env, state: RequestState) =>
  SkillTools.listAll(
    state.connections,
    state.resolved.flatMap((entry) =>
      state.unavailable.some((down) => down.server === entry.server.name) ? [] : [entry.server]
    ),
    { limit: env.settings.connectTimeout, concurrency: env.settings.discoveryConcurrency }
  ).pipe(Effect.map(({ failures, listed }) => {
    for (const skill of listed) state.skills.push(skill)
    for (const failure of failures) state.skillFailures.push(failure)
    return listed.flatMap((entry) =>
      entry.skills.length === 0 ? [] : [skillTool(env, state, entry.server, entry.prefix)]
    )
  }))

const skillTool = (
  env: Env,
  state: RequestState,
  server: McpServerConfig.McpServerConfig,
  prefix: string
): Tool.Tool =>
  SkillTools.make({
    server,
    prefix,
    connect: Session.connectFor(env.settings, state.connections, server),
    listed: () => state.skills.find((entry) => entry.server === server)?.skills,
    limit: Session.callLimit(env.settings, server),
    errorText: env.settings.errorText
  })

/**
 * Lists again the tools of a server that announced a change, and replaces its tools in the request. A tool of
 * another server that won a name stays; a listing that fails keeps the tools listed before.
 */
const refreshServer = (
  env: Env,
  context: Extension.RunContext,
  state: RequestState,
  server: McpServerConfig.McpServerConfig
) => {
  // a change announced while listing again is listed at the next turn
  state.changed.delete(server)
  const key = McpToolCache.key(server, { namespace: env.settings.namespace })
  return env.cache.invalidate(key).pipe(
    Effect.andThen(env.cache.lookup(key, Session.discover(env.settings, state.connections, server))),
    Effect.flatMap(({ instructions, tools }) =>
      Effect.suspend(() => {
        const before = state.registered.get(server.name) ?? []
        // a server that announced a change is one of the request's
        const entry = state.resolved.find((entry) => entry.server === server)!
        const after = requestTools(env, state, entry, tools)
        state.registered.set(server.name, after)
        const gone = before.filter((tool) => context.tools.get(tool.name) === tool)
        const listed: SearchTools.Group = { server, tools: entry.shared!.allowed, instructions }
        return Effect.forEach(gone, (tool) => context.tools.remove(tool.name), { discard: true }).pipe(
          Effect.andThen(context.tools.registerAll(
            state.search === undefined ? after : searchRefresh(state.search, listed, before, after, gone)
          )),
          Effect.andThen(Effect.logDebug(`MCP server ${server.name} changed its tools: ${after.length} now`))
        )
      })
    ),
    Effect.catch((error) =>
      Effect.logWarning(
        `MCP server ${server.name} changed its tools, but listing them failed (${McpError.reasonOf(error)}); ` +
          "its tools listed before stay"
      )
    ),
    Effect.annotateLogs("mcp.server", server.name)
  )
}

/**
 * Under tool search, a server's new list replaces its old one in what is held back and in the index's version; of
 * its new tools, those of a name that was loaded, the always-loaded ones and the extension's own are registered.
 */
const searchRefresh = (
  search: SearchState,
  listed: SearchTools.Group,
  before: ReadonlyArray<Tool.Tool>,
  after: ReadonlyArray<Tool.Tool>,
  gone: ReadonlyArray<Tool.Tool>
): ReadonlyArray<Tool.Tool> => {
  const { server, tools: allowed } = listed
  search.groups = search.groups.map((group) => group.server === server ? listed : group)
  for (const tool of before) if (search.byName.get(tool.name) === tool) search.byName.delete(tool.name)
  for (const tool of after) if (!search.byName.has(tool.name)) search.byName.set(tool.name, tool)
  const loaded = new Set(gone.map((tool) => tool.name))
  return after.filter((tool, i) =>
    i >= allowed.length || loaded.has(tool.name) || McpServerConfig.alwaysLoads(server, allowed[i]!.remoteName)
  )
}

/**
 * The definitions of the tools held back when the request started, loaded since or not (a provider keeps them
 * deferred, so that what it is offered stays the same through the run); made again when a list changes.
 */
const heldBack = (state: RequestState, search: SearchState): ReadonlyArray<Tool.Definition> => {
  if (search.heldBack?.groups === search.groups) return search.heldBack.definitions
  const definitions = search.groups.flatMap((group) => {
    const tools = state.registered.get(group.server.name) ?? []
    return group.tools.flatMap((tool, i) => {
      const agentTool = tools[i]
      return agentTool === undefined || search.byName.get(agentTool.name) !== agentTool ||
          SearchTools.alwaysLoaded(group, tool)
        ? []
        : [Tool.definition(agentTool)]
    })
  })
  search.heldBack = { groups: search.groups, definitions }
  return definitions
}

/** `refreshServer` for each server that announced a change. */
const refresh = (env: Env, context: Extension.RunContext, state: RequestState) =>
  Effect.forEach(Array.from(state.changed), (server) => refreshServer(env, context, state, server), {
    discard: true
  })

const describe = (env: Env, state: RequestState) =>
  [
    Session.describe(env.settings, state.snapshot, state.unavailable, (server) => resourcesAsTools(env, server)),
    ...(state.search === undefined ? [] : [SearchTools.describe(state.search.groups, state.search.deferred)]),
    ...SkillTools.describe(state.skills, state.skillFailures)
  ].join("\n")

/**
 * The extension, with the servers of the `McpServers`, the client factory and the tool cache
 * (`McpToolCache.layerMemory`, or a shared cache for a fleet) in context: each is configured by its own layer.
 * Nothing in it is platform-specific.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<
  McpExtension,
  never,
  McpClientFactory.McpClientFactory | McpServers.McpServers | McpToolCache.McpToolCache
> => Layer.effect(McpExtension, make(options))
