/**
 * A connection to an SDK server in this process, over `InMemoryTransport.createLinkedPair()` (tests, offline
 * examples): a fresh server from its factory for each connection; closing the scope closes both sides.
 *
 * @internal
 */
import { InMemoryTransport } from "@modelcontextprotocol/client"
import type { LoggingLevel } from "@modelcontextprotocol/client"
import type { Scrubber } from "@zett/agent"
import type * as McpClient from "@zett/mcp/McpClient"
import { McpConnectError } from "@zett/mcp/McpError"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import type * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as NodeMcpClient from "../NodeMcpClient.js"
import type { InMemoryServer } from "../NodeMcpClientFactory.js"
import * as Closing from "./closing.js"
import * as Errors from "./errors.js"
import * as SdkClient from "./sdkClient.js"
import * as ServerRequests from "./serverRequests.js"

/** @internal */
export interface Settings {
  readonly servers: Readonly<Record<string, () => InMemoryServer | Promise<InMemoryServer>>>
  readonly clientInfo: { readonly name: string; readonly version: string }
  readonly serverLogLevel: LoggingLevel | undefined
  readonly handlers: ServerRequests.Handlers
  readonly held: Scrubber.Secrets
  /** What a server's request made outside any call runs with (the factory's services). */
  readonly own: Context.Context<never>
}

/** @internal */
export const connect = (
  settings: Settings
): (server: McpServerConfig.McpServerConfig) => Effect.Effect<McpClient.McpClient, McpConnectError, Scope.Scope> =>
  Effect.fn("McpClientFactory.connect")(function*(server: McpServerConfig.McpServerConfig) {
    yield* Effect.annotateCurrentSpan({ "mcp.server": server.name, "network.transport": "inproc" })
    const makeServer = Object.hasOwn(settings.servers, server.name) ? settings.servers[server.name] : undefined
    if (makeServer === undefined) {
      return yield* new McpConnectError({
        server: server.name,
        reason: "Start",
        description: "no in-memory server of this name"
      })
    }
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    let sdkServer: InMemoryServer | undefined
    yield* Effect.addFinalizer(() =>
      Closing.closeWithin(async () => {
        // closing one side closes its peer
        await Closing.closeQuietly(clientSide)()
        await sdkServer?.close().catch(() => {})
      }, 2_000)
    )
    sdkServer = yield* Effect.tryPromise({
      try: async () => {
        const instance = await makeServer()
        await instance.connect(serverSide)
        return instance
      },
      catch: (cause) => Errors.connectError({ server: server.name, cause, prefix: "in-memory server failed" })
    })
    const scrubber = settings.held.extend(McpServerConfig.scrubberOf(server))
    const requests = yield* ServerRequests.ofConnection(settings.handlers, settings.own, server.name, scrubber)
    const probeMs = Duration.toMillis(SdkClient.defaultProbeTimeout)
    const client = SdkClient.newClient(
      settings.clientInfo,
      server,
      yield* Effect.context<never>(),
      scrubber,
      probeMs,
      requests
    )
    yield* SdkClient.connectClient(client, clientSide, server, scrubber, undefined)
    yield* SdkClient.askLogLevel(client, settings.serverLogLevel)
    const options = { server: server.name, scrubber, transport: "inproc", verdict: SdkClient.verdictOf(client) }
    return yield* NodeMcpClient.makeWith(client, options, requests)
  })
