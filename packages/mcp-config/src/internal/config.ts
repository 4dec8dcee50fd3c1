/**
 * Decoding of configuration files into server definitions, in three steps:
 *
 * 1. the text, read with `jsonc-parser` (`configJson.ts`): comments, trailing commas, duplicate keys;
 * 2. each entry's shape, decoded with the Schema classes below (`StdioEntry`, `RemoteEntry`): their `message`
 *    annotations say what was expected without echoing a value (it may be a secret), and
 *    `ParseResult.ArrayFormatter` gives the field path of each issue;
 * 3. the entry's variables, expanded in the forms of the file's dialect (`variables.ts`, `dialect.ts`), with
 *    values from the `ConfigProvider` and inputs from `McpInputs`.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Dotenv from "dotenv"
import * as Config from "effect/Config"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Os from "node:os"
import * as McpInputs from "../McpInputs.js"
import * as EditDistance from "@zett/agent/EditDistance"
import {
  AuthorizationCode,
  ClientCredentials,
  EnterpriseManaged,
  McpHttpServer,
  McpStdioServer,
  WorkloadIdentity
} from "@zett/mcp/McpServerConfig"
import type { McpServerConfig } from "@zett/mcp/McpServerConfig"
import * as Json from "./configJson.js"
import * as Dialect from "./dialect.js"
import * as Variables from "./variables.js"

/** @internal */
export interface Issue {
  /** Where in the file, e.g. `servers.docs.url`; undefined for the file as a whole. */
  readonly entry: string | undefined
  /** The server whose entry is invalid, when the problem belongs to one entry. */
  readonly server: string | undefined
  readonly reason: string
}

/** @internal */
export interface EntryIssue {
  /** Where in the file, e.g. `servers.docs.url`. */
  readonly entry: string
  readonly server: string
  /** A name given twice in the mapping, or any other invalid entry. */
  readonly kind: "InvalidEntry" | "DuplicateName"
  readonly reason: string
}

/** @internal */
export interface FileEntry {
  readonly entry: string
  readonly server: McpServerConfig
}

/** @internal */
export type DecodeResult =
  | { readonly _tag: "Ok"; readonly file: DecodedFile }
  | { readonly _tag: "Error"; readonly issue: Issue }

/** @internal */
export interface DecodedFile {
  readonly rootKey: string
  readonly dialect: Dialect.Dialect
  readonly servers: ReadonlyArray<FileEntry>
  /** Invalid entries, in file order. */
  readonly invalid: ReadonlyArray<EntryIssue>
  /** Entries with `"disabled": true` (or Zed's `"enabled": false`), left out on purpose. */
  readonly disabled: ReadonlyArray<string>
}

/** @internal */
export interface DecodeOptions {
  /** The file's absolute path: it names the dialect (`.vscode/mcp.json`, ...) and `${workspaceFolder}`. */
  readonly path: string
  readonly serverKeys: ReadonlyArray<string>
  /** Overrides the folder `${workspaceFolder}` stands for. */
  readonly workspaceFolder?: string | undefined
  /** Overrides the dialect told by the path and the root key. */
  readonly dialect?: Dialect.Dialect | undefined
}

// -----------------------------------------------------------------------------
// messages that never echo a value
// -----------------------------------------------------------------------------

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key)

const truncate = (s: string, max = 40) => (s.length > max ? `${s.slice(0, max)}...` : s)

/** @internal */
export const quote = (s: string) => JSON.stringify(truncate(s))

/**
 * What a value is, for a reason. Only numbers, booleans and null are shown as they are: a string (or anything
 * holding one) may be a secret, and a huge value would make the line unreadable.
 */
const got = (u: unknown, secret = false): string => {
  if (u === null) return "null"
  if (Array.isArray(u)) return "an array"
  switch (typeof u) {
    case "string":
      return u.length === 0 ? "an empty string" : "a string"
    case "number":
    case "boolean":
      return secret ? `a ${typeof u}` : String(u)
    case "object":
      return "an object"
    // a JSON value has no other type
    default:
      return typeof u
  }
}

const expected = (what: string, secret = false) => ({
  message: (issue: ParseResult.ParseIssue) => `expected ${what}, got ${got(issue.actual, secret)}`
})

