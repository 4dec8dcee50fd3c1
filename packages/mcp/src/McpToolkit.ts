/**
 * The tools of the configured MCP servers as an `@effect/ai` `Toolkit`, for an app that calls
 * `LanguageModel.generateText` in a loop of its own rather than running `@zett/agent`.
 *
 * ```ts
 * const answer = Effect.scoped(Effect.gen(function*() {
 *   const mcp = yield* McpToolkit.make()
 *   const response = yield* LanguageModel.generateText({
 *     prompt: [{ role: "system", content: mcp.system }, { role: "user", content: "What is 2 + 3?" }],
 *     toolkit: mcp.toolkit
 *   })
 *   // the next turn: the tools now (a list that changed or expired is listed again, on the same connections)
 *   const next = yield* mcp.refresh
 * }))
 * ```
 *
 * The servers come from `McpServers`, their tool lists from `McpToolCache`, connections from the
 * `McpClientFactory`: the services of `McpExtension`, with the same naming, timeouts, result mapping and reasons.
 * Connections are opened in the `Scope` the toolkit is made in, lazily for servers whose tools were cached, and
 * closed with it, on success, failure and interruption.
 *
 * @since 0.1.0
 */
import * as AiTool from "@effect/ai/Tool"
import * as AiToolkit from "@effect/ai/Toolkit"
import * as Tool from "@zett/agent/Tool"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
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
import * as McpServerConfig from "./McpServerConfig.js"
import * as McpServers from "./McpServers.js"
import type * as McpTool from "./McpTool.js"
import * as McpToolCache from "./McpToolCache.js"
import * as McpToolSearch from "./McpToolSearch.js"

/**
 * The options of `McpExtension` that concern discovery and calls, with the same defaults; and `deferLoading`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Session.Options {
  /**
   * Under tool search, the tools held back are in `toolkit` too, for a provider that holds them back itself
   * (`@zett/ai`'s `AnthropicToolSearch` or `OpenAiToolSearch` transforms, told their names through
   * `AiModel.DeferredTools`): the provider loads what a search finds, and the toolkit runs its calls. Default false:
   * `toolkit` holds what is offered, and `refresh` adds what a search found.
   */
  readonly deferLoading?: boolean | undefined
}

/**
 * A failed MCP tool call as the model reads it (defined with the error family, in `McpError`).
 *
 * @since 0.1.0
 * @category errors
 */
export const McpToolFailure = McpError.McpToolFailure

/**
 * @since 0.1.0
 * @category errors
 */
export type McpToolFailure = McpError.McpToolFailure

/**
 * An MCP tool as an `@effect/ai` tool: the server's JSON Schema (cleaned as for the agent) as its parameters,
 * the result the agent's tools return as its success, `McpToolFailure` as its failure.
 *
 * @since 0.1.0
 * @category models
 */
export type AnyTool = AiTool.Tool<string, {
  readonly parameters: typeof Parameters
  readonly success: typeof Schema.Unknown
  readonly failure: typeof McpToolFailure
  readonly failureMode: "return"
}>

/**
 * @since 0.1.0
 * @category models
 */
