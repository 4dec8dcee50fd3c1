/**
 * The `zett` command: `tools` (what every configured MCP server offers), `call` (one tool), `run` (an agent
 * turn with the model from the environment) and `demo` (the offline demo, `npm start`).
 *
 * Exit codes: 0 success, 1 a failed run (an unavailable server, a failed tool or run), 2 bad usage or bad
 * configuration, 130 interrupted. A failure is one line on standard error.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import type { Extension, Model } from "@zett/agent"
import { Agent, ToolGuidelines } from "@zett/agent"
import type { McpServer } from "@zett/mcp"
import { McpClientFactory, McpConfiguration, McpError, McpExtension, McpToolResult } from "@zett/mcp"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as CliError from "./CliError.js"
import * as Demo from "./Demo.js"
import * as Discovery from "./Discovery.js"
import * as EnvironmentModel from "./EnvironmentModel.js"
import * as Output from "./Output.js"
import * as Progress from "./Progress.js"
import * as ToolsReport from "./ToolsReport.js"
import * as Transcript from "./Transcript.js"

/**
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"

/**
 * What `run` may replace, mainly for tests.
 *
 * @since 0.1.0
 * @category models
 */
export interface RunOptions {
  /** The client factory (default: the SDK-backed one, stdio and Streamable HTTP). */
  readonly clientFactory?: McpClientFactory.McpClientFactory["Type"] | undefined
  /** The model of `run` and `demo` (default: the one named in the environment, see `EnvironmentModel`). */
  readonly model?: Layer.Layer<Model.Model, unknown> | undefined
}

class Services extends Context.Tag("@zett/cli/Cli/Services")<Services, {
  readonly clientFactory: McpClientFactory.McpClientFactory["Type"]
  readonly model: Option.Option<Layer.Layer<Model.Model, unknown>>
}>() {}

// -----------------------------------------------------------------------------
// options
// -----------------------------------------------------------------------------

const config = Options.text("config").pipe(
  Options.withDescription("The mcp.json to use (default: ~/.zett/mcp.json)."),
  Options.optional
)

