/**
 * The servers a request may use: all the extension needs from configuration. `layer` gives a fixed list written
 * in code; `@zett/mcp-config` reads the config files of every popular client and re-reads them when they change.
 *
 * @since 1.0.0
 */
import * as Definition from "@zett/common/McpServerDefinition"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { McpConfigError } from "./McpError.js"
import { McpHttpServer, McpStdioServer } from "./McpServerConfig.js"
import type { McpServerConfig } from "./McpServerConfig.js"

/**
 * An entry of the file that was left out in lenient mode, kept so that it can be reported.
 *
 * @since 1.0.0
 * @category models
 */
export interface Skipped {
  /** Where in the file, e.g. `servers.docs.url`. */
  readonly entry: string
  /** The server name the entry was written under. */
  readonly server: string
  /** Why, in a few words; never contains a header or env value. */
  readonly reason: string
}

/**
 * The configuration in use at one moment.
 *
 * @since 1.0.0
 * @category models
 */
export interface Snapshot {
  /** The absolute path of the configuration file, even if it does not exist; undefined when no file is used. */
  readonly path: string | undefined
  /** The file's servers first, then the explicit ones, so the order does not depend on where a server is given. */
  readonly servers: ReadonlyArray<McpServerConfig>
  /** Entries of the file skipped in lenient mode. */
  readonly skipped: ReadonlyArray<Skipped>
}

/**
 * The servers in use.
 *
 * `path` is fixed when the service is built. `servers` and `skipped` are getters that read the configuration
 * of the last successful load, without touching the file. Call `current` at the start of every request: it
 * checks the file (one `stat`), re-reads it only when its modification time or size changed, and never fails.
 *
 * @since 1.0.0
 * @category tags
 */
export class McpServers extends Context.Service<McpServers, {
  readonly path: string | undefined
  readonly servers: ReadonlyArray<McpServerConfig>
  readonly skipped: ReadonlyArray<Skipped>
  readonly current: Effect.Effect<Snapshot>
}>()("@zett/mcp/McpServers") {}

const withPrefix = (server: McpServerConfig, prefix: string): McpServerConfig => {
  if (server._tag === "McpHttpServer") {
    const { _tag, ...fields } = server
    return new McpHttpServer({ ...fields, toolPrefix: prefix })
  }
  const { _tag, ...fields } = server
  return new McpStdioServer({ ...fields, toolPrefix: prefix })
}

/**
 * Two names may map to one tool prefix (`a.b` sanitised, and a server really named like that): the later one
 * gets a prefix of its own, with a warning, so that neither server's tools shadow the other's.
 *
 * @since 1.0.0
 * @category utils
 */
export const distinctPrefixes = (
  where: string,
  servers: ReadonlyArray<McpServerConfig>
): Effect.Effect<ReadonlyArray<McpServerConfig>> =>
  Effect.gen(function*() {
    const out = [...servers]
    for (const clash of Definition.prefixClashes(servers)) {
      const server = servers[clash.index]!
      yield* Effect.logWarning(
        `${where}: the servers ${JSON.stringify(clash.owner)} and ${JSON.stringify(server.name)} map to one ` +
          `tool prefix (${clash.prefix}); the tools of ${JSON.stringify(server.name)} are named ${clash.other}__<tool>`
      )
      out[clash.index] = withPrefix(server, clash.other)
    }
    return out
  })

/**
 * Fails with `McpConfigError` when two servers of a list written in code share a name.
 *
 * @since 1.0.0
 * @category utils
 */
export const checkNames = (servers: ReadonlyArray<McpServerConfig>): Effect.Effect<void, McpConfigError> => {
  const seen = new Set<string>()
  for (const server of servers) {
    if (seen.has(server.name)) {
      return Effect.fail(
        new McpConfigError({
          path: "servers option",
          entry: server.name,
          reason: "DuplicateName",
          description: "duplicate server name"
        })
      )
    }
    seen.add(server.name)
  }
  return Effect.void
}

/**
 * The service for a fixed list of servers written in code. Fails with `McpConfigError` when two share a name.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (servers: ReadonlyArray<McpServerConfig>): Effect.Effect<McpServers["Service"], McpConfigError> =>
  Effect.gen(function*() {
    yield* checkNames(servers)
    const distinct = yield* distinctPrefixes("servers option", servers)
    const snapshot: Snapshot = { path: undefined, servers: distinct, skipped: [] }
    return McpServers.of({ path: undefined, servers: distinct, skipped: [], current: Effect.succeed(snapshot) })
  })

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (servers: ReadonlyArray<McpServerConfig>): Layer.Layer<McpServers, McpConfigError> =>
  Layer.effect(McpServers)(make(servers))
