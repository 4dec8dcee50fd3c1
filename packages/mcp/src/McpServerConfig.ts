/**
 * Server definitions: where an MCP server lives and how to reach it.
 *
 * @since 0.1.0
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/client"
import * as Scrubber from "@zett/agent/Scrubber"
import * as Definition from "@zett/common/McpServerDefinition"
import type * as Duration from "effect/Duration"
import * as Inspectable from "effect/Inspectable"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/**
 * A server name: any non-empty text a client allows (`github.com`, `My Server`, `日本`). The prefix of its
 * tools is derived from it (`toolPrefix`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerName = Schema.String.pipe(
  Schema.minLength(1, { message: () => "a server name must not be empty" }),
  Schema.annotations({ identifier: "ServerName" })
)

/**
 * What every server definition may add to where it lives: a call timeout of its own, tool filters, a tool
 * prefix chosen by the configuration, and the values that came from variables (scrubbed wherever the
 * definition is shown).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerFields = {
  /** This server's time for one tool call; overrides the extension's `callTimeout` (Cline's and Gemini's `timeout`). */
  timeout: Schema.optional(Schema.DurationFromSelf),
  /** Only these tools (by their remote names) reach the model. */
  includeTools: Schema.optional(Schema.Array(Schema.String)),
  /** These tools (by their remote names) never reach the model; wins over `includeTools`. */
  excludeTools: Schema.optional(Schema.Array(Schema.String)),
  /** The `<prefix>__` of its tools when the configuration had to tell two names apart; see `toolPrefix`. */
  toolPrefix: Schema.optional(Schema.String),
  /** Values expanded from variables or inputs into fields that are not secret by themselves (url, args, ...). */
  secrets: Schema.optionalWith(Schema.Array(Schema.Redacted(Schema.String)), { default: () => [] }),
  /**
   * `"tools"`: the server's resources reach the model through two more tools, `<prefix>__list_resources` and
   * `<prefix>__read_resource` (also the extension's `resources` option for every server).
   */
  resources: Schema.optional(Schema.Literal("tools")),
  /**
   * `true`: the server's skills (the Skills extension) reach the model: an index of them (name and description) in
   * the system text, and `<prefix>__load_skill` to load one (its verified `SKILL.md`) or one of its files. Off by
   * default.
   */
  skills: Schema.optional(Schema.Boolean),
  /**
   * Tools offered to the model even while tool search holds the others back (`McpToolSearch`): `true` for every
   * tool of the server, or the remote names of some.
   */
  alwaysLoad: Schema.optional(Schema.Union(Schema.Boolean, Schema.Array(Schema.String))),
  /**
   * The protocol revision to speak: `"auto"` (the default) asks the server with `server/discover` and falls back
   * to `initialize` when it gives no sign of the 2026-07-28 revision; a revision pins it, with no fallback.
   */
  protocol: Schema.optional(Schema.Literal("auto", "2026-07-28", "2025-11-25"))
}

/**
 * The protocol choices of a definition (`protocol`).
 *
 * @since 0.1.0
 * @category models
 */
export type Protocol = "auto" | "2026-07-28" | "2025-11-25"

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
 * Zett's own authorization-code provider: a pre-registered client (`clientId`, and `clientSecret`
 * for a confidential one), else a client ID metadata document (`clientMetadataUrl`, when the authorization
 * server supports them), else dynamic client registration. `scopes` are asked for when neither the server's
 * `WWW-Authenticate` nor its metadata names any; `redirectPort` fixes the loopback port of the redirect.
 *
 * `dpop` (on every grant): access tokens bound to a key of the client's (DPoP, RFC 9449), so that a stolen token
 * is of no use without the key. `true` always asks for them, `false` never; omitted, they are asked for when the
 * MCP server asks (its 401 challenges with the `DPoP` scheme, or its protected-resource metadata says
 * `dpop_bound_access_tokens_required`). The key is made once per credential and kept in the token store with
 * the tokens it is bound to.
 *
 * @since 0.1.0
 * @category schemas
 */