export interface McpToolkit {
  /** The servers' tools with their handlers, for `LanguageModel.generateText({ toolkit })`. */
  readonly toolkit: AiToolkit.WithHandler<Record<string, AnyTool>>
  /**
   * The MCP tools in `toolkit`, as the agent's extension would register them. Under tool search, the always-loaded
   * ones and those a search of this conversation found; `toolkit` also holds `search_tools` (and, with
   * `deferLoading`, the tools of `deferred`).
   */
  readonly tools: ReadonlyArray<McpTool.McpTool>
  /** Under tool search, the MCP tools held back until a search finds them (`refresh` offers those it found). */
  readonly deferred: ReadonlyArray<McpTool.McpTool>
  /**
   * What the agent's extension adds to the system message: where the servers are configured, how their tools
   * are named, which servers are unavailable and why, and the skills of the servers with `skills: true` (their
   * `<prefix>__load_skill` tools are in `toolkit`, not in `tools`).
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

// The parameters schema carries the server's JSON Schema to the provider unchanged (`Tool.getJsonSchema`
// returns the `jsonSchema` annotation), and decoding a call's arguments accepts any JSON object.
const Parameters = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const reasonOf = (error: Tool.ToolError): McpToolFailure["reason"] =>
  error.reason === "Unavailable" || error.reason === "Timeout" || error.reason === "RequestFailed"
    ? error.reason
    : "ToolFailed"

/** What the toolkit's functions share for the conversation: made once by `make`, used again by each `refresh`. */
interface Env {
  readonly options: Options
  readonly settings: Session.Settings
  readonly configuration: McpServers.McpServers["Type"]
  readonly cache: McpToolCache.McpToolCache["Type"]
  readonly embedder: McpToolSearch.Embeddings["Type"]
  readonly connections: McpConnections.McpConnections
  readonly resolve: (snapshot: McpServers.Snapshot) => ReadonlyArray<Session.Resolved>
  /** A server's sampling requests during a call run in the call's fiber, counted against this conversation. */
  readonly counter: McpSampling.RequestCounter["Type"]
  /** Tool search: the names the searches of this conversation found, and the index of the lists last searched. */
  readonly found: Set<string>
  readonly indexCell: SearchTools.IndexCell
  /** A server's allowed tools, one array per version of its list, so that the index of an unchanged list is reused. */
  readonly allowedOf: Map<
    string,
    { readonly tools: ReadonlyArray<McpTool.McpTool>; readonly allowed: ReadonlyArray<McpTool.McpTool> }
  >
}

/** A server's tools as discovery handed them out: those allowed, and the server's instructions. */
interface Listed {
  readonly entry: Session.Resolved
  readonly tools: ReadonlyArray<McpTool.McpTool>
  readonly instructions: string | undefined
}

/** The toolkit being made: its tools by name, and their handlers. */
interface Registry {
  readonly tools: Record<string, AnyTool>
  readonly handlers: Record<string, (params: unknown) => Effect.Effect<unknown, McpToolFailure>>
}

/**
 * Discovers the servers of `McpServers` (16 at a time, a failing server left out with its reason) and returns
 * their tools as a toolkit. Connections live in the current `Scope`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<
  McpToolkit,
  McpError.McpConfigError,
  McpServers.McpServers | McpToolCache.McpToolCache | McpClientFactory.McpClientFactory | Scope.Scope
> =>
  Effect.gen(function*() {
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
      resolve: Session.resolver(settings, (resolved) => resolved),
      counter: McpSampling.counter(),
      found: new Set(),
      indexCell: SearchTools.indexCell(),
      allowedOf: new Map()
    })
  })

/** The toolkit now: every server looked up in the cache or discovered, and the tools the extension makes. */
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
        { entry, tools: allowed(env, entry, tools), instructions: listing.instructions }
      ]
    )
    const registry: Registry = { tools: {}, handlers: {} }
    const groups: Array<SearchTools.Group> = listed.map(({ entry, instructions, tools }) => ({
      server: entry.server,
      tools,
      instructions
    }))
    const searching = McpToolSearch.isActive(settings.toolSearch, groups.flatMap((group) => group.tools))
    const { deferred, kept } = yield* registerMcpTools(env, registry, listed, searching)
    // after the MCP tools, so that the count of those held back is known
    if (searching && !Object.hasOwn(registry.tools, McpToolSearch.toolName)) {
      registerSearch(env, registry, groups, deferred.length)
    }
    // the skills of the servers that ask for them (listed, no file read), each server's load tool after its tools
    const skills = yield* SkillTools.listAll(
      env.connections,
      snapshot.servers.filter((server) => !unavailable.some((down) => down.server === server.name)),
      { limit: settings.connectTimeout, concurrency: settings.discoveryConcurrency }
    )
    registerSkills(env, registry, skills.listed)
    // tasks handed to the model (`tasks: "handle"`): any configured server's, a task may be from an earlier turn
    if (settings.tasks === "handle" && !Object.hasOwn(registry.tools, TaskTools.toolName)) {
      registerTasks(env, registry, snapshot.servers)
    }
    const toolkit = AiToolkit.make(...Object.values(registry.tools)) as unknown as AiToolkit.Toolkit<
      Record<string, AnyTool>
    >
    const withHandler = yield* Effect.provide(toolkit, yield* toolkit.toContext(registry.handlers as never))
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

