/**
 * The MCP SDK's client factory: opens connections to MCP servers over stdio, Streamable HTTP and SSE (and in
 * memory, for tests). A connection lives in the `Scope` it was opened in: closing the scope
 * closes the transport (and, for stdio, ends the server's whole process group).
 *
 * The connects are cut by transport: stdio (internal/stdioConnect), HTTP with the SSE fallback
 * (internal/httpConnect), in memory (internal/inMemoryConnect); what they share is the SDK client's
 * (internal/sdkClient), and what each definition's server speaks is kept by the factory's era verdicts
 * (internal/eraVerdicts).
 *
 * @since 0.1.0
 */
import type * as KeyValueStore from "@effect/platform/KeyValueStore"
import type { LoggingLevel, Transport } from "@modelcontextprotocol/client"
import * as Scrubber from "@zett/agent/Scrubber"
import * as McpAuthSession from "@zett/mcp-auth/McpAuthSession"
import type * as McpClient from "@zett/mcp/McpClient"
import type { ConnectOptions } from "@zett/mcp/McpClientFactory"
import { McpClientFactory, of } from "@zett/mcp/McpClientFactory"
import type { McpConnectError } from "@zett/mcp/McpError"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import * as EraVerdicts from "./internal/eraVerdicts.js"
import * as Errors from "./internal/errors.js"
import * as HttpConnect from "./internal/httpConnect.js"
import * as InMemoryConnect from "./internal/inMemoryConnect.js"
import * as LocalFailure from "./internal/localFailure.js"
import * as SdkClient from "./internal/sdkClient.js"
import * as ServerRequests from "./internal/serverRequests.js"
import * as StdioConnect from "./internal/stdioConnect.js"
import { transportAttributes } from "./internal/telemetry.js"
import * as Turns from "./internal/turns.js"
import * as ProcessGroups from "./ProcessGroups.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * How long closing may take at each step (default 2 seconds). A stdio server gets this long to exit
   * after its stdin ends, then its process group is sent SIGTERM and gets this long again, then SIGKILL.
   * An HTTP session gets this long to be terminated (`DELETE`) before the transport is closed.
   */
  readonly closeTimeout?: Duration.DurationInput | undefined
  /** The `clientInfo` sent in `initialize` (default `{ name: "zett", version: "0.1.0" }`). */
  readonly clientInfo?: { readonly name: string; readonly version: string } | undefined
  /**
   * The largest message a server may send, in bytes (default 10 MB, the SDK's own limit for stdio): one line
   * of a stdio server, a JSON body or one event of a Streamable HTTP response. A larger message is dropped, and
   * the request it answered fails at once, saying that the result was too large; the connection goes on.
   */
  readonly maxMessageBytes?: number | undefined
  /**
   * The least severe of a server's own log messages (`notifications/message`) that it should send, asked with
   * `logging/setLevel` after `initialize` when the server supports logging. By default the server decides.
   * Whatever it sends goes to the Effect logger either way.
   */
  readonly serverLogLevel?: LoggingLevel | undefined
  /**
   * OAuth: when true, a server that needs a login runs it through the `McpAuthorization` hook found
   * in the layer's context (a host with a user); otherwise it is unavailable with the reason
   * `needs authorization: run zett auth login <server>`. A connect run with `McpAuthorization` in its own
   * context is interactive too (that is what `McpAuthorization.login` does). Default false.
   */
  readonly interactive?: boolean | undefined
  /** How many logins one connect may run before it gives up on a server that keeps refusing (default 2). */
  readonly maxAuthorizations?: number | undefined
  /**
   * How long a server gets to answer `server/discover`, the question that tells a server of the 2026-07-28
   * revision from one of the 2025 revisions (default 5 seconds). A stdio server that says nothing in that time
   * is taken for a 2025 one; an HTTP server's silence fails the connect.
   */
  readonly probeTimeout?: Duration.DurationInput | undefined
  /**
   * Where what each definition's server speaks is kept beyond this factory's life (under a digest of
   * `McpServerConfig.cacheKey`, 40 hex digits, whatever the server's name), for a host that runs as a new process each time (`zett` keeps them in
   * `~/.zett/protocols/` through `KeyValueStore.layerFileSystem`). Read once per definition when the factory knows
   * nothing of it, written when a connection settles on something new; a store that fails is passed over.
   */
  readonly verdictStore?: KeyValueStore.KeyValueStore | undefined
}

