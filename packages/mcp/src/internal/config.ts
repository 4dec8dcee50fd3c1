/**
 * Decoding of configuration files (`mcp.json`) into server definitions. Written by hand rather than with a
 * Schema so that every reason is short, names the exact entry, and never echoes a header or env value (B2).
 *
 * @internal
 */
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { McpHttpServer, McpStdioServer, ServerName } from "../McpServer.js"
import type { McpServer } from "../McpServer.js"
import * as Json from "./configJson.js"

/** @internal */
export interface Issue {
  /** Where in the file, e.g. `servers.docs.url`; undefined for the file as a whole. */
  readonly entry: string | undefined
  /** The server whose entry is invalid, when the problem belongs to one entry. */
  readonly server: string | undefined
  readonly reason: string
}

/** @internal */
export interface FileEntry {
  readonly entry: string
  readonly server: McpServer
}

/** @internal */
export interface DecodedFile {
  readonly rootKey: string
  readonly servers: ReadonlyArray<FileEntry>
  /** Invalid entries, in file order. */
  readonly invalid: ReadonlyArray<Issue>
  /** Entries with `"disabled": true`, left out on purpose. */
  readonly disabled: ReadonlyArray<string>
}

/** @internal */
export type DecodeResult =
  | { readonly _tag: "Ok"; readonly file: DecodedFile }
  | { readonly _tag: "Error"; readonly issue: Issue }

const isServerName: (name: string) => boolean = Schema.is(ServerName)

const serverNameRule = "a server name must be 1-64 letters, digits, '_' or '-' (it prefixes tool names)"

const httpTypes = new Set(["http", "streamable-http", "streamableHttp"])

// Keys that the clients whose files we accept write for their own use and that change nothing about how a
// server is reached: approval lists, per-server timeouts, descriptions, VS Code's dev-mode settings.
const ignoredKeys = new Set(["autoApprove", "alwaysAllow", "timeout", "description", "dev", "gallery", "disabled"])

const httpKeys = new Set(["type", "url", "headers"])
const stdioKeys = new Set(["type", "command", "args", "env", "cwd"])

// RFC 9110 token characters.
const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

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
    default:
      return typeof u
  }
}

/** A readable path segment: `.docs` for plain names, `["my server"]` for the rest (shortened when huge). */
const segment = (key: string) => (/^[A-Za-z0-9_$-]{1,64}$/.test(key) ? `.${key}` : `[${quote(key)}]`)

type EntryResult =
  | { readonly _tag: "Server"; readonly server: McpServer }
  | { readonly _tag: "Disabled" }
  // `field` is a path suffix such as `.url`, `.headers.Authorization` or `.args[1]`
  | { readonly _tag: "Invalid"; readonly field: string | undefined; readonly reason: string }

const invalid = (field: string | undefined, reason: string): EntryResult => ({ _tag: "Invalid", field, reason })

const stringRecord = (
  value: unknown,
  field: string,
  checkKey: (key: string) => string | undefined
): { readonly record: Record<string, Redacted.Redacted<string>> } | EntryResult => {
  if (!isObject(value)) return invalid(field, `expected an object of strings, got ${got(value, true)}`)
  const record: Record<string, Redacted.Redacted<string>> = {}
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = checkKey(key)
    if (keyProblem !== undefined) return invalid(`${field}${segment(key)}`, keyProblem)
    if (typeof item !== "string") return invalid(`${field}${segment(key)}`, `expected a string, got ${got(item, true)}`)
    Object.defineProperty(record, key, {
      value: Redacted.make(item),
      enumerable: true,
      writable: true,
      configurable: true
    })
  }
  return { record }
}

const checkHeader = (key: string) => (headerNamePattern.test(key) ? undefined : "not a valid HTTP header name")
const checkEnv = (key: string) =>
  key.length === 0 || key.includes("=") || key.includes("\u0000") ? "not a valid environment variable name" : undefined

