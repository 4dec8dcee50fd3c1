/**
 * The tools of the configured MCP servers as an `effect/ai` `Toolkit`, for an app that calls
 * `LanguageModel.generateText` in a loop of its own rather than running `@zett/agent`.
 *
 * ```ts
 * import { McpToolkit } from "@zett/mcp"
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * const answer = Effect.scoped(Effect.gen(function*() {
 *   const mcp = yield* McpToolkit.make()
 *   const response = yield* LanguageModel.generateText({
 *     prompt: [{ role: "system", content: mcp.system }, { role: "user", content: "What is 2 + 3?" }],
 *     toolkit: mcp.toolkit
 *   })
 *   // the next turn: the tools now (a list that changed or expired is listed again, on the same connections)
 *   const next = yield* mcp.refresh
 *   return [response.text, Object.keys(next.toolkit.tools)]
 * }))
 * ```
 *
 * The servers come from `McpServers`, their tool lists from `McpToolCache`, connections from the
 * `McpClientFactory`: the services of `McpExtension`, with the same naming, timeouts, result mapping and reasons.
 * Connections are opened in the `Scope` the toolkit is made in, lazily for servers whose tools were cached, and
 * closed with it, on success, failure and interruption.
 *
 * Where `effect/ai`'s own `McpClient.toolkit(client)` binds one connection's tools as they are listed now, this
 * toolkit is every configured server's, through one tool cache shared with the agent (and, with a shared store,
 * with other processes), with each server's filters, timeouts and the agent's failure reasons.
 *
 * @since 1.0.0
 */
import * as Tool from "@zett/agent/Tool"
import * as AiTool from "effect/ai/Tool"
import * as AiToolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import type * as JsonSchema from "effect/JsonSchema"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as SearchTools from "./internal/searchTools.js"
import * as Session from "./internal/session.js"
import * as SkillTools from "./internal/skillTools.js"
import * as TaskTools from "./internal/taskTools.js"
import * as McpClientFactory from "./McpClientFactory.js"
import * as McpConnections from "./McpConnections.js"
import * as McpError from "./McpError.js"
import * as McpSampling from "./McpSampling.js"
import type * as McpServerConfig from "./McpServerConfig.js"
import * as McpServers from "./McpServers.js"
import type * as McpTool from "./McpTool.js"
import * as McpToolCache from "./McpToolCache.js"
import * as McpToolSearch from "./McpToolSearch.js"

/**
 * The options of `McpExtension` that concern discovery and calls, with the same defaults; and `deferLoading`.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options extends Session.Options {
  /**
   * Under tool search, the tools held back are in `toolkit` too, for a provider that holds them back itself
   * (`@zett/ai-anthropic` and `@zett/ai-openai`, told their names through `AiModel.DeferredTools`): the provider
   * loads what a search finds, and the toolkit runs its calls. Default false: `toolkit` holds what is offered, and
   * `refresh` adds what a search found.
   */
  readonly deferLoading?: boolean | undefined
}

/**
 * A failed MCP tool call as the model reads it (defined with the error family, in `McpError`).
 *
 * @since 1.0.0
 * @category errors
 */
export const McpToolFailure: typeof McpError.McpToolFailure = McpError.McpToolFailure

/**
 * @since 1.0.0
 * @category errors
 */
export type McpToolFailure = McpError.McpToolFailure

/**
 * An MCP tool as an `effect/ai` tool (`Tool.dynamic`): the server's JSON Schema (cleaned as for the agent) as its
 * parameters, sent to the provider as it is and not strict (`Tool.Strict` false); the result the agent's tools
 * return as its success, `McpToolFailure` as its failure, returned to the model (`failureMode: "return"`).
 *
 * @since 1.0.0
 * @category models
 */
export type AnyTool = AiTool.Tool<string, {
  readonly parameters: typeof Schema.Unknown
  readonly success: typeof Schema.Unknown
  readonly failure: typeof McpToolFailure
  readonly failureMode: "return"
}>

/**
 * @since 1.0.0
 * @category models
 */