/** For a refinement: its message also stands for a failure of what it refines (a number given for a string). */
const expectedAll = (what: string) => ({
  message: (issue: ParseResult.ParseIssue) => ({ message: `expected ${what}, got ${got(issue.actual)}`, override: true })
})

/** A readable path segment: `.docs` for plain names, `["my server"]` for the rest (shortened when huge). */
const segment = (key: string | number | symbol) =>
  typeof key === "number"
    ? `[${key}]`
    : /^[A-Za-z0-9_$-]{1,64}$/.test(String(key))
    ? `.${String(key)}`
    : `[${quote(String(key))}]`

// -----------------------------------------------------------------------------
// the entries
// -----------------------------------------------------------------------------

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
const ignoredFields = {
  trust: Ignored,
  autoApprove: Ignored,
  alwaysAllow: Ignored,
  description: Ignored,
  dev: Ignored,
  gallery: Ignored,
  version: Ignored,
  settings: Ignored,
  source: Ignored,
  disabledTools: Ignored,
  authProviderType: Ignored
}

const commonFields = {
  disabled: Schema.optional(Flag),
  /** Zed's. */
  enabled: Schema.optional(Flag),
  timeout: Schema.optional(Timeout),
  includeTools: Schema.optional(Texts),
  excludeTools: Schema.optional(Texts),
  /** Zett's: `"tools"` exposes the server's resources as two tools. */
  resources: Schema.optional(Schema.Literal("tools").annotations(expected('"tools"'))),
  /** Zett's: `true` shows the model the server's skills (an index, and a tool to load one). */
  skills: Schema.optional(Flag),
  /** Zett's: the protocol revision to speak (`"auto"`, the default, asks the server). */
  protocol: Schema.optional(
    Schema.Literal("auto", "2026-07-28", "2025-11-25").annotations(expectedAll('"auto", "2026-07-28" or "2025-11-25"'))
  ),
  ...ignoredFields
}

const stdioTypes = ["stdio"] as const
const remoteTypes = ["http", "streamable-http", "streamableHttp", "sse"] as const

/**
 * A server started as a process (every dialect).
 *
 * @internal
 */
