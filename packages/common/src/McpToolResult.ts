/**
 * What a `tools/call` gives the model, without any Effect: the tool's JSON result (its structured content when it has
 * some, else its content blocks as plain JSON), or the text of a tool failure chosen by an `ErrorTextPolicy`; and which
 * resource contents are text a model can read. Both Effect lines' `McpToolResult` wrap these in their own data types,
 * so the model reads the same on either line.
 *
 * @since 0.1.0
 */
import * as Base64 from "./internal/base64.js"

/**
 * A `tools/call` result as far as this module reads it (the MCP SDK's `CallToolResult` is one).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly content?: unknown
  readonly isError?: boolean | undefined
  readonly structuredContent?: unknown
}

/**
 * A failed request as far as the policies read it (`McpError.McpRequestError` of either line is one).
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestFailure {
  readonly server: string
  readonly method: string
  readonly code?: number | undefined
  readonly reason: string
  readonly description: string
}

/**
 * A remote failure whose text may or may not reach the model: a tool result with `isError: true` (`ToolError`), or a
 * `tools/call` that failed at the protocol or transport level (`RequestError`).
 *
 * @since 0.1.0
 * @category models
 */
export type RemoteFailure =
  | { readonly _tag: "ToolError"; readonly result: ToolResult }
  | { readonly _tag: "RequestError"; readonly error: RequestFailure }

/**
 * Chooses the text the model sees for a remote failure, since remote text may hold what the model should not read.
 *
 * @since 0.1.0
 * @category models
 */
export interface ErrorTextPolicy {
  (failure: RemoteFailure): string
}

/**
 * The longest remote text a ready-made policy passes on; longer text is cut and marked `… (truncated)`.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxErrorTextLength = 2_000

const truncate = (text: string, max: number = maxErrorTextLength): string => {
  if (text.length <= max) return text
  // don't cut a surrogate pair in half
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max
  return `${text.slice(0, end)}… (truncated)`
}

const resultText = (result: ToolResult): string => {
  const parts: Array<string> = []
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (typeof block === "object" && block !== null && block.type === "text" && typeof block.text === "string") {
      parts.push(block.text)
    }
  }
  return parts.join("\n").trim()
}

const toolFailedLine = "the tool failed"
const toolFailedWithoutTextLine = "the tool failed without an error message"
const requestFailedLine = "the server failed to run the tool"

// Standard JSON-RPC / MCP codes are fixed vocabulary, not remote text: naming them helps the model decide
// whether retrying makes sense, and reveals nothing about the server.
const requestFailedLineFor = (code: number | undefined): string => {
  switch (code) {
    case -32000:
      return `${requestFailedLine} (connection closed)`
    case -32001:
      return `${requestFailedLine} (request timed out or was cancelled)`
    case -32601:
      return `${requestFailedLine} (method not found)`
    case -32602:
      return `${requestFailedLine} (invalid params)`
    case -32603:
      return `${requestFailedLine} (internal error)`
    default:
      return requestFailedLine
  }
}

// the response never arrived, was not valid, the request was never sent, or the client ended the call: the
// description is Zett's own text, which says what the model can do about it
const ownDescriptions: ReadonlyArray<string> = [
  "StreamClosed",
  "MessageTooLarge",
  "Unsupported",
  "InvalidResponse",
  "TooManyRounds",
  "InsufficientScope",
  "Refused"
]

const isOwnDescription = (error: RequestFailure): boolean => ownDescriptions.includes(error.reason)

const toolText: ErrorTextPolicy = (failure) => {
  switch (failure._tag) {
    case "ToolError": {
      const text = resultText(failure.result)
      return text === "" ? toolFailedWithoutTextLine : truncate(text)
    }
    case "RequestError":
      return isOwnDescription(failure.error)
        ? `${requestFailedLine} (${failure.error.description})`
        : requestFailedLineFor(failure.error.code)
  }
}

const generic: ErrorTextPolicy = (failure) => {
  switch (failure._tag) {
    case "ToolError":
      return toolFailedLine
    case "RequestError":
      // Zett's own description of a response that never arrived holds no remote text
      return isOwnDescription(failure.error) ? `${requestFailedLine} (${failure.error.description})` : requestFailedLine
  }
}

const verbose: ErrorTextPolicy = (failure) => {
  switch (failure._tag) {
    case "ToolError": {
      const text = resultText(failure.result)
      if (text !== "") return truncate(text)
      return failure.result.structuredContent === undefined
        ? toolFailedWithoutTextLine
        : truncate(`${toolFailedLine}: ${safeStringify(failure.result.structuredContent)}`)
    }
    case "RequestError": {
      const error = failure.error
      const code = error.code === undefined ? "" : ` (code ${error.code})`
      return truncate(`${error.server}: ${error.method} failed${code}: ${error.description}`)
    }
  }
}

const safeStringify = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/**
 * Ready-made error text policies: how much remote text the model may read.
 *
 * - `toolText` (the default): a tool's own `isError` text content (its text blocks joined by newlines, at
 *   most `maxErrorTextLength` characters); a failed request only as a fixed line such as
 *   `the server failed to run the tool (connection closed)`: no remote description, no stack trace, no URL.
 *   Where Zett itself says why the call ended (a response that never came or was not valid, too many rounds of
 *   input, a scope never granted, a request of the server the client refused), the line says that.
 * - `generic`: never any remote text: `the tool failed` / `the server failed to run the tool`, with Zett's own
 *   reasons as in `toolText`.
 * - `verbose`: for development: the tool's text (or its structured content when it sent no text), and a
 *   failed request's server, method, code and description.
 *
 * @since 0.1.0
 * @category policies
 */
