/**
 * What a `tools/call` gives the model: the tool's JSON result (its structured content when it has some), or the text of
 * an ordinary tool failure, chosen by an `ErrorTextPolicy`. Everything here is pure: no connection, no service, no
 * effect.
 *
 * @since 0.1.0
 */
import type { CallToolResult, CompatibilityCallToolResult } from "@modelcontextprotocol/client"
import * as Data from "effect/Data"
import { dual } from "effect/Function"
import * as ResourceText from "./internal/resourceText.js"
import type { McpRequestError } from "./McpError.js"

/**
 * What a call gives the model: `Success` carries the tool's JSON result, `Failure` the text of an ordinary
 * tool failure (`TOOL_FAILED`, the run goes on).
 *
 * @since 0.1.0
 * @category models
 */
export type ToolOutcome = Data.TaggedEnum<{
  readonly Success: { readonly value: unknown }
  readonly Failure: { readonly message: string }
}>

/**
 * Constructors and matchers for `ToolOutcome`: `ToolOutcome.Success({ value })`,
 * `ToolOutcome.Failure({ message })`, `ToolOutcome.$is("Success")`, `ToolOutcome.$match(...)`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const ToolOutcome = Data.taggedEnum<ToolOutcome>()

/**
 * A remote failure whose text may or may not reach the model, as the application decides: a tool result with
 * `isError: true` (`ToolError`), or a `tools/call` that failed at the protocol or transport level (`RequestError`).
 *
 * @since 0.1.0
 * @category models
 */
export type RemoteFailure = Data.TaggedEnum<{
  readonly ToolError: { readonly result: CallToolResult }
  readonly RequestError: { readonly error: McpRequestError }
}>

/**
 * Constructors and matchers for `RemoteFailure`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const RemoteFailure = Data.taggedEnum<RemoteFailure>()

/**
 * Chooses the text the model sees for a remote failure, since remote text may hold what the model should not read. Any
 * function will do; the ready-made ones are in `ErrorTextPolicy.toolText` (the default), `ErrorTextPolicy.generic` and
 * `ErrorTextPolicy.verbose`.
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
 * @category results
 */
export const maxErrorTextLength = 2_000

const truncate = (text: string, max: number = maxErrorTextLength): string => {
  if (text.length <= max) return text
  // don't cut a surrogate pair in half
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max
  return `${text.slice(0, end)}… (truncated)`
}

const contentText = (result: CallToolResult): string => {
  const parts: Array<string> = []
  for (const block of Array.isArray(result.content) ? result.content : []) {
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text)
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
const isOwnDescription = (error: McpRequestError): boolean => {
  switch (error.reason) {
    case "StreamClosed":
    case "MessageTooLarge":
    case "Unsupported":
    case "InvalidResponse":
    case "TooManyRounds":
    case "InsufficientScope":
    case "Refused":
      return true
    default:
      return false
  }
}

const toolText: ErrorTextPolicy = (failure) => {
  switch (failure._tag) {
    case "ToolError": {
      const text = contentText(failure.result)
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
      const text = contentText(failure.result)
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
 *   Where Zett itself says why the call ended (`McpError.RequestFailure`: a response that never came or was not
 *   valid, too many rounds of input, a scope never granted, a request of the server the client refused), the
 *   line says that: `the server failed to run the tool (the server asked for input 10 times without finishing)`.
 * - `generic`: never any remote text: `the tool failed` / `the server failed to run the tool`, with Zett's own
 *   reasons as in `toolText`.
 * - `verbose`: for development: the tool's text (or its structured content when it sent no text), and a
 *   failed request's server, method, code and description.
 *
 * @since 0.1.0
 * @category results
 */
export const ErrorTextPolicy: {
  readonly toolText: ErrorTextPolicy
  readonly generic: ErrorTextPolicy
  readonly verbose: ErrorTextPolicy
} = { toolText, generic, verbose }

/**
 * The text the model sees for a remote failure under `policy`.
 *
 * @since 0.1.0
 * @category results
 */
export const describeFailure: {
  (policy: ErrorTextPolicy): (failure: RemoteFailure) => string
  (failure: RemoteFailure, policy: ErrorTextPolicy): string
} = dual(2, (failure: RemoteFailure, policy: ErrorTextPolicy): string => policy(failure))

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
  if (!ResourceText.isTextMime(resource.mimeType)) return resource
  const text = ResourceText.blobText(resource.blob)
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
 * Maps a `tools/call` result to what the model sees: the structured value when there is one, otherwise the
 * content, and for a failure the text `policy` allows.
 *
 * - `isError: true`: a `Failure` whose message is what `policy` allows.
 * - `structuredContent` present: `Success` with that structured value.
 * - otherwise: `Success` with the content blocks as an array of plain JSON objects (`text`, `image`,
 *   `audio`, `resource`, `resource_link` ...). Image and audio blocks stay data (`{ type: "image", data,
 *   mimeType }`); they are not promoted to vision messages. `_meta` and `annotations` are dropped.
 * - a result in the 2024-10-07 compatibility shape (`{ toolResult }`): `Success` with `toolResult`.
 *
 * @since 0.1.0
 * @category results
 */
export const toResult: {
  (policy: ErrorTextPolicy): (result: CallToolResult | CompatibilityCallToolResult) => ToolOutcome
  (result: CallToolResult | CompatibilityCallToolResult, policy: ErrorTextPolicy): ToolOutcome
} = dual(2, (result: CallToolResult | CompatibilityCallToolResult, policy: ErrorTextPolicy): ToolOutcome => {
  if (!("content" in result) && "toolResult" in result) return ToolOutcome.Success({ value: result.toolResult })
  const call = result as CallToolResult
  if (call.isError === true) {
    return ToolOutcome.Failure({ message: policy(RemoteFailure.ToolError({ result: call })) })
  }
  if (call.structuredContent !== undefined) return ToolOutcome.Success({ value: call.structuredContent })
  return ToolOutcome.Success({ value: (Array.isArray(call.content) ? call.content : []).map(blockToJson) })
})