export class StdioEntry extends Schema.Class<StdioEntry>("StdioEntry")({
  type: Schema.optional(Schema.Literal(...stdioTypes)),
  command: NonEmptyText,
  args: Schema.optional(Texts),
  env: Schema.optional(Env),
  envFile: Schema.optional(NonEmptyText),
  cwd: Schema.optional(NonEmptyText),
  // a login for a process means nothing: a file that has one still loads
  oauth: Ignored,
  ...commonFields
}) {}

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
export class OAuthEntry extends Schema.Class<OAuthEntry>("OAuthEntry")({
  enabled: Schema.optional(Flag),
  grant: Schema.optional(
    Schema.Literal("authorization_code", "client_credentials", "enterprise_managed", "workload_identity").annotations({
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
}) {}

const OAuth = OAuthEntry.pipe(Schema.annotations(expected("an object")))

/**
 * A server reached over HTTP: `url` (most), `serverUrl` (Windsurf) or `httpUrl` (Gemini CLI).
 *
 * @internal
 */
export class RemoteEntry extends Schema.Class<RemoteEntry>("RemoteEntry")({
  type: Schema.optional(Schema.Literal(...remoteTypes)),
  url: Schema.optional(Url),
  serverUrl: Schema.optional(Url),
  httpUrl: Schema.optional(Url),
  headers: Schema.optional(Headers),
  oauth: Schema.optional(OAuth),
  auth: Schema.optional(OAuth),
  ...commonFields
}) {}

const stdioKeys = new Set(Object.keys(StdioEntry.fields))
const remoteKeys = new Set(Object.keys(RemoteEntry.fields))
const knownKeys = [...new Set([...stdioKeys, ...remoteKeys])]
const urlKeys = ["url", "serverUrl", "httpUrl"] as const

/** @internal */
export const nearestKey = (key: string): string | undefined => {
  let best: string | undefined
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1
  for (const known of knownKeys) {
    const d = EditDistance.levenshtein(key, known, { ignoreCase: true })
    if (d < bestDistance) {
      best = known
      bestDistance = d
    }
  }
  return best
}

type Shape =
  | { readonly _tag: "Stdio"; readonly entry: StdioEntry }
  | { readonly _tag: "Remote"; readonly entry: RemoteEntry }
  | { readonly _tag: "Disabled" }
  // `field` is a path suffix such as `.url`, `.headers.Authorization` or `.args[1]`
  | { readonly _tag: "Invalid"; readonly field: string | undefined; readonly reason: string }

const invalid = (field: string | undefined, reason: string): Shape => ({ _tag: "Invalid", field, reason })

/** Zed's older shape: `"command": { "path": ..., "args": [...], "env": {...} }`. */
const flattenZed = (value: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> => {
  const command = value.command
  if (!isObject(command)) return value
  const { command: _, ...rest } = value
  const out: Record<string, unknown> = { ...rest, command: command.path }
  if (has(command, "args")) out.args = command.args
  if (has(command, "env")) out.env = command.env
  return out
}

const firstIssue = (error: ParseResult.ParseError, kind: "stdio" | "remote"): Shape => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const issue = issues[0]!
  const field = issue.path.map(segment).join("")
  if (issue._tag === "Unexpected" && issue.path.length === 2 && (issue.path[0] === "headers" || issue.path[0] === "env")) {
    // a key of `headers` or `env` that its key schema refused
    return invalid(field, issue.path[0] === "headers" ? "not a valid HTTP header name" : "not a valid environment variable name")
  }
  if (issue._tag === "Unexpected") {
    const key = String(issue.path[issue.path.length - 1])
    if (issue.path.length > 1) return invalid(field, "unknown key")
    if (kind === "stdio" ? remoteKeys.has(key) : stdioKeys.has(key)) {
      return invalid(field, `not allowed in ${kind === "stdio" ? "a stdio" : "an HTTP"} entry`)
    }
    const nearest = nearestKey(key)
    return invalid(field, nearest === undefined ? "unknown key" : `unknown key (did you mean ${JSON.stringify(nearest)}?)`)
  }
  if (issue._tag === "Missing") return invalid(field, "missing")
  return invalid(field === "" ? undefined : field, issue.message)
}

const decodeStdio = Schema.decodeUnknownEither(StdioEntry, { onExcessProperty: "error" })
const decodeRemote = Schema.decodeUnknownEither(RemoteEntry, { onExcessProperty: "error" })

/** The shape of one entry: which kind, and whether every field has the right type. */
const decodeShape = (raw: unknown): Shape => {
  if (!isObject(raw)) return invalid(undefined, `expected an object, got ${got(raw)}`)
  const value = flattenZed(raw)
  if (has(value, "disabled") && value.disabled === true) return { _tag: "Disabled" }
  // a Zed extension's server runs inside Zed: there is nothing here to start
  if (value.source === "extension") return { _tag: "Disabled" }
  if (has(value, "enabled") && value.enabled === false) return { _tag: "Disabled" }
  let kind: "stdio" | "remote" | undefined
  if (has(value, "type")) {
    const type = value.type
    if (typeof type !== "string") return invalid(".type", `expected a string, got ${got(type)}`)
    if ((stdioTypes as ReadonlyArray<string>).includes(type)) kind = "stdio"
    else if ((remoteTypes as ReadonlyArray<string>).includes(type)) kind = "remote"
    else return invalid(".type", `unsupported type ${quote(type)}; expected "stdio", "http", "streamable-http" or "sse"`)
  }
  const urls = urlKeys.filter((key) => has(value, key))
  const hasCommand = has(value, "command")
  if (hasCommand && urls.length > 0) {
    return invalid(undefined, `has both command and ${urls[0]}; an entry is either stdio or HTTP`)
  }
  if (urls.length > 1) return invalid(undefined, `has both ${urls[0]} and ${urls[1]}; give one`)
  kind ??= urls.length > 0 ? "remote" : hasCommand ? "stdio" : undefined
  if (kind === undefined) {
    // `comand`, `URL`: a misspelt key is what a person reading the file needs to see
    const misspelt = Object.keys(value).flatMap((key) => {
      const near = EditDistance.nearest(key, ["command", ...urlKeys])
      return near === undefined || near === key ? [] : [`"${key}" (did you mean "${near}"?)`]
    })
    return invalid(undefined, `expected a command (stdio) or a url (HTTP)${misspelt.length > 0 ? `; it has ${misspelt[0]}` : ""}`)
  }
  if (kind === "stdio") {
    const decoded = decodeStdio(value)
    return Either.isRight(decoded) ? { _tag: "Stdio", entry: decoded.right } : firstIssue(decoded.left, "stdio")
  }
  const decoded = decodeRemote(value)
  if (Either.isLeft(decoded)) return firstIssue(decoded.left, "remote")
  return urls.length === 0 ? invalid(".url", "missing") : { _tag: "Remote", entry: decoded.right }
}

// -----------------------------------------------------------------------------
// variables
// -----------------------------------------------------------------------------

/** A problem found while expanding, for one field of one entry. */
class FieldIssue extends Data.TaggedError("FieldIssue")<{ readonly field: string; readonly reason: string }> {}

interface Expansion {
  readonly dialect: Dialect.Dialect
  readonly forms: Variables.Forms
  readonly fields: ReadonlySet<Dialect.Field>
  readonly resolver: Variables.Resolver<McpInputs.InputError>
  readonly secrets: Array<string>
}

const expandText = (expansion: Expansion, kind: Dialect.Field, field: string, text: string) => {
  if (!expansion.fields.has(kind)) return Effect.succeed(text)
  const tokens = Variables.parse(text, expansion.forms)
  // a shortcut: text without variables expands to itself
  if (!Variables.hasVariables(tokens)) return Effect.succeed(text)
  return Variables.expand(tokens, expansion.resolver, expansion.secrets).pipe(
    Effect.mapError((error) =>
      error._tag === "Unset"
        ? new FieldIssue({ field, reason: `the variable ${error.name} is not set and has no default` })
        : new FieldIssue({ field, reason: `the input ${JSON.stringify(error.id)} has no value: ${error.description}` })
    )
  )
}

const expandSecrets = (
  expansion: Expansion,
  kind: Dialect.Field,
  field: string,
  record: Readonly<Record<string, Redacted.Redacted<string>>> | undefined
) =>
  Effect.reduce(Object.entries(record ?? {}), {} as Record<string, Redacted.Redacted<string>>, (out, [key, value]) =>
    Effect.map(expandText(expansion, kind, `${field}${segment(key)}`, Redacted.value(value)), (text) => {
      // a key such as `__proto__` stays an own key
      Object.defineProperty(out, key, { value: Redacted.make(text), enumerable: true, writable: true, configurable: true })
      return out
    }))

const isHttpUrl = (text: string) => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:" ? undefined : url.protocol.slice(0, -1)
  } catch {
    return null
  }
}

const serverFields = (entry: StdioEntry | RemoteEntry, expansion: Expansion) => ({
  // Cline writes seconds (its default is 60); Gemini CLI, and a file that does not say, milliseconds
  ...(entry.timeout !== undefined
    ? { timeout: expansion.dialect === "cline" ? Duration.seconds(entry.timeout) : Duration.millis(entry.timeout) }
    : {}),
  ...(entry.includeTools !== undefined ? { includeTools: entry.includeTools } : {}),
  ...(entry.excludeTools !== undefined ? { excludeTools: entry.excludeTools } : {}),
  ...(entry.resources !== undefined ? { resources: entry.resources } : {}),
  ...(entry.skills !== undefined ? { skills: entry.skills } : {}),
  ...(entry.protocol !== undefined ? { protocol: entry.protocol } : {}),
  secrets: expansion.secrets.filter((value) => value.length > 0).map((value) => Redacted.make(value))
})

const readEnvFile = (expansion: Expansion, workspace: string, file: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const absolute = path.resolve(workspace, file)
    const text = yield* fs.readFileString(absolute).pipe(
      Effect.mapError((error) =>
        new FieldIssue({ field: ".envFile", reason: `cannot read the file${error._tag === "SystemError" ? ` (${error.reason})` : ""}` })
      )
    )
    const parsed = Dotenv.parse(text)
    for (const value of Object.values(parsed)) expansion.secrets.push(value)
    return parsed
  })