export interface McpToolkit {
  /** The servers' tools with their handlers, for `LanguageModel.generateText({ toolkit })`. */
  readonly toolkit: AiToolkit.WithHandler<Record<string, AnyTool>>
  /**
   * The MCP tools in `toolkit`, as the agent's extension would register them. Under tool search, the always-loaded
   * ones and those a search of this conversation found; `toolkit` also holds `search_tools`, with `tasks: "handle"`
   * `task_status`, a load tool per server with skills, and, with `deferLoading`, the tools of `deferred`.
   */
  readonly tools: ReadonlyArray<McpTool.McpTool>
  /** Under tool search, the MCP tools held back until a search finds them (`refresh` offers those it found). */
  readonly deferred: ReadonlyArray<McpTool.McpTool>
  /**
   * What the agent's extension adds to the system message: where the servers are configured, how their tools
   * are named, which servers are unavailable and why, under tool search how many tools are held back, and the
   * skills of the servers with `skills: true` (their `<prefix>__load_skill` tools are in `toolkit`, not in `tools`).
   */
  readonly system: string
  /** The servers left out, and why. */
  readonly unavailable: ReadonlyArray<Session.Unavailable>
  /**
   * The toolkit now, on the same connections: a server's tool list that is still cached is reused (no round
   * trip), one that expired or announced a change (`notifications/tools/list_changed`) is listed again. Under
   * tool search, the tools the searches of this conversation found are in it.
   */
  readonly refresh: Effect.Effect<McpToolkit, McpError.McpConfigError>
}

/**
 * A failure of an agent's tool as the model reads it from a toolkit tool.
 *
 * @since 1.0.0
 * @category errors
 */
export const toFailure = (error: Tool.ToolError): McpToolFailure =>
  new McpError.McpToolFailure({
    reason: error.reason === "Unavailable" || error.reason === "Timeout" || error.reason === "RequestFailed"
      ? error.reason
      : "ToolFailed",
    message: error.message
  }, { disableChecks: true })

/** What the toolkit's functions share for the conversation: made once by `make`, used again by each `refresh`. */
interface Env {
  readonly options: Options
  readonly settings: Session.Settings
  readonly configuration: McpServers.McpServers["Service"]
  readonly cache: McpToolCache.McpToolCache["Service"]
  readonly embedder: McpToolSearch.Embedder | undefined
  readonly connections: McpConnections.McpConnections
  /**
   * The servers of a snapshot, and each server's toolkit tools, built once per version of its tool list (the cache
   * hands out the same array while the list is fresh) and shared by the toolkits of `refresh`.
   */
  readonly resolve: (snapshot: McpServers.Snapshot) => ReadonlyArray<Resolved>
  /** A server's sampling requests during a call run in the call's fiber, counted against this conversation. */
  readonly counter: McpSampling.RequestCounter["Service"]
  /** Tool search: the names the searches of this conversation found, and the index of the lists last searched. */
  readonly found: Set<string>
  readonly indexCell: SearchTools.IndexCell
}

/** A server's tools as discovery handed them out, bound to the toolkit, and the server's instructions. */
interface Listed {
  readonly entry: Resolved
  readonly bound: ReadonlyArray<Bound>
  readonly instructions: string | undefined
}

/** The toolkit being made: its tools, their handlers by name, and the names taken. */
interface Registry {
  readonly tools: Array<AnyTool>
  readonly handlers: Record<string, Bound["handler"]>
  readonly seen: Set<string>
}

