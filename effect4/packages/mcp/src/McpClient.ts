/**
 * A connected MCP server, as the extension, the resources and the prompts use it: the interface every driver
 * fills (`@zett/mcp-node` builds it on the MCP SDK), and the helpers written once over it (paging, discovery,
 * a call under time limits). Every request honours interruption.
 *
 * @since 1.0.0
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/client"
import * as ToolListing from "@zett/common/McpToolListing"
import * as Common from "@zett/common/McpToolResult"
import type * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Requests from "./internal/requests.js"
import type { McpSkillVerificationError } from "./McpError.js"
import { McpRequestError, McpTimeoutError } from "./McpError.js"
import * as McpError from "./McpError.js"
import * as McpServerConfig from "./McpServerConfig.js"
import type * as McpSkills from "./McpSkills.js"
import * as McpTask from "./McpTask.js"
import * as McpTool from "./McpTool.js"

/**
 * One page of `tools/list`.
 *
 * @since 1.0.0
 * @category models
 */
export interface ListToolsPage {
  readonly tools: ReadonlyArray<Tool>
  readonly nextCursor: string | undefined
  /** The server's caching hint for this page (2026-07-28: `ttlMs`, `cacheScope`); absent from older servers. */
  readonly cache?: CacheHint | undefined
}

/**
 * A server's caching hint on a result (2026-07-28): how long it may be taken as fresh (`ttlMs`, an absent or
 * negative one read as 0), and whether it may be shared across authorization contexts (`public`) or not
 * (`private`).
 *
 * @since 1.0.0
 * @category models
 */
export interface CacheHint {
  readonly ttlMs: number
  readonly scope: "public" | "private"
}

/**
 * The schema of a `CacheHint`, for a hint read back from a store.
 *
 * @since 1.0.0
 * @category schemas
 */
export const CacheHint: Schema.Codec<CacheHint> = Schema.Struct({
  ttlMs: Schema.Number,
  scope: Schema.Literals(["public", "private"])
})

/**
 * What a connection found out about the revisions its server speaks, so that the next connection to the same
 * definition needs not ask again: a server of the 2025 revisions (`legacy`), or one of 2026-07-28 with its
 * answer to `server/discover` (`modern`). It is plain data: a tool cache keeps it with the tool list, across
 * processes too.
 *
 * @since 1.0.0
 * @category models
 */
export type Verdict =
  | { readonly kind: "legacy" }
  | { readonly kind: "modern"; readonly discover: { readonly [key: string]: unknown } }

/**
 * The schema of a `Verdict`, for a verdict read back from a store (a driver checks the `discover` result itself).
 *
 * @since 1.0.0
 * @category schemas
 */
export const Verdict: Schema.Codec<Verdict> = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("legacy") }),
  Schema.Struct({ kind: Schema.Literal("modern"), discover: Schema.Record(Schema.String, Schema.Unknown) })
])

/**
 * One progress report of a call (`notifications/progress`): `progress` grows from one report to the next;
 * `total` is present when the server knows it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/**
 * @since 1.0.0
 * @category models
 */
export interface CallOptions {
  /** Called (synchronously, as each report arrives) for the call's progress reports. */
  readonly onProgress?: ((progress: Progress) => void) | undefined
  /**
   * Called (synchronously) with the task the server answered the call with (the Tasks extension), then with each
   * of its new states while the call waits for it.
   */
  readonly onTask?: ((task: McpTask.Task) => void) | undefined
  /** What the call does when the server answers it with a task: wait for it (the default), or end with its handle. */
  readonly task?: McpTask.Mode | undefined
  /**
   * How the tool runs as a task on the 2025-11-25 revision, as a tool list said (`McpTool.taskSupport` of a cached
   * one: `"forbidden"` when it has none); left out, the driver goes by the tools its connection listed.
   */
  readonly taskSupport?: TaskSupport | undefined
}

/**
 * A tool's `execution.taskSupport` (the 2025-11-25 revision): whether a call of it asks the server for a task.
 *
 * @since 1.0.0
 * @category models
 */
export type TaskSupport = "required" | "optional" | "forbidden"

