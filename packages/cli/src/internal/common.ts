/**
 * What the commands' handlers share: the configuration file, discovery with a progress line, the one-line
 * failure for unavailable servers, and an agent run.
 *
 * @internal
 */
import type * as Prompt from "@effect/cli/Prompt"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Path from "@effect/platform/Path"
import type { Extension } from "@zett/agent"
import * as Agent from "@zett/agent/Agent"
import * as Model from "@zett/agent/Model"
import * as ToolGuidelines from "@zett/agent/ToolGuidelines"
import type { McpServers } from "@zett/mcp"
import * as McpAuthorization from "@zett/mcp-auth/McpAuthorization"
import * as McpTokenStore from "@zett/mcp-auth/McpTokenStore"
import * as McpConfiguration from "@zett/mcp-config/McpConfiguration"
import type { ProcessGroups } from "@zett/mcp-node"
import * as NodeMcpClientFactory from "@zett/mcp-node/NodeMcpClientFactory"
import * as NodeMcpExtension from "@zett/mcp-node/NodeMcpExtension"
import { McpRedis, RedisToolCache } from "@zett/mcp-redis"
import * as McpClientFactory from "@zett/mcp/McpClientFactory"
import * as McpExtension from "@zett/mcp/McpExtension"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as McpToolCache from "@zett/mcp/McpToolCache"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Discovery from "../Discovery.js"
import * as EnvironmentModel from "../EnvironmentModel.js"
import * as Output from "../Output.js"
import * as Progress from "../Progress.js"
import * as Transcript from "../Transcript.js"
import * as AdHoc from "./adhoc.js"
import { inert } from "./inert.js"
import * as Inputs from "./inputs.js"
import { loopbackHook } from "./loopback.js"
import type * as Options from "./options.js"
import * as ServerRequests from "./serverRequests.js"

const fileKinds: Partial<Record<FileSystem.File.Type, string>> = {
  Directory: "a directory",
  FIFO: "a FIFO",
  CharacterDevice: "a device",
  BlockDevice: "a device",
  Socket: "a socket"
}

/** The default file may be missing (no servers); a file named with `--config` must exist and be a file. */
export const resolveConfigPath = (path: Option.Option<string>) =>
  Option.match(path, {
    onNone: () => McpConfiguration.defaultPath,
    onSome: (file) =>
      Effect.gen(function*() {
        const absolute = (yield* Path.Path).resolve(file)
        const fs = yield* FileSystem.FileSystem
        const info = yield* Effect.option(fs.stat(absolute))
        if (Option.isNone(info)) {
          return yield* new CliError.UsageError({
            reason: "NotFound",
            message: `${absolute}: no such configuration file`
          })
        }
        // a directory, a FIFO or a device (/dev/zero) would hang or fail the reader in odd ways
        if (info.value.type !== "File") {
          return yield* new CliError.UsageError({
            reason: "InvalidArgument",
            message: `${absolute}: not a regular file (${
              fileKinds[info.value.type] ?? "not a file"
            }); --config names an mcp.json`
          })
        }
        return absolute
      })
  })

/** The files named with `--config` (each must exist), or the default file. */
export const resolveConfigPaths = (paths: ReadonlyArray<string>) =>
  paths.length === 0
    ? Effect.map(McpConfiguration.defaultPath, (path) => [path])
    : Effect.forEach(paths, (path) => resolveConfigPath(Option.some(path)))

/** Loads the files in order (`--config` repeated): a later file wins on a server name, with a warning. */
export const loadConfiguration = (paths: ReadonlyArray<string>, options: { readonly lenient: boolean }) =>
  Effect.gen(function*() {
    const files = yield* resolveConfigPaths(paths)
    const snapshots = yield* Effect.forEach(
      files,
      (file) => McpConfiguration.fromFile(file, { strict: !options.lenient })
    )
    const snapshot = snapshots.length === 1 ? snapshots[0]! : yield* McpConfiguration.combine(snapshots)
    const fs = yield* FileSystem.FileSystem
    const exists = yield* Effect.exists(files, (file) => Effect.orElseSucceed(fs.exists(file), () => false))
    return { file: files.join(", "), exists, snapshot, adHoc: false }
  }).pipe(Inputs.provide)