/**
 * Discovers the servers of `McpServers` (16 at a time, a failing server left out with its reason) and returns
 * their tools as a toolkit. Connections live in the current `Scope`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: (
  options?: Options
) => Effect.Effect<
  McpToolkit,
  McpError.McpConfigError,
  McpServers.McpServers | McpToolCache.McpToolCache | McpClientFactory.McpClientFactory | Scope.Scope
> = Effect.fnUntraced(function*(options: Options = {}) {
  const cache = yield* McpToolCache.McpToolCache
  const factory = yield* McpClientFactory.McpClientFactory
  const settings = Session.settings(options)
  return yield* current({
    options,
    settings,
    configuration: yield* McpServers.McpServers,
    cache,
    embedder: yield* McpToolSearch.Embeddings,
    connections: yield* McpConnections.make({
      // the connections last the conversation: each asks to hear of its server's tool changes (2026-07-28)
      source: McpConnections.direct(Session.watched(factory, cache, settings, { listen: true })),
      scope: yield* Effect.scope
    }),
    resolve: Session.resolver(settings, (resolved): Resolved => ({ ...resolved, shared: undefined })),
    counter: McpSampling.counter(),
    found: new Set(),
    indexCell: SearchTools.indexCell()
  })
})

/** The toolkit now: every server looked up in the cache or discovered, and the toolkit's own tools. */
const current = (env: Env): Effect.Effect<McpToolkit, McpError.McpConfigError> =>
  Effect.gen(function*() {
    const settings = env.settings
    const snapshot = yield* env.configuration.current
    const unavailable: Array<Session.Unavailable> = []
    const listed = yield* Session.discoverAll(
      settings,
      env.cache,
      env.connections,
      env.resolve(snapshot),
      unavailable,
      (entry, tools, listing): ReadonlyArray<Listed> => [
        { entry, bound: toolsOf(env, entry, tools), instructions: listing.instructions }
      ]
    )
    const groups = listed.map(({ bound, entry, instructions }): SearchTools.Group => ({
      server: entry.server,
      tools: bound.map(({ tool }) => tool),
      instructions
    }))
    const searching = McpToolSearch.isActive(settings.toolSearch, groups.flatMap((group) => group.tools))
    const registry: Registry = { tools: [], handlers: {}, seen: new Set() }
    const { deferred, kept } = yield* registerMcpTools(env, registry, listed, groups, searching)
    // after the MCP tools, so that the count of those held back is known
    if (searching) registerSearch(env, registry, groups, deferred.length)
    // the skills of the servers that ask for them (listed, no file read), each server's load tool after its tools
    const skills = yield* SkillTools.listAll(
      env.connections,
      snapshot.servers.filter((server) => !unavailable.some((down) => down.server === server.name)),
      { limit: settings.connectTimeout, concurrency: settings.discoveryConcurrency }
    )
    registerSkills(env, registry, skills.listed)
    // tasks handed to the model (`tasks: "handle"`): any configured server's, a task may be from an earlier turn
    if (settings.tasks === "handle") registerTasks(env, registry, snapshot.servers)
    const toolkit = AiToolkit.make(...registry.tools) as unknown as AiToolkit.Toolkit<Record<string, AnyTool>>
    const withHandler = yield* toolkit.pipe(Effect.provideContext(yield* toolkit.toHandlers(registry.handlers)))
    return {
      toolkit: withHandler,
      tools: kept,
      deferred,
      system: [
        Session.describe(settings, snapshot, unavailable, () => false),
        ...(searching ? [SearchTools.describe(groups, deferred.length)] : []),
        ...SkillTools.describe(skills.listed, skills.failures)
      ].join("\n"),
      unavailable,
      refresh: current(env)
    }
  })

const toolsOf = (env: Env, entry: Resolved, tools: ReadonlyArray<McpTool.McpTool>): ReadonlyArray<Bound> => {
  if (entry.shared !== undefined && entry.shared.tools === tools) return entry.shared.bound
  const bound = tools.filter((tool) => Session.allows(env.settings, entry.server, tool)).map((tool): Bound => ({
    tool,
    aiTool: makeTool(tool),
    handler: (params) =>
      Session.callTool(env.settings, env.connections, entry, tool, params).pipe(
        Effect.provideService(McpSampling.RequestCounter, env.counter),
        Effect.mapError(toFailure)
      )
  }))
  entry.shared = { tools, bound }
  return bound
}

/**
 * The servers' tools in configuration order: those kept for the model, and under tool search those held back until
 * a search finds them (in the toolkit all the same with `deferLoading`).
 */
const registerMcpTools = (
  env: Env,
  registry: Registry,
  listed: ReadonlyArray<Listed>,
  groups: ReadonlyArray<SearchTools.Group>,
  searching: boolean
) =>
  Effect.gen(function*() {
    const kept: Array<McpTool.McpTool> = []
    const deferred: Array<McpTool.McpTool> = []
    for (let i = 0; i < listed.length; i++) {
      for (const { aiTool, handler, tool } of listed[i]!.bound) {
        // the first of two tools with one name wins, as in the agent's registry
        if (registry.seen.has(tool.name)) {
          yield* Effect.logWarning(`tool ${tool.name} is already registered; the later one is skipped`).pipe(
            Effect.annotateLogs("tool", tool.name)
          )
          continue
        }
        registry.seen.add(tool.name)
        if (searching && !env.found.has(tool.name) && !SearchTools.alwaysLoaded(groups[i]!, tool)) {
          deferred.push(tool)
          // a provider that holds them back itself gets them from the toolkit, which runs their calls
          if (env.options.deferLoading !== true) continue
        } else {
          kept.push(tool)
        }
        registry.handlers[tool.name] = handler
        registry.tools.push(aiTool)
      }
    }
    return { kept, deferred }
  })