const buildStdio = (name: string, entry: StdioEntry, expansion: Expansion, workspace: string) =>
  Effect.gen(function*() {
    const command = yield* expandText(expansion, "command", ".command", entry.command)
    if (command === "") return yield* new FieldIssue({ field: ".command", reason: "is empty once its variables are expanded" })
    const args = yield* Effect.forEach(entry.args ?? [], (arg, i) => expandText(expansion, "args", `.args[${i}]`, arg))
    const fromFile = entry.envFile === undefined
      ? {}
      : yield* Effect.flatMap(
        expandText(expansion, "envFile", ".envFile", entry.envFile),
        (file) => readEnvFile(expansion, workspace, file)
      )
    const env = yield* expandSecrets(expansion, "env", ".env", entry.env)
    const cwd = entry.cwd === undefined ? undefined : yield* expandText(expansion, "cwd", ".cwd", entry.cwd)
    const merged: Record<string, Redacted.Redacted<string>> = {}
    for (const [key, value] of Object.entries(fromFile)) {
      Object.defineProperty(merged, key, { value: Redacted.make(value), enumerable: true, writable: true, configurable: true })
    }
    for (const [key, value] of Object.entries(env)) {
      Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true })
    }
    return new McpStdioServer({
      name,
      command,
      args,
      env: merged,
      ...(cwd !== undefined ? { cwd } : {}),
      ...serverFields(entry, expansion)
    })
  })