export const ErrorTextPolicy: {
  readonly toolText: ErrorTextPolicy
  readonly generic: ErrorTextPolicy
  readonly verbose: ErrorTextPolicy
} = { toolText, generic, verbose }

const textTypes =
  /^(text\/|application\/(json|xml|javascript|ecmascript|yaml|x-yaml|toml|x-sh|sql|graphql|ld\+json)$)|\+(json|xml|yaml)$/i

/**
 * Whether a MIME type names text (so a blob of it may be shown to a model as text).
 *
 * @since 0.1.0
 * @category resources
 */
export const isTextMime = (mimeType: string | undefined): boolean =>
  mimeType !== undefined && textTypes.test(mimeType.split(";")[0]!.trim())

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * A base64 blob as UTF-8 text, or `undefined` when it is not base64 or not valid UTF-8. Read as leniently as Node's
 * `Buffer` reads it: whitespace, missing padding and the URL-safe alphabet are accepted.
 *
 * @since 0.1.0
 * @category resources
 */
export const blobText = (blob: string): string | undefined => {
  const normal = blob.replace(/\s/g, "").replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "")
  const bytes = Base64.decode(normal + "=".repeat((4 - (normal.length % 4)) % 4))
  if (bytes === undefined) return undefined
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}

// `_meta` is protocol metadata and `annotations` are display hints for the client (audience, priority):
// neither is the tool's answer, and both cost prompt tokens, so they are dropped.
const blockToJson = (block: unknown): unknown => {
  if (typeof block !== "object" || block === null || Array.isArray(block)) return block
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(block)) {
    if (key === "_meta" || key === "annotations") continue
    const value = (block as Record<string, unknown>)[key]
    if (key === "resource" && typeof value === "object" && value !== null && !Array.isArray(value)) {
      const { _meta: _, ...resource } = value as Record<string, unknown>
      out[key] = textBlob(resource)
    } else {
      set(out, key, value)
    }
  }
  return out
}

// An embedded resource whose blob is text (`text/*`, JSON, XML ... in valid UTF-8) reaches the model as text,
// the form it can read; any other blob stays base64.
const textBlob = (resource: Record<string, unknown>): Record<string, unknown> => {
  if (typeof resource.blob !== "string" || typeof resource.mimeType !== "string") return resource
  if (!isTextMime(resource.mimeType)) return resource
  const text = blobText(resource.blob)
  if (text === undefined) return resource
  const { blob: _, ...rest } = resource
  return { ...rest, text }
}

// A plain assignment of "__proto__" would set the prototype instead of an own key (JSON.parse creates one).
const set = (out: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    out[key] = value
  }
}

/**
 * What a call gives the model: `Success` carries the tool's JSON result, `Failure` the text of a tool failure.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Success"; readonly value: unknown }
  | { readonly _tag: "Failure"; readonly message: string }

/**
 * Maps a `tools/call` result to what the model sees: the structured value when there is one, otherwise the
 * content, and for a failure the text `failureText` gives (a policy's, for the line's own `ToolError`).
 *
 * - `isError: true`: a `Failure` whose message is `failureText(result)`.
 * - `structuredContent` present: `Success` with that structured value.
 * - otherwise: `Success` with the content blocks as an array of plain JSON objects (`text`, `image`,
 *   `audio`, `resource`, `resource_link` ...). Image and audio blocks stay data (`{ type: "image", data,
 *   mimeType }`); they are not promoted to vision messages. `_meta` and `annotations` are dropped; an embedded
 *   resource whose blob is text is given as text.
 * - a result in the 2024-10-07 compatibility shape (`{ toolResult }`): `Success` with `toolResult`.
 *
 * @since 0.1.0
 * @category results
 */