/**
 * The servers a command uses: the one given on the command line (`--url`, or a command after `--`), else those
 * of the configuration files.
 */
export const loadServers = (options: AdHoc.Options & { readonly lenient: boolean }) =>
  Effect.flatMap(
    AdHoc.server(options),
    Option.match({
      onNone: () => loadConfiguration(options.config, options),
      onSome: (server) =>
        Effect.succeed({
          file: AdHoc.source,
          exists: true,
          snapshot: { path: undefined, servers: [server], skipped: [] } satisfies McpServers.Snapshot,
          adHoc: true
        })
    })
  )

/** At most a few names, and how many more. */
const someNames = (names: ReadonlyArray<string>, max = 3) =>
  names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")} and ${names.length - max} more`

export const discoverWithProgress = (
  factory: McpClientFactory.McpClientFactory["Type"],
  servers: ReadonlyArray<McpServerConfig.McpServerConfig>,
  limit: Option.Option<Duration.Duration>,
  concurrency?: number | undefined
): Effect.Effect<ReadonlyArray<Discovery.ServerReport>, never, Output.Output> =>
  servers.length === 0 ? Effect.succeed([]) : Progress.withSpinner(
    `Discovering ${servers.length} MCP ${servers.length === 1 ? "server" : "servers"}…`,
    (status) => {
      const pending = new Set(servers.map((server) => server.name))
      return Discovery.discoverAll(factory, servers, {
        connectTimeout: limit,
        concurrency,
        onDone: (report) =>
          Effect.suspend(() => {
            pending.delete(report.server)
            const done = servers.length - pending.size
            return status.set(
              `Discovering MCP servers… ${done}/${servers.length} done, waiting for ${someNames([...pending])}`
            )
          })
      })
    }
  )

/** Names in a usage message: the first 20 (`…` after them when there are more), or `none`. */
export const nameList = (names: ReadonlyArray<string>) =>
  names.length === 0 ? "none" : names.slice(0, 20).join(", ") + (names.length > 20 ? ", …" : "")

/** Exit 1 when a server was unavailable, named in one line (a discovery report, or a listing of `zett resources`). */
export const unavailableFailure = (
  reports: ReadonlyArray<{ readonly server: string; readonly status: string; readonly reason?: string | undefined }>
) => {
  const down = reports.filter((report) => report.status === "unavailable")
  if (down.length === 0) return Effect.void
  return Effect.fail(
    new CliError.RunFailed({
      reason: "Unavailable",
      message: `${down.length} of ${reports.length} MCP ${reports.length === 1 ? "server" : "servers"} ` +
        `unavailable: ${
          McpExtension.summarizeUnavailable(
            down.map((report) => ({ server: report.server, reason: report.reason ?? "unknown reason" }))
          )
        }`
    })
  )
}

export const noModel = new CliError.UsageError({
  reason: "NoModel",
  message: `no model configured: set ${EnvironmentModel.variable} (for example openai:gpt-4.1-mini) and the ` +
    "provider's API key; `zett demo` runs offline with a scripted model"
})

/** zett's tokens: the files under `~/.zett/auth/`, which `zett auth login` writes. */
export const tokenStore: Effect.Effect<
  McpTokenStore.McpTokenStore["Type"],
  never,
  FileSystem.FileSystem | Path.Path
> = McpTokenStore.makeFile()

/**
 * What each server speaks, kept across runs (each run is a new process): the files under `~/.zett/protocols/`,
 * one per server definition. A folder that cannot be made leaves zett asking every server, as without it.
 */