/** An option parsed by `parse`, whose failure is one readable usage line naming the option. */
const parsedOption = <A>(name: string, description: string, parse: (text: string) => A | undefined, expected: string) =>
  Options.text(name).pipe(
    Options.withDescription(description),
    Options.mapEffect((text) => {
      const value = parse(text)
      return value === undefined
        ? Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name} expects ${expected}, got '${text}'`)))
        : Effect.succeed(value)
    }),
    Options.optional
  )

const parseSeconds = (text: string): number | undefined => {
  const value = text.trim() === "" ? Number.NaN : Number(text)
  return Number.isFinite(value) && value >= 0 ? value : undefined
}

const seconds = (name: string, description: string) =>
  parsedOption(name, description, parseSeconds, "a number of seconds, 0 or more")

const connectTimeout = seconds(
  "connect-timeout",
  "Seconds to connect to and list one server (default 30; 0 disables the limit)."
)

const callTimeout = seconds("call-timeout", "Seconds for one tool call (default 300; 0 disables the limit).")

const discoveryConcurrency = parsedOption(
  "discovery-concurrency",
  `How many servers are discovered at once (default ${McpExtension.defaultDiscoveryConcurrency}).`,
  (text) => (/^\s*\d+\s*$/.test(text) && Number(text) >= 1 ? Number(text) : undefined),
  "a whole number, 1 or more"
)

/** `None`: the default; `Some(None)`: disabled; `Some(Some(d))`: a limit. */
const limitOf = (input: Option.Option<number>, fallback: Duration.Duration): Option.Option<Duration.Duration> =>
  Option.match(input, {
    onNone: () => Option.some(fallback),
    onSome: (value) => (value === 0 ? Option.none() : Option.some(Duration.millis(Math.round(value * 1_000))))
  })

/** The form the extension's options take: `null` disables. */
const extensionLimit = (limit: Option.Option<Duration.Duration>): Duration.Duration | null =>
  Option.getOrNull(limit)

// -----------------------------------------------------------------------------
// configuration
// -----------------------------------------------------------------------------

const fileKinds: Partial<Record<FileSystem.File.Type, string>> = {
  Directory: "a directory",
  FIFO: "a FIFO",
  CharacterDevice: "a device",
  BlockDevice: "a device",
  Socket: "a socket"
}

/** The default file may be missing (no servers); a file named with `--config` must exist and be a file. */
const resolveConfigPath = (path: Option.Option<string>) =>
  Option.match(path, {
    onNone: () => McpConfiguration.defaultPath,
    onSome: (file) =>
      Effect.gen(function*() {
        const absolute = (yield* Path.Path).resolve(file)
        const fs = yield* FileSystem.FileSystem
        const info = yield* Effect.option(fs.stat(absolute))
        if (Option.isNone(info)) {
          return yield* new CliError.UsageError({ message: `${absolute}: no such configuration file` })
        }
        // a directory, a FIFO or a device (/dev/zero) would hang or fail the reader in odd ways
        if (info.value.type !== "File") {
          return yield* new CliError.UsageError({
            message: `${absolute}: not a regular file (${fileKinds[info.value.type] ?? "not a file"}); --config names an mcp.json`
          })
        }
        return absolute
      })
  })

const loadConfiguration = (path: Option.Option<string>) =>
  Effect.gen(function*() {
    const file = yield* resolveConfigPath(path)
    const snapshot = yield* McpConfiguration.fromFile(file)
    const exists = yield* FileSystem.FileSystem.pipe(
      Effect.flatMap((fs) => fs.exists(file)),
      Effect.orElseSucceed(() => false)
    )
    return { file, exists, snapshot }
  })

// -----------------------------------------------------------------------------
// zett tools
// -----------------------------------------------------------------------------

/** At most a few names, and how many more. */
const someNames = (names: ReadonlyArray<string>, max = 3) =>
  names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")} and ${names.length - max} more`

const discoverWithProgress = (
  factory: McpClientFactory.McpClientFactory["Type"],
  servers: ReadonlyArray<McpServer.McpServer>,
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

const unavailableFailure = (reports: ReadonlyArray<Discovery.ServerReport>) => {
  const down = reports.filter((report) => report.status === "unavailable")
  if (down.length === 0) return Effect.void
  return Effect.fail(
    new CliError.RunFailed({
      message: `${down.length} of ${reports.length} MCP ${reports.length === 1 ? "server" : "servers"} ` +
        `unavailable: ${
          McpExtension.summarizeUnavailable(
            down.map((report) => ({ server: report.server, reason: report.reason ?? "unknown reason" }))
          )
        }`
    })
  )
}

const toolsCommand = Command.make("tools", {
  config,
  connectTimeout,
  discoveryConcurrency,
  json: Options.boolean("json").pipe(Options.withDescription("Print the report as JSON."))
}, (options) =>
  Effect.gen(function*() {
    const { clientFactory } = yield* Services
    const output = yield* Output.Output
    const { exists, file, snapshot } = yield* loadConfiguration(options.config)
    const reports = yield* discoverWithProgress(
      clientFactory,
      snapshot.servers,
      limitOf(options.connectTimeout, Duration.seconds(30)),
      Option.getOrUndefined(options.discoveryConcurrency)
    )
    const report: ToolsReport.ToolsReport = {
      config: file,
      configExists: exists,
      servers: reports,
      skipped: snapshot.skipped
    }
    yield* Output.line(
      options.json
        ? JSON.stringify(ToolsReport.toJson(report), null, 2)
        : ToolsReport.render(report, { width: output.columns })
    )
    yield* unavailableFailure(reports)
  })).pipe(
    Command.withDescription(
      "Discover every configured MCP server at once: transport, status, discovery time, tools and the prompt " +
        "tokens their schemas cost. Exits 1 when a server is unavailable."
    )
  )

// -----------------------------------------------------------------------------
// zett call
// -----------------------------------------------------------------------------

/**
 * Parses the JSON arguments of `zett call`: absent means `{}`; anything but a JSON object is a usage error.
 *
 * @since 0.1.0
 * @category utils
 */
export const parseArguments = (
  tool: string,
  text: Option.Option<string>
): Effect.Effect<Record<string, unknown>, CliError.UsageError> => {
  if (Option.isNone(text) || text.value.trim() === "") return Effect.succeed({})
  let value: unknown
  try {
    value = JSON.parse(text.value)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    return Effect.fail(new CliError.UsageError({ message: `invalid JSON arguments for ${tool}: ${reason}` }))
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return Effect.fail(
      new CliError.UsageError({
        message: `the arguments of ${tool} must be a JSON object, like '{"a": 1}'; got ${
          Array.isArray(value) ? "an array" : value === null ? "null" : typeof value
        }`
      })
    )
  }
  return Effect.succeed(value as Record<string, unknown>)
}

const callCommand = Command.make("call", {
  config,
  connectTimeout,
  callTimeout,
  discoveryConcurrency,
  name: Args.text({ name: "tool" }).pipe(Args.withDescription("The exposed tool name, e.g. demo__add.")),
  arguments: Args.text({ name: "json" }).pipe(
    Args.withDescription("The arguments as a JSON object (default {})."),
    Args.optional
  )
}, (options) =>
  Effect.gen(function*() {
    const args = yield* parseArguments(options.name, options.arguments)
    const { clientFactory } = yield* Services
    const { file, snapshot } = yield* loadConfiguration(options.config)
    // `<server>__<tool>`: only the servers the name can belong to are asked
    const likely = snapshot.servers.filter((server) => options.name.startsWith(`${server.name}__`))
    const candidates = likely.length > 0 ? likely : snapshot.servers
    if (candidates.length === 0) {
      return yield* new CliError.UsageError({ message: `no MCP servers are configured in ${file}` })
    }
    const connectLimit = limitOf(options.connectTimeout, Duration.seconds(30))
    const found = yield* Effect.forEach(
      candidates,
      (server) =>
        Effect.either(Discovery.connectAndList(clientFactory, server, { connectTimeout: connectLimit })).pipe(
          Effect.map((result) => ({ server, result }))
        ),
      { concurrency: Option.getOrElse(options.discoveryConcurrency, () => McpExtension.defaultDiscoveryConcurrency) }
    )
    for (const { result } of found) {
      if (result._tag === "Left") continue
      const tool = result.right.tools.find((tool) => tool.name === options.name)
      if (tool === undefined) continue
      const response = yield* result.right.client.callTool(tool.remoteName, args).pipe(
        McpError.within({ server: tool.server, operation: "call", limit: limitOf(options.callTimeout, Duration.seconds(300)) })
      )
      const outcome = McpToolResult.toResult(response, McpToolResult.ErrorTextPolicy.verbose)
      if (outcome._tag === "Failure") {
        return yield* new CliError.RunFailed({ message: `${options.name} failed: ${outcome.message}` })
      }
      return yield* Output.line(JSON.stringify(outcome.value, null, 2) ?? "null")
    }
    const down = found.flatMap(({ result, server }) =>
      result._tag === "Left" ? [{ server: server.name, reason: McpError.reasonOf(result.left) }] : []
    )
    if (down.length > 0) {
      return yield* new CliError.RunFailed({
        message: `cannot call ${options.name}: unavailable MCP ${down.length === 1 ? "server" : "servers"}: ${
          McpExtension.summarizeUnavailable(down)
        }`
      })
    }
    const names = found.flatMap(({ result }) => (result._tag === "Right" ? result.right.tools.map((t) => t.name) : []))
    return yield* new CliError.UsageError({
      message: `no tool named ${options.name}; available: ${
        names.length === 0 ? "none" : names.slice(0, 20).join(", ") + (names.length > 20 ? ", …" : "")
      }`
    })
  }).pipe(Effect.scoped)).pipe(
    Command.withDescription("Call one tool of a configured MCP server and print its result as JSON.")
  )

// -----------------------------------------------------------------------------
// zett run
// -----------------------------------------------------------------------------

const noModel = new CliError.UsageError({
  message: `no model configured: set ${EnvironmentModel.variable} (for example openai:gpt-4.1-mini) and the ` +
    "provider's API key; `zett demo` runs offline with a scripted model"
})

const modelLayer = Effect.gen(function*() {
  const services = yield* Services
  if (Option.isSome(services.model)) return Option.some(services.model.value)
  return Option.map(yield* EnvironmentModel.fromEnvironment, (model) => model.layer)
})

const runAgent = (
  prompt: string,
  mcp: McpExtension.Options,
  model: Layer.Layer<Model.Model, unknown>,
  more: ReadonlyArray<Extension.Extension> = []
) =>
  Effect.gen(function*() {
    const output = yield* Output.Output
    const AgentLive = Agent.layer({
      extensions: [Transcript.make(), ToolGuidelines.make(), McpExtension.McpExtension, ...more]
    }).pipe(
      Layer.provide(McpExtension.layerNode(mcp)),
      Layer.provide(model),
      Layer.provide(Layer.succeed(Output.Output, output))
    )
    return yield* Agent.run(prompt).pipe(Effect.provide(AgentLive))
  })

const runCommand = Command.make("run", {
  config,
  connectTimeout,
  callTimeout,
  discoveryConcurrency,
  prompt: Args.text({ name: "prompt" }).pipe(Args.withDescription("What to ask the agent."))
}, (options) =>
  Effect.gen(function*() {
    const model = yield* modelLayer
    if (Option.isNone(model)) return yield* noModel
    const { clientFactory } = yield* Services
    // the extension reads the default file itself; a file named with --config must exist
    const configPath = Option.isSome(options.config) ? yield* resolveConfigPath(options.config) : undefined
    yield* runAgent(options.prompt, {
      configPath,
      clientFactory,
      connectTimeout: extensionLimit(limitOf(options.connectTimeout, Duration.seconds(30))),
      callTimeout: extensionLimit(limitOf(options.callTimeout, Duration.seconds(300))),
      discoveryConcurrency: Option.getOrUndefined(options.discoveryConcurrency)
    }, model.value)
  })).pipe(
    Command.withDescription(
      `Run the agent with the configured MCP tools and the model named in ${EnvironmentModel.variable}, ` +
        "showing its text as it streams and each tool call with its outcome."
    )
  )

// -----------------------------------------------------------------------------
// zett demo
// -----------------------------------------------------------------------------

const demoCommand = Command.make("demo", {
  connectTimeout,
  callTimeout,
  scripted: Options.boolean("scripted").pipe(
    Options.withDescription(`Use the scripted model even when ${EnvironmentModel.variable} is set.`)
  )
}, (options) =>
  Effect.gen(function*() {
    const services = yield* Services
    const output = yield* Output.Output
    const fromEnvironment = options.scripted || Option.isSome(services.model)
      ? Option.none()
      : yield* EnvironmentModel.fromEnvironment
    const model = Option.isSome(services.model)
      ? { name: "the model given to the command", layer: services.model.value }
      : Option.getOrElse(fromEnvironment, () => ({ name: "scripted (offline)", layer: Demo.scriptedModel }))
    const scripted = Option.isNone(services.model) && Option.isNone(fromEnvironment)
    const server = Demo.server()
    const tracker = Demo.track(services.clientFactory)
    const results = Demo.observeResults()
    const connectLimit = limitOf(options.connectTimeout, Duration.seconds(30))

    const pathService = yield* Path.Path
    const shown = pathService.relative(process.cwd(), Demo.serverScript)
    yield* Output.line(`zett demo: the bundled example MCP server, started over stdio (node ${shown})`)
    yield* Output.line(`Model: ${model.name}`)
    yield* Output.line()

    const reports = yield* discoverWithProgress(tracker.factory, [server], connectLimit)
    yield* Output.line(
      ToolsReport.render(
        { config: "(none: the demo's server is given in code)", configExists: true, servers: reports, skipped: [] },
        { width: output.columns, title: "The demo's MCP server" }
      )
    )
    yield* unavailableFailure(reports)

    yield* Output.line()
    yield* Output.line(`> ${Demo.prompt}`)
    const reply = yield* runAgent(Demo.prompt, {
      servers: [server],
      clientFactory: tracker.factory,
      connectTimeout: extensionLimit(connectLimit),
      callTimeout: extensionLimit(limitOf(options.callTimeout, Duration.seconds(300)))
    }, model.layer, [results.extension])
    yield* Output.line()
    yield* Output.line(`Answer: ${reply.content}`)

    const left = yield* Demo.awaitGone(tracker)
    const opened = tracker.opened()
    const closed = tracker.closed()
    yield* Output.line(
      `MCP connections: ${opened} opened, ${closed} closed; ` +
        (left.length === 0
          ? `no server process left (${tracker.pids().length} started).`
          : `server processes still running: ${left.join(", ")}.`)
    )
    if (opened !== closed || left.length > 0) {
      return yield* new CliError.RunFailed({ message: "the demo left MCP connections or server processes open" })
    }
    // the check is on what the tool returned to the model, not on the wording of the answer
    if (scripted && results.sum() !== 42) {
      return yield* new CliError.RunFailed({
        message: `the demo expected the sum 42 from demo__add, and received ${JSON.stringify(results.sum() ?? null)}`
      })
    }
  })).pipe(
    Command.withDescription(
      "The offline demo: start the bundled example MCP server, list its tools, run one agent turn that calls " +
        `demo__add (with a scripted model, or the one named in ${EnvironmentModel.variable}) and check that every ` +
        "connection closed."
    )
  )

// -----------------------------------------------------------------------------
// the command
// -----------------------------------------------------------------------------

/**
 * The `zett` command with its subcommands.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("zett", {}, () =>
  Effect.fail(
    new CliError.UsageError({ message: "missing command: tools, call, run or demo (see zett --help)" })
  )).pipe(
    Command.withDescription("Inspect and use the tools of Model Context Protocol servers from an Effect agent."),
    Command.withSubcommands([toolsCommand, callCommand, runCommand, demoCommand])
  )

const cli = Command.run(command, { name: "zett", version })

/**
 * Moves `--log-level LEVEL` (or `--log-level=LEVEL`) to the front: `@effect/cli` does not find it after a
 * subcommand's last option.
 */
const logLevelFirst = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const level: Array<string> = []
  const rest: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") {
      rest.push(...args.slice(i))
      break
    }
    if (arg.startsWith("--log-level=")) level.push("--log-level", arg.slice("--log-level=".length))
    else if (arg === "--log-level" && i + 1 < args.length) level.push(arg, args[++i]!)
    else rest.push(arg)
  }
  return [...level, ...rest]
}

