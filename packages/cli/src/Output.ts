/**
 * Where the `zett` command writes: standard output (tables, JSON, transcripts) and standard error (progress,
 * errors, logs). A service, so that tests run the command in-process and read what it printed.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Util from "node:util"
import * as Chatter from "./internal/chatter.js"
import * as HelpText from "./internal/helpText.js"
import { inert } from "./internal/inert.js"

/**
 * @since 0.1.0
 * @category tags
 */
export class Output extends Context.Tag("@zett/cli/Output")<Output, {
  /** Writes to standard output as given (no newline is added). */
  readonly stdout: (text: string) => Effect.Effect<void>
  /** Writes to standard error as given (no newline is added). */
  readonly stderr: (text: string) => Effect.Effect<void>
  /** Standard error is a terminal (spinner, colours); false when it is piped or redirected. */
  readonly interactive: boolean
  /** Standard output is a terminal (colours). */
  readonly colors: boolean
  /** The width to fit tables into. */
  readonly columns: number
}>() {}

/**
 * Writes one line to standard output.
 *
 * @since 0.1.0
 * @category accessors
 */
export const line = (text: string = ""): Effect.Effect<void, never, Output> =>
  Effect.flatMap(Output, (output) => output.stdout(`${text}\n`))

/**
 * Writes one line to standard error.
 *
 * @since 0.1.0
 * @category accessors
 */
export const errorLine = (text: string): Effect.Effect<void, never, Output> =>
  Effect.flatMap(Output, (output) => output.stderr(`${text}\n`))

const write = (stream: NodeJS.WriteStream, text: string) =>
  Effect.sync(() => {
    try {
      stream.write(text)
    } catch {
      // a closed pipe (`zett tools | head -1`) is not an error of the command
    }
  })

/**
 * Whether a stream is a terminal that understands cursor movement.
 *
 * @since 0.1.0
 * @category utils
 */
export const isInteractive = (stream: { readonly isTTY?: boolean | undefined }, env: NodeJS.ProcessEnv): boolean =>
  stream.isTTY === true && env.TERM !== "dumb" && env.CI === undefined

/**
 * The process's standard output and standard error.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode: Layer.Layer<Output> = Layer.sync(Output, () => {
  // EPIPE arrives as an 'error' event, which would otherwise crash the process. Kept for the process's life, not
  // the layer's scope: the event of the last writes comes after the program (and its scope) ended, when a reader
  // such as `head` closed the pipe early
  process.stdout.on("error", () => {})
  process.stderr.on("error", () => {})
  return Output.of({
    stdout: (text) => write(process.stdout, text),
    stderr: (text) => write(process.stderr, text),
    interactive: isInteractive(process.stderr, process.env),
    colors: isInteractive(process.stdout, process.env) && process.env.NO_COLOR === undefined,
    // 0 when the terminal reports no size (`script`, some CI runners)
    columns: process.stdout.columns || process.stderr.columns || 100
  })
})

/**
 * What an in-memory `Output` has received so far.
 *
 * @since 0.1.0
 * @category models
 */
export interface Captured {
  readonly stdout: () => string
  readonly stderr: () => string
}

/**
 * An output kept in memory, for tests. `interactive` (default false) pretends standard error is a terminal.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options?: {
  readonly interactive?: boolean | undefined
  readonly colors?: boolean | undefined
  readonly columns?: number | undefined
}): { readonly output: Output["Type"]; readonly captured: Captured } => {
  let out = ""
  let err = ""
  return {
    output: Output.of({
      stdout: (text) => Effect.sync(() => (out += text)),
      stderr: (text) => Effect.sync(() => (err += text)),
      interactive: options?.interactive ?? false,
      colors: options?.colors ?? false,
      columns: options?.columns ?? 100
    }),
    captured: { stdout: () => out, stderr: () => err }
  }
}

const format = (args: ReadonlyArray<unknown>, colors: boolean) => {
  const text = args.map((arg) => (typeof arg === "string" ? arg : Util.inspect(arg, { depth: 4 }))).join(" ")
  // @effect/cli colours its help and errors whatever the stream is
  return colors ? text : Util.stripVTControlCharacters(text)
}

/**
 * A `Console` that writes through `output`: `log`/`info` to standard output, everything else to standard
 * error, without escape codes where the stream is not a terminal. `@effect/cli` prints help and usage
 * errors through the `Console`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toConsole = (output: Output["Type"]): Console.Console => {
  // `@effect/cli`'s help is laid out for a terminal of at most 80 columns (its other output, a completion script,
  // is printed as it is)
  const toOut = (...args: ReadonlyArray<unknown>) => {
    const text = format(args, output.colors)
    return output.stdout(
      `${HelpText.isHelp(text) ? HelpText.layout(text, Math.min(80, Math.max(60, output.columns))) : text}\n`
    )
  }
  const toErr = (...args: ReadonlyArray<unknown>) => output.stderr(`${format(args, output.interactive)}\n`)
  const sync = (effect: Effect.Effect<void>) => Effect.runSync(effect)
  const unsafe: Console.UnsafeConsole = {
    ...globalThis.console,
    log: (...args) => sync(toOut(...args)),
    info: (...args) => sync(toOut(...args)),
    error: (...args) => sync(toErr(...args)),
    warn: (...args) => sync(toErr(...args)),
    debug: (...args) => sync(toErr(...args)),
    trace: (...args) => sync(toErr(...args))
  }
  return {
    [Console.TypeId]: Console.TypeId,
    assert: (condition, ...args) => (condition ? Effect.void : toErr("Assertion failed:", ...args)),
    clear: Effect.void,
    count: () => Effect.void,
    countReset: () => Effect.void,
    debug: toErr,
    dir: (item) => toErr(item),
    dirxml: toErr,
    error: toErr,
    group: () => Effect.void,
    groupEnd: Effect.void,
    info: toOut,
    log: toOut,
    table: (data) => toOut(data),
    time: () => Effect.void,
    timeEnd: () => Effect.void,
    timeLog: () => Effect.void,
    trace: toErr,
    warn: toErr,
    unsafe
  }
}

/**
 * Log lines for people: `zett: warning: MCP server docs is unavailable: HTTP 401`.
 *
 * @since 0.1.0
 * @category loggers
 */