const verdictStore: Effect.Effect<KeyValueStore.KeyValueStore | undefined, never, FileSystem.FileSystem | Path.Path> =
  Effect
    .gen(function*() {
      const path = yield* Path.Path
      const directory = path.join(yield* McpConfiguration.homeDirectory, ".zett", "protocols")
      return yield* Effect.provide(KeyValueStore.KeyValueStore, KeyValueStore.layerFileSystem(directory))
    }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * The client factory in context (an app's or a test's), else the SDK-backed one with the tokens of `zett auth
 * login` (a server that needs a login is unavailable with `needs authorization: run zett auth login <server>`);
 * with `serverRequests`, it answers servers' elicitation (and sampling, when a model is there) on the terminal.
 * A factory in context is used as it is: `serverLogLevel` is the default factory's option.
 */
export const resolveClientFactory = (settings: {
  readonly serverRequests?: ServerRequests.Settings | undefined
  /** `--server-log-level`: asked of every server that supports logging, right after it is connected. */
  readonly serverLogLevel?: Option.Option<Options.ServerLogLevel> | undefined
  /** `--protocol`: the revision every server is spoken to in, whatever its definition says. */
  readonly protocol?: Option.Option<McpServerConfig.Protocol> | undefined
} = {}): Effect.Effect<
  McpClientFactory.McpClientFactory["Type"],
  never,
  FileSystem.FileSystem | Path.Path | Prompt.Prompt.Environment | Output.Output | ProcessGroups.ProcessGroups
> =>
  Effect.serviceOption(McpClientFactory.McpClientFactory).pipe(
    Effect.flatMap(Option.match({
      onNone: () =>
        Effect.flatMap(Effect.zip(tokenStore, verdictStore), ([store, verdicts]) => {
          const serverLogLevel = Option.getOrUndefined(settings.serverLogLevel ?? Option.none())
          const make = NodeMcpClientFactory.make({
            ...(serverLogLevel === undefined ? {} : { serverLogLevel }),
            ...(verdicts !== undefined ? { verdictStore: verdicts } : {})
          }).pipe(Effect.provideService(McpTokenStore.McpTokenStore, store))
          return settings.serverRequests === undefined
            ? make
            : Effect.provide(make, ServerRequests.layer(settings.serverRequests))
        }),
      onSome: Effect.succeed
    })),
    Effect.map((factory) => pinnedTo(factory, Option.getOrUndefined(settings.protocol ?? Option.none())))
  )

/**
 * The factory with every definition's `protocol` replaced by `protocol` (`--protocol`); a cached list's verdict,
 * found under the definition as written, is not given to a connect that asks another way.
 */
const pinnedTo = (
  factory: McpClientFactory.McpClientFactory["Type"],
  protocol: McpServerConfig.Protocol | undefined
): McpClientFactory.McpClientFactory["Type"] =>
  protocol === undefined
    ? factory
    : McpClientFactory.of((server) => factory.connect(McpServerConfig.withProtocol(server, protocol)))

/**
 * The model that answers servers' sampling requests outside an agent (`zett tools`, `zett call`): the one in
 * context, or the one `ZETT_MODEL` names, loaded only when a request comes; `undefined` when there is none.
 */
export const samplingModel: Effect.Effect<Layer.Layer<Model.Model, unknown> | undefined> = Effect.gen(function*() {
  const given = yield* givenModel
  if (Option.isSome(given)) return given.value
  const named = yield* Config.option(Config.string(EnvironmentModel.variable)).pipe(
    Effect.orElseSucceed(() => Option.none<string>())
  )
  if (Option.isNone(named) || named.value.trim() === "") return undefined
  return Layer.unwrapEffect(
    Effect.flatMap(
      EnvironmentModel.fromEnvironment,
      (model) => Option.isSome(model) ? Effect.succeed(model.value.layer) : Effect.dieMessage("no model configured")
    )
  )
})

/**
 * On a terminal (standard input and standard error both), logs in to every configured server that needs an
 * OAuth login before `call` or `run` uses it, with the loopback listener of `zett auth login`; a login that fails
 * leaves its server unavailable (`needs authorization: ...`). Elsewhere nothing waits for a browser.
 */
export const offerLogins = <E, R>(
  factory: McpClientFactory.McpClientFactory["Type"],
  configured: Effect.Effect<ReadonlyArray<McpServerConfig.McpServerConfig>, E, R>
) =>
  Effect.gen(function*() {
    const output = yield* Output.Output
    if (!output.interactive || process.stdin.isTTY !== true) return
    const servers = yield* configured
    const store = yield* tokenStore
    for (const server of servers) {
      if (server._tag !== "McpHttpServer" || server.auth === undefined) continue
      const status = yield* Effect.orElseSucceed(
        McpAuthorization.status(server).pipe(Effect.provideService(McpTokenStore.McpTokenStore, store)),
        (): McpAuthorization.Status => ({ _tag: "NoAuth" })
      )
      if (status._tag !== "NeedsLogin") continue
      yield* Output.errorLine(`${server.name} needs an OAuth login.`)
      yield* McpAuthorization.login(server).pipe(
        Effect.provideService(McpClientFactory.McpClientFactory, factory),
        Effect.provideService(McpTokenStore.McpTokenStore, store),
        Effect.provideServiceEffect(
          McpAuthorization.McpAuthorization,
          loopbackHook({ port: Option.none(), timeout: Duration.minutes(5), browser: true, output })
        ),
        Effect.matchEffect({
          onFailure: (error) => Output.errorLine(inert(`cannot log in to ${server.name}: ${error.message}`)),
          onSuccess: () => Output.errorLine(`${server.name}: authorized.`)
        })
      )
    }
  })

/** The model in context (an app's or a test's), if any. */
export const givenModel: Effect.Effect<Option.Option<Layer.Layer<Model.Model>>> = Effect.map(
  Effect.serviceOption(Model.Model),
  Option.map((model) => Layer.succeed(Model.Model, model))
)

/** The model in context, else the one the environment names. */
export const modelLayer = Effect.flatMap(givenModel, (given) =>
  Option.isSome(given)
    ? Effect.succeed<Option.Option<Layer.Layer<Model.Model, unknown>>>(given)
    : Effect.map(EnvironmentModel.fromEnvironment, Option.map((model) => model.layer)))

export const runAgent = (
  prompt: string,
  config: McpConfiguration.Options,
  mcp: NodeMcpExtension.Options,
  model: Layer.Layer<Model.Model, unknown>,
  more: ReadonlyArray<Extension.Any> = []
) =>
  Effect.gen(function*() {
    const output = yield* Output.Output
    // REDIS_URL: the tool cache is shared with every other process given the same Redis
    const redisUrl = yield* Config.option(Config.redacted("REDIS_URL")).pipe(Effect.orElseSucceed(() => Option.none()))
    const cache = Option.match(redisUrl, {
      onNone: () => mcp.cache,
      onSome: (url) =>
        RedisToolCache.layer({ ttl: McpToolCache.defaultTtl }).pipe(Layer.provide(McpRedis.layer({ url })))
    })
    const AgentLive = Agent.layer({
      // the progress bar before the transcript: it is erased before a result is printed
      extensions: [Progress.extension(), Transcript.make(), ToolGuidelines.make(), McpExtension.McpExtension, ...more]
    }).pipe(
      Layer.provide(
        NodeMcpExtension.layer({ ...mcp, cache }).pipe(
          Layer.provide(McpConfiguration.layer(config)),
          Layer.provide(NodeContext.layer)
        )
      ),
      Layer.provide(model),
      Layer.provide(Layer.succeed(Output.Output, output))
    )
    return yield* Agent.run(prompt).pipe(Effect.provide(AgentLive))
  })