export class AuthorizationCode extends Schema.TaggedClass<AuthorizationCode>("@zett/mcp/AuthorizationCode")(
  "AuthorizationCode",
  {
    clientId: Schema.optional(Schema.String),
    clientSecret: Schema.optional(Schema.Redacted(Schema.String)),
    scopes: Schema.optional(Schema.Array(Schema.String)),
    clientMetadataUrl: Schema.optional(Schema.String),
    redirectPort: Schema.optional(Schema.Int.pipe(Schema.between(0, 65535))),
    dpop: Schema.optional(Schema.Boolean)
  }
) {}

/**
 * Machine to machine: the `client_credentials` grant, the client authenticated with a secret
 * (`client_secret_basic`, or `client_secret_post` when the server supports only that) or with a JWT signed by
 * `privateKey` (`private_key_jwt`, RFC 7523; `algorithm` such as `RS256`, `ES256`, `HS256`). No login ever.
 *
 * @since 0.1.0
 * @category schemas
 */
export class ClientCredentials extends Schema.TaggedClass<ClientCredentials>("@zett/mcp/ClientCredentials")(
  "ClientCredentials",
  {
    clientId: Schema.String,
    clientSecret: Schema.optional(Schema.Redacted(Schema.String)),
    privateKey: Schema.optional(Schema.Redacted(Schema.String)),
    algorithm: Schema.optional(Schema.String),
    scopes: Schema.optional(Schema.Array(Schema.String)),
    dpop: Schema.optional(Schema.Boolean)
  }
) {}

/**
 * Enterprise-managed authorization (the `io.modelcontextprotocol/enterprise-managed-authorization` extension,
 * SEP-990): the user's ID token from the enterprise identity provider (`idToken`) is exchanged there for an
 * identity assertion grant (ID-JAG, RFC 8693, as the client `idpClientId`), which the MCP server's authorization
 * server redeems for an access token (the JWT bearer grant, RFC 7523, as the client `clientId`, authenticated
 * with `clientSecret`). The identity provider's token endpoint is found from `idpIssuer`, unless
 * `idpTokenEndpoint` names it. No login, no browser: the identity provider's policy decides.
 *
 * @since 0.1.0
 * @category schemas
 */
export class EnterpriseManaged extends Schema.TaggedClass<EnterpriseManaged>("@zett/mcp/EnterpriseManaged")(
  "EnterpriseManaged",
  {
    clientId: Schema.String,
    clientSecret: Schema.Redacted(Schema.String),
    idToken: Schema.Redacted(Schema.String),
    idpIssuer: Schema.String,
    idpTokenEndpoint: Schema.optional(Schema.String),
    idpClientId: Schema.String,
    idpClientSecret: Schema.optional(Schema.Redacted(Schema.String)),
    scopes: Schema.optional(Schema.Array(Schema.String)),
    dpop: Schema.optional(Schema.Boolean)
  }
) {}

/**
 * Where a workload's identity token is read: a file (a Kubernetes projected service-account token, a CI job's
 * OIDC token written to disk) or an environment variable. It is read anew for every token request, because
 * such tokens rotate.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AssertionSource = Schema.Union(
  Schema.Struct({ file: Schema.NonEmptyString }),
  Schema.Struct({ env: Schema.NonEmptyString })
)

/**
 * @since 0.1.0
 * @category models
 */
export type AssertionSource = typeof AssertionSource.Type

/**
 * Workload identity (the `io.modelcontextprotocol/auth/wif` extension, SEP-1933): the token a platform gives a
 * workload (a Kubernetes pod, a CI job, a cloud VM) is the assertion of the JWT bearer grant (RFC 7523) at the
 * MCP server's authorization server, as the client `clientId`. `assertion` says where the token is read, at
 * each token request; `audience`, when given, is sent as the token request's `audience` parameter; `scopes`
 * are asked for. No login, no secret in the definition; a refused grant is not retried with another.
 *
 * @since 0.1.0
 * @category schemas
 */