export const logFormat: Logger.Logger<unknown, string> = Logger.make(({ annotations, cause, logLevel, message }) => {
  const text = (Array.isArray(message) ? message : [message]).map((part) =>
    typeof part === "string" ? part : Util.inspect(part, { depth: 4 })
  ).join(" ")
  const level = logLevel.label === "WARN" ? "warning" : logLevel.label.toLowerCase()
  // a stdio server's stderr lines say which server they come from
  const server = HashMap.get(annotations, "mcp.server")
  const prefix = server._tag === "Some" && HashMap.get(annotations, "mcp.stream")._tag === "Some" &&
      String(HashMap.unsafeGet(annotations, "mcp.stream")) === "stderr"
    ? `[${String(server.value)}] `
    : ""
  // `mcp.*` annotations are in the text already; others (a provider's retry reason ...) are not
  const extra: Array<string> = []
  for (const [key, value] of annotations) {
    if (!key.startsWith("mcp.")) extra.push(`${key}=${typeof value === "string" ? value : Util.inspect(value)}`)
  }
  const annotated = extra.length === 0 ? "" : ` (${extra.join(", ")})`
  const detail = Cause.isEmpty(cause) ? "" : `\n${Cause.pretty(cause)}`
  // a server's words reach the terminal inert (no escape sequence of theirs runs)
  return inert(`zett: ${level}: ${prefix}${text}${annotated}${detail}`)
})

/**
 * `logFormat`, written to the standard error of `output` (not through the `Console`, which `@effect/cli` uses
 * for its own messages). With a `chatter`, the lines about one MCP server (annotated `mcp.server`) are limited
 * to its first few, the rest counted for its summary; at `--log-level debug` (or below) every line is shown.
 *
 * @since 0.1.0
 * @category loggers
 */
export const logger = (output: Output["Type"], chatter?: Chatter.Service): Logger.Logger<unknown, void> =>
  Logger.make((options) => {
    if (chatter !== undefined) {
      const server = HashMap.get(options.annotations, "mcp.server")
      const everything = LogLevel.lessThanEqual(
        FiberRefs.getOrDefault(options.context, FiberRef.currentMinimumLogLevel),
        LogLevel.Debug
      )
      // only what a server sends (its log messages, its stderr, the lines its requests cause) is limited: zett's
      // own lines about it (unavailable, refused) all show
      const stream = HashMap.get(options.annotations, "mcp.stream")
      // a line about one of the server's requests (a sampling request refused) counts with its requests
      const kind = stream._tag === "Some" && stream.value === "requests" ? "request" : "log"
      if (
        server._tag === "Some" && stream._tag === "Some" && !everything && !chatter.admit(String(server.value), kind)
      ) return
    }
    Effect.runSync(output.stderr(`${logFormat.log(options)}\n`))
  })

/**
 * Routes the `Console` and the logger through the `Output` in context, and provides the `Chatter` that limits
 * what each MCP server gets printed; what it held back is summed up when the layer closes (and whenever
 * `Chatter.summarize` runs before).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConsole: Layer.Layer<Chatter.Chatter, never, Output> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const output = yield* Output
    const chatter = Chatter.make()
    yield* Effect.addFinalizer(() =>
      Effect.forEach(chatter.flush(), (line) => output.stderr(`zett: ${line}\n`), { discard: true })
    )
    return Layer.mergeAll(
      Console.setConsole(toConsole(output)),
      Logger.replace(Logger.defaultLogger, logger(output, chatter)),
      Layer.succeed(Chatter.Chatter, chatter)
    )
  })
)