/**
 * A connected server, as the extension, resources and prompts use it. Every member is there: `make` builds one
 * from a `Driver`, filling in what the driver leaves out. Timing is the caller's business (`callWithin`, or
 * `Effect.timeoutOrElse` around `callTool`).
 *
 * @since 1.0.0
 * @category models
 */
export interface McpClient {
  readonly server: string
  /** The process id of a stdio server (it leads a process group of its own); absent for other transports. */
  readonly pid: number | undefined
  /** The protocol revision the connection speaks (`2026-07-28`, `2025-11-25` ...), when the driver knows it. */
  readonly protocolVersion: string | undefined
  /** How the connection reached the server: `stdio`, `streamable-http`, `sse`, or what the driver says. */
  readonly transport: string | undefined
  /** What the connection found out about the server's revisions, when the driver negotiates them. */
  readonly verdict: Verdict | undefined
  /** What the server said of itself when it was connected to (its `instructions`), when the driver knows it. */
  readonly instructions: string | undefined
  readonly listTools: (cursor?: string | undefined) => Effect.Effect<ListToolsPage, McpRequestError>
  /**
   * The result is normalized to `{ content, structuredContent?, isError? }` (a 2024-10-07 `toolResult`
   * is converted). A result with `isError: true` is a value, not a failure.
   */
  readonly callTool: (
    name: string,
    args: Record<string, unknown>,
    options?: CallOptions | undefined
  ) => Effect.Effect<CallToolResult, McpRequestError>
  /**
   * `callTool` under `limits`: it fails with `McpTimeoutError` when `timeout` passes, counted from the start of the
   * call or, with `resetOnProgress`, from its last progress report, but never later than `maxTimeout` after the
   * start. A call cut short is interrupted, so the server is sent `notifications/cancelled`. A call the server
   * answers with a task waits for the task within the same time, and a task cut short is cancelled (`tasks/cancel`).
   */
  readonly callWithin: (
    name: string,
    args: Record<string, unknown>,
    limits: CallLimits
  ) => Effect.Effect<CallToolResult, McpRequestError | McpTimeoutError>
  /**
   * Calls `listener` on each `notifications/tools/list_changed` the server sends on this connection, until the
   * `Scope` it was registered in closes.
   */
  readonly onToolListChanged: (listener: () => void) => Effect.Effect<void, never, Scope.Scope>
  /**
   * Any other request (`resources/read`, `prompts/get` ...), its result as the driver decoded it (scrubbed).
   * `McpResources` and `McpPrompts` use it.
   */
  readonly request: (
    method: string,
    params?: Record<string, unknown> | undefined
  ) => Effect.Effect<unknown, McpRequestError>
  /**
   * The server's notifications (`notifications/resources/updated`, `.../list_changed`) for the life of the `Scope`,
   * subscribed before it returns; the queue ends (`Cause.Done`) when the connection closes.
   */
  readonly notifications: Effect.Effect<Queue.Dequeue<Notification, Cause.Done>, never, Scope.Scope>
  /**
   * Asks the server for the notifications of `filter` for the life of the current `Scope` (they reach
   * `onToolListChanged` and `notifications`). On 2026-07-28 this is a `subscriptions/listen` stream, listened
   * again when it breaks while the scope lives; on the 2025 revisions list changes come unasked, and each
   * resource is subscribed with `resources/subscribe` (and unsubscribed when the scope closes).
   */
  readonly listen: (filter: Subscription) => Effect.Effect<void, McpRequestError, Scope.Scope>
  /** The server's skills (the Skills extension), as `McpSkills` uses them. */
  readonly skills: Skills
  /** The server's tasks (the Tasks extension), by id: for a task started by an earlier call, here or elsewhere. */
  readonly tasks: Tasks
}

/**
 * The tasks of a connection (the Tasks extension), by id: what a process needs for a task that a call started
 * earlier, in this process or in another one. A call the server answers with a task waits for it by itself
 * (`callTool`); these are for the task afterwards (a call made with `task: "handle"`, a process that took over).
 *
 * @since 1.0.0
 * @category models
 */