const expandSecret = (expansion: Expansion, field: string, value: Redacted.Redacted<string>) =>
  Effect.map(expandText(expansion, "auth", field, Redacted.value(value)), Redacted.make)

/** The port a redirect URI names (Gemini CLI's `http://localhost:7777/oauth/callback`); none for a scheme's own. */
const portOf = (uri: string | undefined): number | undefined => {
  if (uri === undefined) return undefined
  const port = URL.canParse(uri) ? new URL(uri).port : ""
  return port === "" ? undefined : Number(port)
}

const buildAuth = (entry: RemoteEntry, expansion: Expansion) =>
  Effect.gen(function*() {
    if (entry.oauth !== undefined && entry.auth !== undefined) {
      return yield* new FieldIssue({ field: ".auth", reason: "both oauth and auth are given; use one" })
    }
    const key = entry.oauth !== undefined ? "oauth" : "auth"
    const oauth = entry.oauth ?? entry.auth
    if (oauth === undefined || oauth.enabled === false) return undefined
    const at = (name: string) => `.${key}.${name}`
    const text = (name: string, value: string | undefined) =>
      value === undefined ? Effect.succeed(undefined) : expandText(expansion, "auth", at(name), value)
    const clientId = yield* text("clientId", oauth.clientId)
    const clientSecret = oauth.clientSecret === undefined ? undefined : yield* expandSecret(expansion, at("clientSecret"), oauth.clientSecret)
    const privateKey = oauth.privateKey === undefined ? undefined : yield* expandSecret(expansion, at("privateKey"), oauth.privateKey)
    const scopes = oauth.scopes === undefined
      ? undefined
      : yield* Effect.forEach(oauth.scopes, (scope, i) => expandText(expansion, "auth", `${at("scopes")}[${i}]`, scope))
    const optional = <K extends string, A>(k: K, value: A | undefined) => (value !== undefined ? { [k]: value } as { [P in K]: A } : {})
    const enterprise = ["idToken", "idpIssuer", "idpTokenEndpoint", "idpClientId", "idpClientSecret"] as const
    if (oauth.grant === "enterprise_managed") {
      const missing = (["clientId", "clientSecret", "idToken", "idpIssuer", "idpClientId"] as const).find((name) => oauth[name] === undefined)
      if (missing !== undefined) return yield* new FieldIssue({ field: at(missing), reason: "missing (enterprise_managed needs it)" })
      if (privateKey !== undefined) return yield* new FieldIssue({ field: at("privateKey"), reason: "only used with \"grant\": \"client_credentials\"" })
      const idToken = yield* expandSecret(expansion, at("idToken"), oauth.idToken!)
      const idpClientSecret = oauth.idpClientSecret === undefined ? undefined : yield* expandSecret(expansion, at("idpClientSecret"), oauth.idpClientSecret)
      return new EnterpriseManaged({
        clientId: clientId!,
        clientSecret: clientSecret!,
        idToken,
        idpIssuer: (yield* text("idpIssuer", oauth.idpIssuer))!,
        ...optional("idpTokenEndpoint", yield* text("idpTokenEndpoint", oauth.idpTokenEndpoint)),
        idpClientId: (yield* text("idpClientId", oauth.idpClientId))!,
        ...optional("idpClientSecret", idpClientSecret),
        ...optional("scopes", scopes),
        ...optional("dpop", oauth.dpop)
      })
    }
    const stray = enterprise.find((name) => oauth[name] !== undefined)
    if (stray !== undefined) return yield* new FieldIssue({ field: at(stray), reason: "only used with \"grant\": \"enterprise_managed\"" })
    const workload = ["assertionFile", "assertionEnv", "audience"] as const
    if (oauth.grant === "workload_identity") {
      if (clientId === undefined) return yield* new FieldIssue({ field: at("clientId"), reason: "missing (workload_identity needs a client)" })
      const other = (["clientSecret", "privateKey"] as const).find((name) => oauth[name] !== undefined)
      if (other !== undefined) {
        return yield* new FieldIssue({ field: at(other), reason: "not used with \"grant\": \"workload_identity\" (the workload's token authenticates)" })
      }
      if ((oauth.assertionFile === undefined) === (oauth.assertionEnv === undefined)) {
        return yield* new FieldIssue({ field: `.${key}`, reason: "workload_identity needs either assertionFile or assertionEnv" })
      }
      const file = yield* text("assertionFile", oauth.assertionFile)
      const env = yield* text("assertionEnv", oauth.assertionEnv)
      return new WorkloadIdentity({
        clientId,
        assertion: file !== undefined ? { file } : { env: env! },
        ...optional("audience", yield* text("audience", oauth.audience)),
        ...optional("scopes", scopes),
        ...optional("dpop", oauth.dpop)
      })
    }
    const strayWorkload = workload.find((name) => oauth[name] !== undefined)
    if (strayWorkload !== undefined) {
      return yield* new FieldIssue({ field: at(strayWorkload), reason: "only used with \"grant\": \"workload_identity\"" })
    }
    if (oauth.grant === "client_credentials") {
      if (clientId === undefined) return yield* new FieldIssue({ field: at("clientId"), reason: "missing (client_credentials needs a client)" })
      if ((clientSecret === undefined) === (privateKey === undefined)) {
        return yield* new FieldIssue({ field: `.${key}`, reason: "client_credentials needs either clientSecret or privateKey" })
      }
      if (privateKey !== undefined && oauth.algorithm === undefined) {
        return yield* new FieldIssue({ field: at("algorithm"), reason: "missing (privateKey needs an algorithm such as RS256)" })
      }
      return new ClientCredentials({
        clientId,
        ...optional("clientSecret", clientSecret),
        ...optional("privateKey", privateKey),
        ...optional("algorithm", oauth.algorithm),
        ...optional("scopes", scopes),
        ...optional("dpop", oauth.dpop)
      })
    }
    if (privateKey !== undefined) {
      return yield* new FieldIssue({ field: at("privateKey"), reason: "only used with \"grant\": \"client_credentials\"" })
    }
    const clientMetadataUrl = yield* text("clientMetadataUrl", oauth.clientMetadataUrl)
    const redirectUri = yield* text("redirectUri", oauth.redirectUri)
    const redirectPort = oauth.redirectPort ?? oauth.callbackPort ?? portOf(redirectUri)
    return new AuthorizationCode({
      ...optional("clientId", clientId),
      ...optional("clientSecret", clientSecret),
      ...optional("scopes", scopes),
      ...optional("clientMetadataUrl", clientMetadataUrl),
      ...optional("redirectPort", redirectPort),
      ...optional("dpop", oauth.dpop)
    })
  })

