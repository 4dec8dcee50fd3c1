/**
 * An `McpClient` over a connected SDK `Client`: requests scrubbed and traced, server requests answered in the
 * call that caused them, and calls timed by one deadline timer per connection. Every request honours
 * interruption: interrupting the fiber aborts the SDK request, which sends `notifications/cancelled`.
 *
 * The requests are built by concern: `tools/list` (internal/toolList), `tools/call` (internal/toolCall),
 * any other request (internal/request), skills (internal/skills), notifications (internal/notifications), and
 * logins (internal/logins).
 *
 * @since 0.1.0
 */
import type { CallToolResult, Client } from "@modelcontextprotocol/client"
import * as Scrubber from "@zett/agent/Scrubber"
import type * as McpAuthSession from "@zett/mcp-auth/McpAuthSession"
import * as McpClient from "@zett/mcp/McpClient"
import type { McpRequestError } from "@zett/mcp/McpError"
import type * as McpTask from "@zett/mcp/McpTask"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Connection from "./internal/connection.js"
import * as Deadlines from "./internal/deadlines.js"
import * as ListedTools from "./internal/listedTools.js"
import * as Logins from "./internal/logins.js"
import * as Notifications from "./internal/notifications.js"
import * as Request from "./internal/request.js"
import type * as ServerRequests from "./internal/serverRequests.js"
import * as Skills from "./internal/skills.js"
import * as Subscriptions from "./internal/subscriptions.js"
import * as Tasks from "./internal/tasks.js"
import * as ToolCall from "./internal/toolCall.js"
import * as ToolList from "./internal/toolList.js"

/**
 * The longest timeout `setTimeout` accepts (about 24.8 days). The SDK arms a 60 s timer on every request
 * unless given a `timeout`; anything larger than this would overflow and fire at once.
 *
 * @since 0.1.0
 * @category constants
 */
export const sdkTimeoutDisabled: number = Connection.sdkTimeoutDisabled

/**
 * Builds an `McpClient` from a connected SDK `Client`. Everything the server sends back (tool definitions,
 * results, error reasons) passes through `scrubber`, made from the server's header or environment values:
 * a server that repeats its credentials, in any form, does not hand them on. Closing the client stays with
 * whoever connected it.
 *
 * Each request runs in a span named after OpenTelemetry's MCP conventions (`tools/list`, `tools/call {tool}`,
 * attributes `mcp.method.name`, `mcp.session.id`, `gen_ai.tool.name`, and `mcp.server`) whenever a tracer is installed; with Effect's built-in tracer, which exports nothing, the
 * span is skipped to keep the warm call path thin.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSdkClient = (client: Client, options: SdkClientOptions): McpClient.McpClient =>
  build(client, options, undefined)

/**
 * @since 0.1.0
 * @category models
 */
export interface SdkClientOptions {
  readonly server: string
  readonly scrubber?: Scrubber.Scrubber | undefined
  readonly pid?: number | undefined
  /** How the connection reaches the server (`stdio`, `streamable-http`, `sse`, `inproc`). */
  readonly transport?: string | undefined
  /** What the connect found out about the server's revisions. */
  readonly verdict?: McpClient.Verdict | undefined
  /** A login for a request that needs one (a host with a user): the request is then sent again. */
  readonly reauthorize?: McpAuthSession.Reauthorize | undefined
}

/**
 * `fromSdkClient`, with one timer for the connection in the current `Scope` (the connection's): `callWithin`
 * then times a call by a deadline that the timer watches, instead of racing a fiber against each call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  client: Client,
  options: SdkClientOptions
): Effect.Effect<McpClient.McpClient, never, Scope.Scope> => makeWith(client, options, undefined)

/**
 * `make`, for a client on which the connection's server-request handlers are installed: each call records the
 * fiber it runs in, where a server's request during it runs (internal/serverRequests).
 *
 * @internal
 */
export const makeWith = (
  client: Client,
  options: SdkClientOptions,
  requests: ServerRequests.ServerRequests | undefined
): Effect.Effect<McpClient.McpClient, never, Scope.Scope> =>
  Effect.map(Deadlines.make, (deadlines) => build(client, options, deadlines, requests))

