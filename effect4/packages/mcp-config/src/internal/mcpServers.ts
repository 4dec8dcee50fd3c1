/**
 * The core's `McpServers` (the servers a request may use), as the Effect 3 line's `@zett/mcp` has it, until the
 * Effect 4 line's `@zett/mcp` has its own: then this module goes and `McpConfiguration` imports that one. The
 * service's key is the core's (`@zett/mcp/McpServers`), so the layer already provides what the core will read.
 *
 * @internal
 */
import { McpConfigError } from "@zett/mcp/McpError"
import { McpHttpServer, McpStdioServer, toolPrefix } from "@zett/mcp/McpServerConfig"
import type { McpServerConfig } from "@zett/mcp/McpServerConfig"
import * as McpTool from "@zett/mcp/McpTool"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** @internal */
export interface Skipped {
  readonly entry: string
  readonly server: string
  readonly reason: string
}
/** @internal */
export interface Snapshot {
  readonly path: string | undefined
  readonly servers: ReadonlyArray<McpServerConfig>
  readonly skipped: ReadonlyArray<Skipped>
}
/** @internal */
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
 * Two names may map to one tool prefix: the later one gets a prefix of its own, with a warning.
 *
 * @internal
 */
export const distinctPrefixes = (
  where: string,
  servers: ReadonlyArray<McpServerConfig>
): Effect.Effect<ReadonlyArray<McpServerConfig>> =>
  Effect.gen(function*() {
    const prefixes = servers.map(toolPrefix)
    const owners = new Map<string, string>()
    servers.forEach((server, i) => owners.has(prefixes[i]!) || owners.set(prefixes[i]!, server.name))
    const out: Array<McpServerConfig> = []
    const taken = new Set<string>()
    for (const [i, server] of servers.entries()) {
      const prefix = prefixes[i]!
      if (!taken.has(prefix)) {
        taken.add(prefix)
        out.push(server)
        continue
      }
      let other = prefix
      for (let n = 2; taken.has(other) || owners.has(other); n++) other = McpTool.sanitizeName(`${server.name}#${n}`)
      taken.add(other)
      yield* Effect.logWarning(
        `${where}: the servers ${JSON.stringify(owners.get(prefix))} and ${JSON.stringify(server.name)} map to one ` +
          `tool prefix (${prefix}); the tools of ${JSON.stringify(server.name)} are named ${other}__<tool>`
      )
      out.push(withPrefix(server, other))
    }
    return out
  })

/**
 * Fails with `McpConfigError` when two servers of a list written in code share a name.
 *
 * @internal
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