export interface Tasks {
  /** The task as the server describes it now (`tasks/get`). */
  readonly get: (taskId: string) => Effect.Effect<McpTask.Task, McpRequestError>
  /**
   * Waits for the task to end (`McpTask.wait`: polled as the server asks, its input requests answered by the
   * `McpElicitation`, `McpSampling` and `McpRoots` in context) and gives its result; fails with reason `TaskFailed`
   * or `TaskCancelled` as it ended. Time is the caller's (`Effect.timeout`); an interrupted wait leaves the task
   * running unless `cancelUnfinished` is set.
   */
  readonly await: (
    taskId: string,
    options?: McpTask.WaitOptions | undefined
  ) => Effect.Effect<CallToolResult, McpRequestError>
  /**
   * Asks the server to cancel the task (`tasks/cancel`). Cancellation is cooperative: the task may still complete
   * or fail; `get` tells.
   */
  readonly cancel: (taskId: string) => Effect.Effect<void, McpRequestError>
}

/**
 * The Skills extension of a connection (`McpSkills`): every page of `skills/list` (none from a server that does
 * not declare the extension), `skills/get`, and one file read and verified against the skill's entry.
 *
 * @since 1.0.0
 * @category models
 */
export interface Skills {
  readonly list: Effect.Effect<ReadonlyArray<McpSkills.Skill>, McpRequestError>
  readonly get: (uri: string) => Effect.Effect<McpSkills.Skill, McpRequestError>
  readonly read: (
    skill: McpSkills.Skill,
    path?: string | undefined
  ) => Effect.Effect<McpSkills.SkillFile, McpRequestError | McpSkillVerificationError>
}

/**
 * The notifications asked for by `McpClient.listen`.
 *
 * @since 1.0.0
 * @category models
 */
export interface Subscription {
  readonly toolsListChanged?: boolean | undefined
  readonly promptsListChanged?: boolean | undefined
  readonly resourcesListChanged?: boolean | undefined
  /** The URIs of resources whose updates (`notifications/resources/updated`) are asked for. */
  readonly resourceSubscriptions?: ReadonlyArray<string> | undefined
}

/**
 * What a driver (or a test) gives `make`: a server's name and its two tool requests; the rest is optional.
 *
 * @since 1.0.0
 * @category models
 */
export interface Driver {
  readonly server: string
  readonly pid?: number | undefined
  readonly protocolVersion?: string | undefined
  readonly transport?: string | undefined
  readonly verdict?: Verdict | undefined
  readonly instructions?: string | undefined
  readonly listTools: McpClient["listTools"]
  readonly callTool: McpClient["callTool"]
  /** Without it, `callTool` is raced against a sleep (`TestClock` drives it). */
  readonly callWithin?: McpClient["callWithin"] | undefined
  /** Without it, no listener is ever called. */
  readonly onToolListChanged?: McpClient["onToolListChanged"] | undefined
  /** Without it, every other request fails with an `McpRequestError` of kind `Unsupported`. */
  readonly request?: McpClient["request"] | undefined
  /** Without it, the server sends none: the queue has ended. */
  readonly notifications?: McpClient["notifications"] | undefined
  /** Without it, the 2025 revisions' way (`listenLegacy`). */
  readonly listen?: McpClient["listen"] | undefined
  /** Without it, every skills request fails with an `McpRequestError` of kind `Unsupported`. */
  readonly skills?: Skills | undefined
  /** Without it, every task request fails with an `McpRequestError` of kind `Unsupported`. */
  readonly tasks?: McpTask.Driver | undefined
}