export class WorkloadIdentity extends Schema.TaggedClass<WorkloadIdentity>("@zett/mcp/WorkloadIdentity")(
  "WorkloadIdentity",
  {
    clientId: Schema.String,
    assertion: AssertionSource,
    audience: Schema.optional(Schema.String),
    scopes: Schema.optional(Schema.Array(Schema.String)),
    dpop: Schema.optional(Schema.Boolean)
  }
) {}

const isProvider = (u: unknown): u is OAuthClientProvider =>
  typeof u === "object" && u !== null && "tokens" in u && typeof u.tokens === "function" &&
  "saveTokens" in u && typeof u.saveTokens === "function"

/**
 * A user's own SDK `OAuthClientProvider`, passed to the transport as it is.
 *
 * @since 0.1.0
 * @category schemas
 */
export class CustomProvider extends Schema.TaggedClass<CustomProvider>("@zett/mcp/CustomProvider")("CustomProvider", {
  provider: Schema.declare(isProvider, { identifier: "OAuthClientProvider" })
}) {
  // a provider holds tokens and secrets of its own: a definition never shows it
  /**
   * @since 0.1.0
   */
  override toString(): string {
    return "CustomProvider(<OAuthClientProvider>)"
  }
  /**
   * @since 0.1.0
   */
  toJSON(): unknown {
    return { _tag: "CustomProvider", provider: "<OAuthClientProvider>" }
  }
  /**
   * @since 0.1.0
   */
  [Inspectable.NodeInspectSymbol](): unknown {
    return this.toJSON()
  }
}

/**
 * How an HTTP server is authorized.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Auth = Schema.Union(
  AuthorizationCode,
  ClientCredentials,
  EnterpriseManaged,
  WorkloadIdentity,
  CustomProvider
)

/**
 * @since 0.1.0
 * @category models
 */
export type Auth = AuthorizationCode | ClientCredentials | EnterpriseManaged | WorkloadIdentity | CustomProvider

