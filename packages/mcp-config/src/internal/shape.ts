/**
 * The shape of one server entry before its fields are decoded: which kind it is (a process or a URL), whether it
 * is left out on purpose, and the entry as the clients' own variants write it (Zed's nested `command`). Plain
 * functions, no Effect: both Effect lines share them.
 *
 * @internal
 */
import * as EditDistance from "@zett/agent/EditDistance"
import { got, has, isObject, quote } from "./wording.js"

/** @internal */
export const stdioTypes = ["stdio"] as const

/** @internal */
export const remoteTypes = ["http", "streamable-http", "streamableHttp", "sse"] as const

/**
 * The keys that hold a server's address: `url` (most), `serverUrl` (Windsurf), `httpUrl` (Gemini CLI).
 *
 * @internal
 */
export const urlKeys = ["url", "serverUrl", "httpUrl"] as const

/** @internal */
export type UrlKey = typeof urlKeys[number]

/** @internal */
export interface Invalid {
  readonly _tag: "Invalid"
  /** A path suffix such as `.url`, `.headers.Authorization` or `.args[1]`; undefined for the entry as a whole. */
  readonly field: string | undefined
  readonly reason: string
}

/** @internal */
export const invalid = (field: string | undefined, reason: string): Invalid => ({ _tag: "Invalid", field, reason })

/** @internal */
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
 * naming a misspelt key if it has one.
 *
 * @internal
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
    else {return invalid(
        ".type",
        `unsupported type ${quote(type)}; expected "stdio", "http", "streamable-http" or "sse"`
      )}
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