const build = (
  client: Client,
  options: SdkClientOptions,
  deadlines: Deadlines.Deadlines | undefined,
  requests?: ServerRequests.ServerRequests | undefined
): McpClient.McpClient => {
  const connection: Connection.Connection = {
    client,
    server: options.server,
    scrubber: options.scrubber ?? Scrubber.none
  }
  const server = connection.server
  const outputs = new ListedTools.ListedTools(
    client.getProtocolEra() === "modern" && options.transport === "streamable-http"
  )
  Notifications.keepNotificationOrder(client)
  const listing = ToolList.make(connection, outputs)
  // a task's input requests are answered as the same requests during a call are (internal/serverRequests)
  const answer: Tasks.Answer | undefined = requests === undefined
    ? undefined
    : (method, params, signal) => requests.answer(method, params, signal)
  const { callTool, callWithin } = ToolCall.make(connection, outputs, listing, deadlines, answer)
  const byId = Tasks.make(connection, answer, undefined)
  // by id (`McpClient.tasks`), outside any call: a task's input request runs in the context of the wait for it
  const tasks: McpTask.Driver = requests === undefined
    ? byId
    : { ...byId, answer: (taskId, input) => requests.track(byId.answer(taskId, input)) }
  const request = Request.make(connection)
  const skills = Skills.make(connection)
  const reauthorize = options.reauthorize
  // the deadline of a call is its own attempt's: a login between two attempts is the user's time
  const logins = reauthorize === undefined
    ? undefined
    : (method: string) => Logins.withLogins(reauthorize, server, method)
  const around = aroundCalls(requests, logins?.("tools/call"))
  return McpClient.make({
    server,
    pid: options.pid,
    protocolVersion: client.getNegotiatedProtocolVersion(),
    transport: options.transport,
    verdict: options.verdict,
    instructions: client.getInstructions(),
    listTools: logins === undefined ? listing.listTools : (cursor) => logins("tools/list")(listing.listTools(cursor)),
    // every argument is passed on, whatever `callTool` takes
    callTool: around === undefined ? callTool : (name, args, options) => around(callTool(name, args, options)),
    callWithin: around === undefined || callWithin === undefined
      ? callWithin
      : (name, args, limits) => around(callWithin(name, args, limits)),
    request: logins === undefined ? request : (method, params) => logins(method)(request(method, params)),
    notifications: Notifications.notificationsOf(client, server, connection.scrubber),
    onToolListChanged: Notifications.toolListChanges(client),
    tasks: logins === undefined ? tasks : {
      get: (taskId) => logins("tasks/get")(tasks.get(taskId)),
      update: (taskId, responses) => logins("tasks/update")(tasks.update(taskId, responses)),
      cancel: (taskId) => logins("tasks/cancel")(tasks.cancel(taskId)),
      answer: tasks.answer
    },
    skills: logins === undefined ? skills : {
      list: logins("skills/list")(skills.list),
      get: (uri) => logins("skills/get")(skills.get(uri)),
      read: (skill, path) => logins("resources/read")(skills.read(skill, path))
    },
    // on the 2025 revisions, the core's way: list changes come unasked, resources are subscribed one by one
    ...(client.getProtocolEra() === "modern"
      ? { listen: Subscriptions.make(client, server, Connection.requestError(connection, "subscriptions/listen")) }
      : {})
  })
}

type Around = <E>(
  self: Effect.Effect<CallToolResult, McpRequestError | E>
) => Effect.Effect<CallToolResult, McpRequestError | E>

/**
 * What every call goes through besides the call itself, the same for `callTool` and `callWithin`: the tracker of
 * server requests (one during a call runs as part of it: internal/serverRequests), then logins. None for a
 * connection with neither.
 */
const aroundCalls = (
  requests: ServerRequests.ServerRequests | undefined,
  logins: Around | undefined
): Around | undefined =>
  requests === undefined
    ? logins
    : logins === undefined
    ? requests.track
    : (self) => logins(requests.track(self))