/**
 * The `auth` option of `http`, in plain values: an SDK provider, Zett's authorization-code options, or the
 * client credentials grant. Secrets may be given as strings (wrapped at once) or `Redacted`.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthInput =
  | OAuthClientProvider
  | {
    readonly clientId?: string | undefined
    readonly clientSecret?: string | Redacted.Redacted<string> | undefined
    readonly scopes?: ReadonlyArray<string> | undefined
    readonly clientMetadataUrl?: string | undefined
    readonly redirectPort?: number | undefined
    readonly dpop?: boolean | undefined
  }
  | {
    readonly grant: "client_credentials"
    readonly clientId: string
    readonly clientSecret: string | Redacted.Redacted<string>
    readonly scopes?: ReadonlyArray<string> | undefined
    readonly dpop?: boolean | undefined
  }
  | {
    readonly grant: "client_credentials"
    readonly clientId: string
    readonly privateKey: string | Redacted.Redacted<string>
    readonly algorithm: string
    readonly scopes?: ReadonlyArray<string> | undefined
    readonly dpop?: boolean | undefined
  }
  | {
    readonly grant: "enterprise_managed"
    readonly clientId: string
    readonly clientSecret: string | Redacted.Redacted<string>
    readonly idToken: string | Redacted.Redacted<string>
    readonly idp: {
      readonly issuer: string
      readonly tokenEndpoint?: string | undefined
      readonly clientId: string
      readonly clientSecret?: string | Redacted.Redacted<string> | undefined
    }
    readonly scopes?: ReadonlyArray<string> | undefined
    readonly dpop?: boolean | undefined
  }
  | {
    readonly grant: "workload_identity"
    readonly clientId: string
    readonly assertion: AssertionSource
    readonly audience?: string | undefined
    readonly scopes?: ReadonlyArray<string> | undefined
    readonly dpop?: boolean | undefined
  }

const redacted = (value: string | Redacted.Redacted<string>) =>
  Redacted.isRedacted(value) ? value : Redacted.make(value)

/**
 * The `Auth` of an `AuthInput`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const auth = (input: AuthInput): Auth => {
  if (isProvider(input)) return new CustomProvider({ provider: input })
  if ("grant" in input && input.grant === "enterprise_managed") {
    return new EnterpriseManaged({
      clientId: input.clientId,
      clientSecret: redacted(input.clientSecret),
      idToken: redacted(input.idToken),
      idpIssuer: input.idp.issuer,
      ...(input.idp.tokenEndpoint !== undefined ? { idpTokenEndpoint: input.idp.tokenEndpoint } : {}),
      idpClientId: input.idp.clientId,
      ...(input.idp.clientSecret !== undefined ? { idpClientSecret: redacted(input.idp.clientSecret) } : {}),
      ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
      ...(input.dpop !== undefined ? { dpop: input.dpop } : {})
    })
  }
  if ("grant" in input && input.grant === "workload_identity") {
    return new WorkloadIdentity({
      clientId: input.clientId,
      assertion: "file" in input.assertion ? { file: input.assertion.file } : { env: input.assertion.env },
      ...(input.audience !== undefined ? { audience: input.audience } : {}),
      ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
      ...(input.dpop !== undefined ? { dpop: input.dpop } : {})
    })
  }
  if ("grant" in input) {
    return new ClientCredentials({
      clientId: input.clientId,
      ...("clientSecret" in input ? { clientSecret: redacted(input.clientSecret) } : {}),
      ...("privateKey" in input ? { privateKey: redacted(input.privateKey), algorithm: input.algorithm } : {}),
      ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
      ...(input.dpop !== undefined ? { dpop: input.dpop } : {})
    })
  }
  const options = input as Exclude<
    AuthInput,
    OAuthClientProvider | { readonly grant: "client_credentials" | "enterprise_managed" | "workload_identity" }
  >
  return new AuthorizationCode({
    ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
    ...(options.clientSecret !== undefined ? { clientSecret: redacted(options.clientSecret) } : {}),
    ...(options.scopes !== undefined ? { scopes: options.scopes } : {}),
    ...(options.clientMetadataUrl !== undefined ? { clientMetadataUrl: options.clientMetadataUrl } : {}),
    ...(options.redirectPort !== undefined ? { redirectPort: options.redirectPort } : {}),
    ...(options.dpop !== undefined ? { dpop: options.dpop } : {})
  })
}

/** What is derived from a definition once, on first use: definitions are immutable. */
interface Derived {
  cacheKey?: string
  scrubber?: Scrubber.Scrubber
}

const DerivedId: unique symbol = Symbol.for("@zett/mcp/McpServerConfig/Derived")

/**
 * A server reached over Streamable HTTP. Header values are secrets (`Redacted`): they carry credentials and never
 * show in logs or errors.
 *
 * @since 0.1.0
 * @category models
 */
export class McpHttpServer extends Schema.TaggedClass<McpHttpServer>("@zett/mcp/McpHttpServer")("McpHttpServer", {
  name: ServerName,
  url: HttpUrl,
  headers: Schema.optionalWith(SecretRecord, { default: () => ({}) }),
  /**
   * `streamable-http` (the default) falls back to the legacy HTTP+SSE transport when the server answers the
   * initializing POST with 400, 404 or 405, as the specification's backwards-compatibility section says;
   * `sse` uses the legacy transport at once.
   */
  transport: Schema.optionalWith(Schema.Literal("streamable-http", "sse"), {
    default: () => "streamable-http" as const
  }),
  /** OAuth; without it, a server that answers 401 is unavailable. */
  auth: Schema.optional(Auth),
  ...ServerFields
}) {
  /**
   * A private field: not an own property, so neither equality, hashing, encoding nor inspect see it.
   *
   * @since 0.1.0
   * @internal
   */
  readonly #derived: Derived = {}
  /**
   * @since 0.1.0
   * @internal
   */
  get [DerivedId](): Derived {
    return this.#derived
  }
}

/**
 * A server started as a child process speaking MCP over stdio. The command and its arguments are passed to the
 * process separately, never through a shell, so no argument is interpreted by one. Environment values are secrets
 * (`Redacted`), since they often carry credentials.
 *
 * @since 0.1.0
 * @category models
 */
