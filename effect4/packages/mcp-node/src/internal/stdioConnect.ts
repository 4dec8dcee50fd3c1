/**
 * A connection to a stdio server: the process started in a process group of its own (internal/commandTransport),
 * its stderr to the Effect logger at debug level, a server that exits when asked `server/discover` started again
 * on the 2025 revisions.
 *
 * @internal
 */
import type { PriorDiscovery } from "@modelcontextprotocol/client"
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio"
import type * as McpClient from "@zett/mcp/McpClient"
import { McpConnectError } from "@zett/mcp/McpError"
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import type * as PlatformError from "effect/PlatformError"
import * as Predicate from "effect/Predicate"
import type * as Scope from "effect/Scope"
import * as NodeMcpClient from "../NodeMcpClient.js"
import type * as ProcessGroups from "../ProcessGroups.js"
import * as CommandTransport from "./commandTransport.js"
import type * as EraVerdicts from "./eraVerdicts.js"
import * as GuardedTransport from "./guardedTransport.js"
import * as SdkClient from "./sdkClient.js"

/** A server that could not be started (no such command, a missing working directory) says so, with the errno. */
const startFailure = (server: McpServerConfig.McpStdioServer, error: PlatformError.PlatformError): McpConnectError => {
  const reason = error.reason
  const system = reason._tag !== "BadArgument"
  const errno = system && Predicate.hasProperty(reason.cause, "code") ? reason.cause.code : undefined
  const code = typeof errno === "string" ? errno : system ? reason._tag : "unknown error"
  const where = server.cwd === undefined ? "" : ` in ${server.cwd}`
  return new McpConnectError({
    server: server.name,
    reason: "Start",
    description: `cannot start ${server.command}${where} (${code})`
  })
}

/** A failed attempt, and whether the server exited when asked `server/discover` (then it is started again). */
interface Failed {
  readonly error: McpConnectError
  readonly exitedOnProbe: boolean
}

/** @internal */
export const connect = (
  settings: SdkClient.Settings,
  processGroups: ProcessGroups.ProcessGroups["Service"],
  verdicts: EraVerdicts.EraVerdicts,
  connecting: SdkClient.Attempt<McpServerConfig.McpStdioServer>,
  given: McpClient.Verdict | undefined
): Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope> =>
  verdicts.withVerdict(connecting.server, given, (prior) =>
    SdkClient.attempt(
      Effect.catchIf(
        connectOnce(settings, processGroups, connecting, prior),
        (failure) => failure.exitedOnProbe,
        // Some servers of the 2025 revisions exit on any request before `initialize`: such a one is started
        // again and spoken to the 2025 way, and the verdict kept, so that it is started once from then on
        () =>
          Effect.tap(SdkClient.attempt(connectOnce(settings, processGroups, connecting, { kind: "legacy" })), () =>
            Effect.logDebug(
              `MCP server ${connecting.server.name}: it exited when asked server/discover; started again on the 2025 revisions`
            ))
      ).pipe(Effect.mapError((failure) =>
        failure.error
      ))
    ))

const connectOnce = Effect.fnUntraced(function*(
  settings: SdkClient.Settings,
  processGroups: ProcessGroups.ProcessGroups["Service"],
  connecting: SdkClient.Attempt<McpServerConfig.McpStdioServer>,
  prior: PriorDiscovery | undefined
) {
  const { scrubber, server } = connecting
  const client = connecting.fresh()
  const annotations = { "mcp.server": server.name, "mcp.stream": "stderr" }
  // the process is started in the connection's scope, whose close runs the transport's close ladder
  const stdio = yield* CommandTransport.make({
    name: server.name,
    command: server.command,
    args: server.args,
    env: { ...getDefaultEnvironment(), ...SdkClient.unwrapAll(server.env) },
    cwd: server.cwd,
    closeTimeout: settings.closeTimeout,
    maxMessageBytes: settings.maxMessageBytes,
    processGroups,
    // the dropped line's id was never read: every request still waiting may have been the one it answered
    onOversized: () => guard.fail("all", settings.tooLarge),
    onStderrLine: (line, truncated) =>
      Effect.annotateLogs(
        Effect.logDebug(
          truncated
            ? `${scrubber.scrubTruncated(line)} … (line cut at ${line.length} characters)`
            : scrubber.scrub(line)
        ),
        annotations
      )
  }).pipe(
    Effect.mapError((error): Failed => ({ error: startFailure(server, error), exitedOnProbe: false }))
  )
  const guard = new GuardedTransport.GuardedTransport(stdio, { pid: stdio.pid })
  yield* SdkClient.connectClient(client, guard, server, scrubber, prior, stdio).pipe(
    Effect.mapError((error): Failed => ({
      error,
      exitedOnProbe: prior === undefined && guard.probed && !guard.initialized && stdio.exitStatus !== undefined &&
        server.protocol !== "2026-07-28"
    }))
  )
  guard.connected()
  yield* SdkClient.askLogLevel(client, settings.serverLogLevel)
  const verdict = SdkClient.verdictOf(client)
  const options = { server: server.name, scrubber, pid: stdio.pid, transport: "stdio", verdict }
  return { client: yield* NodeMcpClient.makeWith(client, options, connecting.requests), verdict }
})
