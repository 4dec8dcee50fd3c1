/**
 * The `zett` command: `tools` (what every configured MCP server offers), `call` (one tool), `run` (an agent
 * turn with the model from the environment), `auth` (OAuth logins), `task` (a tool call a server runs as a task,
 * by its id) and `demo` (the offline demo, `npm start`).
 *
 * Exit codes: 0 success, 1 a failed run (an unavailable server, a failed tool or run), 2 bad usage or bad
 * configuration, 130 interrupted. A failure is one line on standard error.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Tracing from "@zett/agent/Tracing"
import * as ProcessGroups from "@zett/mcp-node/ProcessGroups"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Types from "effect/Types"
import * as CliError from "./CliError.js"
import * as Argv from "./internal/argv.js"
import * as Chatter from "./internal/chatter.js"
import { inert } from "./internal/inert.js"
import * as Options from "./internal/options.js"
import * as Quit from "./internal/quit.js"
import * as Telemetry from "./internal/telemetry.js"
import * as Output from "./Output.js"

/**
 * @since 0.1.0
 * @category constants
 */
export const version = "0.1.0"

// -----------------------------------------------------------------------------
// the commands: their options here, their handlers loaded when they run (so `--help` loads none of them)
// -----------------------------------------------------------------------------

/** What `--help` says of each command. */
const descriptions = {
  tools: "Discover every configured MCP server at once: transport, status, discovery time, tools and the prompt " +
    "tokens their schemas cost. Exits 1 when a server is unavailable.",
  call: "Call one tool of a configured MCP server and print its result as JSON.",
  resources:
    "List the resources and resource templates of every configured MCP server (or of SERVER). Exits 1 when a " +
    "server is unavailable.",
  read:
    "Read one resource of a configured MCP server (or of the one given with --url or after --, then with no SERVER) " +
    "and print it: text as text, binary content as base64 (--json for all of it as JSON).",
  prompts:
    "List the prompts of every configured MCP server (or of SERVER), with their arguments (? marks an optional one). " +
    "Exits 1 when a server is unavailable.",
  prompt:
    "Get one prompt of a configured MCP server (or of the one given with --url or after --, then with no SERVER) " +
    "with its arguments and print its messages.",
  skills: "List the skills of every configured MCP server (or of SERVER): name, SKILL.md URI and description; no " +
    "skill file is read. Exits 1 when a server is unavailable.",
  skill:
    "Load one skill of a configured MCP server (or of the one given with --url or after --, then with no SERVER) " +
    "and print its SKILL.md, or the file PATH of it, once it matches the server's listing (size, digest, " +
    "frontmatter); a file that does not is refused, exit 1.",
  complete: "Ask a server for the values an argument of a prompt (--prompt) or a variable of a resource template " +
    "(--resource) may take (completion/complete), given what is typed so far; print them one a line.",
  run: `Run the agent with the configured MCP tools and the model named in ${Options.modelVariable}, ` +
    "showing its text as it streams and each tool call with its outcome.",
  demo: "The offline demo: start the bundled example MCP server, list its tools, run one agent turn that calls " +
    `demo__add (with a scripted model, or the one named in ${Options.modelVariable}) and check that every ` +
    "connection closed.",
  login:
    "Log in to a remote MCP server with OAuth: listen on 127.0.0.1 for the redirect, print the authorization URL " +
    "and open a browser when there is one. Tokens are kept in ~/.zett/auth/ (0600).",
  logout: "Forget a server's tokens and client registration.",
  status: "Each configured server's authorization: authorized, expires in ..., needs login or no auth.",
  get: "Ask a server for a task started earlier (by zett call, an agent or another process of a fleet): its status, " +
    "and its result once it has one. With --wait, wait for it to end as zett call does. Exits 1 when the task " +
    "failed or was cancelled.",
  cancel:
    "Ask a server to cancel a task started earlier; the server may still finish it (cancellation is a request). " +
    "Prints the status the task has after the request."
} as const

/** A command whose handler is loaded (a dynamic import, a chunk of its own in the bundle) when it runs. */
const lazyCommand = <Name extends keyof typeof descriptions, Config extends Command.Command.Config, E, R>(
  name: Name,
  config: Config,
  load: () => Promise<{
    readonly handler: (options: Types.Simplify<Command.Command.ParseConfig<Config>>) => Effect.Effect<void, E, R>
  }>
) => ({
  name,
  // what the command line's normalization needs to know of its options
  tree: Argv.tree(config),
  command: Command.make(
    name,
    config,
    (options) => Effect.flatMap(Effect.promise(load), (command) => command.handler(options))
  ).pipe(
    Command.withDescription(descriptions[name])
  )
})

interface Entry {
  readonly name: string
  readonly tree: Argv.Tree
  readonly command: Command.Command<any, any, any, any>
}

/** The commands of a parent, and their tree of options. */
const group = <const Entries extends readonly [Entry, ...Array<Entry>]>(entries: Entries) => ({
  commands: entries.map((entry) => entry.command) as unknown as {
    readonly [K in keyof Entries]: Entries[K]["command"]
  },
  tree: Argv.tree({}, Object.fromEntries(entries.map((entry) => [entry.name, entry.tree])))
})

const auth = group([
  lazyCommand("login", Options.authLogin, () => import("./internal/auth.js").then((m) => ({ handler: m.login }))),
  lazyCommand("logout", Options.authLogout, () => import("./internal/auth.js").then((m) => ({ handler: m.logout }))),
  lazyCommand("status", Options.authStatus, () => import("./internal/auth.js").then((m) => ({ handler: m.status })))
])