/**
 * `@effect/cli` prints a usage error through `Console.error` (styled, over several lines) before failing with
 * it; `zett` says it once, as its one `zett:` line (see `CliError.fromCause`). Logs do not use the `Console`.
 */
const quietParserErrors = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Console.consoleWith((console) => Effect.withConsole(self, { ...console, error: () => Effect.void }))

/**
 * Runs `zett` with the given arguments (without `node` and the script) and returns the exit code. Every
 * failure is turned into its exit code and one line on standard error; nothing is thrown.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (
  args: ReadonlyArray<string>,
  options?: RunOptions
): Effect.Effect<number, never, Output.Output> =>
  cli(["node", "zett", ...logLevelFirst(args)]).pipe(
    quietParserErrors,
    Effect.as(CliError.ExitCode.ok),
    Effect.catchAllCause((cause) => {
      const { code, message } = CliError.fromCause(cause)
      return Effect.as(message === undefined ? Effect.void : Output.errorLine(`zett: ${message}`), code)
    }),
    Effect.provide(Layer.mergeAll(
      NodeContext.layer,
      Output.layerConsole,
      Layer.effect(
        Services,
        Effect.map(
          options?.clientFactory !== undefined ? Effect.succeed(options.clientFactory) : McpClientFactory.make(),
          (clientFactory) => ({ clientFactory, model: Option.fromNullable(options?.model) })
        )
      )
    ))
  )