export const outcome = <R extends ToolResult>(
  result: R | { readonly toolResult: unknown },
  failureText: (result: R) => string
): Outcome => {
  if (!("content" in result) && "toolResult" in result) return { _tag: "Success", value: result.toolResult }
  const call = result as R
  if (call.isError === true) return { _tag: "Failure", message: failureText(call) }
  if (call.structuredContent !== undefined) return { _tag: "Success", value: call.structuredContent }
  return { _tag: "Success", value: (Array.isArray(call.content) ? call.content : []).map(blockToJson) }
}

/**
 * Converts the 2024-10-07 compatibility shape `{ toolResult }` into `{ content, structuredContent? }`: the
 * value becomes a text block (JSON unless it is a string) and, when it is an object, `structuredContent`.
 * A current result is returned as it is.
 *
 * @since 0.1.0
 * @category results
 */
export const normalize = <R extends { readonly content?: ReadonlyArray<unknown> | undefined }>(
  result: R | { readonly toolResult: unknown; readonly content?: ReadonlyArray<unknown> | undefined }
): R => {
  if (!("toolResult" in result)) return result
  const { toolResult: value, ...rest } = result as { readonly toolResult: unknown } & Record<string, unknown>
  const out: Record<string, unknown> = { ...rest, content: rest.content ?? [] }
  if ((out.content as ReadonlyArray<unknown>).length === 0) {
    out.content = [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value) ?? "null" }]
  }
  if (out.structuredContent === undefined && typeof value === "object" && value !== null && !Array.isArray(value)) {
    out.structuredContent = value
  }
  return out as R
}

/**
 * A resource's contents as a server sends them (`resources/read`, an embedded resource): text, or a base64 blob.
 *
 * @since 0.1.0
 * @category resources
 */
export type ResourceContents =
  | { readonly uri: string; readonly mimeType?: string | undefined; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string | undefined; readonly blob: string }

/**
 * The text of a resource's contents: its text, or its blob as UTF-8 (`undefined` when the blob is not UTF-8).
 *
 * @since 0.1.0
 * @category resources
 */
export const resourceText = (contents: ResourceContents): string | undefined =>
  "text" in contents ? contents.text : blobText(contents.blob)

/**
 * A resource's contents as the model reads them: the URI and MIME type, and the text (a blob of a text type that is
 * UTF-8 given as text), else the blob.
 *
 * @since 0.1.0
 * @category resources
 */
export const resourceForModel = (contents: ResourceContents): Record<string, unknown> => {
  const base = { uri: contents.uri, ...(contents.mimeType !== undefined ? { mimeType: contents.mimeType } : {}) }
  if ("text" in contents) return { ...base, text: contents.text }
  const text = isTextMime(contents.mimeType) ? blobText(contents.blob) : undefined
  return text !== undefined ? { ...base, text } : { ...base, blob: contents.blob }
}

const bytes = (base64: string) => Math.floor((base64.replace(/=+$/, "").length * 3) / 4)

/**
 * A content block of a prompt message as text for the model: text as it is, an embedded resource of text with its
 * URI, and anything else (images, audio, binary resources, resource links) described in one bracketed line.
 *
 * @since 0.1.0
 * @category results
 */
export const contentText = (block: { readonly type: string }): string => {
  const b = block as { readonly type: string; readonly [key: string]: any }
  switch (b.type) {
    case "text":
      return b.text
    case "image":
    case "audio":
      return `[${b.type} ${b.mimeType}, ${bytes(b.data).toLocaleString("en-US")} bytes]`
    case "resource": {
      const resource = b.resource as ResourceContents
      const mime = resource.mimeType === undefined ? "" : ` (${resource.mimeType})`
      const text = "text" in resource
        ? resource.text
        : isTextMime(resource.mimeType)
        ? blobText(resource.blob)
        : undefined
      if (text !== undefined) return `Resource ${resource.uri}${mime}:\n${text}`
      const size = "blob" in resource ? bytes(resource.blob) : 0
      return `[resource ${resource.uri}${mime}, ${size.toLocaleString("en-US")} bytes]`
    }
    case "resource_link": {
      const mime = b.mimeType === undefined ? "" : `, ${b.mimeType}`
      const about = b.description === undefined ? "" : `: ${b.description}`
      return `[resource link ${b.uri} (${b.name}${mime})${about}]`
    }
    default:
      return `[${String(b.type)} content]`
  }
}
