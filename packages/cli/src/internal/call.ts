/**
 * `zett call`: one tool of a configured server, its result printed as the model would get it.
 *
 * @internal
 */
import type { McpClient, McpTool } from "@zett/mcp"
import * as McpError from "@zett/mcp/McpError"
import * as McpExtension from "@zett/mcp/McpExtension"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as McpTask from "@zett/mcp/McpTask"
import * as McpToolResult from "@zett/mcp/McpToolResult"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Discovery from "../Discovery.js"
import * as Output from "../Output.js"
import * as Progress from "../Progress.js"
import { loadServers, nameList, offerLogins, resolveClientFactory, samplingModel } from "./common.js"
import { inert, inertJson } from "./inert.js"
import type * as Options from "./options.js"
import { callLimit, connectLimit } from "./options.js"
import * as TaskStatus from "./taskStatus.js"
import * as ToolArgs from "./toolArgs.js"

export const handler = (options: Options.CallOptions) =>
  Effect.gen(function*() {
    const args = Option.getOrElse(options.arguments, (): Record<string, unknown> => ({}))
    const clientFactory = yield* resolveClientFactory({
      serverRequests: { yesDefaults: options.yesDefaults, sampling: yield* samplingModel },
      serverLogLevel: options.serverLogLevel,
      protocol: options.protocol
    })
    const { adHoc, file, snapshot } = yield* loadServers(options)
    // `<server>__<tool>`: only the servers the name can belong to are asked
    const likely = snapshot.servers.filter((server) =>
      options.name.startsWith(`${McpServerConfig.toolPrefix(server)}__`)
    )
    const candidates = likely.length > 0 ? likely : snapshot.servers
    if (candidates.length === 0) {
      return yield* new CliError.UsageError({ reason: "NotFound", message: `no MCP servers are configured in ${file}` })
    }
    yield* offerLogins(clientFactory, Effect.succeed(candidates))
    const connectTimeout = connectLimit(options.connectTimeout)
    const found: ReadonlyArray<Found> = yield* Effect.forEach(
      candidates,
      (server) =>
        Effect.either(Discovery.connectAndList(clientFactory, server, { connectTimeout })).pipe(
          Effect.map((result) => ({ server, result }))
        ),
      { concurrency: Option.getOrElse(options.discoveryConcurrency, () => McpExtension.defaultDiscoveryConcurrency) }
    )
    for (const { result, server } of found) {
      if (result._tag === "Left") continue
      // the one server given on the command line may be asked by its own tool names too
      const tool = result.right.tools.find((tool) => tool.name === options.name) ??
        (adHoc ? result.right.tools.find((tool) => tool.remoteName === options.name) : undefined)
      if (tool !== undefined) return yield* call(options, server, result.right.client, tool, args)
    }
    return yield* notFound(options.name, found)
  }).pipe(Effect.scoped)

/** A candidate server, listed or not. */
interface Found {
  readonly server: McpServerConfig.McpServerConfig
  readonly result: Either.Either<
    { readonly client: McpClient.McpClient; readonly tools: ReadonlyArray<McpTool.McpTool> },
    McpError.McpConnectError | McpError.McpRequestError | McpError.McpTimeoutError
  >
}

/** The call, its result printed as the model would get it (or, detached, the task it runs as). */
const call = (
  options: Options.CallOptions,
  server: McpServerConfig.McpServerConfig,
  client: McpClient.McpClient,
  tool: McpTool.McpTool,
  args: Record<string, unknown>
) =>
  Effect.gen(function*() {
    const built = ToolArgs.build(options.name, tool.parameters, options.arg, args)
    if (Either.isLeft(built)) {
      return yield* new CliError.UsageError({
        reason: "InvalidArgument",
        message: built.left
      })
    }
    const taskLine = yield* TaskStatus.reporter(options.name)
    // a spinner on a terminal, with the tool's progress as a bar once it reports, and the status of the task the
    // server may answer with; Ctrl-C interrupts the call, which cancels that task on the server
    const response = yield* Progress.withSpinner(`Calling ${options.name}…`, (status) =>
      client.callWithin(tool.remoteName, built.right, {
        server: tool.server,
        timeout: callLimit(options.callTimeout, server),
        // as the extension does by default: progress starts the time afresh, for an hour at most
        resetOnProgress: true,
        maxTimeout: Option.some(Duration.hours(1)),
        onProgress: (report) =>
          Effect.runSync(status.set(`${options.name} ${Progress.bar(report)}`)),
        onTask: (task) => taskLine(status, task),
        ...(options.detach ? { task: "handle" as const } : {})
      }))
    const detached = options.detach ? McpTask.fromResult(response) : Option.none()
    if (Option.isSome(detached)) {
      const { server: name, status, taskId } = detached.value
      yield* Output.errorLine(inert(`zett: ${options.name} runs as a task: zett task get ${name} ${taskId}`))
      return yield* Output.line(inertJson(JSON.stringify({ server: name, taskId, status }, null, 2)))
    }
    const outcome = McpToolResult.toResult(response, McpToolResult.ErrorTextPolicy.verbose)
    if (outcome._tag === "Failure") {
      return yield* new CliError.RunFailed({
        reason: "Failed",
        message: `${options.name} failed: ${outcome.message}`
      })
    }
    // the same JSON value, with DEL and C1 controls escaped too (JSON.stringify escapes the C0 ones)
    return yield* Output.line(inertJson(JSON.stringify(outcome.value, null, 2) ?? "null"))
  })

/** No candidate has the tool: the servers that could not be asked, or the names there are. */
const notFound = (name: string, found: ReadonlyArray<Found>) => {
  const down = found.flatMap(({ result, server }) =>
    result._tag === "Left" ? [{ server: server.name, reason: McpError.reasonOf(result.left) }] : []
  )
  if (down.length > 0) {
    return new CliError.RunFailed({
      reason: "Unavailable",
      message: `cannot call ${name}: unavailable MCP ${down.length === 1 ? "server" : "servers"}: ${
        McpExtension.summarizeUnavailable(down)
      }`
    })
  }
  const names = found.flatMap(({ result }) => (result._tag === "Right"
    ? result.right.tools.map((t) => t.name)
    : [])
  )
  return new CliError.UsageError({
    reason: "NotFound",
    message: `no tool named ${name}; available: ${nameList(names)}`
  })
}
