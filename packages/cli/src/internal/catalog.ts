/**
 * What `zett resources` and `zett prompts` share: the servers asked (all, or the one named), each
 * connected in a scope of its own and listed under the connect timeout with a spinner, and the report laid out
 * in the table style of `zett tools`.
 *
 * @internal
 */
import type { McpClient, McpServer } from "@zett/mcp"
import type { McpClientFactory } from "@zett/mcp"
import { McpError, McpExtension, McpServers } from "@zett/mcp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Discovery from "../Discovery.js"
import type * as Output from "../Output.js"
import * as Progress from "../Progress.js"
import { columns, formatMillis } from "../ToolsReport.js"
import { inert } from "./inert.js"
import { clip } from "./width.js"

const methodNotFound = -32601

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
): Effect.Effect<ReadonlyArray<McpServer.McpServer>, CliError.UsageError> => {
  if (name._tag === "None") return Effect.succeed(snapshot.servers)
  const server = snapshot.servers.find((server) => server.name === name.value)
  if (server !== undefined) return Effect.succeed([server])
  const names = snapshot.servers.map((server) => server.name)
  return Effect.fail(
    new CliError.UsageError({
      message: `no MCP server named ${name.value} in ${file}; configured: ${
        names.length === 0 ? "none" : names.slice(0, 20).join(", ") + (names.length > 20 ? ", …" : "")
      }`
    })
  )
}

/** Connects to `server` (in the current scope) under the connect timeout. */
export const connect = (
  factory: McpClientFactory.McpClientFactory["Type"],
  server: McpServer.McpServer,
  limit: Option.Option<Duration.Duration>
) => factory.connect(server).pipe(McpError.within({ server: server.name, operation: "connect", limit }))

/**
 * Lists every server with `list` (connect and list under the connect timeout), concurrently, with a spinner on a
 * terminal. A server that answers -32601 (method not found) does not offer the feature: its items are undefined.
 */
export const listAll = <A>(
  factory: McpClientFactory.McpClientFactory["Type"],
  servers: ReadonlyArray<McpServer.McpServer>,
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

/**
 * The `--json` document of `zett resources` and `zett prompts`: each server's status with what it offers (`fields`
 * of its items; `offers` is undefined for an unavailable server), and the totals.
 */
export const json = <A>(
  listings: ReadonlyArray<Listing<A>>,
  options: {
    readonly config: string
    readonly configExists: boolean
    readonly skipped: unknown
    readonly offers: string
    readonly fields: (items: A | undefined) => Record<string, unknown>
    readonly totals: Record<string, number>
  }
) =>
  JSON.stringify(
    {
      config: options.config,
      configExists: options.configExists,
      servers: listings.map((listing) => ({
        name: listing.server,
        transport: listing.transport,
        status: listing.status,
        ...(listing.reason !== undefined ? { reason: listing.reason } : {}),
        millis: listing.millis,
        [options.offers]: listing.status === "ok" ? listing.items !== undefined : undefined,
        ...options.fields(listing.items)
      })),
      skipped: options.skipped,
      totals: {
        servers: listings.length,
        available: listings.filter((l) => l.status === "ok").length,
        ...options.totals
      }
    },
    null,
    2
  )

/** Exit 1 when a server was unavailable, named in one line. */
export const unavailableFailure = <A>(listings: ReadonlyArray<Listing<A>>) => {
  const down = listings.filter((listing) => listing.status === "unavailable")
  if (down.length === 0) return Effect.void
  return Effect.fail(
    new CliError.RunFailed({
      message: `${down.length} of ${listings.length} MCP ${listings.length === 1 ? "server" : "servers"} unavailable: ${
        McpExtension.summarizeUnavailable(down.map((l) => ({ server: l.server, reason: l.reason ?? "unknown reason" })))
      }`
    })
  )
}

/** The server table (the style of `zett tools`), then one section per server; the counts are right-aligned. */
export const render = <A>(
  listings: ReadonlyArray<Listing<A>>,
  options: {
    readonly config: string
    readonly configExists: boolean
    readonly width: number
    readonly counts: ReadonlyArray<{ readonly header: string; readonly count: (items: A) => number }>
    readonly none: string
    readonly sections: (listing: Listing<A> & { readonly items: A }, width: number) => ReadonlyArray<string>
    readonly total: (listings: ReadonlyArray<Listing<A>>) => string
  }
): string => {
  const width = Math.max(60, options.width)
  const out: Array<string> = []
  if (listings.length === 0) {
    out.push(
      options.configExists
        ? `No MCP servers are configured in ${options.config}.`
        : `No MCP servers are configured: ${options.config} does not exist.`
    )
    return out.join("\n")
  }
  out.push(`MCP servers in ${options.config}`, "")
  const right = new Set(options.counts.map((_, i) => i + 3).concat([2]))
  const table = columns([
    ["SERVER", "TRANSPORT", "TIME", ...options.counts.map((c) => c.header), "STATUS"],
    ...listings.map((listing) => [
      listing.server,
      listing.transport,
      formatMillis(listing.millis),
      ...options.counts.map((c) => (listing.items === undefined ? "-" : String(c.count(listing.items)))),
      listing.status === "unavailable"
        ? `unavailable: ${listing.reason ?? "unknown reason"}`
        : listing.items === undefined
        ? `ok (${options.none})`
        : "ok"
    ])
  ], right)
  out.push(...table.map((line) => clip(line, width)))
  for (const listing of listings) {
    if (listing.status !== "ok" || listing.items === undefined) continue
    const lines = options.sections(listing as Listing<A> & { readonly items: A }, width)
    if (lines.length > 0) out.push("", ...lines)
  }
  const available = listings.filter((l) => l.status === "ok").length
  const unavailable = listings.length - available
  out.push(
    "",
    `${listings.length} ${listings.length === 1 ? "server" : "servers"}: ${available} ok` +
      `${unavailable > 0 ? `, ${unavailable} unavailable` : ""}; ${options.total(listings)}`
  )
  // cells and descriptions are inert already (`columns`, `rows`); the rest is made so here
  return out.map(inert).join("\n")
}

export const firstLine = (text: string | undefined) =>
  (text ?? "").split("\n").find((line) => line.trim() !== "")?.trim() ?? ""

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Rows of cells laid out as columns, the last one (a description) clipped to `width`. */
export const rows = (cells: ReadonlyArray<ReadonlyArray<string>>, width: number): Array<string> =>
  columns(cells.map((row) => [...row.slice(0, -1), "-"])).map((line, i) => {
    const prefix = line.slice(0, -1)
    return `${prefix}${clip(inert(cells[i]!.at(-1)!), Math.max(10, width - prefix.length))}`.trimEnd()
  })

