/**
 * What `zett resources` and `zett prompts` share: the servers asked (all, or the one named), each
 * connected in a scope of its own and listed under the connect timeout with a spinner, and the report laid out
 * in the table style of `zett tools`; and what `zett read` and `zett prompt` share: the server named, and the
 * reason a request to it failed.
 *
 * @internal
 */
import type { McpClient, McpClientFactory, McpServerConfig, McpServers } from "@zett/mcp"
import * as McpError from "@zett/mcp/McpError"
import * as McpExtension from "@zett/mcp/McpExtension"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Discovery from "../Discovery.js"
import * as Output from "../Output.js"
import * as Progress from "../Progress.js"
import { columns, formatMillis } from "../ToolsReport.js"
import type * as AdHoc from "./adhoc.js"
import { loadServers, nameList, resolveClientFactory, unavailableFailure } from "./common.js"
import { inert } from "./inert.js"
import type * as Options from "./options.js"
import { connectLimit } from "./options.js"
import { clip } from "./width.js"

/** JSON-RPC's "method not found": the server does not offer the feature. */
export const methodNotFound = -32601

/** One server's listing: `items` is undefined when the server does not offer the feature (-32601). */
export interface Listing<A> {
  readonly server: string
  readonly transport: Discovery.ServerReport["transport"]
  readonly status: "ok" | "unavailable"
  readonly reason?: string | undefined
  readonly millis: number
  readonly items: A | undefined
}

/** The servers of the configuration, or the one named (a name not configured is bad usage). */
export const select = (
  snapshot: McpServers.Snapshot,
  file: string,
  name: Option.Option<string>
): Effect.Effect<ReadonlyArray<McpServerConfig.McpServerConfig>, CliError.UsageError> => {
  if (name._tag === "None") return Effect.succeed(snapshot.servers)
  const server = snapshot.servers.find((server) => server.name === name.value)
  if (server !== undefined) return Effect.succeed([server])
  const names = snapshot.servers.map((server) => server.name)
  return Effect.fail(
    new CliError.UsageError({
      reason: "NotFound",
      message: `no MCP server named ${name.value} in ${file}; configured: ${nameList(names)}`
    })
  )
}

/** Connects to `server` (in the current scope) under the connect timeout. */
export const connect = (
  factory: McpClientFactory.McpClientFactory["Type"],
  server: McpServerConfig.McpServerConfig,
  limit: Option.Option<Duration.Duration>
) => factory.connect(server).pipe(McpError.within({ server: server.name, operation: "connect", limit }))

/**
 * Connects to `server` and lists what a command looks the user's name up in, both under the connect timeout (a
 * wrong name is told before anything is asked for); a server that fails is "unavailable" for `doing`.
 */
export const connectAndList = <A>(
  factory: McpClientFactory.McpClientFactory["Type"],
  server: McpServerConfig.McpServerConfig,
  options: {
    readonly doing: string
    readonly connectTimeout: Option.Option<number>
    readonly list: (client: McpClient.McpClient) => Effect.Effect<A, McpError.McpRequestError>
  }
) =>
  Effect.gen(function*() {
    const client = yield* connect(factory, server, Option.none())
    return { client, listed: yield* options.list(client) }
  }).pipe(
    McpError.within({ server: server.name, operation: "connect", limit: connectLimit(options.connectTimeout) }),
    Effect.mapError((error) =>
      new CliError.RunFailed({
        reason: "Unavailable",
        message: `cannot ${options.doing}: MCP server ${server.name} is unavailable: ${McpError.reasonOf(error)}`
      })
    )
  )

/**
 * Lists every server with `list` (connect and list under the connect timeout), concurrently, with a spinner on a
 * terminal. A server that answers -32601 (method not found) does not offer the feature: its items are undefined.
 */