/**
 * A whole client from a driver: what it leaves out is filled in as `Driver` says.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (driver: Driver): McpClient => {
  const client: McpClient = {
    server: driver.server,
    pid: driver.pid,
    protocolVersion: driver.protocolVersion,
    transport: driver.transport,
    verdict: driver.verdict,
    instructions: driver.instructions,
    listTools: driver.listTools,
    callTool: driver.callTool,
    callWithin: driver.callWithin ?? ((name, args, limits) => raceWithin(client, name, args, limits)),
    onToolListChanged: driver.onToolListChanged ?? noListener,
    request: driver.request ?? ((method) =>
      Effect.fail(
        new McpRequestError({
          server: driver.server,
          method,
          reason: "Unsupported",
          description: "this MCP client does not implement requests other than tools"
        })
      )),
    notifications: driver.notifications ?? noNotifications,
    listen: driver.listen ?? ((filter) => listenLegacy(client, filter)),
    skills: driver.skills ?? noSkills(driver.server),
    tasks: tasksOf(driver.server, driver.tasks)
  }
  return client
}

/** The `Tasks` of a driver's task requests (none: each fails as `Unsupported`). */
const tasksOf = (server: string, driver: McpTask.Driver | undefined): Tasks => {
  if (driver === undefined) {
    const unsupported = (method: string) =>
      Effect.fail(
        new McpRequestError({
          server,
          method,
          reason: "Unsupported",
          description: "this MCP client does not implement the Tasks extension"
        })
      )
    return {
      get: () => unsupported("tasks/get"),
      await: () => unsupported("tasks/get"),
      cancel: () => unsupported("tasks/cancel")
    }
  }
  return {
    get: driver.get,
    await: (taskId, options) => Effect.flatMap(driver.get(taskId), (task) => McpTask.wait(driver, task, options)),
    cancel: driver.cancel
  }
}

const noSkills = (server: string): Skills => {
  const unsupported = (method: string) =>
    Effect.fail(
      new McpRequestError({
        server,
        method,
        reason: "Unsupported",
        description: "this MCP client does not implement the Skills extension"
      })
    )
  return {
    list: unsupported("skills/list"),
    get: () => unsupported("skills/get"),
    read: () => unsupported("resources/read")
  }
}

/** How long an unsubscribe may take when its scope closes: the connection usually closes right after. */
const unsubscribeTimeoutMs = 2_000

/**
 * `McpClient.listen` on the 2025 revisions: nothing to ask for list changes (a server sends them unasked), and
 * `resources/subscribe` for each resource, with `resources/unsubscribe` when the scope closes (at most 2 seconds,
 * its failure ignored: the connection may be gone).
 *
 * @since 1.0.0
 * @category utils
 */
export const listenLegacy = (
  client: McpClient,
  filter: Subscription
): Effect.Effect<void, McpRequestError, Scope.Scope> =>
  Effect.forEach(filter.resourceSubscriptions ?? [], (uri) =>
    Effect.andThen(
      Requests.send(client, "resources/subscribe", { uri }),
      // a finalizer runs uninterruptibly, also for an interrupted fiber: only its own time limit cuts it short
      Effect.addFinalizer(() =>
        Effect.interruptible(Requests.send(client, "resources/unsubscribe", { uri })).pipe(
          Effect.timeout(unsubscribeTimeoutMs),
          Effect.ignore
        )
      )
    ), { discard: true })

const noListener = (): Effect.Effect<void> => Effect.void

const noNotifications: Effect.Effect<Queue.Dequeue<Notification, Cause.Done>> = Effect.tap(
  Queue.unbounded<Notification, Cause.Done>(),
  Queue.end
)

/**
 * A notification from a connected server that concerns the client's state: a subscribed resource changed
 * (`ResourceUpdated`), or the list of resources or prompts did (`ResourceListChanged`, `PromptListChanged`).
 *
 * @since 1.0.0
 * @category models
 */
export type Notification = Data.TaggedEnum<{
  readonly ResourceUpdated: { readonly server: string; readonly uri: string }
  readonly ResourceListChanged: { readonly server: string }
  readonly PromptListChanged: { readonly server: string }
}>

/**
 * Constructors and matchers for `Notification`.
 *
 * @since 1.0.0
 * @category constructors
 */
export const Notification = Data.taggedEnum<Notification>()

/**
 * Converts the 2024-10-07 compatibility shape `{ toolResult }` into `{ content, structuredContent? }`: the
 * value becomes a text block (JSON unless it is a string) and, when it is an object, `structuredContent`.
 * A current result is returned as it is. (The SDK's parser gives a legacy result `content: []` as well.)
 *
 * @since 1.0.0
 * @category utils
 */
export const normalizeResult = (
  result: CallToolResult | { readonly toolResult: unknown; readonly content?: CallToolResult["content"] }
): CallToolResult => Common.normalize<CallToolResult>(result)

/**
 * A tool name as a log line shows it: at most 80 characters.
 *
 * @since 1.0.0
 * @category utils
 */
export const clipName: (name: unknown) => string = McpTool.clipName

