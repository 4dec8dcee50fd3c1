/**
 * The fields of a server entry, decoded with Schema 4. Each field says what it expects in a `wording` annotation
 * of its own, and `firstIssue` words the first issue of a decoding from it: "expected X, got Y" where Y never
 * echoes a value (it may be a secret). The keys of each kind, the kind of an entry and the words for a key that
 * does not belong are `@zett/common`'s `McpConfigEntry`, shared with the Effect 3 line; the schemas hold exactly
 * its keys (checked by their types). Fields are `optionalKey`: a JSON file has no `undefined`.
 *
 * @internal
 */
import * as McpConfigEntry from "@zett/common/McpConfigEntry"
import { got, segment } from "@zett/common/McpConfigWording"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import type * as SchemaIssue from "effect/SchemaIssue"

/** What a schema expects, for the reason of an issue. */
interface Wording {
  /** `expected <what>, got <what the value is>`. */
  readonly what?: string
  /** The value may be a secret: not even a number or boolean is shown. */
  readonly secret?: boolean
  /** Words a failure anywhere inside this schema (a refused item of an array) as a failure of the whole. */
  readonly whole?: boolean
  /** The whole reason, with nothing about the value. */
  readonly message?: string
}

const wordingKey = "@zett/mcp-config/wording"

const wording = (w: Wording) => ({ [wordingKey]: w })

const wordingOf = (annotations: Schema.Annotations.Annotations | undefined): Wording | undefined =>
  annotations?.[wordingKey] as Wording | undefined

const expected = (what: string, secret = false) => wording({ what, secret })

const expectedAll = (what: string) => wording({ what, whole: true })

const Text = Schema.String.annotate(expected("a string"))
const NonEmptyText = Schema.String.annotate(expectedAll("a non-empty string")).check(
  Schema.isMinLength(1, expectedAll("a non-empty string"))
)
const Url = Schema.String.annotate(expected("a URL"))
const Texts = Schema.Array(Text).annotate(expected("an array of strings"))
const Flag = Schema.Boolean.annotate(expected("true or false"))
const Secret = Schema.RedactedFromValue(Schema.String.annotate(expected("a string", true)))

// RFC 9110 token characters; a refused name is worded by `McpConfigEntry.unexpectedKey`
const HeaderName = Schema.String.check(Schema.isPattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/))
const EnvName = Schema.String.check(
  Schema.makeFilter((key: string) => key.length > 0 && !key.includes("=") && !key.includes("\u0000"))
)
const Env = Schema.Record(EnvName, Secret).annotate(expected("an object of strings", true))
const Headers = Schema.Record(HeaderName, Secret).annotate(expected("an object of strings", true))

/** A call timeout: seconds in Cline's files, milliseconds in Gemini CLI's (and in a file that does not say). */
const Timeout = Schema.Number.annotate(expected("a number")).check(
  Schema.makeFilter((n: number) => Number.isFinite(n) && n > 0, expected("a number above 0"))
)

/** Keys that change nothing for an agent: approval lists, trust, descriptions, editor settings. */
const Ignored = Schema.optionalKey(Schema.Unknown)
const ignoredFields = Object.fromEntries(McpConfigEntry.ignoredKeys.map((key) => [key, Ignored])) as Record<
  typeof McpConfigEntry.ignoredKeys[number],
  typeof Ignored
>

type Fields<Keys extends ReadonlyArray<string>> = { readonly [K in Keys[number]]: Schema.Struct.Fields[string] }

const commonFields = {
  disabled: Schema.optionalKey(Flag),
  /** Zed's. */
  enabled: Schema.optionalKey(Flag),
  timeout: Schema.optionalKey(Timeout),
  includeTools: Schema.optionalKey(Texts),
  excludeTools: Schema.optionalKey(Texts),
  /** Zett's: `"tools"` exposes the server's resources as two tools. */
  resources: Schema.optionalKey(Schema.Literal("tools").annotate(expected("\"tools\""))),
  /** Zett's: `true` shows the model the server's skills (an index, and a tool to load one). */
  skills: Schema.optionalKey(Flag),
  /** Zett's: tools offered even while tool search holds the others back: `true` for all, or their names. */
  alwaysLoad: Schema.optionalKey(
    Schema.Union([Schema.Boolean, Schema.Array(Schema.String)]).annotate(
      expectedAll("true, false or an array of tool names")
    )
  ),
  /** Zett's: the protocol revision to speak (`"auto"`, the default, asks the server). */
  protocol: Schema.optionalKey(
    Schema.Literals(["auto", "2026-07-28", "2025-11-25"]).annotate(
      expectedAll("\"auto\", \"2026-07-28\" or \"2025-11-25\"")
    )
  ),
  ...ignoredFields
} satisfies Fields<typeof McpConfigEntry.commonKeys>