/**
 * The default of `Options.maxMessageBytes`: 10 MB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxMessageBytes = 10 * 1024 * 1024

/**
 * The SDK-backed factory: stdio servers run in a process group of their own (ended as a whole on close),
 * their stderr goes to the Effect logger at debug level; HTTP servers use Streamable HTTP and their session
 * is terminated before the transport closes. Secrets are unwrapped only where the transport is built. The
 * stdio servers' groups are registered with the `ProcessGroups` in context (`ProcessGroups.layer`: killed if
 * the host exits without closing its scopes; `ProcessGroups.layerNone`: left to their connections' scopes).
 *
 * Besides `ProcessGroups`, it reads from its context, once, services that are `Context.Reference`s, each with a
 * default that is right without it, so none of them is a requirement of its type:
 *
 * - `McpElicitation`, `McpSampling`, `McpRoots`: the handlers of servers' requests; a server is told the
 *   capabilities of those that say they are `offered` (the defaults, `none`, are not);
 * - `McpTokenStore` (`@zett/mcp-auth`): where OAuth tokens are kept (default: this process's store in memory);
 * - `Scrubber.HeldSecrets`: the secrets kept out of everything a server sends back (default: this process's);
 * - with `interactive`, `McpAuthorization` (`@zett/mcp-auth`): the host's login (default: none is offered).
 *
 * A server's request made outside any call runs with this context (internal/serverRequests).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options?: Options
): Effect.Effect<McpClientFactory["Type"], never, ProcessGroups.ProcessGroups> =>
  Effect.gen(function*() {
    const processGroups = yield* ProcessGroups.ProcessGroups
    const handlers = yield* ServerRequests.handlersInContext
    // what a server's request made outside any call runs with
    const own = yield* Effect.runtime<never>()
    // OAuth: the store in context (the process's own in memory unless one is provided), the host's hook when interactive
    const authSettings = yield* McpAuthSession.makeSettings({
      interactive: options?.interactive,
      maxAuthorizations: options?.maxAuthorizations,
      connectError: Errors.connectError
    })
    // connects that start together start one per turn of the event loop: this factory's gate
    const turns = yield* Turns.make
    const verdicts = EraVerdicts.make(options?.verdictStore)
    return of(
      connectWith({ settings: settingsOf(options), authSettings, handlers, own, processGroups, turns, verdicts })
    )
  })

const settingsOf = (options: Options | undefined): SdkClient.Settings => {
  const closeTimeout = Duration.decode(options?.closeTimeout ?? Duration.seconds(2))
  const maxMessageBytes = options?.maxMessageBytes ?? defaultMaxMessageBytes
  return {
    clientInfo: options?.clientInfo ?? SdkClient.defaultClientInfo,
    closeTimeout,
    closeMs: Duration.toMillis(closeTimeout),
    maxMessageBytes,
    tooLarge: LocalFailure.tooLarge(maxMessageBytes),
    probeMs: Duration.toMillis(Duration.decode(options?.probeTimeout ?? SdkClient.defaultProbeTimeout)),
    serverLogLevel: options?.serverLogLevel
  }
}

/** What the factory's connects are made with. */
interface Factory {
  readonly settings: SdkClient.Settings
  readonly authSettings: McpAuthSession.Settings
  readonly handlers: ServerRequests.Handlers
  readonly own: Runtime.Runtime<never>
  readonly processGroups: ProcessGroups.ProcessGroups["Type"]
  readonly turns: Turns.Turns
  readonly verdicts: EraVerdicts.EraVerdicts
}

