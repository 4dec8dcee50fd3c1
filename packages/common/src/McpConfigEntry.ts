/**
 * One server entry of an MCP configuration file, in the variants of every client that writes one: which kind it is
 * (a process or a URL), whether it is left out on purpose, Zed's nested `command`, the keys each kind may have, the
 * words for a key that does not belong, which authorization grant its `oauth` (or `auth`) asks for, and the checks
 * of its URL and headers. Decoding the fields' types is each Effect line's (with its own Schema): this module names
 * the keys those schemas hold, and the configuration reader (`@zett/mcp-config`) of either line uses it.
 *
 * @since 0.1.0
 */
import * as EditDistance from "./EditDistance.js"
import type * as McpConfigDialect from "./McpConfigDialect.js"
import { got, has, isObject, quote, segment } from "./McpConfigWording.js"

/**
 * The `type` values of a process entry.
 *
 * @since 0.1.0
 * @category constants
 */
export const stdioTypes = ["stdio"] as const

/**
 * The `type` values of an HTTP entry (`sse` is the legacy transport).
 *
 * @since 0.1.0
 * @category constants
 */
export const remoteTypes = ["http", "streamable-http", "streamableHttp", "sse"] as const

/**
 * The keys that hold a server's address: `url` (most), `serverUrl` (Windsurf), `httpUrl` (Gemini CLI).
 *
 * @since 0.1.0
 * @category constants
 */
