/** @internal */
import type * as AiError from "@effect/ai/AiError"
import type { ModelFailure } from "@zett/agent/Model"
import * as Scrubber from "@zett/agent/Scrubber"
import * as Chunk from "effect/Chunk"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"

/**
 * A provider failure before it becomes a `ModelError`: its kind and readable description, whether trying again
 * may help, and how long the provider asked us to wait.
 *
 * @internal
 */
export class ProviderFailure extends Data.TaggedError("ProviderFailure")<{
  readonly reason: ModelFailure
  readonly description: string
  /** A few words for a retry's log line: `model unreachable`, `model answered HTTP 429`. */
  readonly brief: string
  readonly retryable: boolean
  readonly retryAfter: Option.Option<Duration.Duration>
  readonly cause?: unknown
}> {}

const retryableStatus = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529])
const statusText: Record<number, string> = {
  400: "bad request",
  401: "unauthorized: check the API key",
  403: "forbidden: check the API key and its permissions",
  404: "not found: check the base URL and the model name",
  408: "request timeout",
  409: "conflict",
  413: "request too large",
  422: "unprocessable request",
  429: "rate limited",
  500: "provider error",
  502: "bad gateway",
  503: "service unavailable",
  504: "gateway timeout",
  529: "overloaded"
}

const maxDetail = 300

// Anything shaped like a provider key (`sk-...`, `sk-ant-...`, `sk-proj-...`) is cut out of reasons.
const keyPattern = /\bsk-[A-Za-z0-9_-]{6,}/g

/** @internal */
export const scrub = (text: string, secrets: ReadonlyArray<Redacted.Redacted>): string =>
  Scrubber.make(secrets.map((secret) => String(Redacted.value(secret)))).scrub(text).replace(keyPattern, "<redacted>")

const shorten = (text: string): string => {
  const oneLine = text.replace(/\s+/g, " ").trim()
  return oneLine.length > maxDetail ? `${oneLine.slice(0, maxDetail)}...` : oneLine
}

// The body as `AiError.HttpResponseError` keeps it: JSON text of the parsed body (an object or a string).
const bodyDetail = (body: string | undefined): string | undefined => {
  if (body === undefined) return undefined
  let parsed: unknown = body
  try {
    parsed = JSON.parse(body)
  } catch {
    // keep the raw text
  }
  if (typeof parsed === "string") return parsed.trim() === "" ? undefined : parsed
  if (typeof parsed === "object" && parsed !== null) {
    const record = parsed as { readonly error?: unknown; readonly message?: unknown }
    const error = record.error
    if (typeof error === "string") return error
    if (typeof error === "object" && error !== null) {
      const inner = error as { readonly message?: unknown; readonly type?: unknown; readonly code?: unknown }
      if (typeof inner.message === "string") return inner.message
    }
    if (typeof record.message === "string") return record.message
  }
  return undefined
}

const header = (headers: Readonly<Record<string, string>>, name: string): string | undefined => {
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) return headers[key]
  }
  return undefined
}

const retryAfterOf = (headers: Readonly<Record<string, string>>): Option.Option<Duration.Duration> => {
  const ms = Number(header(headers, "retry-after-ms"))
  if (Number.isFinite(ms) && ms > 0) return Option.some(Duration.millis(ms))
  const seconds = Number(header(headers, "retry-after"))
  if (Number.isFinite(seconds) && seconds > 0) return Option.some(Duration.seconds(seconds))
  return Option.none()
}

// HttpRequestError -> HttpClientError.RequestError -> the socket's error (`connect ECONNREFUSED ...`)
const underlyingMessage = (cause: unknown): string | undefined => {
  let current: unknown = cause
  for (let depth = 0; depth < 3 && typeof current === "object" && current !== null; depth++) {
    const next: unknown = (current as { readonly cause?: unknown }).cause
    if (next === undefined || next === null) break
    current = next
  }
  if (current === cause) return undefined
  const message = (current as { readonly message?: unknown } | undefined)?.message
  return typeof message === "string" && message !== "" ? message : undefined
}

