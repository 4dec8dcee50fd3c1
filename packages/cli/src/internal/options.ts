/**
 * The options and arguments of the `zett` commands: what `--help` shows, and all that a run loads before
 * its command's own modules.
 *
 * @internal
 */
import * as Args from "@effect/cli/Args"
import type * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/** `McpExtension.defaultDiscoveryConcurrency`, without loading the extension for `--help` (a test ties the two). */
export const defaultDiscoveryConcurrency = 16

/** The variable that names the model (`EnvironmentModel.variable`, likewise). */
export const modelVariable = "ZETT_MODEL"

export const config = Options.text("config").pipe(
  Options.withDescription(
    "The configuration file to use (default: ~/.zett/mcp.json): any client's mcp.json, .vscode/mcp.json, " +
      ".mcp.json, Gemini CLI's or Zed's settings.json. Repeat it to merge files in order; a later file wins on a name."
  ),
  Options.repeated
)

export const lenient = Options.boolean("lenient").pipe(
  Options.withDescription("Skip invalid entries of the configuration, with a warning each, and keep the valid ones.")
)

/**
 * What each numeric option expects, in the words of its usage error. The help shows the option's type
 * (`float`, `integer`) from its primitive; a value that is not a number at all fails in that primitive, whose
 * message names no option, so `valueError` words it with the option's name from this table.
 */
const expectations = new Map<string, string>()

