/**
 * The fields of a server entry, decoded with Schema: each field's `message` annotation says what was expected without
 * echoing a value (it may be a secret), and `ParseResult.ArrayFormatter` gives the field path of the first issue. The
 * keys of each kind, the kind of an entry and the words for a key that does not belong are `@zett/common`'s
 * `McpConfigEntry`, which the Effect 4 line's reader shares; the schemas hold exactly its keys (checked by their
 * types).
 *
 * @internal
 */
import * as McpConfigEntry from "@zett/common/McpConfigEntry"
import { got, segment } from "@zett/common/McpConfigWording"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const expected = (what: string, secret = false) => ({
  message: (issue: ParseResult.ParseIssue) => `expected ${what}, got ${got(issue.actual, secret)}`
})

/** For a refinement: its message also stands for a failure of what it refines (a number given for a string). */
const expectedAll = (what: string) => ({
  message: (issue: ParseResult.ParseIssue) => ({
    message: `expected ${what}, got ${got(issue.actual)}`,
    override: true
  })
})

const Text = Schema.String.annotations(expected("a string"))
const NonEmptyText = Schema.String.pipe(Schema.minLength(1)).annotations(expectedAll("a non-empty string"))
const Url = Schema.String.annotations(expected("a URL"))
const Texts = Schema.Array(Text).annotations(expected("an array of strings"))
const Flag = Schema.Boolean.annotations(expected("true or false"))
const Secret = Schema.Redacted(Schema.String.annotations(expected("a string", true)))

// RFC 9110 token characters.
const HeaderName = Schema.String.pipe(
  // never shown: firstIssue words a refused header name itself
  Schema.pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: () => "not a valid HTTP header name" })
)
const EnvName = Schema.String.pipe(
  Schema.filter((key) => key.length > 0 && !key.includes("=") && !key.includes("\u0000"), {
    // never shown: firstIssue words a refused variable name itself
    message: () => "not a valid environment variable name"
  })
)
const Env = Schema.Record({ key: EnvName, value: Secret }).annotations(expected("an object of strings", true))
const Headers = Schema.Record({ key: HeaderName, value: Secret }).annotations(expected("an object of strings", true))

/** A call timeout: seconds in Cline's files, milliseconds in Gemini CLI's (and in a file that does not say). */
const Timeout = Schema.Number.annotations(expected("a number")).pipe(
  Schema.filter((n) => Number.isFinite(n) && n > 0, {
    message: (issue) => `expected a number above 0, got ${got(issue.actual)}`
  })
)

/** Keys that change nothing for an agent: approval lists, trust, descriptions, editor settings. */
const Ignored = Schema.optional(Schema.Unknown)
const ignoredFields = Object.fromEntries(McpConfigEntry.ignoredKeys.map((key) => [key, Ignored])) as Record<
  typeof McpConfigEntry.ignoredKeys[number],
  typeof Ignored
>

type Fields<Keys extends ReadonlyArray<string>> = { readonly [K in Keys[number]]: Schema.Struct.Field }

const commonFields = {
  disabled: Schema.optional(Flag),
  /** Zed's. */
  enabled: Schema.optional(Flag),
  timeout: Schema.optional(Timeout),
  includeTools: Schema.optional(Texts),
  excludeTools: Schema.optional(Texts),
  /** Zett's: `"tools"` exposes the server's resources as two tools. */
  resources: Schema.optional(Schema.Literal("tools").annotations(expected("\"tools\""))),
  /** Zett's: `true` shows the model the server's skills (an index, and a tool to load one). */
  skills: Schema.optional(Flag),
  /** Zett's: tools offered even while tool search holds the others back: `true` for all, or their names. */
  alwaysLoad: Schema.optional(
    Schema.Union(Schema.Boolean, Schema.Array(Schema.String)).annotations(
      expectedAll("true, false or an array of tool names")
    )
  ),
  /** Zett's: the protocol revision to speak (`"auto"`, the default, asks the server). */
  protocol: Schema.optional(
    Schema.Literal("auto", "2026-07-28", "2025-11-25").annotations(
      expectedAll("\"auto\", \"2026-07-28\" or \"2025-11-25\"")
    )
  ),
  ...ignoredFields
} satisfies Fields<typeof McpConfigEntry.commonKeys>

const stdioFields = {
  type: Schema.optional(Schema.Literal(...McpConfigEntry.stdioTypes)),
  command: NonEmptyText,
  args: Schema.optional(Texts),
  env: Schema.optional(Env),
  envFile: Schema.optional(NonEmptyText),
  cwd: Schema.optional(NonEmptyText),
  // a login for a process means nothing: a file that has one still loads
  oauth: Ignored,
  ...commonFields
} satisfies Fields<typeof McpConfigEntry.stdioKeys>

/**
 * A server started as a process (every dialect).
 *
 * @internal
 */
export class StdioEntry extends Schema.Class<StdioEntry>("StdioEntry")(stdioFields) {}

const Port = Schema.Number.annotations(expected("a port number")).pipe(
  Schema.filter((n) => Number.isInteger(n) && n >= 0 && n <= 65535, {
    message: (issue) => `expected a port number (0 to 65535), got ${got(issue.actual)}`
  })
)

