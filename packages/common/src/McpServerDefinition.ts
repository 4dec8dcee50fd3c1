/**
 * What an MCP server definition says without any Effect: its tool prefix, its tool filters, whether it names its own
 * credentials, the secrets of its `auth`, and its cache key. Both Effect lines' `McpServerConfig` are schema classes
 * over these shapes (their `Redacted` is each line's own, so a secret here is any `S` with a `reveal`); the functions
 * are the same on both lines, so a cache of tool lists is shared by a 3 app and a 4 app: equal definitions give equal
 * keys on either line.
 *
 * @since 0.1.0
 */
import { sha256Hex as sha256 } from "./internal/sha256.js"
import * as Naming from "./internal/toolName.js"

/**
 * The fields every definition may have, as far as these functions read them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fields {
  readonly name: string
  readonly toolPrefix?: string | undefined
  readonly includeTools?: ReadonlyArray<string> | undefined
  readonly excludeTools?: ReadonlyArray<string> | undefined
  readonly alwaysLoad?: boolean | ReadonlyArray<string> | undefined
  readonly protocol?: "auto" | "2026-07-28" | "2025-11-25" | undefined
}

/**
 * How an HTTP server is authorized, with secrets of type `S`.
 *
 * @since 0.1.0
 * @category models
 */
export type Auth<S> =
  | { readonly _tag: "CustomProvider" }
  | {
    readonly _tag: "AuthorizationCode"
    readonly clientId?: string | undefined
    readonly clientSecret?: S | undefined
    readonly scopes?: ReadonlyArray<string> | undefined
    readonly clientMetadataUrl?: string | undefined
  }
  | {
    readonly _tag: "ClientCredentials"
    readonly clientId: string
    readonly clientSecret?: S | undefined
    readonly privateKey?: S | undefined
    readonly scopes?: ReadonlyArray<string> | undefined
  }
  | {
    readonly _tag: "EnterpriseManaged"
    readonly clientId: string
    readonly clientSecret: S
    readonly idToken: S
    readonly idpIssuer: string
    readonly idpClientId: string
    readonly idpClientSecret?: S | undefined
    readonly scopes?: ReadonlyArray<string> | undefined
  }
  | {
    readonly _tag: "WorkloadIdentity"
    readonly clientId: string
    readonly assertion: { readonly file: string } | { readonly env: string }
    readonly audience?: string | undefined
    readonly scopes?: ReadonlyArray<string> | undefined
  }

/**
 * A server reached over HTTP.
 *
 * @since 0.1.0
 * @category models
 */
export interface Http<S> extends Fields {
  readonly _tag: "McpHttpServer"
  readonly url: string
  readonly headers: { readonly [name: string]: S }
  readonly transport: "streamable-http" | "sse"
  readonly auth?: Auth<S> | undefined
}

/**
 * A server started as a child process.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stdio<S> extends Fields {
  readonly _tag: "McpStdioServer"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: { readonly [name: string]: S }
  readonly cwd?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type Definition<S> = Http<S> | Stdio<S>

/**
 * The `<prefix>__` of a server's tools, within what providers accept as a function name: the name itself when it is
 * made only of `[A-Za-z0-9_-]` and at most 64 characters long, otherwise the name with every other character replaced
 * by `_`, cut to fit, and a stable hash of the whole name; or the prefix the configuration chose to tell two names
 * apart.
 *
 * @since 0.1.0
 * @category utils
 */
export const toolPrefix = (server: Fields): string => server.toolPrefix ?? Naming.sanitize(server.name)

/**
 * Whether a tool (by its name on the server) passes the definition's `includeTools` and `excludeTools`;
 * `excludeTools` wins.
 *
 * @since 0.1.0
 * @category utils
 */
export const allowsTool = (server: Fields, remoteName: string): boolean =>
  (server.includeTools === undefined || server.includeTools.includes(remoteName)) &&
  (server.excludeTools === undefined || !server.excludeTools.includes(remoteName))

/**
 * Whether a tool (by its name on the server) is offered to the model even while tool search holds the server's
 * other tools back (`alwaysLoad`).
 *
 * @since 0.1.0
 * @category utils
 */
export const alwaysLoads = (server: Fields, remoteName: string): boolean =>
  server.alwaysLoad === true || (Array.isArray(server.alwaysLoad) && server.alwaysLoad.includes(remoteName))

/**
 * Whether the definition alone says who the server is talking to: its credentials are all in it (headers,
 * environment, a client-credentials grant), so `cacheKey` names its authorization context. An HTTP server
 * without an `Authorization` header or a client-credentials grant may be given the tokens of a login when it
 * connects, which no key of the definition names.
 *
 * @since 0.1.0
 * @category utils
 */
export const authorizedByDefinition = <S>(server: Definition<S>): boolean =>
  server._tag === "McpStdioServer" ||
  server.auth?._tag === "ClientCredentials" || server.auth?._tag === "EnterpriseManaged" ||
  server.auth?._tag === "WorkloadIdentity" ||
  (server.auth === undefined && Object.keys(server.headers).some((name) => name.toLowerCase() === "authorization"))

/**
 * The secrets of an `auth` option: client secrets, private keys, an ID token; a PEM key also line by line (an error
 * may quote one line of it), each line made a secret with `make`.
 *
 * @since 0.1.0
 * @category utils
 */