export const listAll = <A>(
  factory: McpClientFactory.McpClientFactory["Type"],
  servers: ReadonlyArray<McpServerConfig.McpServerConfig>,
  options: {
    readonly what: string
    readonly limit: Option.Option<Duration.Duration>
    readonly concurrency?: number | undefined
    readonly list: (client: McpClient.McpClient) => Effect.Effect<A, McpError.McpRequestError>
  }
): Effect.Effect<ReadonlyArray<Listing<A>>, never, Output.Output> =>
  servers.length === 0 ? Effect.succeed([]) : Progress.withSpinner(
    `Listing the ${options.what} of ${servers.length} MCP ${servers.length === 1 ? "server" : "servers"}…`,
    (status) => {
      let done = 0
      return Effect.forEach(
        servers,
        (server) =>
          Effect.gen(function*() {
            const client = yield* factory.connect(server)
            return yield* options.list(client).pipe(
              Effect.map((items): A | undefined => items),
              Effect.catchIf((error) => error.code === methodNotFound, () => Effect.succeed(undefined))
            )
          }).pipe(
            McpError.within({ server: server.name, operation: "connect", limit: options.limit }),
            Effect.either,
            Effect.timed,
            Effect.scoped,
            Effect.map(([elapsed, result]): Listing<A> => ({
              server: server.name,
              transport: Discovery.transportOf(server),
              millis: Math.round(Duration.toMillis(elapsed)),
              ...(result._tag === "Right"
                ? { status: "ok" as const, items: result.right }
                : { status: "unavailable" as const, reason: McpError.reasonOf(result.left), items: undefined })
            })),
            Effect.tap(() => status.set(`Listing MCP ${options.what}… ${++done}/${servers.length} done`))
          ),
        { concurrency: options.concurrency ?? McpExtension.defaultDiscoveryConcurrency }
      )
    }
  )

/** What `zett resources` or `zett prompts` lists of each server, and how its report shows it. */
export interface Report<A> {
  /** What is listed, as the spinner and `ok (offers no …)` say it: "prompts". */
  readonly what: string
  readonly list: (client: McpClient.McpClient) => Effect.Effect<A, McpError.McpRequestError>
  /** The `--json` key that says whether a server offers the feature (undefined for an unavailable server). */
  readonly offers: string
  /** A server's `--json` fields for its items. */
  readonly fields: (items: A | undefined) => Record<string, unknown>
  readonly totals: (listings: ReadonlyArray<Listing<A>>) => Record<string, number>
  /** The table's count columns, right-aligned. */
  readonly counts: ReadonlyArray<{ readonly header: string; readonly count: (items: A) => number }>
  readonly sections: (listing: Listing<A> & { readonly items: A }, width: number) => ReadonlyArray<string>
  /** The totals after the servers' summary line. */
  readonly total: (listings: ReadonlyArray<Listing<A>>) => string
}

/** The configuration a report names. */
interface Source {
  readonly file: string
  readonly exists: boolean
  readonly snapshot: McpServers.Snapshot
}

/**
 * A listing command: the servers asked listed under the connect timeout, the report printed (`--json`, or the
 * table and the sections), exit 1 when a server was unavailable.
 */
export const listCommand = <A>(options: Options.ListingOptions, report: Report<A>) =>
  Effect.gen(function*() {
    const factory = yield* resolveClientFactory({ serverLogLevel: options.serverLogLevel, protocol: options.protocol })
    const output = yield* Output.Output
    const source = yield* loadServers(options)
    const servers = yield* select(source.snapshot, source.file, options.server)
    const listings = yield* listAll(factory, servers, {
      what: report.what,
      limit: connectLimit(options.connectTimeout),
      concurrency: Option.getOrUndefined(options.discoveryConcurrency),
      list: report.list
    })
    yield* Output.line(options.json ? json(listings, source, report) : render(listings, source, report, output.columns))
    yield* unavailableFailure(listings)
  })

/** The `--json` document: each server's status with what it offers, and the totals. */
const json = <A>(listings: ReadonlyArray<Listing<A>>, source: Source, report: Report<A>) =>
  JSON.stringify(
    {
      config: source.file,
      configExists: source.exists,
      servers: listings.map((listing) => ({
        name: listing.server,
        transport: listing.transport,
        status: listing.status,
        ...(listing.reason !== undefined ? { reason: listing.reason } : {}),
        millis: listing.millis,
        [report.offers]: listing.status === "ok" ? listing.items !== undefined : undefined,
        ...report.fields(listing.items)
      })),
      skipped: source.snapshot.skipped,
      totals: {
        servers: listings.length,
        available: listings.filter((l) => l.status === "ok").length,
        ...report.totals(listings)
      }
    },
    null,
    2
  )