const buildRemote = (name: string, entry: RemoteEntry, expansion: Expansion) =>
  Effect.gen(function*() {
    const key = urlKeys.find((key) => entry[key] !== undefined)!
    const url = yield* expandText(expansion, "url", `.${key}`, entry[key]!)
    const protocol = isHttpUrl(url)
    if (protocol === null) return yield* new FieldIssue({ field: `.${key}`, reason: "expected an http(s) URL, got a string that is not a URL" })
    if (protocol !== undefined) return yield* new FieldIssue({ field: `.${key}`, reason: `expected an http(s) URL, got a ${quote(protocol)} URL` })
    const headers = yield* expandSecrets(expansion, "headers", ".headers", entry.headers)
    for (const [header, value] of Object.entries(headers)) {
      if (/[\r\n\u0000]/.test(Redacted.value(value))) {
        return yield* new FieldIssue({ field: `.headers${segment(header)}`, reason: "contains a line break or NUL character" })
      }
    }
    const auth = yield* buildAuth(entry, expansion)
    // Gemini CLI's `url` is the legacy SSE transport; its `httpUrl` is Streamable HTTP
    const transport = entry.type === "sse" || (key === "url" && entry.type === undefined && expansion.dialect === "gemini")
      ? "sse" as const
      : "streamable-http" as const
    return new McpHttpServer({
      name,
      url,
      headers,
      transport,
      ...(auth !== undefined ? { auth } : {}),
      ...serverFields(entry, expansion)
    })
  })

