/**
 * A server's tool listing as a tool cache keeps it, without any Effect: the caching hint of a whole listing, how long
 * a listing stays fresh under a cache's `ttl`, whether it may be shared through a store, and whether an entry read
 * from a store may stand for a key's tool list. Both Effect lines' `McpClient` and `McpToolCache` use these, so a
 * store shared by a 3 app and a 4 app is read by one rule.
 *
 * @since 0.1.0
 */
import { checkSchema, sanitizeName } from "./McpTool.js"

/**
 * A server's caching hint on a result (2026-07-28): how long it may be taken as fresh, and whether it may be shared
 * across authorization contexts.
 *
 * @since 0.1.0
 * @category models
 */
export interface CacheHint {
  readonly ttlMs: number
  readonly scope: "public" | "private"
}

/**
 * The caching hint of a whole listing from its pages' two hints: the shortest lifetime, private if either is; none
 * when a page came without one (a server of the 2025 revisions).
 *
 * @since 0.1.0
 * @category hints
 */
export const combineHints = (a: CacheHint | undefined, b: CacheHint | undefined): CacheHint | undefined =>
  a === undefined || b === undefined ? undefined : {
    ttlMs: Math.min(a.ttlMs, b.ttlMs),
    scope: a.scope === "private" || b.scope === "private" ? "private" : "public"
  }

/**
 * How long a listing stays fresh under a cache's `ttl` (milliseconds): the `ttl`, or the server's `ttlMs` when it
 * gave a shorter one (a negative one read as 0); `ignore` keeps the `ttl` alone.
 *
 * @since 0.1.0
 * @category hints
 */
export const lifetime = (
  ttl: number,
  hint: CacheHint | undefined,
  hints: "follow" | "ignore" = "follow"
): number => hint === undefined || hints === "ignore" ? ttl : Math.min(ttl, Math.max(0, hint.ttlMs))

/**
 * A tool cache's key as far as these rules read it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Key {
  readonly id: string
  readonly server: string
  readonly namespace: boolean
  readonly prefix?: string | undefined
  readonly authorizedByDefinition?: boolean | undefined
}

/**
 * Whether a listing may be shared through a store under `key`: a private one only if the key names its
 * authorization context.
 *
 * @since 0.1.0
 * @category hints
 */
export const shareable = (key: Key, hint: CacheHint | undefined): boolean =>
  hint?.scope !== "private" || key.authorizedByDefinition === true

/**
 * A stored tool, as far as the check reads it.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredTool {
  readonly name: string
  readonly server: string
  readonly remoteName: string
  readonly parameters: { readonly [key: string]: unknown }
}

const quoted = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)

/**
 * Why a stored entry (of the right shape) cannot stand for `key`'s tool list, or `undefined` when it can. Another
 * writer may have put anything there: it must pass what a server's own answer passes (each input schema within the
 * schema limits, measured before anything walks it; an object schema) and be what this process would have stored
 * for `key` (the key itself, the server, each tool's exposed name made from its remote name).
 *
 * @since 0.1.0
 * @category stores
 */
export const refusal = (
  key: Key,
  entry: { readonly key: string; readonly tools: ReadonlyArray<StoredTool> }
): string | undefined => {
  if (entry.key !== key.id) return "stored for another server definition or naming mode"
  const prefix = key.prefix ?? sanitizeName(key.server)
  for (const tool of entry.tools) {
    if (tool.server !== key.server) return `its tool ${quoted(tool.name)} is of the server ${quoted(tool.server)}`
    if (tool.name !== sanitizeName(key.namespace ? `${prefix}__${tool.remoteName}` : tool.remoteName)) {
      return `its tool ${quoted(tool.name)} is not named after its remote name ${quoted(tool.remoteName)}`
    }
    const refused = checkSchema(tool.parameters)
    if (refused !== undefined) return `its tool ${quoted(tool.name)}: ${refused}`
    if (tool.parameters.type !== "object") {
      return `its tool ${quoted(tool.name)}: its input schema is not of type object`
    }
  }
  return undefined
}