const allowed = (env: Env, entry: Session.Resolved, tools: ReadonlyArray<McpTool.McpTool>) => {
  const known = env.allowedOf.get(entry.server.name)
  if (known !== undefined && known.tools === tools) return known.allowed
  const fresh = tools.filter((tool) => Session.allows(env.settings, entry.server, tool))
  env.allowedOf.set(entry.server.name, { tools, allowed: fresh })
  return fresh
}

const register = (
  registry: Registry,
  tool: { readonly name: string; readonly description: string; readonly parameters: object },
  run: (params: unknown) => Effect.Effect<unknown, Tool.ToolError>
) => {
  registry.tools[tool.name] = AiTool.make(tool.name, {
    description: tool.description,
    success: Schema.Unknown,
    failure: McpToolFailure,
    failureMode: "return"
  }).setParameters(Parameters.annotations({ jsonSchema: tool.parameters })) as unknown as AnyTool
  registry.handlers[tool.name] = (params) =>
    Effect.mapError(
      run(params),
      (error) => new McpToolFailure({ reason: reasonOf(error), message: error.message })
    )
}

/**
 * The servers' tools in configuration order: those kept for the model, and under tool search those held back until
 * a search finds them (registered all the same with `deferLoading`).
 */
const registerMcpTools = (env: Env, registry: Registry, listed: ReadonlyArray<Listed>, searching: boolean) =>
  Effect.gen(function*() {
    const kept: Array<McpTool.McpTool> = []
    const deferred: Array<McpTool.McpTool> = []
    const seen = new Set<string>()
    for (const { entry, tools } of listed) {
      for (const tool of tools) {
        // the first of two tools with one name wins, as in the agent's registry
        if (seen.has(tool.name) || Object.hasOwn(registry.tools, tool.name)) {
          yield* Effect.logWarning(`tool ${tool.name} is already registered; the later one is skipped`).pipe(
            Effect.annotateLogs("tool", tool.name)
          )
          continue
        }
        seen.add(tool.name)
        if (searching && !env.found.has(tool.name) && !McpServerConfig.alwaysLoads(entry.server, tool.remoteName)) {
          deferred.push(tool)
          // a provider that holds them back itself gets them from the toolkit, which runs their calls
          if (env.options.deferLoading !== true) continue
        } else {
          kept.push(tool)
        }
        register(registry, tool, (params) =>
          Effect.provideService(
            Session.callTool(env.settings, env.connections, entry, tool, params),
            McpSampling.RequestCounter,
            env.counter
          ))
      }
    }
    return { kept, deferred }
  })

const registerSearch = (
  env: Env,
  registry: Registry,
  groups: ReadonlyArray<SearchTools.Group>,
  deferred: number
) => {
  const servers = groups.map((group) => group.server.name)
  const limit = env.settings.searchLimit
  register(
    registry,
    SearchTools.definition(servers, deferred, limit),
    (args) =>
      Either.match(SearchTools.readArguments(args, servers, limit), {
        onLeft: (message) => new Tool.ToolError({ reason: "InvalidArguments", message }),
        onRight: ({ limit, query, server }) =>
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
    if (Object.hasOwn(registry.tools, loader.name)) continue
    register(registry, loader, loader.run)
  }
}

const registerTasks = (env: Env, registry: Registry, servers: ReadonlyArray<McpServerConfig.McpServerConfig>) => {
  const names = servers.map((server) => server.name)
  register(registry, TaskTools.definition(names), (args) =>
    Either.match(TaskTools.readArguments(args, names), {
      onLeft: (message) => new Tool.ToolError({ reason: "InvalidArguments", message }),
      onRight: (parsed) => {
        const server = servers.find((server) => server.name === parsed.server)!
        return Effect.flatMap(
          Session.connectFor(env.settings, env.connections, server),
          (client) => TaskTools.run(client, parsed, Session.callLimit(env.settings, server), env.settings.errorText)
        )
      }
    }))
}