// -----------------------------------------------------------------------------
// the file
// -----------------------------------------------------------------------------

const InputDefinition = Schema.Struct({
  id: NonEmptyText,
  type: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  password: Schema.optional(Schema.Boolean),
  default: Schema.optional(Schema.String)
})
const Inputs = Schema.Array(InputDefinition).annotations(expected("an array of inputs"))

type Entry =
  | { readonly _tag: "Server"; readonly server: McpServerConfig }
  | { readonly _tag: "Disabled" }
  | { readonly _tag: "Invalid"; readonly field: string | undefined; readonly reason: string }

const decodeEntry = (
  name: string,
  raw: unknown,
  expansion: (secrets: Array<string>) => Expansion,
  workspace: string
): Effect.Effect<Entry, never, FileSystem.FileSystem | Path.Path> => {
  if (name.length === 0) return Effect.succeed({ _tag: "Invalid", field: undefined, reason: "a server name must not be empty" })
  const shape = decodeShape(raw)
  if (shape._tag === "Invalid" || shape._tag === "Disabled") return Effect.succeed(shape)
  const context = expansion([])
  const built: Effect.Effect<McpServerConfig, FieldIssue, FileSystem.FileSystem | Path.Path> = shape._tag === "Stdio"
    ? buildStdio(name, shape.entry, context, workspace)
    : buildRemote(name, shape.entry, context)
  return built.pipe(
    Effect.map((server): Entry => ({ _tag: "Server", server })),
    Effect.catchAll((issue) => Effect.succeed<Entry>({ _tag: "Invalid", field: issue.field, reason: issue.reason }))
  )
}

/**
 * Decodes the text of a configuration file. A result of `Error` is a problem with the file as a whole (not JSON, no or
 * two server mappings), which fails in strict and lenient mode alike, since there is no entry to skip. Variables are
 * read from the `ConfigProvider`; `${input:ID}` from the `McpInputs` in context, if any.
 *
 * @internal
 */
