/**
 * Server definitions: where an MCP server lives and how to reach it.
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/**
 * A server name: non-empty and made only of characters that are valid in a tool name (B4), because the
 * name becomes the `<server>__` prefix of every exposed tool.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{1,64}$/, {
    message: () => "a server name must be 1-64 letters, digits, '_' or '-' (it prefixes tool names)"
  }),
  Schema.annotations({ identifier: "ServerName" })
)

/**
 * A value that must stay secret (header values, environment values): `Redacted` in memory, plain
 * string on the wire of a configuration file.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SecretRecord = Schema.Record({ key: Schema.String, value: Schema.Redacted(Schema.String) })

const HttpUrl = Schema.String.pipe(
  Schema.filter((s) => {
    try {
      const url = new URL(s)
      return url.protocol === "http:" || url.protocol === "https:" ? true : "expected an http(s) URL"
    } catch {
      // The text is not echoed: a URL may carry a token.
      return "expected an http(s) URL"
    }
  }),
  Schema.annotations({ identifier: "HttpUrl" })
)

/**
 * A server reached over Streamable HTTP (B1). Header values are secrets (B2).
 *
 * @since 0.1.0
 * @category models
 */
export class McpHttpServer extends Schema.TaggedClass<McpHttpServer>("@zett/mcp/McpHttpServer")("McpHttpServer", {
  name: ServerName,
  url: HttpUrl,
  headers: Schema.optionalWith(SecretRecord, { default: () => ({}) })
}) {}

/**
 * A server started as a child process speaking MCP over stdio (B1). The command and its arguments are
 * passed to the process separately, never through a shell (B3). Environment values are secrets (B2).
 *
 * @since 0.1.0
 * @category models
 */
export class McpStdioServer extends Schema.TaggedClass<McpStdioServer>("@zett/mcp/McpStdioServer")("McpStdioServer", {
  name: ServerName,
  command: Schema.NonEmptyString,
  args: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  env: Schema.optionalWith(SecretRecord, { default: () => ({}) }),
  cwd: Schema.optional(Schema.String)
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export type McpServer = McpHttpServer | McpStdioServer

/**
 * @since 0.1.0
 * @category schemas
 */
export const McpServer: Schema.Union<[typeof McpHttpServer, typeof McpStdioServer]> = Schema.Union(
  McpHttpServer,
  McpStdioServer
)

const redactAll = (record: Readonly<Record<string, string>> | undefined) => {
  const out: Record<string, Redacted.Redacted<string>> = {}
  for (const [key, value] of Object.entries(record ?? {})) out[key] = Redacted.make(value)
  return out
}

/**
 * Builds an HTTP server definition from plain strings; header values are wrapped in `Redacted` at once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const http = (options: {
  readonly name: string
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
}): McpHttpServer => new McpHttpServer({ name: options.name, url: options.url, headers: redactAll(options.headers) })

/**
 * Builds a stdio server definition from plain strings; environment values are wrapped in `Redacted` at once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stdio = (options: {
  readonly name: string
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
}): McpStdioServer =>
  new McpStdioServer({
    name: options.name,
    command: options.command,
    args: options.args ?? [],
    env: redactAll(options.env),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {})
  })

const sha256 = (text: string) => Crypto.createHash("sha256").update(text).digest("hex")

const hashedSecrets = (record: Readonly<Record<string, Redacted.Redacted<string>>>) =>
  Object.keys(record).sort().map((key) => [key, sha256(Redacted.value(record[key]!))])

/**
 * A stable key for a whole server definition: equal definitions give equal keys in every process, any
 * change (a header value included) gives another key, and secrets enter only as hashes.
 *
 * @since 0.1.0
 * @category utils
 */
export const cacheKey = (server: McpServer): string => {
  // definitions are immutable: the hash is computed once per instance, not once per request
  const known = cacheKeys.get(server)
  if (known !== undefined) return known
  const key = computeCacheKey(server)
  cacheKeys.set(server, key)
  return key
}

const cacheKeys = new WeakMap<McpServer, string>()

const computeCacheKey = (server: McpServer): string => {
  const canonical = server._tag === "McpHttpServer"
    ? ["http", server.name, server.url, hashedSecrets(server.headers)]
    : ["stdio", server.name, server.command, server.args, hashedSecrets(server.env), server.cwd ?? null]
  return `${server.name}:${sha256(JSON.stringify(canonical)).slice(0, 32)}`
}

/**
 * A short description for logs and tables, never containing a secret.
 *
 * @since 0.1.0
 * @category utils
 */
export const describe = (server: McpServer): string =>
  server._tag === "McpHttpServer"
    ? `${server.name} (streamable-http ${server.url})`
    : `${server.name} (stdio ${server.command})`