export const authSecrets = <S>(
  server: Definition<S>,
  reveal: (secret: S) => string,
  make: (value: string) => S
): ReadonlyArray<S> => {
  if (server._tag !== "McpHttpServer" || server.auth === undefined || server.auth._tag === "CustomProvider") return []
  // a workload's token is read when a token is requested, and held from then on
  if (server.auth._tag === "WorkloadIdentity") return []
  const out: Array<S> = []
  if (server.auth.clientSecret !== undefined) out.push(server.auth.clientSecret)
  if (server.auth._tag === "EnterpriseManaged") {
    out.push(server.auth.idToken)
    if (server.auth.idpClientSecret !== undefined) out.push(server.auth.idpClientSecret)
  }
  if (server.auth._tag === "ClientCredentials" && server.auth.privateKey !== undefined) {
    out.push(server.auth.privateKey)
    for (const line of reveal(server.auth.privateKey).split(/\r?\n/)) {
      if (line.length >= 16 && !line.startsWith("-----")) out.push(make(line))
    }
  }
  return out
}

/**
 * A stable key for a whole server definition: equal definitions give equal keys in every process and on either
 * Effect line, any change (a header value included) gives another key, and secrets enter only as hashes (`reveal`
 * reads a secret's value for its hash).
 *
 * @since 0.1.0
 * @category utils
 */
export const cacheKey = <S>(server: Definition<S>, reveal: (secret: S) => string): string => {
  const hashed = (record: { readonly [name: string]: S }) =>
    Object.keys(record).sort().map((key) => [key, sha256(reveal(record[key]!))])
  const canonical: Array<unknown> = server._tag === "McpHttpServer"
    ? ["http", server.name, server.url, hashed(server.headers)]
    : ["stdio", server.name, server.command, server.args, hashed(server.env), server.cwd ?? null]
  // only what differs from the defaults, so that the keys of plain definitions stay as they were
  if (server._tag === "McpHttpServer" && server.transport !== "streamable-http") {
    canonical.push(["transport", server.transport])
  }
  if (server._tag === "McpHttpServer" && server.auth !== undefined) {
    canonical.push(["auth", authKey(server.auth, reveal)])
  }
  if (toolPrefix(server) !== server.name) canonical.push(["prefix", toolPrefix(server)])
  // a pinned revision may be served other tools
  if (server.protocol !== undefined && server.protocol !== "auto") canonical.push(["protocol", server.protocol])
  return `${server.name}:${sha256(JSON.stringify(canonical)).slice(0, 32)}`
}

// who the client is (another client may see other tools); a user's own provider counts as one kind
const authKey = <S>(auth: Auth<S>, reveal: (secret: S) => string): unknown => {
  switch (auth._tag) {
    case "CustomProvider":
      return ["provider"]
    case "AuthorizationCode":
      return ["code", auth.clientId ?? null, auth.clientMetadataUrl ?? null, auth.scopes ?? null]
    case "ClientCredentials":
      return [
        "client_credentials",
        auth.clientId,
        auth.clientSecret === undefined ? null : sha256(reveal(auth.clientSecret)),
        auth.privateKey === undefined ? null : sha256(reveal(auth.privateKey)),
        auth.scopes ?? null
      ]
    case "WorkloadIdentity":
      // the workload is named by where its token is read
      return ["workload_identity", auth.clientId, auth.assertion, auth.audience ?? null, auth.scopes ?? null]
    case "EnterpriseManaged":
      // the ID token names the user
      return [
        "enterprise_managed",
        auth.clientId,
        auth.idpIssuer,
        auth.idpClientId,
        sha256(reveal(auth.idToken)),
        auth.scopes ?? null
      ]
  }
}

/**
 * A server whose tool prefix another server of the list already has, and the prefix it gets instead.
 *
 * @since 0.1.0
 * @category models
 */
export interface PrefixClash {
  /** The server's place in the list. */
  readonly index: number
  /** The name of the first server with the prefix. */
  readonly owner: string
  readonly prefix: string
  /** The prefix it gets: its name with `#2`, `#3` ... sanitized, the first free one. */
  readonly other: string
}

/**
 * The servers of a list whose tool prefix an earlier server already has (two names that sanitize alike, or a prefix
 * chosen twice), each with the prefix it gets instead, in the list's order: the earlier server keeps its prefix.
 *
 * @since 0.1.0
 * @category utils
 */
export const prefixClashes = (servers: ReadonlyArray<Fields>): ReadonlyArray<PrefixClash> => {
  // a prefix may cost a hash: made once per server
  const prefixes = servers.map(toolPrefix)
  const owners = new Map<string, string>()
  servers.forEach((server, i) => owners.has(prefixes[i]!) || owners.set(prefixes[i]!, server.name))
  const taken = new Set<string>()
  const out: Array<PrefixClash> = []
  for (const [i, server] of servers.entries()) {
    const prefix = prefixes[i]!
    if (!taken.has(prefix)) {
      taken.add(prefix)
      continue
    }
    let other = prefix
    for (let n = 2; taken.has(other) || owners.has(other); n++) other = Naming.sanitize(`${server.name}#${n}`)
    taken.add(other)
    out.push({ index: i, owner: owners.get(prefix)!, prefix, other })
  }
  return out
}
