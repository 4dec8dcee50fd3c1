/**
 * A server given on the command line instead of a configuration file: `--url URL [--header NAME:VALUE]...
 * [--transport sse]`, or a command after `--` with `[--env NAME=VALUE]... [--cwd DIR]`. It is one entry of a
 * configuration, made from the options that make sense on a command line, and named after the URL's host or
 * the command's file name (`--name` chooses another).
 *
 * @internal
 */
import * as Path from "@effect/platform/Path"
import * as McpServerConfig from "@zett/mcp/McpServerConfig"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as CliError from "../CliError.js"
import { ServerCommand } from "./argv.js"

/** The options of a server on the command line, as the commands parse them. */
export interface Options {
  readonly config: ReadonlyArray<string>
  readonly url: Option.Option<string>
  readonly header: ReadonlyArray<Redacted.Redacted<string>>
  readonly transport: Option.Option<"streamable-http" | "sse">
  readonly env: ReadonlyArray<Redacted.Redacted<string>>
  readonly cwd: Option.Option<string>
  readonly includeTools: ReadonlyArray<string>
  readonly excludeTools: ReadonlyArray<string>
  readonly serverName: Option.Option<string>
}

/** What a report says the servers came from. */
export const source = "the command line"

const usage = (message: string) => new CliError.UsageError({ reason: "InvalidArgument", message })

// a header name is an HTTP token (RFC 9110); the value is never shown, in no error either
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** `NAME:VALUE` pairs (`--header`) or `NAME=VALUE` pairs (`--env`), values kept `Redacted`. */
const pairs = (
  option: string,
  separator: ":" | "=",
  items: ReadonlyArray<Redacted.Redacted<string>>,
  validName: (name: string) => boolean
) =>
  Effect.gen(function*() {
    const record: Record<string, Redacted.Redacted<string>> = {}
    for (const [index, item] of items.entries()) {
      const text = Redacted.value(item)
      const at = text.indexOf(separator)
      const name = at === -1 ? "" : text.slice(0, at).trim()
      const which = items.length === 1 ? option : `${option} number ${index + 1}`
      if (at === -1) {
        return yield* usage(`${which} expects NAME${separator}VALUE; it has no '${separator}' (its text is not shown)`)
      }
      if (!validName(name)) {
        return yield* usage(
          `${which} expects NAME${separator}VALUE; its name is empty or not a valid name (its text is not shown)`
        )
      }
      record[name] = Redacted.make(separator === ":" ? text.slice(at + 1).trim() : text.slice(at + 1))
    }
    return record
  })

/** The host of an `http:` or `https:` URL; the URL itself is never echoed, as it may carry a token. */
const hostOf = (url: string): string | undefined => {
  try {
    const parsed = new URL(url)
    return parsed.protocol === "http:" || parsed.protocol === "https:"
      ? parsed.hostname.replace(/^\[|\]$/g, "")
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The server the command line gives, if it gives one; a usage error for options that do not fit together
 * (a file and a server, a URL and a command, `--header` without a URL, `--env` without a command).
 */
export const server = (
  options: Options
): Effect.Effect<Option.Option<McpServerConfig.McpServerConfig>, CliError.UsageError, Path.Path> =>
  Effect.gen(function*() {
    const command = yield* ServerCommand
    const url = Option.getOrUndefined(options.url)
    const given = url !== undefined || command !== undefined
    if (!given) {
      const stray = [
        options.header.length > 0 ? "--header" : undefined,
        Option.isSome(options.transport) ? "--transport" : undefined,
        options.env.length > 0 ? "--env" : undefined,
        Option.isSome(options.cwd) ? "--cwd" : undefined,
        options.includeTools.length > 0 ? "--include-tools" : undefined,
        options.excludeTools.length > 0 ? "--exclude-tools" : undefined,
        Option.isSome(options.serverName) ? "--name" : undefined
      ].filter((name) => name !== undefined)
      if (stray.length > 0) {
        return yield* usage(`${stray.join(", ")}: only for a server given with --url URL or after --; neither is given`)
      }
      return Option.none()
    }
    if (options.config.length > 0) {
      return yield* usage(
        "--config and a server given on the command line (--url, or a command after --) exclude each other"
      )
    }
    if (url !== undefined && command !== undefined) {
      return yield* usage("give one server: --url URL or a command after --, not both")
    }
    const name = Option.getOrUndefined(options.serverName)
    if (name !== undefined && name.trim() === "") return yield* usage("--name must not be empty")
    // the filters of a configuration entry (McpServerConfig's includeTools and excludeTools)
    const filters = {
      ...(options.includeTools.length > 0 ? { includeTools: options.includeTools } : {}),
      ...(options.excludeTools.length > 0 ? { excludeTools: options.excludeTools } : {})
    }
    if (url !== undefined) {
      if (options.env.length > 0 || Option.isSome(options.cwd)) {
        return yield* usage("--env and --cwd are for a server started as a command (after --), not for --url")
      }
      const host = hostOf(url)
      if (host === undefined) return yield* usage("--url expects an http: or https: URL (the text given is not shown)")
      const headers = yield* pairs("--header", ":", options.header, (header) => headerName.test(header))
      return Option.some(
        new McpServerConfig.McpHttpServer({
          name: name ?? host,
          // a host's dots and colons as underscores (`127_0_0_1__echo`), not the hashed form of an odd name
          ...(name === undefined ? { toolPrefix: host.replace(/[^A-Za-z0-9_-]/g, "_") } : {}),
          url,
          headers,
          ...filters,
          transport: Option.getOrElse(options.transport, () => "streamable-http" as const)
        })
      )
    }
    if (options.header.length > 0 || Option.isSome(options.transport)) {
      return yield* usage("--header and --transport are for a server given with --url, not for a command")
    }
    const [executable, ...args] = command ?? []
    if (executable === undefined || executable === "") return yield* usage("the command after -- is empty")
    const path = yield* Path.Path
    const env = yield* pairs("--env", "=", options.env, (variable) => variable !== "")
    const cwd = Option.getOrUndefined(options.cwd)
    return Option.some(
      new McpServerConfig.McpStdioServer({
        name: name ?? (path.basename(executable).replace(/\.(exe|cmd|bat|m?js|cjs|py)$/i, "") || executable),
        command: executable,
        args,
        env,
        ...filters,
        ...(cwd !== undefined ? { cwd: path.resolve(cwd) } : {})
      })
    )
  })