/**
 * The time limits of one call (`callWithin`).
 *
 * @since 1.0.0
 * @category models
 */
export interface CallLimits {
  /** The server's name, for the timeout error. */
  readonly server: string
  /** The time for the call; `Option.none()` is no limit. */
  readonly timeout: Option.Option<Duration.Duration>
  /** Whether each progress report starts `timeout` afresh. */
  readonly resetOnProgress: boolean
  /** With `resetOnProgress`: the most the call may take however often it reports; `Option.none()` is no cap. */
  readonly maxTimeout: Option.Option<Duration.Duration>
  readonly onProgress?: ((progress: Progress) => void) | undefined
  /** As `CallOptions.onTask`. */
  readonly onTask?: ((task: McpTask.Task) => void) | undefined
  /** As `CallOptions.task`. */
  readonly task?: McpTask.Mode | undefined
  /** As `CallOptions.taskSupport`. */
  readonly taskSupport?: TaskSupport | undefined
}

/**
 * `callWithin` of a client whose driver does not time calls itself: a sleep raced against the call, set once per
 * call; a progress report only records the time, and the timer, when it wakes, sleeps again for what is left.
 */
const raceWithin = (
  client: McpClient,
  name: string,
  args: Record<string, unknown>,
  limits: CallLimits
): Effect.Effect<CallToolResult, McpRequestError | McpTimeoutError> => {
  const onProgress = limits.onProgress
  const tasks = { onTask: limits.onTask, task: limits.task, taskSupport: limits.taskSupport }
  if (Option.isNone(limits.timeout)) return client.callTool(name, args, { onProgress, ...tasks })
  const timeout = limits.timeout.value
  if (!limits.resetOnProgress) {
    return Effect.timeoutOrElse(client.callTool(name, args, { onProgress, ...tasks }), {
      duration: timeout,
      orElse: () => Effect.fail(new McpTimeoutError({ server: limits.server, operation: "call", timeout }))
    })
  }
  return Effect.clockWith((clock) => {
    const budget = callBudget(limits, timeout, clock.currentTimeMillisUnsafe())
    let last = budget.start
    const timer: Effect.Effect<never, McpTimeoutError> = Effect.suspend(() => {
      const now = clock.currentTimeMillisUnsafe()
      const deadline = budget.deadline(last)
      if (now < deadline) return Effect.andThen(Effect.sleep(deadline - now), timer)
      return Effect.fail(budget.error(last))
    })
    const call = client.callTool(name, args, {
      onProgress: (progress) => {
        last = clock.currentTimeMillisUnsafe()
        onProgress?.(progress)
      },
      ...tasks
    })
    return Effect.raceFirst(call, timer)
  })
}

/**
 * A call's time under `limits`, started at `start`: its deadline given the time of its last progress report
 * (`timeout` after it, with `resetOnProgress` never later than `maxTimeout` after the start), and the error once
 * that has passed. Shared by a driver's own timer and the race of a client without one.
 *
 * @since 1.0.0
 * @category utils
 */
export const callBudget = (limits: CallLimits, timeout: Duration.Duration, start: number) => {
  const idle = Duration.toMillis(timeout)
  const cap = limits.resetOnProgress && Option.isSome(limits.maxTimeout)
    ? Duration.toMillis(limits.maxTimeout.value)
    : Infinity
  const capped = (last: number) => start + cap <= last + idle
  return {
    start,
    deadline: (last: number) => capped(last) ? start + cap : last + idle,
    error: (last: number) => {
      const byCap = capped(last)
      return new McpTimeoutError({
        server: limits.server,
        operation: "call",
        timeout: byCap ? Duration.millis(cap) : timeout,
        reason: !byCap && last > start ? "Stalled" : "Elapsed"
      })
    }
  }
}

/**
 * The most pages one listing may take, so a server cannot keep a listing going forever.
 *
 * @since 1.0.0
 * @category constants
 */
export const maxPages: number = Requests.maxPages

/**
 * Lists every page of a server's tools. A server that repeats a pagination cursor, or needs more than `maxPages` pages,
 * fails with an `McpRequestError` rather than looping.
 *
 * @since 1.0.0
 * @category utils
 */