/**
 * OAuth of an HTTP entry, under `oauth` (Claude Code, Gemini CLI) or `auth`: Zett's keys
 * (`clientId`, `clientSecret`, `scopes`, `clientMetadataUrl`, `redirectPort`, and for machine to machine
 * `grant: "client_credentials"` with `clientSecret` or `privateKey` and `algorithm`; for enterprise-managed
 * authorization `grant: "enterprise_managed"` with `clientId`, `clientSecret`, `idToken`, `idpIssuer`,
 * `idpClientId` and optionally `idpClientSecret`, `idpTokenEndpoint`; for workload identity
 * `grant: "workload_identity"` with `clientId`, `assertionFile` or `assertionEnv`, and optionally `audience`), Claude Code's
 * `callbackPort`, Gemini CLI's `enabled` and `redirectUri`; `dpop` with every grant. Gemini CLI's endpoint
 * overrides are accepted and not used: the endpoints are discovered.
 *
 * @internal
 */
export class OAuthEntry extends Schema.Class<OAuthEntry>("OAuthEntry")(
  {
    enabled: Schema.optional(Flag),
    grant: Schema.optional(
      Schema.Literal(...McpConfigEntry.grants).annotations({
        message: () => ({
          message: `expected "authorization_code", "client_credentials", "enterprise_managed" or "workload_identity"`,
          override: true
        })
      })
    ),
    clientId: Schema.optional(NonEmptyText),
    clientSecret: Schema.optional(Secret),
    privateKey: Schema.optional(Secret),
    algorithm: Schema.optional(NonEmptyText),
    idToken: Schema.optional(Secret),
    idpIssuer: Schema.optional(Url),
    idpTokenEndpoint: Schema.optional(Url),
    idpClientId: Schema.optional(NonEmptyText),
    idpClientSecret: Schema.optional(Secret),
    assertionFile: Schema.optional(NonEmptyText),
    assertionEnv: Schema.optional(NonEmptyText),
    audience: Schema.optional(NonEmptyText),
    scopes: Schema.optional(Texts),
    clientMetadataUrl: Schema.optional(Url),
    redirectPort: Schema.optional(Port),
    callbackPort: Schema.optional(Port),
    redirectUri: Schema.optional(Url),
    /** Zett's: DPoP-bound tokens, `true` always, `false` never (default: when the server asks). */
    dpop: Schema.optional(Flag),
    authorizationUrl: Ignored,
    tokenUrl: Ignored,
    tokenParamName: Ignored,
    audiences: Ignored,
    registrationUrl: Ignored
  } satisfies Fields<typeof McpConfigEntry.oauthKeys>
) {}

const OAuth = OAuthEntry.pipe(Schema.annotations(expected("an object")))

/**
 * A server reached over HTTP: `url` (most), `serverUrl` (Windsurf) or `httpUrl` (Gemini CLI).
 *
 * @internal
 */
export class RemoteEntry extends Schema.Class<RemoteEntry>("RemoteEntry")(
  {
    type: Schema.optional(Schema.Literal(...McpConfigEntry.remoteTypes)),
    url: Schema.optional(Url),
    serverUrl: Schema.optional(Url),
    httpUrl: Schema.optional(Url),
    headers: Schema.optional(Headers),
    oauth: Schema.optional(OAuth),
    auth: Schema.optional(OAuth),
    ...commonFields
  } satisfies Fields<typeof McpConfigEntry.remoteKeys>
) {}

/** @internal */
export type Decoded =
  | { readonly _tag: "Stdio"; readonly entry: StdioEntry }
  | { readonly _tag: "Remote"; readonly entry: RemoteEntry }
  | { readonly _tag: "Disabled" }
  | McpConfigEntry.Invalid

const firstIssue = (error: ParseResult.ParseError, kind: "stdio" | "remote"): McpConfigEntry.Invalid => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const issue = issues[0]!
  const field = issue.path.map(segment).join("")
  if (issue._tag === "Unexpected") return McpConfigEntry.unexpectedKey(issue.path, kind)
  if (issue._tag === "Missing") return McpConfigEntry.invalid(field, "missing")
  return McpConfigEntry.invalid(field === "" ? undefined : field, issue.message)
}

const decodeStdio = Schema.decodeUnknownEither(StdioEntry, { onExcessProperty: "error" })
const decodeRemote = Schema.decodeUnknownEither(RemoteEntry, { onExcessProperty: "error" })

/**
 * One entry: which kind, and whether every field has the right type.
 *
 * @internal
 */
export const decode = (raw: unknown): Decoded => {
  const kind = McpConfigEntry.classify(raw)
  switch (kind._tag) {
    case "Disabled":
    case "Invalid":
      return kind
    case "Stdio": {
      const decoded = decodeStdio(kind.value)
      return Either.isRight(decoded) ? { _tag: "Stdio", entry: decoded.right } : firstIssue(decoded.left, "stdio")
    }
    case "Remote": {
      const decoded = decodeRemote(kind.value)
      if (Either.isLeft(decoded)) return firstIssue(decoded.left, "remote")
      return kind.hasUrl ? { _tag: "Remote", entry: decoded.right } : McpConfigEntry.invalid(".url", "missing")
    }
  }
}

const InputDefinition = Schema.Struct({
  id: NonEmptyText,
  type: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  password: Schema.optional(Schema.Boolean),
  default: Schema.optional(Schema.String)
})

/**
 * A file's `inputs` (VS Code's): the values `${input:ID}` asks for.
 *
 * @internal
 */
export const Inputs = Schema.Array(InputDefinition).annotations(expected("an array of inputs"))