export const decode = (
  text: string,
  options: DecodeOptions
): Effect.Effect<DecodeResult, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fileError = (reason: string, entry?: string): DecodeResult => ({
      _tag: "Error",
      issue: { entry, server: undefined, reason }
    })
    const parsed = Json.parse(text)
    if (parsed._tag === "Error") {
      const { column, line, path, reason } = parsed.issue
      if (path === undefined) return fileError(`not valid JSON (line ${line}, column ${column}: ${reason})`)
      // named down to the field of an entry (`mcpServers.s.args`) or to a key of the root, not to the hundredth level
      const head = path[0]
      const entry = typeof head === "string"
        ? path.slice(0, options.serverKeys.includes(head) ? 3 : 1).map(segment).join("").replace(/^\./, "")
        : undefined
      return fileError(`${reason} (line ${line}, column ${column})`, entry)
    }
    const root = parsed.parsed.value
    if (!isObject(root)) return fileError(`expected a JSON object at the root, got ${got(root)}`)
    const present = options.serverKeys.filter((key) => has(root, key))
    const expectedKeys = options.serverKeys.map((key) => JSON.stringify(key)).join(" or ")
    if (present.length === 0) return fileError(`no server mapping: expected a ${expectedKeys} key`)
    if (present.length > 1) {
      return fileError(`${present.map((key) => JSON.stringify(key)).join(" and ")} are both present; use only one`)
    }
    const rootKey = present[0]!
    const duplicates = parsed.parsed.duplicates.filter((path) => path[0] === rootKey)
    if (duplicates.some((path) => path.length === 1)) return fileError("duplicate key", rootKey)
    const mapping = root[rootKey]
    if (!isObject(mapping)) {
      return fileError(`expected an object mapping server names to entries, got ${got(mapping)}`, rootKey)
    }
    const inputs = has(root, "inputs") ? Schema.decodeUnknownEither(Inputs)(root.inputs) : Either.right([])
    if (Either.isLeft(inputs)) {
      const issue = ParseResult.ArrayFormatter.formatErrorSync(inputs.left)[0]!
      return fileError(issue.message, `inputs${issue.path.map(segment).join("")}`)
    }

    const pathService = yield* Path.Path
    const dialect = options.dialect ?? Dialect.detect(options.path, rootKey)
    const workspace = options.workspaceFolder ?? Dialect.workspaceFolder(options.path, pathService.dirname)
    const home = yield* homeDirectory
    const askInput = yield* McpInputs.current
    const definitions = new Map(inputs.right.map((input) => [input.id, input]))
    const resolver: Variables.Resolver<McpInputs.InputError> = {
      variable: (name) => Effect.option(Config.string(name)),
      predefined: (name) => {
        switch (name) {
          case "workspaceFolder":
            return workspace
          case "workspaceFolderBasename":
            return pathService.basename(workspace)
          case "userHome":
            return home
          case "pathSeparator":
          case "/":
            return pathService.sep
        }
      },
      input: (id) => {
        const definition = definitions.get(id)
        return definition === undefined
          ? Effect.fail(new McpInputs.InputError({ id, reason: "Undeclared", description: "no such input in the file's inputs" }))
          : Effect.map(
            askInput.get({
              id,
              description: definition.description,
              password: definition.password ?? false,
              default: definition.default
            }),
            Redacted.value
          )
      }
    }
    const expansion = (secrets: Array<string>): Expansion => ({
      dialect,
      forms: Dialect.forms[dialect],
      fields: Dialect.expandedFields(dialect),
      resolver,
      secrets
    })

    const servers: Array<FileEntry> = []
    const invalidEntries: Array<EntryIssue> = []
    const disabled: Array<string> = []
    // File order, which plain objects lose for integer-like keys such as "1".
    const order = parsed.parsed.keyOrder.get(mapping) ?? Object.keys(mapping)
    for (const name of new Set(order)) {
      const entry = `${rootKey}${segment(name)}`
      if (duplicates.some((path) => path.length === 2 && path[1] === name)) {
        invalidEntries.push({ entry, server: name, kind: "DuplicateName", reason: "duplicate server name" })
        continue
      }
      // A key written twice inside one entry: JSON would keep the last silently, so the entry is ambiguous.
      const repeated = duplicates.find((path) => path.length > 2 && path[1] === name)
      if (repeated !== undefined) {
        const where = `${entry}${repeated.slice(2).map(segment).join("")}`
        invalidEntries.push({ entry: where, server: name, kind: "InvalidEntry", reason: "duplicate key" })
        continue
      }
      const result = yield* decodeEntry(name, mapping[name], expansion, workspace)
      switch (result._tag) {
        case "Server":
          servers.push({ entry, server: result.server })
          break
        case "Disabled":
          disabled.push(name)
          break
        case "Invalid":
          invalidEntries.push({
            entry: `${entry}${result.field ?? ""}`,
            server: name,
            kind: "InvalidEntry",
            reason: result.reason
          })
      }
    }
    return { _tag: "Ok", file: { rootKey, dialect, servers, invalid: invalidEntries, disabled } } as const
  })

/**
 * The home directory: `HOME` (or `USERPROFILE`) from the `ConfigProvider`, falling back to the operating
 * system's answer.
 *
 * @internal
 */
export const homeDirectory: Effect.Effect<string> = Config.nonEmptyString("HOME").pipe(
  Config.orElse(() => Config.nonEmptyString("USERPROFILE")),
  Effect.orElseSucceed(() => Os.homedir())
)