const decodeEntry = (name: string, value: unknown): EntryResult => {
  if (!isObject(value)) return invalid(undefined, `expected an object, got ${got(value)}`)
  if (!isServerName(name)) {
    return invalid(undefined, name.length === 0 ? "a server name must not be empty" : serverNameRule)
  }
  if (has(value, "disabled")) {
    if (typeof value.disabled !== "boolean") {
      return invalid(".disabled", `expected true or false, got ${got(value.disabled)}`)
    }
    if (value.disabled) return { _tag: "Disabled" }
  }
  let kind: "http" | "stdio" | undefined
  if (has(value, "type")) {
    const type = value.type
    if (typeof type !== "string") return invalid(".type", `expected a string, got ${got(type)}`)
    if (type === "stdio") kind = "stdio"
    else if (httpTypes.has(type)) kind = "http"
    else return invalid(".type", `unsupported type ${quote(type)}; expected "stdio", "http" or "streamable-http"`)
  }
  const hasCommand = has(value, "command")
  const hasUrl = has(value, "url")
  if (hasCommand && hasUrl) return invalid(undefined, "has both command and url; an entry is either stdio or HTTP")
  kind ??= hasUrl ? "http" : hasCommand ? "stdio" : undefined
  if (kind === undefined) return invalid(undefined, "expected a command (stdio) or a url (HTTP)")

  const allowed = kind === "http" ? httpKeys : stdioKeys
  for (const key of Object.keys(value)) {
    if (allowed.has(key) || ignoredKeys.has(key)) continue
    if (key === "envFile") return invalid(segment(key), "not supported; put the variables in env")
    if (httpKeys.has(key) || stdioKeys.has(key)) {
      return invalid(segment(key), `not allowed in ${kind === "http" ? "an HTTP" : "a stdio"} entry`)
    }
    return invalid(segment(key), "unknown key")
  }

  if (kind === "http") {
    if (!hasUrl) return invalid(".url", "missing")
    const url = value.url
    if (typeof url !== "string") return invalid(".url", `expected a URL, got ${got(url)}`)
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      return invalid(".url", "expected an http(s) URL, got a string that is not a URL")
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return invalid(".url", `expected an http(s) URL, got a ${quote(parsed.protocol.slice(0, -1))} URL`)
    }
    let headers: Record<string, Redacted.Redacted<string>> = {}
    if (has(value, "headers")) {
      const result = stringRecord(value.headers, ".headers", checkHeader)
      if ("_tag" in result) return result
      for (const [key, secret] of Object.entries(result.record)) {
        if (/[\r\n\u0000]/.test(Redacted.value(secret))) {
          return invalid(`.headers${segment(key)}`, "contains a line break or NUL character")
        }
      }
      headers = result.record
    }
    return construct(() => new McpHttpServer({ name, url, headers }))
  }

  if (!hasCommand) return invalid(".command", "missing")
  const command = value.command
  if (typeof command !== "string" || command.length === 0) {
    return invalid(".command", `expected a non-empty string, got ${got(command)}`)
  }
  let args: Array<string> = []
  if (has(value, "args")) {
    if (!Array.isArray(value.args)) return invalid(".args", `expected an array of strings, got ${got(value.args)}`)
    for (const [index, arg] of (value.args as ReadonlyArray<unknown>).entries()) {
      if (typeof arg !== "string") return invalid(`.args[${index}]`, `expected a string, got ${got(arg)}`)
    }
    args = [...(value.args as ReadonlyArray<string>)]
  }
  let env: Record<string, Redacted.Redacted<string>> = {}
  if (has(value, "env")) {
    const result = stringRecord(value.env, ".env", checkEnv)
    if ("_tag" in result) return result
    env = result.record
  }
  let cwd: string | undefined
  if (has(value, "cwd")) {
    if (typeof value.cwd !== "string" || value.cwd.length === 0) {
      return invalid(".cwd", `expected a non-empty string, got ${got(value.cwd)}`)
    }
    cwd = value.cwd
  }
  return construct(() => new McpStdioServer({ name, command, args, env, ...(cwd !== undefined ? { cwd } : {}) }))
}

// Everything was checked above; the class constructors validate again, and a disagreement is reported as an
// invalid entry rather than thrown.
const construct = (make: () => McpServer): EntryResult => {
  try {
    return { _tag: "Server", server: make() }
  } catch {
    return invalid(undefined, "invalid server definition")
  }
}

/**
 * Decodes the text of a configuration file. A result of `Error` is a problem with the file as a whole (not
 * JSON, no or two server mappings), which fails in strict and lenient mode alike (C5).
 *
 * @internal
 */
export const decode = (text: string, serverKeys: ReadonlyArray<string>): DecodeResult => {
  const fileError = (reason: string, entry?: string): DecodeResult => ({
    _tag: "Error",
    issue: { entry, server: undefined, reason }
  })
  const parsed = Json.parse(text)
  if (parsed._tag === "Error") {
    const { column, line, reason } = parsed.issue
    return fileError(`not valid JSON (line ${line}, column ${column}: ${reason})`)
  }
  const root = parsed.parsed.value
  if (!isObject(root)) return fileError(`expected a JSON object at the root, got ${got(root)}`)
  const present = serverKeys.filter((key) => has(root, key))
  const expected = serverKeys.map((key) => JSON.stringify(key)).join(" or ")
  if (present.length === 0) return fileError(`no server mapping: expected a ${expected} key`)
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

  const servers: Array<FileEntry> = []
  const invalidEntries: Array<Issue> = []
  const disabled: Array<string> = []
  // File order, which plain objects lose for integer-like keys such as "1".
  const order = parsed.parsed.keyOrder.get(mapping) ?? Object.keys(mapping)
  for (const name of new Set(order)) {
    const value = mapping[name]
    const entry = `${rootKey}${segment(name)}`
    if (duplicates.some((path) => path.length === 2 && path[1] === name)) {
      invalidEntries.push({ entry, server: name, reason: "duplicate server name" })
      continue
    }
    // A key written twice inside one entry: JSON would keep the last silently, so the entry is ambiguous.
    const repeated = duplicates.find((path) => path.length > 2 && path[1] === name)
    if (repeated !== undefined) {
      const where = `${entry}${repeated.slice(2).map(segment).join("")}`
      invalidEntries.push({ entry: where, server: name, reason: "duplicate key" })
      continue
    }
    const result = decodeEntry(name, value)
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
          reason: result.reason
        })
    }
  }
  return { _tag: "Ok", file: { rootKey, servers, invalid: invalidEntries, disabled } }
}