/** A numeric option checked by `check`, whose failure is one readable usage line naming the option. */
const numericOption = (
  name: string,
  kind: "float" | "integer",
  description: string,
  check: (value: number) => boolean,
  expected: string
) => {
  expectations.set(`--${name}`, expected)
  return (kind === "float" ? Options.float(name) : Options.integer(name)).pipe(
    Options.withDescription(description),
    Options.mapEffect((value) =>
      check(value)
        ? Effect.succeed(value)
        : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name} expects ${expected}, got '${value}'`)))
    ),
    Options.optional
  )
}

/**
 * The usage line for a value `@effect/cli` could not read as a number (`'nan' is not a float`): the option it was
 * given to, found on the command line, and what that option expects; `undefined` for any other message.
 */
export const valueError = (args: ReadonlyArray<string>, message: string): string | undefined => {
  const match = /^'(.*)' is not an? (float|integer)$/s.exec(message)
  if (match === null) return undefined
  const [, value, kind] = match
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith("--")) continue
    const equals = arg.indexOf("=")
    const name = equals === -1
      ? (args[i + 1] === value ? arg : undefined)
      : arg.slice(equals + 1) === value
      ? arg.slice(0, equals)
      : undefined
    if (name === undefined) continue
    const expected = expectations.get(name) ?? (kind === "integer" ? "a whole number" : "a number")
    return `${name} expects ${expected}, got '${value}'`
  }
  return undefined
}

const seconds = (name: string, description: string) =>
  numericOption(
    name,
    "float",
    description,
    (value) => Number.isFinite(value) && value >= 0,
    "a number of seconds, 0 or more"
  )

export const connectTimeout = seconds(
  "connect-timeout",
  "Seconds to connect to and list one server (default 30; 0 disables the limit)."
)

export const callTimeout = seconds("call-timeout", "Seconds for one tool call (default 300; 0 disables the limit).")

export const discoveryConcurrency = numericOption(
  "discovery-concurrency",
  "integer",
  `How many servers are discovered at once (default ${defaultDiscoveryConcurrency}).`,
  (value) => value >= 1,
  "a whole number, 1 or more"
)

/** `None`: the default; `Some(None)`: disabled; `Some(Some(d))`: a limit. */
const limitOf = (input: Option.Option<number>, fallback: Duration.Duration): Option.Option<Duration.Duration> =>
  Option.match(input, {
    onNone: () => Option.some(fallback),
    onSome: (value) => (value === 0 ? Option.none() : Option.some(Duration.millis(Math.round(value * 1_000))))
  })

/** `--connect-timeout` as a limit: 30 seconds by default. */
export const connectLimit = (input: Option.Option<number>): Option.Option<Duration.Duration> =>
  limitOf(input, Duration.seconds(30))

/**
 * `--call-timeout` as a limit: 300 seconds by default; the server's own `timeout` overrides it, as it overrides the
 * extension's `callTimeout`.
 */
export const callLimit = (
  input: Option.Option<number>,
  server?: { readonly timeout?: Duration.Duration | undefined }
): Option.Option<Duration.Duration> =>
  server?.timeout !== undefined ? Option.some(server.timeout) : limitOf(input, Duration.seconds(300))

/** The form the extension's options take: `null` disables. */
export const extensionLimit = (limit: Option.Option<Duration.Duration>): Duration.Duration | null =>
  Option.getOrNull(limit)

export const yesDefaults = Options.boolean("yes-defaults").pipe(
  Options.withDescription(
    "When a server asks for input (elicitation), answer with the defaults of its form without asking (a field " +
      "without a default is still asked on a terminal; without a terminal such a request is declined)."
  )
)

/** A text option that may be left out. */
const optionalText = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)

/** A text option that may be given any number of times. */
const repeatedText = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.repeated)

// `Options.redacted` cannot be repeated in @effect/cli 0.77 (the second pass fails on its own Redacted value)
const secrets = Options.map((values: Array<string>) => values.map((value) => Redacted.make(value)))

/** A server on the command line instead of a configuration file (see `internal/adhoc.ts`). */
const adHoc = {
  url: optionalText(
    "url",
    "Connect to this one MCP server (Streamable HTTP, or --transport sse) instead of a configuration file."
  ),
  header: repeatedText("header", "A header for --url, as NAME:VALUE (repeat it for more); values are never printed.")
    .pipe(secrets),
  transport: Options.choice("transport", ["streamable-http", "sse"]).pipe(
    Options.withDescription("The transport of --url (default streamable-http)."),
    Options.optional
  ),
  env: repeatedText(
    "env",
    "An environment variable for the server started from the command after --, as NAME=VALUE (repeat it for more); " +
      "values are never printed."
  ).pipe(secrets),
  cwd: optionalText("cwd", "The working directory of the server started from the command after --."),
  includeTools: repeatedText(
    "include-tools",
    "Only these tools of the server given with --url or after -- (repeat it for more), as includeTools in a configuration."
  ),
  excludeTools: repeatedText(
    "exclude-tools",
    "Leave out these tools of the server given with --url or after -- (repeat it for more), as excludeTools."
  ),
  serverName: optionalText(
    "name",
    "The name of the server given with --url or after -- (default: the URL's host, or the command's file name)."
  )
}

/** The levels of MCP's `logging/setLevel`, from the most to the least verbose. */
export const serverLogLevels = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
] as const

export type ServerLogLevel = (typeof serverLogLevels)[number]

export const serverLogLevel = Options.choice("server-log-level", serverLogLevels).pipe(
  Options.withDescription(
    "Ask each server to send its log messages from this level up (logging/setLevel, when it supports logging); " +
      "by default the server decides. What it sends is logged by zett (see --log-level)."
  ),
  Options.optional
)

/** The revisions of MCP a server may be spoken to in. */
export const protocols = ["auto", "2026-07-28", "2025-11-25"] as const

export const protocol = Options.choice("protocol", protocols).pipe(
  Options.withDescription(
    "The MCP revision to speak to every server, in place of what its definition says: auto (ask the server, then " +
      "fall back; the default), 2026-07-28, or 2025-11-25."
  ),
  Options.optional
)

/** How the servers are spoken to: what every command that connects to them takes. */
const speaking = { serverLogLevel, protocol }

/** What every command that discovers the configured servers takes first. */
const discovering = { config, lenient, connectTimeout, discoveryConcurrency, ...speaking, ...adHoc }

export const tools = {
  ...discovering,
  json: Options.boolean("json").pipe(
    Options.withDescription("Print the report as JSON (each tool with its inputSchema).")
  ),
  schema: Options.boolean("schema").pipe(
    Options.withDescription(
      "Under each tool, what it takes: a line per argument, with its type, required or default, and description."
    )
  ),
  search: Options.text("search").pipe(
    Options.withDescription(
      "Instead of every tool, what tool search returns for this query (the model's search_tools), best first, with scores."
    ),
    Options.optional
  ),
  limit: Options.integer("limit").pipe(
    Options.withDescription("With --search: how many tools at most (default 10)."),
    Options.withDefault(10)
  )
}

// Node 24's parser adds where the error is as "(line 1 column 9)" after the position Node 20 and 22 give alone
const sameOnEveryNode = (message: string | undefined) =>
  (message ?? "unreadable").replace(/ \(line \d+ column \d+\)$/, "")

const kindOf = (value: unknown) => (Array.isArray(value) ? "an array" : value === null ? "null" : typeof value)

/**
 * The optional `json` argument: a JSON object (`whose`: "the tool's"), each failure one line saying what was
 * wrong.
 */
const jsonArguments = (whose: string, example: string, description: string) =>
  Args.text({ name: "json" }).pipe(
    Args.withSchema(
      Schema.compose(
        Schema.parseJson().annotations({
          message: (issue) =>
            `${whose} arguments are not valid JSON (${
              issue._tag === "Transformation" && issue.issue._tag === "Type"
                ? sameOnEveryNode(issue.issue.message)
                : "unreadable"
            })`
        }),
        Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
          message: (issue) => `${whose} arguments must be a JSON object, like '${example}'; got ${kindOf(issue.actual)}`
        })
      ).annotations({
        // the inner message alone, not the tree of the composition
        message: (issue) =>
          issue._tag === "Transformation" ? ParseResult.TreeFormatter.formatIssueSync(issue.issue) : "invalid arguments"
      })
    ),
    Args.withDescription(description),
    Args.optional
  )

/** What the commands that call the servers' tools take (`call`, and `run` through the agent). */
const calling = { config, lenient, connectTimeout, callTimeout, discoveryConcurrency, yesDefaults, ...speaking }

export const call = {
  ...calling,
  ...adHoc,
  arg: Options.text("arg").pipe(
    Options.withDescription(
      "One argument as key=value, read as the tool's input schema types it (a number, true/false, a list as " +
        "a,b or JSON, an object as JSON); repeat it for more. Set after the JSON arguments, if any."
    ),
    Options.repeated
  ),
  detach: Options.boolean("detach").pipe(
    Options.withDescription(
      "When the server runs the call as a task, print the task (its server, id and status) as JSON and return at " +
        "once instead of waiting for it (zett task get or cancel find it later)."
    )
  ),
  name: Args.text({ name: "tool" }).pipe(Args.withDescription("The exposed tool name, e.g. demo__add.")),
  arguments: jsonArguments("the tool's", `{"a": 1}`, "The arguments as a JSON object (default {}).")
}

export const run = {
  ...calling,
  ...adHoc,
  verbose: Options.boolean("verbose").pipe(
    Options.withDescription("After the answer, print the run's token usage (input, cached, output) on standard error.")
  ),
  toolSearch: Options.choice("tool-search", ["auto", "always", "off"]).pipe(
    Options.withDescription(
      "Tool search: the model gets search_tools and finds the tools it needs instead of every definition. auto " +
        "(default) searches past 40 tools or about 20,000 tokens of definitions, as the library does; always; off " +
        "offers every tool."
    ),
    Options.withDefault("auto" as const)
  ),
  prompt: Args.text({ name: "prompt" }).pipe(Args.withDescription("What to ask the agent."))
}

export const demo = {
  connectTimeout,
  callTimeout,
  scripted: Options.boolean("scripted").pipe(
    Options.withDescription(`Use the scripted model even when ${modelVariable} is set.`)
  )
}

const json = Options.boolean("json").pipe(Options.withDescription("Print the result as JSON."))

const serverArg = Args.text({ name: "server" }).pipe(
  Args.withDescription("A server's name, as the configuration writes it.")
)

/** `zett resources` and `zett prompts`: every configured server, or the one named. */
const listing = {
  ...discovering,
  json,
  server: Args.optional(serverArg.pipe(Args.withDescription("Only this server (default: every configured server).")))
}

export const resources = listing

/**
 * `zett read` and `zett prompt`: one request to the server named, or to the one given with `--url` or after
 * `--` (whose name `Cli.run` fills in, so that the positional arguments keep their places).
 */
const oneServer = {
  config,
  lenient,
  connectTimeout,
  callTimeout,
  ...speaking,
  json,
  ...adHoc,
  server: serverArg.pipe(
    Args.withDescription("A server's name, as the configuration writes it (none with --url or after --).")
  )
}

export const read = {
  ...oneServer,
  uri: Args.text({ name: "uri" }).pipe(
    Args.withDescription("The resource's URI (listed by zett resources, or made from a template).")
  )
}

export const prompts = listing

export const skills = listing

export const skill = {
  ...oneServer,
  name: Args.text({ name: "skill" }).pipe(
    Args.withDescription("The skill's name, as zett skills lists it, or the URI of its SKILL.md.")
  ),
  path: Args.optional(
    Args.text({ name: "path" }).pipe(
      Args.withDescription("A file of the skill, relative to its folder (default: its SKILL.md).")
    )
  )
}

export const prompt = {
  ...oneServer,
  name: Args.text({ name: "prompt" }).pipe(Args.withDescription("The prompt's name, as zett prompts lists it.")),
  // its values are given to the server as strings
  arguments: jsonArguments(
    "the prompt's",
    `{"city": "Paris"}`,
    "The prompt's arguments as a JSON object of strings (default {})."
  )
}

export const complete = {
  config,
  lenient,
  connectTimeout,
  callTimeout,
  ...speaking,
  json: Options.boolean("json").pipe(Options.withDescription("Print the completion as JSON (values, total, hasMore).")),
  ...adHoc,
  prompt: optionalText("prompt", "Complete an argument of this prompt (as zett prompts lists it)."),
  resource: optionalText(
    "resource",
    "Complete a variable of this resource template (its URI template, as zett resources lists it)."
  ),
  argument: Options.text("argument").pipe(
    Options.withDescription(
      "The argument to complete and what is typed of it so far, as NAME=VALUE (VALUE may be empty)."
    )
  ),
  context: repeatedText(
    "context",
    "An argument already chosen, as NAME=VALUE, that the completion may depend on (repeat it for more)."
  ),
  server: Args.optional(
    serverArg.pipe(
      Args.withDescription("The server's name, as the configuration writes it (none with --url or after --).")
    )
  )
}

/** `zett task get` and `zett task cancel`: one task of a configured server, by the id its call was answered with. */
const oneTask = {
  config,
  lenient,
  connectTimeout,
  callTimeout,
  ...speaking,
  json: Options.boolean("json").pipe(
    Options.withDescription("Print the task as JSON (its result too, once it has one).")
  ),
  server: serverArg,
  taskId: Args.text({ name: "task-id" }).pipe(
    Args.withDescription("The task's id, as zett call printed it (or the process that started the task kept it).")
  )
}

export const taskGet = {
  ...oneTask,
  wait: Options.boolean("wait").pipe(
    Options.withDescription(
      "Wait until the task ends (at most --call-timeout) and print its result as zett call would; Ctrl-C stops " +
        "waiting and leaves the task running (zett task cancel cancels it)."
    )
  )
}

export const taskCancel = oneTask

export const authLogin = {
  config,
  server: serverArg,
  port: Options.integer("port").pipe(
    Options.withDescription(
      "The 127.0.0.1 port to receive the redirect on (default: the server's redirectPort, else a free one)."
    ),
    Options.optional
  ),
  timeout: Options.integer("timeout").pipe(
    Options.withDescription("Seconds to wait for the browser's redirect (default 300)."),
    Options.optional
  ),
  noBrowser: Options.boolean("no-browser").pipe(Options.withDescription("Only print the URL; do not open a browser."))
}

export const authLogout = { config, server: serverArg }

export const authStatus = { config }

export type AuthLoginOptions = Command.Command.ParseConfig<typeof authLogin>
export type AuthLogoutOptions = Command.Command.ParseConfig<typeof authLogout>
export type AuthStatusOptions = Command.Command.ParseConfig<typeof authStatus>
export type TaskGetOptions = Command.Command.ParseConfig<typeof taskGet>
export type TaskCancelOptions = Command.Command.ParseConfig<typeof taskCancel>

export type ToolsOptions = Command.Command.ParseConfig<typeof tools>
export type ListingOptions = Command.Command.ParseConfig<typeof listing>
export type ReadOptions = Command.Command.ParseConfig<typeof read>
export type PromptOptions = Command.Command.ParseConfig<typeof prompt>
export type SkillOptions = Command.Command.ParseConfig<typeof skill>
export type CallOptions = Command.Command.ParseConfig<typeof call>
export type RunOptions = Command.Command.ParseConfig<typeof run>
export type DemoOptions = Command.Command.ParseConfig<typeof demo>
export type CompleteOptions = Command.Command.ParseConfig<typeof complete>