const connectWith = (
  factory: Factory
): (server: McpServerConfig.McpServerConfig, connectOptions?: ConnectOptions | undefined) => Effect.Effect<
  McpClient.McpClient,
  McpConnectError,
  Scope.Scope
> =>
  Effect.fn("McpClientFactory.connect")(function*(
    server: McpServerConfig.McpServerConfig,
    connectOptions?: ConnectOptions | undefined
  ) {
    // connects that start together start one per turn of the event loop, so open connections are read between
    yield* factory.turns.take
    yield* Effect.annotateCurrentSpan(transportAttributes(server))
    const runtime = yield* Effect.runtime<never>()
    // the definition's secrets and every credential the process holds, now or later (a login's tokens)
    const scrubber = factory.authSettings.held.extend(McpServerConfig.scrubberOf(server))
    const requests = yield* ServerRequests.ofConnection(factory.handlers, factory.own, server.name, scrubber)
    const { clientInfo, probeMs } = factory.settings
    const fresh = () => SdkClient.newClient(clientInfo, server, runtime, scrubber, probeMs, requests)
    const given = connectOptions?.verdict
    return yield* server._tag === "McpStdioServer"
      ? StdioConnect.connect(factory.settings, factory.processGroups, factory.verdicts, {
        server,
        scrubber,
        requests,
        fresh
      }, given)
      : HttpConnect.connect(factory.settings, factory.authSettings, factory.verdicts, {
        server,
        scrubber,
        requests,
        fresh
      }, given)
  })

/**
 * The SDK-backed factory (stdio and Streamable HTTP). Stdio servers are spawned with `node:child_process` and
 * their pipes used as Node streams: through `@effect/platform`'s `CommandExecutor` streams, a message cost about
 * twice what it costs the SDK's own transport (internal/commandTransport.ts). The exit and signal hooks of
 * `ProcessGroups.layer` live as long as this layer; `make` with `ProcessGroups.layerNone` goes without them.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<McpClientFactory> =>
  Layer.effect(McpClientFactory, make(options)).pipe(Layer.provide(ProcessGroups.layer))

/**
 * An in-process server for `layerInMemory`: a low-level `Server` or a high-level `McpServer` of either SDK line
 * (`@modelcontextprotocol/server` 2.x or `@modelcontextprotocol/sdk` 1.x). Only its wire is shared with the
 * client, so the two lines meet as they would over a pipe.
 *
 * @since 0.1.0
 * @category models
 */
export interface InMemoryServer {
  connect(transport: Transport): Promise<void>
  close(): Promise<void>
}

/**
 * A factory that connects to SDK servers in this process over `InMemoryTransport.createLinkedPair()`, by server
 * name. Each connection gets a fresh server from its factory; closing the scope closes both sides.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeInMemory = (
  servers: Readonly<Record<string, () => InMemoryServer | Promise<InMemoryServer>>>,
  options?: Pick<Options, "clientInfo" | "serverLogLevel">
): Effect.Effect<McpClientFactory["Type"]> =>
  Effect.all([ServerRequests.handlersInContext, Scrubber.HeldSecrets, Effect.runtime<never>()]).pipe(
    Effect.map(([handlers, held, own]) =>
      of(InMemoryConnect.connect({
        servers,
        clientInfo: options?.clientInfo ?? SdkClient.defaultClientInfo,
        serverLogLevel: options?.serverLogLevel,
        handlers,
        held,
        own
      }))
    )
  )

/**
 * A factory backed by in-process SDK servers (tests, offline examples).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInMemory = (
  servers: Readonly<Record<string, () => InMemoryServer | Promise<InMemoryServer>>>,
  options?: Pick<Options, "clientInfo" | "serverLogLevel">
): Layer.Layer<McpClientFactory> => Layer.effect(McpClientFactory, makeInMemory(servers, options))