export class McpStdioServer extends Schema.TaggedClass<McpStdioServer>("@zett/mcp/McpStdioServer")("McpStdioServer", {
  name: ServerName,
  command: Schema.NonEmptyString,
  args: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  env: Schema.optionalWith(SecretRecord, { default: () => ({}) }),
  cwd: Schema.optional(Schema.String),
  ...ServerFields
}) {
  /**
   * A private field: not an own property, so neither equality, hashing, encoding nor inspect see it.
   *
   * @since 0.1.0
   * @internal
   */
  readonly #derived: Derived = {}
  /**
   * @since 0.1.0
   * @internal
   */
  get [DerivedId](): Derived {
    return this.#derived
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export type McpServerConfig = McpHttpServer | McpStdioServer

/**
 * @since 0.1.0
 * @category schemas
 */
export const McpServerConfig: Schema.Union<[typeof McpHttpServer, typeof McpStdioServer]> = Schema.Union(
  McpHttpServer,
  McpStdioServer
)

/**
 * The optional fields of both constructors.
 *
 * @since 0.1.0
 * @category models
 */
export interface Extra {
  readonly timeout?: Duration.Duration | undefined
  readonly includeTools?: ReadonlyArray<string> | undefined
  readonly excludeTools?: ReadonlyArray<string> | undefined
  /** `"tools"`: expose the server's resources as `<prefix>__list_resources` and `<prefix>__read_resource`. */
  readonly resources?: "tools" | undefined
  /** `true`: the server's skills reach the model (an index in the system text, and `<prefix>__load_skill`). */
  readonly skills?: boolean | undefined
  /** Tools offered even while tool search holds the others back: `true` for all, or remote names. */
  readonly alwaysLoad?: boolean | ReadonlyArray<string> | undefined
  /** `"auto"` (the default), or a revision to pin. */
  readonly protocol?: Protocol | undefined
}

const extra = (options: Extra) => ({
  ...(options.protocol !== undefined ? { protocol: options.protocol } : {}),
  ...(options.resources !== undefined ? { resources: options.resources } : {}),
  ...(options.skills !== undefined ? { skills: options.skills } : {}),
  ...(options.alwaysLoad !== undefined ? { alwaysLoad: options.alwaysLoad } : {}),
  ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
  ...(options.includeTools !== undefined ? { includeTools: options.includeTools } : {}),
  ...(options.excludeTools !== undefined ? { excludeTools: options.excludeTools } : {})
})

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
export const http = (
  options: {
    readonly name: string
    readonly url: string
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly transport?: "streamable-http" | "sse" | undefined
    /** OAuth: an SDK `OAuthClientProvider`, Zett's authorization-code options, or the client credentials grant. */
    readonly auth?: AuthInput | Auth | undefined
  } & Extra
): McpHttpServer =>
  new McpHttpServer({
    ...extra(options),
    name: options.name,
    url: options.url,
    headers: redactAll(options.headers),
    transport: options.transport ?? "streamable-http",
    ...(options.auth !== undefined
      ? { auth: Schema.is(Auth)(options.auth) ? options.auth : auth(options.auth as AuthInput) }
      : {})
  })

/**
 * Builds a stdio server definition from plain strings; environment values are wrapped in `Redacted` at once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stdio = (
  options: {
    readonly name: string
    readonly command: string
    readonly args?: ReadonlyArray<string> | undefined
    readonly env?: Readonly<Record<string, string>> | undefined
    readonly cwd?: string | undefined
  } & Extra
): McpStdioServer =>
  new McpStdioServer({
    ...extra(options),
    name: options.name,
    command: options.command,
    args: options.args ?? [],
    env: redactAll(options.env),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {})
  })

/**
 * The definition with another `protocol`: a new definition, with a cache key of its own.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withProtocol = <A extends McpServerConfig>(server: A, protocol: Protocol): A => {
  if (server.protocol === protocol) return server
  const { _tag, ...fields } = server
  return (_tag === "McpHttpServer"
    ? new McpHttpServer({ ...(fields as Omit<McpHttpServer, "_tag">), protocol })
    : new McpStdioServer({ ...(fields as Omit<McpStdioServer, "_tag">), protocol })) as A
}

/**
 * A stable key for a whole server definition: equal definitions give equal keys in every process (and on both
 * Effect lines: `@zett/common`'s `McpServerDefinition.cacheKey`), any change (a header value included) gives another
 * key, and secrets enter only as hashes.
 *
 * @since 0.1.0
 * @category utils
 */
export const cacheKey = (
  server: McpServerConfig
): string => (server[DerivedId].cacheKey ??= Definition.cacheKey<Redacted.Redacted<string>>(server, Redacted.value))

/**
 * Whether the definition alone says who the server is talking to: its credentials are all in it (headers,
 * environment, a client-credentials grant), so `cacheKey` names its authorization context. An HTTP server
 * without an `Authorization` header or a client-credentials grant may be given the tokens of a login when it
 * connects, which no key of the definition names.
 *
 * @since 0.1.0
 * @category utils
 */
export const authorizedByDefinition = (server: McpServerConfig): boolean => Definition.authorizedByDefinition(server)

/**
 * The secrets of an `auth` option: client secrets, private keys, an ID token.
 *
 * @since 0.1.0
 * @category utils
 */
export const authSecretsOf = (server: McpServerConfig): ReadonlyArray<Redacted.Redacted<string>> =>
  Definition.authSecrets<Redacted.Redacted<string>>(server, Redacted.value, Redacted.make)

/**
 * A short description for logs and tables, never containing a secret.
 *
 * @since 0.1.0
 * @category utils
 */
export const describe = (server: McpServerConfig): string =>
  server._tag === "McpHttpServer"
    ? `${server.name} (${server.transport} ${scrubberOf(server).scrub(server.url)})`
    : `${server.name} (stdio ${scrubberOf(server).scrub(server.command)})`

/**
 * The `<prefix>__` of a server's tools, within what providers accept as a function name: the name itself when it is
 * made only of `[A-Za-z0-9_-]` and at most 64 characters long, otherwise the name with every other character replaced
 * by `_`, cut to fit, and a stable hash of the whole name; or the prefix the configuration chose to tell two names
 * apart.
 *
 * @since 0.1.0
 * @category utils
 */
export const toolPrefix = (server: McpServerConfig): string => Definition.toolPrefix(server)

/**
 * Whether a tool (by its name on the server) passes the definition's `includeTools` and `excludeTools`;
 * `excludeTools` wins.
 *
 * @since 0.1.0
 * @category utils
 */
export const allowsTool = (server: McpServerConfig, remoteName: string): boolean =>
  Definition.allowsTool(server, remoteName)

/**
 * Whether a tool (by its name on the server) is offered to the model even while tool search holds the server's
 * other tools back (`alwaysLoad`).
 *
 * @since 0.1.0
 * @category utils
 */
export const alwaysLoads = (server: McpServerConfig, remoteName: string): boolean =>
  Definition.alwaysLoads(server, remoteName)

/**
 * Every secret of a definition (header or environment values, values from variables, the credentials in its
 * URL), for a `Scrubber`.
 *
 * @since 0.1.0
 * @category utils
 */
export const secretsOf = (server: McpServerConfig): ReadonlyArray<Redacted.Redacted<string> | string> => [
  ...Object.values(server._tag === "McpHttpServer" ? server.headers : server.env),
  ...server.secrets,
  ...authSecretsOf(server),
  // user info and credential-like query parameters: an error that quotes the URL must not carry them
  ...(server._tag === "McpHttpServer" ? Scrubber.urlSecrets(server.url) : [])
]

/**
 * A scrubber for everything a definition holds secret; made once per definition.
 *
 * @since 0.1.0
 * @category utils
 */
export const scrubberOf = (
  server: McpServerConfig
): Scrubber.Scrubber => (server[DerivedId].scrubber ??= Scrubber.make(secretsOf(server)))