/** The server table (the style of `zett tools`), then one section per server; the counts are right-aligned. */
const render = <A>(
  listings: ReadonlyArray<Listing<A>>,
  source: Source,
  report: Report<A>,
  columnsWide: number
): string => {
  const width = Math.max(60, columnsWide)
  const out: Array<string> = []
  if (listings.length === 0) {
    out.push(
      source.exists
        ? `No MCP servers are configured in ${source.file}.`
        : `No MCP servers are configured: ${source.file} does not exist.`
    )
    return out.join("\n")
  }
  out.push(`MCP servers in ${source.file}`, "")
  const right = new Set(report.counts.map((_, i) => i + 3).concat([2]))
  const table = columns([
    ["SERVER", "TRANSPORT", "TIME", ...report.counts.map((c) => c.header), "STATUS"],
    ...listings.map((listing) => [
      listing.server,
      listing.transport,
      formatMillis(listing.millis),
      ...report.counts.map((c) => (listing.items === undefined ? "-" : String(c.count(listing.items)))),
      listing.status === "unavailable"
        ? `unavailable: ${listing.reason ?? "unknown reason"}`
        : listing.items === undefined
        ? `ok (offers no ${report.what})`
        : "ok"
    ])
  ], right)
  for (const line of table) out.push(clip(line, width))
  for (const listing of listings) {
    if (listing.status !== "ok" || listing.items === undefined) continue
    const lines = report.sections(listing as Listing<A> & { readonly items: A }, width)
    if (lines.length > 0) {
      out.push("")
      for (const line of lines) out.push(line)
    }
  }
  const available = listings.filter((l) => l.status === "ok").length
  const unavailable = listings.length - available
  out.push(
    "",
    `${listings.length} ${listings.length === 1 ? "server" : "servers"}: ${available} ok` +
      `${unavailable > 0 ? `, ${unavailable} unavailable` : ""}; ${report.total(listings)}`
  )
  // cells and descriptions are inert already (`columns`, `rows`); the rest is made so here
  return out.map(inert).join("\n")
}

/** One section of a server's report: `demo: 2 prompts`, then a row per item; nothing when there are none. */
export const section = <I>(
  server: string,
  items: ReadonlyArray<I>,
  one: string,
  row: (item: I) => ReadonlyArray<string>,
  width: number
): ReadonlyArray<string> =>
  items.length === 0 ? [] : [`${server}: ${plural(items.length, one)}`, ...rows(items.map(row), width)]

/** The server named for `zett read` or `zett prompt` (or the one given on the command line), with the client factory to reach it. */
export const named = (
  options: AdHoc.Options & {
    readonly lenient: boolean
    readonly server: string
    readonly serverLogLevel: Option.Option<Options.ServerLogLevel>
    readonly protocol: Option.Option<McpServerConfig.Protocol>
  }
) =>
  Effect.gen(function*() {
    const factory = yield* resolveClientFactory({ serverLogLevel: options.serverLogLevel, protocol: options.protocol })
    const { adHoc, file, snapshot } = yield* loadServers(options)
    const [server] = adHoc ? snapshot.servers : yield* select(snapshot, file, Option.some(options.server))
    return { factory, server: server! }
  })

/** Why a request failed, with the server's error code when it gave one. */
export const failureReason = (error: McpError.McpConnectError | McpError.McpRequestError | McpError.McpTimeoutError) =>
  `${McpError.reasonOf(error)}${
    error._tag === "McpRequestError" && error.code !== undefined ? ` (code ${error.code})` : ""
  }`

export const firstLine = (text: string | undefined) =>
  (text ?? "").split("\n").find((line) => line.trim() !== "")?.trim() ?? ""

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Rows of cells laid out as columns, the last one (a description) clipped to `width`. */
export const rows = (cells: ReadonlyArray<ReadonlyArray<string>>, width: number): Array<string> =>
  columns(cells.map((row) => [...row.slice(0, -1), "-"])).map((line, i) => {
    const prefix = line.slice(0, -1)
    return `${prefix}${clip(inert(cells[i]!.at(-1)!), Math.max(10, width - prefix.length))}`.trimEnd()
  })
