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
import { Tool } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
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
    const resolve = Session.resolver(settings, (resolved) => resolved)
    // a server's sampling requests during a call run in the call's fiber, counted against this toolkit's conversation
    const counter = McpSampling.counter()
    // tool search: the names the searches of this conversation found, and the index of the lists last searched
    const found = new Set<string>()
    const indexCell = SearchTools.indexCell()
    // a server's allowed tools, one array per version of its list, so that the index of an unchanged list is reused
    const allowedOf = new Map<
      string,
      { readonly tools: ReadonlyArray<McpTool.McpTool>; readonly allowed: ReadonlyArray<McpTool.McpTool> }
    >()
    const allowed = (entry: Session.Resolved, tools: ReadonlyArray<McpTool.McpTool>) => {
      const known = allowedOf.get(entry.server.name)
      if (known !== undefined && known.tools === tools) return known.allowed
      const fresh = tools.filter((tool) => Session.allows(settings, entry.server, tool))
      allowedOf.set(entry.server.name, { tools, allowed: fresh })
      return fresh
    }

    const current: Effect.Effect<McpToolkit, McpError.McpConfigError> = Effect.gen(function*() {
      const snapshot = yield* configuration.current
      const unavailable: Array<Session.Unavailable> = []
      const listed = yield* Session.discoverAll(
        settings,
        cache,
        connections,
        resolve(snapshot),
        unavailable,
        (entry, tools, listing) => [{ entry, tools: allowed(entry, tools), instructions: listing.instructions }]
      )
      const tools: Record<string, AnyTool> = {}
      const handlers: Record<string, (params: unknown) => Effect.Effect<unknown, McpToolFailure>> = {}
      const kept: Array<McpTool.McpTool> = []
      const deferred: Array<McpTool.McpTool> = []
      const register = (
        tool: { readonly name: string; readonly description: string; readonly parameters: object },
        run: (params: unknown) => Effect.Effect<unknown, Tool.ToolError>
      ) => {
        tools[tool.name] = AiTool.make(tool.name, {
          description: tool.description,
          success: Schema.Unknown,
          failure: McpToolFailure,
          failureMode: "return"
        }).setParameters(Parameters.annotations({ jsonSchema: tool.parameters })) as unknown as AnyTool
        handlers[tool.name] = (params) =>
          Effect.mapError(
            run(params),
            (error) => new McpToolFailure({ reason: reasonOf(error), message: error.message })
          )
      }
      const groups: Array<SearchTools.Group> = listed.map(({ entry, instructions, tools }) => ({
        server: entry.server,
        tools,
        instructions
      }))
      const searching = McpToolSearch.isActive(settings.toolSearch, groups.flatMap((group) => group.tools))
      const seen = new Set<string>()
      for (const { entry, tools: allowedTools } of listed) {
        for (const tool of allowedTools) {
          // the first of two tools with one name wins, as in the agent's registry
          if (seen.has(tool.name) || Object.hasOwn(tools, tool.name)) {
            yield* Effect.logWarning(`tool ${tool.name} is already registered; the later one is skipped`).pipe(
              Effect.annotateLogs("tool", tool.name)
            )
            continue
          }
          seen.add(tool.name)
          if (searching && !found.has(tool.name) && !McpServerConfig.alwaysLoads(entry.server, tool.remoteName)) {
            deferred.push(tool)
            // a provider that holds them back itself gets them from the toolkit, which runs their calls
            if (options.deferLoading !== true) continue
          } else {
            kept.push(tool)
          }
          register(tool, (params) =>
            Effect.provideService(
              Session.callTool(settings, connections, entry, tool, params),
              McpSampling.RequestCounter,
              counter
            ))
        }
      }
      // after the MCP tools, so that the count of those held back is known
      if (searching && !Object.hasOwn(tools, McpToolSearch.toolName)) {
        const servers = groups.map((group) => group.server.name)
        const definition = SearchTools.definition(servers, deferred.length, settings.searchLimit)
        register(definition, (args) =>
          Either.match(SearchTools.readArguments(args, servers, settings.searchLimit), {
            onLeft: (message) => new Tool.ToolError({ reason: "InvalidArguments", message }),
            onRight: ({ limit, query, server }) =>
              Effect.map(SearchTools.search(indexCell, groups, embedder, query, { server, limit }), (hits) => {
                for (const hit of hits) found.add(hit.tool.name)
                return SearchTools.result(hits)
              })
          }))
      }
      // the skills of the servers that ask for them (listed, no file read), each server's load tool after its tools
      const skills = yield* SkillTools.listAll(
        connections,
        snapshot.servers.filter((server) => !unavailable.some((down) => down.server === server.name)),
        { limit: settings.connectTimeout, concurrency: settings.discoveryConcurrency }
      )
      for (const { prefix, server, skills: listed } of skills.listed) {
        if (listed.length === 0) continue
        const loader = SkillTools.loader({
          server,
          prefix,
          connect: connections.getWithin(server, settings.connectTimeout).pipe(
            Effect.mapError((error) => Session.unavailableError(server, error))
          ),
          listed: () => listed,
          limit: server.timeout === undefined ? settings.callTimeout : Option.some(server.timeout),
          errorText: settings.errorText
        })
        if (Object.hasOwn(tools, loader.name)) continue
        register(loader, loader.run)
      }
      // tasks handed to the model (`tasks: "handle"`): any configured server's, a task may be from an earlier turn
      if (settings.tasks === "handle" && !Object.hasOwn(tools, TaskTools.toolName)) {
        const servers = snapshot.servers
        const names = servers.map((server) => server.name)
        register(TaskTools.definition(names), (args) =>
          Either.match(TaskTools.readArguments(args, names), {
            onLeft: (message) => new Tool.ToolError({ reason: "InvalidArguments", message }),
            onRight: (parsed) => {
              const server = servers.find((server) => server.name === parsed.server)!
              return connections.getWithin(server, settings.connectTimeout).pipe(
                Effect.mapError((error) => Session.unavailableError(server, error)),
                Effect.flatMap((client) =>
                  TaskTools.run(
                    client,
                    parsed,
                    server.timeout === undefined ? settings.callTimeout : Option.some(server.timeout),
                    settings.errorText
                  )
                )
              )
            }
          }))
      }
      const toolkit = AiToolkit.make(...Object.values(tools)) as unknown as AiToolkit.Toolkit<Record<string, AnyTool>>
      const withHandler = yield* Effect.provide(toolkit, yield* toolkit.toContext(handlers as never))
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