const stdioFields = {
  type: Schema.optionalKey(Schema.Literals(McpConfigEntry.stdioTypes)),
  command: NonEmptyText,
  args: Schema.optionalKey(Texts),
  env: Schema.optionalKey(Env),
  envFile: Schema.optionalKey(NonEmptyText),
  cwd: Schema.optionalKey(NonEmptyText),
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

const Port = Schema.Number.annotate(expected("a port number")).check(
  Schema.makeFilter(
    (n: number) => Number.isInteger(n) && n >= 0 && n <= 65535,
    expected("a port number (0 to 65535)")
  )
)

/**
 * OAuth of an HTTP entry, under `oauth` (Claude Code, Gemini CLI) or `auth`: `McpConfigEntry.oauthKeys` (which
 * grant, and the keys each needs, is `McpConfigEntry.grantOf`).
 *
 * @internal
 */
export class OAuthEntry extends Schema.Class<OAuthEntry>("OAuthEntry")(
  {
    enabled: Schema.optionalKey(Flag),
    grant: Schema.optionalKey(
      Schema.Literals(McpConfigEntry.grants).annotate(wording({
        message: `expected "authorization_code", "client_credentials", "enterprise_managed" or "workload_identity"`
      }))
    ),
    clientId: Schema.optionalKey(NonEmptyText),
    clientSecret: Schema.optionalKey(Secret),
    privateKey: Schema.optionalKey(Secret),
    algorithm: Schema.optionalKey(NonEmptyText),
    idToken: Schema.optionalKey(Secret),
    idpIssuer: Schema.optionalKey(Url),
    idpTokenEndpoint: Schema.optionalKey(Url),
    idpClientId: Schema.optionalKey(NonEmptyText),
    idpClientSecret: Schema.optionalKey(Secret),
    assertionFile: Schema.optionalKey(NonEmptyText),
    assertionEnv: Schema.optionalKey(NonEmptyText),
    audience: Schema.optionalKey(NonEmptyText),
    scopes: Schema.optionalKey(Texts),
    clientMetadataUrl: Schema.optionalKey(Url),
    redirectPort: Schema.optionalKey(Port),
    callbackPort: Schema.optionalKey(Port),
    redirectUri: Schema.optionalKey(Url),
    /** Zett's: DPoP-bound tokens, `true` always, `false` never (default: when the server asks). */
    dpop: Schema.optionalKey(Flag),
    authorizationUrl: Ignored,
    tokenUrl: Ignored,
    tokenParamName: Ignored,
    audiences: Ignored,
    registrationUrl: Ignored
  } satisfies Fields<typeof McpConfigEntry.oauthKeys>
) {}

const OAuth = OAuthEntry.annotate(expected("an object"))

/**
 * A server reached over HTTP: `url` (most), `serverUrl` (Windsurf) or `httpUrl` (Gemini CLI).
 *
 * @internal
 */
export class RemoteEntry extends Schema.Class<RemoteEntry>("RemoteEntry")(
  {
    type: Schema.optionalKey(Schema.Literals(McpConfigEntry.remoteTypes)),
    url: Schema.optionalKey(Url),
    serverUrl: Schema.optionalKey(Url),
    httpUrl: Schema.optionalKey(Url),
    headers: Schema.optionalKey(Headers),
    oauth: Schema.optionalKey(OAuth),
    auth: Schema.optionalKey(OAuth),
    ...commonFields
  } satisfies Fields<typeof McpConfigEntry.remoteKeys>
) {}

/** @internal */
export type Decoded =
  | { readonly _tag: "Stdio"; readonly entry: StdioEntry }
  | { readonly _tag: "Remote"; readonly entry: RemoteEntry }
  | { readonly _tag: "Disabled" }
  | McpConfigEntry.Invalid

const inputOf = (issue: SchemaIssue.Issue): unknown => "input" in issue ? issue.input : undefined

const reason = (w: Wording | undefined, input: unknown): string | undefined =>
  w?.message ?? (w?.what === undefined ? undefined : `expected ${w.what}, got ${got(input, w.secret ?? false)}`)

const astOf = (issue: SchemaIssue.Issue): SchemaAST.AST | undefined => "ast" in issue ? issue.ast : undefined

/**
 * The first issue of a decoding, as a field path and a reason: the innermost schema's wording, unless an outer
 * one words every failure inside it (`whole`). `kind` words a key that does not belong.
 *
 * @internal
 */
export const firstIssue = (
  root: SchemaIssue.Issue,
  kind: "stdio" | "remote" | undefined
): { readonly path: ReadonlyArray<PropertyKey>; readonly reason: string } => {
  const path: Array<PropertyKey> = []
  let whole:
    | { readonly wording: Wording; readonly input: unknown; readonly path: ReadonlyArray<PropertyKey> }
    | undefined
  let issue = root
  let fallback: string | undefined
  for (;;) {
    const own = wordingOf(astOf(issue)?.annotations)
    if (whole === undefined && own?.whole === true) whole = { wording: own, input: inputOf(issue), path: [...path] }
    if (own !== undefined) fallback = reason(own, inputOf(issue)) ?? fallback
    switch (issue._tag) {
      case "Pointer":
        for (const key of issue.path) path.push(key)
        issue = issue.issue
        continue
      case "Encoding":
        issue = issue.issue
        continue
      case "Composite":
        issue = issue.issues[0]!
        continue
      case "AnyOf":
        if (issue.issues.length > 0) {
          issue = issue.issues[0]!
          continue
        }
        break
      case "Filter": {
        const check = wordingOf(issue.filter.annotations)
        if (whole !== undefined) return { path: whole.path, reason: reason(whole.wording, whole.input)! }
        if (check !== undefined) return { path, reason: reason(check, issue.input)! }
        issue = issue.issue
        continue
      }
      case "UnexpectedKey":
        return {
          path,
          reason: kind === undefined ? "unknown key" : McpConfigEntry.unexpectedKey(path, kind).reason
        }
      case "MissingKey":
        return { path, reason: "missing" }
    }
    break
  }
  if (whole !== undefined) return { path: whole.path, reason: reason(whole.wording, whole.input)! }
  return { path, reason: reason(wordingOf(astOf(issue)?.annotations), inputOf(issue)) ?? fallback ?? "invalid" }
}

const toInvalid = (issue: SchemaIssue.Issue, kind: "stdio" | "remote"): McpConfigEntry.Invalid => {
  const first = firstIssue(issue, kind)
  const field = first.path.map(segment).join("")
  return McpConfigEntry.invalid(field === "" ? undefined : field, first.reason)
}

const options: SchemaAST.ParseOptions = { onExcessProperty: "error", reportInput: true }
const decodeStdio = Schema.decodeUnknownResult(StdioEntry)
const decodeRemote = Schema.decodeUnknownResult(RemoteEntry)

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
      const decoded = decodeStdio(kind.value, options)
      return Result.isSuccess(decoded)
        ? { _tag: "Stdio", entry: decoded.success }
        : toInvalid(decoded.failure.issue, "stdio")
    }
    case "Remote": {
      const decoded = decodeRemote(kind.value, options)
      if (Result.isFailure(decoded)) return toInvalid(decoded.failure.issue, "remote")
      return kind.hasUrl ? { _tag: "Remote", entry: decoded.success } : McpConfigEntry.invalid(".url", "missing")
    }
  }
}

const InputDefinition = Schema.Struct({
  id: NonEmptyText,
  type: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  password: Schema.optionalKey(Schema.Boolean),
  default: Schema.optionalKey(Schema.String)
})

/**
 * A file's `inputs` (VS Code's): the values `${input:ID}` asks for.
 *
 * @internal
 */
export const Inputs = Schema.Array(InputDefinition).annotate(expected("an array of inputs"))

/**
 * A file's `inputs`, decoded, or the first issue (a field path inside `inputs` and a reason).
 *
 * @internal
 */
export const decodeInputs = (
  raw: unknown
): Result.Result<typeof Inputs.Type, { readonly path: ReadonlyArray<PropertyKey>; readonly reason: string }> => {
  const decoded = Schema.decodeUnknownResult(Inputs)(raw, options)
  return Result.isSuccess(decoded)
    ? Result.succeed(decoded.success)
    : Result.fail(firstIssue(decoded.failure.issue, undefined))
}