/** A tool of the toolkit's own (search, skills, tasks), after the MCP tools: a server's tool of that name wins. */
const registerOwn = (
  registry: Registry,
  definition: { readonly name: string; readonly description: string; readonly parameters: object },
  run: (args: unknown) => Effect.Effect<unknown, Tool.ToolError>
) => {
  if (registry.seen.has(definition.name) || Object.hasOwn(registry.handlers, definition.name)) return
  registry.tools.push(makeTool(definition))
  registry.handlers[definition.name] = (args) => Effect.mapError(run(args), toFailure)
}

const registerSearch = (
  env: Env,
  registry: Registry,
  groups: ReadonlyArray<SearchTools.Group>,
  deferred: number
) => {
  const servers = groups.map((group) => group.server.name)
  const limit = env.settings.searchLimit
  registerOwn(
    registry,
    SearchTools.definition(servers, deferred, limit),
    (args) =>
      Result.match(SearchTools.readArguments(args, servers, limit), {
        onFailure: (message) => Effect.fail(new Tool.ToolError({ reason: "InvalidArguments", message })),
        onSuccess: ({ limit, query, server }) =>
          Effect.map(SearchTools.search(env.indexCell, groups, env.embedder, query, { server, limit }), (hits) => {
            for (const hit of hits) env.found.add(hit.tool.name)
            return SearchTools.result(hits)
          })
      })
  )
}

const registerSkills = (env: Env, registry: Registry, listed: ReadonlyArray<SkillTools.Listed>) => {
  for (const { prefix, server, skills } of listed) {
    if (skills.length === 0) continue
    const loader = SkillTools.loader({
      server,
      prefix,
      connect: Session.connectFor(env.settings, env.connections, server),
      listed: () => skills,
      limit: Session.callLimit(env.settings, server),
      errorText: env.settings.errorText
    })
    registerOwn(registry, loader, loader.run)
  }
}

const registerTasks = (env: Env, registry: Registry, servers: ReadonlyArray<McpServerConfig.McpServerConfig>) => {
  const names = servers.map((server) => server.name)
  registerOwn(registry, TaskTools.definition(names), (args) =>
    Result.match(TaskTools.readArguments(args, names), {
      onFailure: (message) => Effect.fail(new Tool.ToolError({ reason: "InvalidArguments", message })),
      onSuccess: (parsed) => {
        const server = servers.find((server) => server.name === parsed.server)!
        return Effect.flatMap(
          Session.connectFor(env.settings, env.connections, server),
          (client) => TaskTools.run(client, parsed, Session.callLimit(env.settings, server), env.settings.errorText)
        )
      }
    }))
}

/** A tool as the toolkit offers it: the JSON Schema as it is, not strict (a server's schema is not a provider's subset). */
const makeTool = (tool: { readonly name: string; readonly description: string; readonly parameters: object }) =>
  AiTool.dynamic(tool.name, {
    description: tool.description,
    parameters: tool.parameters as JsonSchema.JsonSchema,
    success: Schema.Unknown,
    failure: McpError.McpToolFailure,
    failureMode: "return"
  }).annotate(AiTool.Strict, false) as unknown as AnyTool

/** A listed tool, as the toolkit offers it and runs it. */
interface Bound {
  readonly tool: McpTool.McpTool
  readonly aiTool: AnyTool
  readonly handler: (params: unknown) => Effect.Effect<unknown, McpToolFailure>
}

/** A server of a snapshot, with its toolkit tools of the tool list the cache last handed out. */
interface Resolved extends Session.Resolved {
  shared: { readonly tools: ReadonlyArray<McpTool.McpTool>; readonly bound: ReadonlyArray<Bound> } | undefined
}
