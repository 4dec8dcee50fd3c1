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
import { Tool } from "@zett/agent"
import * as AiTool from "effect/ai/Tool"
import * as AiToolkit from "effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import type * as JsonSchema from "effect/JsonSchema"
import * as Option from "effect/Option"
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
  const configuration = yield* McpServers.McpServers
  const cache = yield* McpToolCache.McpToolCache
  const factory = yield* McpClientFactory.McpClientFactory
  const embedder = yield* McpToolSearch.Embeddings
  const scope = yield* Effect.scope
  const settings = Session.settings(options)
  const connections = yield* McpConnections.make({
    // the connections last the conversation: each asks to hear of its server's tool changes (2026-07-28)
    source: McpConnections.direct(Session.watched(factory, cache, settings, { listen: true })),
    scope
  })
  // the servers of a snapshot, and each server's toolkit tools, built once per version of its tool list (the cache
  // hands out the same array while the list is fresh) and shared by the toolkits of `refresh`
  const resolve = Session.resolver(settings, (resolved): Resolved => ({ ...resolved, shared: undefined }))
  // a server's sampling requests during a call run in the call's fiber, counted against this toolkit's conversation
  const counter = McpSampling.counter()

  const toolsOf = (entry: Resolved, tools: ReadonlyArray<McpTool.McpTool>): ReadonlyArray<Bound> => {
    if (entry.shared !== undefined && entry.shared.tools === tools) return entry.shared.bound
    const bound = tools.filter((tool) => Session.allows(settings, entry.server, tool)).map((tool): Bound => ({
      tool,
      aiTool: makeTool(tool),
      handler: (params) =>
        Session.callTool(settings, connections, entry, tool, params).pipe(
          Effect.provideService(McpSampling.RequestCounter, counter),
          Effect.mapError(toFailure)
        )
    }))
    entry.shared = { tools, bound }
    return bound
  }

  // a server's connection for the toolkit's own tools, its failure the reason the model reads
  const connect = (server: McpServerConfig.McpServerConfig) =>
    connections.getWithin(server, settings.connectTimeout).pipe(
      Effect.mapError((error) => Session.unavailableError(server, error))
    )
  // a call's limit: a server's own `timeout` wins
  const limitOf = (server: McpServerConfig.McpServerConfig) =>
    server.timeout === undefined ? settings.callTimeout : Option.some(server.timeout)

  // tool search: the names the searches of this conversation found, and the index of the lists last searched
  const found = new Set<string>()
  const indexCell = SearchTools.indexCell()

  const current: Effect.Effect<McpToolkit, McpError.McpConfigError> = Effect.gen(function*() {
    const snapshot = yield* configuration.current
    const unavailable: Array<Session.Unavailable> = []
    const listed = yield* Session.discoverAll(
      settings,
      cache,
      connections,
      resolve(snapshot),
      unavailable,
      (entry, tools, listing) => [{ entry, bound: toolsOf(entry, tools), instructions: listing.instructions }]
    )
    const groups = listed.map(({ bound, entry, instructions }): SearchTools.Group => ({
      server: entry.server,
      tools: bound.map(({ tool }) => tool),
      instructions
    }))
    const searching = McpToolSearch.isActive(settings.toolSearch, groups.flatMap((group) => group.tools))
    const tools: Array<AnyTool> = []
    const kept: Array<McpTool.McpTool> = []
    const deferred: Array<McpTool.McpTool> = []
    const handlers: Record<string, Bound["handler"]> = {}
    const seen = new Set<string>()
    for (let i = 0; i < listed.length; i++) {
      for (const { aiTool, handler, tool } of listed[i]!.bound) {
        // the first of two tools with one name wins, as in the agent's registry
        if (seen.has(tool.name)) {
          yield* Effect.logWarning(`tool ${tool.name} is already registered; the later one is skipped`).pipe(
            Effect.annotateLogs("tool", tool.name)
          )
          continue
        }
        seen.add(tool.name)
        if (searching && !found.has(tool.name) && !SearchTools.alwaysLoaded(groups[i]!, tool)) {
          deferred.push(tool)
          // a provider that holds them back itself gets them from the toolkit, which runs their calls
          if (options.deferLoading !== true) continue
        } else {
          kept.push(tool)
        }
        handlers[tool.name] = handler
        tools.push(aiTool)
      }
    }
    // a tool of the toolkit's own (search, skills, tasks), after the MCP tools: a server's tool of that name wins
    const register = (
      definition: { readonly name: string; readonly description: string; readonly parameters: object },
      run: (args: unknown) => Effect.Effect<unknown, Tool.ToolError>
    ) => {
      if (seen.has(definition.name) || Object.hasOwn(handlers, definition.name)) return
      tools.push(makeTool(definition))
      handlers[definition.name] = (args) => Effect.mapError(run(args), toFailure)
    }
    // after the MCP tools, so that the count of those held back is known
    if (searching) {
      const servers = groups.map((group) => group.server.name)
      register(
        SearchTools.definition(servers, deferred.length, settings.searchLimit),
        (args) =>
          Result.match(SearchTools.readArguments(args, servers, settings.searchLimit), {
            onFailure: (message) => Effect.fail(new Tool.ToolError({ reason: "InvalidArguments", message })),
            onSuccess: ({ limit, query, server }) =>
              Effect.map(SearchTools.search(indexCell, groups, embedder, query, { server, limit }), (hits) => {
                for (const hit of hits) found.add(hit.tool.name)
                return SearchTools.result(hits)
              })
          })
      )
    }
    // the skills of the servers that ask for them (listed, no file read), each server's load tool after its tools
    const skills = yield* SkillTools.listAll(
      connections,
      snapshot.servers.filter((server) => !unavailable.some((down) => down.server === server.name)),
      { limit: settings.connectTimeout, concurrency: settings.discoveryConcurrency }
    )
    for (const { prefix, server, skills: listedSkills } of skills.listed) {
      if (listedSkills.length === 0) continue
      const loader = SkillTools.loader({
        server,
        prefix,
        connect: connect(server),
        listed: () => listedSkills,
        limit: limitOf(server),
        errorText: settings.errorText
      })
      register(loader, loader.run)
    }
    // tasks handed to the model (`tasks: "handle"`): any configured server's, a task may be from an earlier turn
    if (settings.tasks === "handle") {
      const servers = snapshot.servers
      const names = servers.map((server) => server.name)
      register(TaskTools.definition(names), (args) =>
        Result.match(TaskTools.readArguments(args, names), {
          onFailure: (message) => Effect.fail(new Tool.ToolError({ reason: "InvalidArguments", message })),
          onSuccess: (parsed) => {
            const server = servers.find((server) => server.name === parsed.server)!
            return Effect.flatMap(
              connect(server),
              (client) => TaskTools.run(client, parsed, limitOf(server), settings.errorText)
            )
          }
        }))
    }
    const toolkit = AiToolkit.make(...tools) as unknown as AiToolkit.Toolkit<Record<string, AnyTool>>
    const withHandler = yield* toolkit.pipe(Effect.provideContext(yield* toolkit.toHandlers(handlers)))
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
      refresh: current
    }
  })
  return yield* current
})

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