// @effect/ai decodes each tool call against the offered tools: a call it rejects fails the whole chunk
const malformedToolCall = (cause: unknown, offered: ReadonlySet<string>): string | undefined => {
  if (!ParseResult.isParseError(cause)) return undefined
  const actual: unknown = cause.issue.actual
  const parts: ReadonlyArray<unknown> = Chunk.isChunk(actual)
    ? Chunk.toReadonlyArray(actual)
    : Array.isArray(actual)
    ? actual
    : [actual]
  for (const part of parts) {
    if (typeof part !== "object" || part === null) continue
    const { name, params, providerExecuted, type } = part as {
      readonly type?: unknown
      readonly name?: unknown
      readonly params?: unknown
      readonly providerExecuted?: unknown
    }
    if (type !== "tool-call" || providerExecuted === true || typeof name !== "string") continue
    if (!offered.has(name)) return `the model called ${JSON.stringify(shorten(name))}, a tool that was not offered`
    if (typeof params !== "object" || params === null || Array.isArray(params)) {
      return `the model called ${JSON.stringify(name)} with arguments that are not a JSON object`
    }
  }
  return undefined
}

/** @internal */
export const fromAiError = (
  error: AiError.AiError,
  provider: string,
  secrets: ReadonlyArray<Redacted.Redacted>,
  offered: ReadonlySet<string>,
  notFound?: string
): ProviderFailure => {
  switch (error._tag) {
    case "HttpResponseError":
      return fromResponseError(error, provider, secrets, notFound)
    case "HttpRequestError":
      return fromRequestError(error, provider, secrets)
    case "MalformedOutput": {
      const toolCall = malformedToolCall(error.cause, offered)
      const detail = error.description ?? (ParseResult.isParseError(error.cause)
        ? ParseResult.TreeFormatter.formatIssueSync(error.cause.issue)
        : "no details")
      return new ProviderFailure({
        reason: "InvalidResponse",
        description: scrub(
          toolCall !== undefined
            ? `${provider}: ${toolCall}`
            : `${provider} sent a response that could not be read: ${shorten(detail)}`,
          secrets
        ),
        brief: "model failed",
        retryable: false,
        retryAfter: Option.none()
      })
    }
    case "MalformedInput":
      return new ProviderFailure({
        reason: "InvalidRequest",
        description: scrub(
          `the request could not be built for ${provider}: ${shorten(error.description ?? "")}`,
          secrets
        ),
        brief: "model failed",
        retryable: false,
        retryAfter: Option.none()
      })
    case "UnknownError":
      return new ProviderFailure({
        reason: "Unknown",
        description: scrub(`${provider} failed: ${shorten(error.description ?? "unknown error")}`, secrets),
        brief: "model failed",
        retryable: false,
        retryAfter: Option.none()
      })
  }
}

// the error keeps request and response headers: it never becomes the cause
const fromResponseError = (
  error: Extract<AiError.AiError, { readonly _tag: "HttpResponseError" }>,
  provider: string,
  secrets: ReadonlyArray<Redacted.Redacted>,
  notFound: string | undefined
): ProviderFailure => {
  const status = error.response.status
  const meaning = status === 404 && notFound !== undefined ? notFound : statusText[status]
  const detail = error.reason === "StatusCode" ? bodyDetail(error.body) : error.description
  const what = error.reason === "StatusCode"
    ? `HTTP ${status}${meaning !== undefined ? ` (${meaning})` : ""}`
    : `unreadable response (${error.reason}, HTTP ${status})`
  return new ProviderFailure({
    reason: error.reason === "StatusCode" ? "Http" : "InvalidResponse",
    description: scrub(`${provider} answered ${what}${detail !== undefined ? `: ${shorten(detail)}` : ""}`, secrets),
    brief: `model answered HTTP ${status}`,
    retryable: error.reason === "StatusCode" && retryableStatus.has(status),
    retryAfter: retryAfterOf(error.response.headers)
  })
}

const fromRequestError = (
  error: Extract<AiError.AiError, { readonly _tag: "HttpRequestError" }>,
  provider: string,
  secrets: ReadonlyArray<Redacted.Redacted>
): ProviderFailure => {
  const detail = error.description ?? underlyingMessage(error.cause)
  return new ProviderFailure({
    // an unencodable body or an invalid URL never left: the request is what failed
    reason: error.reason === "Transport" ? "Unreachable" : "InvalidRequest",
    description: scrub(
      `could not reach ${provider} at ${error.request.url} (${error.reason}${
        detail !== undefined ? `: ${shorten(detail)}` : ""
      })`,
      secrets
    ),
    brief: "model unreachable",
    retryable: error.reason === "Transport",
    retryAfter: Option.none()
  })
}

const retryableStreamError = /rate_limit|overloaded|server_error|api_error|timeout/i

/**
 * An error reported inside a stream (`error` part): `{ type, message }` for Anthropic, `{ type: "error", code,
 * message }` for OpenAI.
 *
 * @internal
 */