const authCommand = Command.make(
  "auth",
  {},
  () =>
    Effect.fail(
      new CliError.UsageError({
        reason: "MissingCommand",
        message: "missing command: auth login, logout or status (see zett auth --help)"
      })
    )
).pipe(
  Command.withDescription("OAuth logins to remote MCP servers."),
  Command.withSubcommands(auth.commands)
)

const task = group([
  lazyCommand("get", Options.taskGet, () => import("./internal/task.js").then((m) => ({ handler: m.get }))),
  lazyCommand("cancel", Options.taskCancel, () => import("./internal/task.js").then((m) => ({ handler: m.cancel })))
])

const taskCommand = Command.make(
  "task",
  {},
  () =>
    Effect.fail(
      new CliError.UsageError({
        reason: "MissingCommand",
        message: "missing command: task get or cancel (see zett task --help)"
      })
    )
).pipe(
  Command.withDescription(
    "Tool calls a server runs as tasks (the MCP Tasks extension): look one up, wait for it, or cancel it by its id."
  ),
  Command.withSubcommands(task.commands)
)

const zett = group([
  lazyCommand("tools", Options.tools, () => import("./internal/tools.js")),
  lazyCommand("call", Options.call, () => import("./internal/call.js")),
  lazyCommand("run", Options.run, () => import("./internal/run.js")),
  { name: "auth", tree: auth.tree, command: authCommand },
  { name: "task", tree: task.tree, command: taskCommand },
  lazyCommand("demo", Options.demo, () => import("./internal/demo.js")),
  lazyCommand(
    "resources",
    Options.resources,
    () => import("./internal/resources.js").then((m) => ({ handler: m.listHandler }))
  ),
  lazyCommand("read", Options.read, () => import("./internal/resources.js").then((m) => ({ handler: m.readHandler }))),
  lazyCommand(
    "prompts",
    Options.prompts,
    () => import("./internal/prompts.js").then((m) => ({ handler: m.listHandler }))
  ),
  lazyCommand("prompt", Options.prompt, () => import("./internal/prompts.js").then((m) => ({ handler: m.getHandler }))),
  lazyCommand("skills", Options.skills, () => import("./internal/skills.js").then((m) => ({ handler: m.listHandler }))),
  lazyCommand("skill", Options.skill, () => import("./internal/skills.js").then((m) => ({ handler: m.readHandler }))),
  lazyCommand("complete", Options.complete, () => import("./internal/complete.js"))
])

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
    new CliError.UsageError({
      reason: "MissingCommand",
      message:
        "missing command: tools, call, run, auth, task, demo, resources, read, prompts, prompt, skills, skill or complete (see zett --help)"
    })
  )).pipe(
    Command.withDescription("Inspect and use the tools of Model Context Protocol servers from an Effect agent."),
    Command.withSubcommands(zett.commands)
  )

const cli = Command.run(command, { name: "zett", version })

/** The commands that take a server's command after `--` (`zett tools -- npx server`). */
const startsServers: ReadonlySet<string> = new Set([
  "tools",
  "call",
  "run",
  "resources",
  "prompts",
  "skills",
  "complete",
  "read",
  "prompt",
  "skill"
])

// the commands whose first argument names the server: with one given on the command line it is filled in
const namesServer: ReadonlySet<string> = new Set(["read", "prompt", "skill"])
const givenServer = "(command line)"

/** The arguments with the name of a server given on the command line filled in, for `read`, `prompt` and `skill`. */
const withGivenServer = (
  line: { readonly args: ReadonlyArray<string>; readonly command: ReadonlyArray<string> | undefined }
) => {
  const at = line.args[0] === "--log-level" ? 2 : 0
  const adHoc = line.command !== undefined || line.args.includes("--url")
  return adHoc && namesServer.has(line.args[at] ?? "")
    ? [...line.args.slice(0, at + 1), givenServer, ...line.args.slice(at + 1)]
    : line.args
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
 * An `McpClientFactory` or a `Model` in context replaces the default (the SDK-backed factory, the model the
 * environment names): `Cli.run(args).pipe(Effect.provide(NodeMcpClientFactory.layerInMemory(...)))`. The defaults
 * are made only by the command that needs them, so `--help` loads no MCP or model code.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (args: ReadonlyArray<string>): Effect.Effect<number, never, Output.Output> =>
  Effect.suspend(() => {
    const line = Argv.serverCommand(Argv.normalize(zett.tree, args), startsServers)
    return cli(["node", "zett", ...withGivenServer(line)]).pipe(
      Effect.provideService(Argv.ServerCommand, line.command),
      Quit.interruptible
    )
  }).pipe(
    quietParserErrors,
    // what the servers' chatter left unprinted is summed up before the command's last line
    Effect.ensuring(Chatter.summarize((line) => Output.errorLine(`zett: ${line}`))),
    Effect.as(CliError.ExitCode.ok),
    Effect.catchAllCause((cause) => {
      const { code, message: text } = CliError.fromCause(cause)
      const message = text === undefined
        ? text
        : Options.valueError(args, text) ?? Argv.unknownName(zett.tree, args, text) ?? text
      // a failure often quotes a server (a tool's error, an unavailable reason): inert on the terminal
      return Effect.as(message === undefined ? Effect.void : Output.errorLine(`zett: ${inert(message)}`), code)
    }),
    // one trace per command, exported over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set
    Tracing.traced(`zett ${args.find((arg) => !arg.startsWith("-")) ?? ""}`.trim()),
    Effect.provide(Telemetry.layer),
    // the exit hooks that end stdio servers' process groups when the process exits without closing its scopes,
    // for as long as the command runs
    Effect.provide(Layer.mergeAll(NodeContext.layer, Output.layerConsole, ProcessGroups.layer))
  )