export const urlKeys = ["url", "serverUrl", "httpUrl"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type UrlKey = typeof urlKeys[number]

/**
 * Keys that change nothing for an agent (approval lists, trust, descriptions, editor settings): accepted and not
 * read.
 *
 * @since 0.1.0
 * @category constants
 */
export const ignoredKeys = [
  "trust",
  "autoApprove",
  "alwaysAllow",
  "description",
  "dev",
  "gallery",
  "version",
  "settings",
  "source",
  "disabledTools",
  "authProviderType"
] as const

/**
 * The keys of both kinds: `disabled`, Zed's `enabled`, `timeout`, the tool filters and Zett's own (`resources`,
 * `skills`, `alwaysLoad`, `protocol`), then `ignoredKeys`.
 *
 * @since 0.1.0
 * @category constants
 */
export const commonKeys = [
  "disabled",
  "enabled",
  "timeout",
  "includeTools",
  "excludeTools",
  "resources",
  "skills",
  "alwaysLoad",
  "protocol",
  ...ignoredKeys
] as const

/**
 * The keys of a process entry, in the order its schema lists them (`oauth` is accepted and means nothing for a
 * process).
 *
 * @since 0.1.0
 * @category constants
 */
export const stdioKeys = ["type", "command", "args", "env", "envFile", "cwd", "oauth", ...commonKeys] as const

/**
 * The keys of an HTTP entry, in the order its schema lists them.
 *
 * @since 0.1.0
 * @category constants
 */
export const remoteKeys = ["type", ...urlKeys, "headers", "oauth", "auth", ...commonKeys] as const

/**
 * The keys of an entry's `oauth` (or `auth`): Zett's, Claude Code's `callbackPort`, Gemini CLI's `enabled` and
 * `redirectUri`, and Gemini CLI's endpoint overrides, accepted and not used (the endpoints are discovered).
 *
 * @since 0.1.0
 * @category constants
 */
export const oauthKeys = [
  "enabled",
  "grant",
  "clientId",
  "clientSecret",
  "privateKey",
  "algorithm",
  "idToken",
  "idpIssuer",
  "idpTokenEndpoint",
  "idpClientId",
  "idpClientSecret",
  "assertionFile",
  "assertionEnv",
  "audience",
  "scopes",
  "clientMetadataUrl",
  "redirectPort",
  "callbackPort",
  "redirectUri",
  "dpop",
  "authorizationUrl",
  "tokenUrl",
  "tokenParamName",
  "audiences",
  "registrationUrl"
] as const

/**
 * The grants an entry's authorization can ask for (`authorization_code` when it names none).
 *
 * @since 0.1.0
 * @category constants
 */
export const grants = ["authorization_code", "client_credentials", "enterprise_managed", "workload_identity"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type Grant = typeof grants[number]

/**
 * What is wrong with an entry, for one field.
 *
 * @since 0.1.0
 * @category models
 */
export interface Invalid {
  readonly _tag: "Invalid"
  /** A path suffix such as `.url`, `.headers.Authorization` or `.args[1]`; undefined for the entry as a whole. */
  readonly field: string | undefined
  readonly reason: string
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const invalid = (field: string | undefined, reason: string): Invalid => ({ _tag: "Invalid", field, reason })

/**
 * Which kind an entry is: a process, a URL, left out on purpose, or invalid as a whole.
 *
 * @since 0.1.0
 * @category models
 */
export type Kind =
  | { readonly _tag: "Stdio"; readonly value: Readonly<Record<string, unknown>> }
  | {
    readonly _tag: "Remote"
    readonly value: Readonly<Record<string, unknown>>
    /** False for an entry of `"type": "http"` that names no URL (told once its fields are decoded). */
    readonly hasUrl: boolean
  }
  | { readonly _tag: "Disabled" }
  | Invalid

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

const isDisabled = (value: Readonly<Record<string, unknown>>): boolean =>
  (has(value, "disabled") && value.disabled === true) ||
  // a Zed extension's server runs inside Zed: there is nothing here to start
  value.source === "extension" ||
  (has(value, "enabled") && value.enabled === false)

/**
 * Which kind an entry is, from its `type`, its `command` and its URL key; an entry with none of them is refused
 * naming a misspelt key if it has one. The value of a process or URL entry is the one to decode (Zed's nested
 * `command` flattened).
 *
 * @example
 * ```ts
 * import { McpConfigEntry } from "@zett/common"
 *
 * console.log(McpConfigEntry.classify({ url: "https://example.com/mcp" })._tag) // Remote
 * console.log(McpConfigEntry.classify({ comand: "npx" }))
 * // { _tag: 'Invalid', field: undefined, reason: 'expected a command (stdio) or a url (HTTP); it has "comand" (did you mean "command"?)' }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const classify = (raw: unknown): Kind => {
  if (!isObject(raw)) return invalid(undefined, `expected an object, got ${got(raw)}`)
  const value = flattenZed(raw)
  if (isDisabled(value)) return { _tag: "Disabled" }
  let kind: "stdio" | "remote" | undefined
  if (has(value, "type")) {
    const type = value.type
    if (typeof type !== "string") return invalid(".type", `expected a string, got ${got(type)}`)
    if ((stdioTypes as ReadonlyArray<string>).includes(type)) kind = "stdio"
    else if ((remoteTypes as ReadonlyArray<string>).includes(type)) kind = "remote"
    else {
      return invalid(".type", `unsupported type ${quote(type)}; expected "stdio", "http", "streamable-http" or "sse"`)
    }
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
    return invalid(
      undefined,
      `expected a command (stdio) or a url (HTTP)${misspelt.length > 0 ? `; it has ${misspelt[0]}` : ""}`
    )
  }
  return kind === "stdio" ? { _tag: "Stdio", value } : { _tag: "Remote", value, hasUrl: urls.length > 0 }
}

const knownKeys: ReadonlyArray<string> = [...stdioKeys, ...remoteKeys].filter((key, i, all) => all.indexOf(key) === i)

/**
 * The key of either kind nearest to an unknown one, ignoring case, if one is near enough to be meant.
 *
 * @since 0.1.0
 * @category wording
 */
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

/**
 * What to say of a key a schema did not expect, at `path` inside an entry of `kind`: a refused key of `headers` or
 * `env`, an unknown nested key, a key of the other kind, or an unknown key with the known one it is nearest to.
 *
 * @example
 * ```ts
 * import { McpConfigEntry } from "@zett/common"
 *
 * console.log(McpConfigEntry.unexpectedKey(["headres"], "remote"))
 * // { _tag: 'Invalid', field: '.headres', reason: 'unknown key (did you mean "headers"?)' }
 * console.log(McpConfigEntry.unexpectedKey(["command"], "remote").reason) // not allowed in an HTTP entry
 * ```
 *
 * @since 0.1.0
 * @category wording
 */
export const unexpectedKey = (path: ReadonlyArray<PropertyKey>, kind: "stdio" | "remote"): Invalid => {
  const field = path.map(segment).join("")
  if (path.length === 2 && (path[0] === "headers" || path[0] === "env")) {
    // a key of `headers` or `env` that its key schema refused
    return invalid(
      field,
      path[0] === "headers" ? "not a valid HTTP header name" : "not a valid environment variable name"
    )
  }
  if (path.length > 1) return invalid(field, "unknown key")
  const key = String(path[0])
  const other: ReadonlyArray<string> = kind === "stdio" ? remoteKeys : stdioKeys
  const own: ReadonlyArray<string> = kind === "stdio" ? stdioKeys : remoteKeys
  if (other.includes(key) && !own.includes(key)) {
    return invalid(field, `not allowed in ${kind === "stdio" ? "a stdio" : "an HTTP"} entry`)
  }
  const nearest = nearestKey(key)
  return invalid(
    field,
    nearest === undefined ? "unknown key" : `unknown key (did you mean ${JSON.stringify(nearest)}?)`
  )
}

/**
 * The authorization part of an HTTP entry: `oauth` (Claude Code, Gemini CLI) or `auth`, never both.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthPart<A> =
  | { readonly _tag: "None" }
  | { readonly _tag: "Auth"; readonly key: "oauth" | "auth"; readonly oauth: A }
  | Invalid

/**
 * Which of `oauth` and `auth` an entry uses, if any; none for `"enabled": false` (Gemini CLI's).
 *
 * @since 0.1.0
 * @category constructors
 */
export const authPart = <A extends { readonly enabled?: boolean | undefined }>(entry: {
  readonly oauth?: A | undefined
  readonly auth?: A | undefined
}): AuthPart<A> => {
  if (entry.oauth !== undefined && entry.auth !== undefined) {
    return invalid(".auth", "both oauth and auth are given; use one")
  }
  const key = entry.oauth !== undefined ? "oauth" : "auth"
  const oauth = entry.oauth ?? entry.auth
  return oauth === undefined || oauth.enabled === false ? { _tag: "None" } : { _tag: "Auth", key, oauth }
}

/**
 * The keys of `oauth` whose presence decides the grant.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthKeys =
  & { readonly grant?: Grant | undefined }
  & {
    readonly [
      K in
        | "clientId"
        | "clientSecret"
        | "privateKey"
        | "algorithm"
        | typeof enterpriseKeys[number]
        | typeof workloadKeys[number]
    ]?: unknown
  }

const enterpriseKeys = ["idToken", "idpIssuer", "idpTokenEndpoint", "idpClientId", "idpClientSecret"] as const
const workloadKeys = ["assertionFile", "assertionEnv", "audience"] as const
const enterpriseNeeds = ["clientId", "clientSecret", "idToken", "idpIssuer", "idpClientId"] as const

/**
 * The grant an entry's `oauth` (under `key`) asks for, once each grant's keys are checked: those it needs, and
 * those only another grant uses. Decided by which keys are present, before any value is expanded.
 *
 * @example
 * ```ts
 * import { McpConfigEntry } from "@zett/common"
 *
 * console.log(McpConfigEntry.grantOf({ grant: "client_credentials", clientId: "app" }, "oauth"))
 * // { _tag: 'Invalid', field: '.oauth', reason: 'client_credentials needs either clientSecret or privateKey' }
 * console.log(McpConfigEntry.grantOf({ clientId: "app" }, "auth")) // { _tag: 'Grant', grant: 'authorization_code' }
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const grantOf = (oauth: AuthKeys, key: string): { readonly _tag: "Grant"; readonly grant: Grant } | Invalid => {
  const at = (name: string) => `.${key}.${name}`
  const present = (name: keyof AuthKeys) => oauth[name] !== undefined
  const onlyClientCredentials = () => invalid(at("privateKey"), "only used with \"grant\": \"client_credentials\"")
  if (oauth.grant === "enterprise_managed") {
    const missing = enterpriseNeeds.find((name) => !present(name))
    if (missing !== undefined) return invalid(at(missing), "missing (enterprise_managed needs it)")
    if (present("privateKey")) return onlyClientCredentials()
    return { _tag: "Grant", grant: "enterprise_managed" }
  }
  const stray = enterpriseKeys.find(present)
  if (stray !== undefined) return invalid(at(stray), "only used with \"grant\": \"enterprise_managed\"")
  if (oauth.grant === "workload_identity") {
    if (!present("clientId")) return invalid(at("clientId"), "missing (workload_identity needs a client)")
    const other = (["clientSecret", "privateKey"] as const).find(present)
    if (other !== undefined) {
      return invalid(at(other), "not used with \"grant\": \"workload_identity\" (the workload's token authenticates)")
    }
    if (present("assertionFile") === present("assertionEnv")) {
      return invalid(`.${key}`, "workload_identity needs either assertionFile or assertionEnv")
    }
    return { _tag: "Grant", grant: "workload_identity" }
  }
  const strayWorkload = workloadKeys.find(present)
  if (strayWorkload !== undefined) {
    return invalid(at(strayWorkload), "only used with \"grant\": \"workload_identity\"")
  }
  if (oauth.grant === "client_credentials") {
    if (!present("clientId")) return invalid(at("clientId"), "missing (client_credentials needs a client)")
    if (present("clientSecret") === present("privateKey")) {
      return invalid(`.${key}`, "client_credentials needs either clientSecret or privateKey")
    }
    if (present("privateKey") && !present("algorithm")) {
      return invalid(at("algorithm"), "missing (privateKey needs an algorithm such as RS256)")
    }
    return { _tag: "Grant", grant: "client_credentials" }
  }
  if (present("privateKey")) return onlyClientCredentials()
  return { _tag: "Grant", grant: "authorization_code" }
}

/**
 * What is wrong with a server's address once its variables are expanded: undefined for an http(s) URL.
 *
 * @since 0.1.0
 * @category wording
 */
export const urlIssue = (url: string): string | undefined => {
  let protocol: string
  try {
    protocol = new URL(url).protocol
  } catch {
    return "expected an http(s) URL, got a string that is not a URL"
  }
  return protocol === "http:" || protocol === "https:"
    ? undefined
    : `expected an http(s) URL, got a ${quote(protocol.slice(0, -1))} URL`
}

/**
 * What is wrong with a header's value once its variables are expanded: undefined when it may be sent.
 *
 * @since 0.1.0
 * @category wording
 */
export const headerValueIssue = (value: string): string | undefined =>
  /[\r\n\u0000]/.test(value) ? "contains a line break or NUL character" : undefined

/**
 * The transport of an HTTP entry: `sse` for `"type": "sse"` and for Gemini CLI's `url` (its legacy SSE
 * transport; its `httpUrl` is Streamable HTTP), Streamable HTTP otherwise.
 *
 * @since 0.1.0
 * @category constructors
 */
export const transport = (
  dialect: McpConfigDialect.Dialect,
  urlKey: UrlKey,
  type: string | undefined
): "sse" | "streamable-http" =>
  type === "sse" || (urlKey === "url" && type === undefined && dialect === "gemini") ? "sse" : "streamable-http"