export const listAll = (client: McpClient): Effect.Effect<ReadonlyArray<Tool>, McpRequestError> =>
  Effect.map(listAllWithHint(client), (listed) => listed.tools)

/**
 * `listAll`, with the caching hint of the whole listing (`CacheHint` of every page combined: the shortest
 * lifetime, private if any page is; none when a page had none).
 *
 * @since 1.0.0
 * @category utils
 */
export const listAllWithHint = (
  client: McpClient
): Effect.Effect<{ readonly tools: ReadonlyArray<Tool>; readonly hint: CacheHint | undefined }, McpRequestError> =>
  Effect.suspend(() => {
    let hint: CacheHint | undefined
    let first = true
    return Effect.map(
      Requests.listAll<ListToolsPage, Tool>(client, {
        method: "tools/list",
        noun: "tools",
        page: client.listTools,
        items: (page) => {
          hint = first ? page.cache : ToolListing.combineHints(hint, page.cache)
          first = false
          return page.tools
        }
      }),
      (tools) => ({ tools, hint })
    )
  })

/**
 * A server's tools as the model will see them, with the server's caching hint (`discover`).
 *
 * @since 1.0.0
 * @category models
 */
export interface Discovered {
  readonly tools: ReadonlyArray<McpTool.McpTool>
  readonly hint: CacheHint | undefined
}

/**
 * Lists every tool of a connected server (with the guards of `listAll`) and converts each as the model will
 * see it (`McpTool.fromTool`). A tool whose input schema is over `McpTool.schemaLimits` is skipped with a
 * warning, like a tool with an invalid schema; the rest of the server stays available.
 *
 * @since 1.0.0
 * @category utils
 */
export const discover = (
  client: McpClient,
  options: { readonly namespace: boolean; readonly prefix?: string | undefined }
): Effect.Effect<ReadonlyArray<McpTool.McpTool>, McpRequestError> =>
  Effect.map(discoverWithHint(client, options), (discovered) => discovered.tools)

/**
 * `discover`, with the server's caching hint of the listing.
 *
 * @since 1.0.0
 * @category utils
 */
export const discoverWithHint = (
  client: McpClient,
  options: { readonly namespace: boolean; readonly prefix?: string | undefined }
): Effect.Effect<Discovered, McpRequestError> =>
  Effect.flatMap(listAllWithHint(client), ({ hint, tools }) => {
    const out: Array<McpTool.McpTool> = []
    const skipped: Array<string> = []
    for (const tool of tools) {
      const refusal = McpTool.checkSchema(tool.inputSchema)
      if (refusal === undefined) out.push(McpTool.fromTool(client.server, tool, options))
      else skipped.push(`MCP server ${client.server}: tool ${clipName(tool.name)} is skipped: ${refusal}`)
    }
    const discovered: Discovered = { tools: out, hint }
    if (skipped.length === 0) return Effect.succeed(discovered)
    const warnings = Effect.forEach(skipped, (line) => Effect.logWarning(line), { discard: true })
    return Effect.as(Effect.annotateLogs(warnings, "mcp.server", client.server), discovered)
  })

/**
 * Connects (with `connect`) and lists the server's tools as the model will see them (`discover`, named after the
 * server's tool prefix), both within `limit`: what the extension does for a server it has no tool list of, and
 * what a host does to show a server's tools. The client stays open in the caller's `Scope`.
 *
 * @since 1.0.0
 * @category utils
 */
export const connectAndDiscover = <E, R>(
  connect: Effect.Effect<McpClient, E, R>,
  server: McpServerConfig.McpServerConfig,
  options: { readonly namespace: boolean; readonly limit: Option.Option<Duration.Duration> }
): Effect.Effect<
  { readonly client: McpClient; readonly tools: ReadonlyArray<McpTool.McpTool>; readonly hint: CacheHint | undefined },
  E | McpRequestError | McpTimeoutError,
  R
> =>
  connect.pipe(
    Effect.flatMap((client) =>
      Effect.map(
        discoverWithHint(client, { namespace: options.namespace, prefix: McpServerConfig.toolPrefix(server) }),
        ({ hint, tools }) => ({ client, tools, hint })
      )
    ),
    McpError.within({ server: server.name, operation: "connect", limit: options.limit })
  )