export const fromStreamError = (
  error: unknown,
  provider: string,
  secrets: ReadonlyArray<Redacted.Redacted>
): ProviderFailure => {
  const record = (typeof error === "object" && error !== null ? error : {}) as {
    readonly type?: unknown
    readonly code?: unknown
    readonly message?: unknown
    readonly error?: { readonly type?: unknown; readonly code?: unknown; readonly message?: unknown }
  }
  const inner = typeof record.error === "object" && record.error !== null ? record.error : record
  const kind = [inner.code, inner.type].find((value): value is string => typeof value === "string" && value !== "error")
  const message = typeof inner.message === "string" ? inner.message : "no details"
  return new ProviderFailure({
    reason: "ProviderError",
    description: scrub(
      `${provider} reported an error${kind !== undefined ? ` (${kind})` : ""}: ${shorten(message)}`,
      secrets
    ),
    brief: `model reported an error${kind !== undefined ? ` (${kind})` : ""}`,
    retryable: kind !== undefined && retryableStreamError.test(kind),
    retryAfter: Option.none()
  })
}

/**
 * Why a tool call's argument text is not a JSON object, for the model to fix: `invalid JSON at position 12:
 * Expected ',' or '}' after property value`. `cause` is what the provider's parser threw, when it refused a text
 * that `JSON.parse` accepts (a `__proto__` key).
 *
 * @internal
 */
export const argumentsProblem = (text: string, cause?: unknown): string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (/end of JSON input/i.test(message)) return `invalid JSON at position ${text.length}: the text ends early`
    const stated = /at position (\d+)/.exec(message)
    const position = stated !== null ? Number(stated[1]) : errorPosition(text)
    // V8 quotes the whole text in some messages: the model has it already
    const what = message.replace(/, "[\s\S]*" is not valid JSON$/, "").replace(/,? ?(in JSON )?at position[\s\S]*$/, "")
    return `invalid JSON${position !== undefined ? ` at position ${position}` : ""}: ${shorten(what)}`
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return "the arguments are not a JSON object"
  }
  const message = (cause as { readonly message?: unknown } | undefined)?.message
  return typeof message === "string" ? shorten(message) : "the arguments could not be read"
}

// Could more text complete this prefix? V8 reports running out of input as "end of JSON input" or as an error at
// the position just past the end.
const endOfInput = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch (error) {
    const message = error instanceof Error ? error.message : ""
    return /end of JSON input/i.test(message) || /at position (\d+)/.exec(message)?.[1] === String(text.length)
  }
}

// Some V8 messages ("Unexpected token '/', ...") give no position: the first character after which no text can
// complete the prefix is the one. Quadratic, so only for argument text of a reasonable size.
const errorPosition = (text: string): number | undefined => {
  if (text.length > 20_000) return undefined
  for (let end = 1; end <= text.length; end++) {
    if (!endOfInput(text.slice(0, end))) return end - 1
  }
  return undefined
}

const unparsedToolCall = /^Failed to securely parse tool call parameters for tool '([\s\S]*?)':\nParameters: ([\s\S]*)$/

/**
 * A tool call whose argument text the provider module could not parse (it fails the whole stream with
 * `MalformedOutput`): the tool's name, the text and the problem.
 *
 * @internal
 */
export const unparsedToolCallOf = (
  error: AiError.AiError
): { readonly name: string; readonly text: string; readonly problem: string } | undefined => {
  if (error._tag !== "MalformedOutput" || error.description === undefined) return undefined
  const match = unparsedToolCall.exec(error.description)
  if (match === null) return undefined
  return { name: match[1]!, text: match[2]!, problem: argumentsProblem(match[2]!, error.cause) }
}

/**
 * The raw parts of a chunk @effect/ai refused to decode because a tool call in it names a tool that was not
 * offered or carries arguments that are not an object; `undefined` for any other failure.
 *
 * @internal
 */
export const undecodedToolCallChunk = (
  error: AiError.AiError,
  offered: ReadonlySet<string>
): ReadonlyArray<unknown> | undefined => {
  if (error._tag !== "MalformedOutput" || !ParseResult.isParseError(error.cause)) return undefined
  if (malformedToolCall(error.cause, offered) === undefined) return undefined
  const actual: unknown = error.cause.issue.actual
  return Chunk.isChunk(actual) ? Chunk.toReadonlyArray(actual) : Array.isArray(actual) ? actual : undefined
}
