/** @internal */
import type { ModelFailure } from "@zett/agent/Model"
import * as Scrubber from "@zett/agent/Scrubber"
import type * as AiError from "effect/ai/AiError"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
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

// The body as the provider sent it: JSON with `error.message` (OpenAI, Anthropic) or `message`, or plain text.
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
      const inner = error as { readonly message?: unknown }
      if (typeof inner.message === "string") return inner.message
    }
    if (typeof record.message === "string") return record.message
  }
  return undefined
}

// a header's value as a string: effect/ai keeps the headers it redacts as `Redacted`, never read here
const header = (headers: Readonly<Record<string, unknown>>, name: string): string | undefined => {
  for (const key of Object.keys(headers)) {
    const value = headers[key]
    if (key.toLowerCase() === name && typeof value === "string") return value
  }
  return undefined
}

const retryAfterOf = (headers: Readonly<Record<string, unknown>>): Option.Option<Duration.Duration> => {
  const ms = Number(header(headers, "retry-after-ms"))
  if (Number.isFinite(ms) && ms > 0) return Option.some(Duration.millis(ms))
  const seconds = Number(header(headers, "retry-after"))
  if (Number.isFinite(seconds) && seconds > 0) return Option.some(Duration.seconds(seconds))
  return Option.none()
}

// NetworkError -> HttpClientError -> its reason -> the socket's error (`connect ECONNREFUSED ...`)
const underlyingMessage = (cause: unknown): string | undefined => {
  let current: unknown = cause
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const next: unknown = (current as { readonly cause?: unknown }).cause
    if (next === undefined || next === null) break
    current = next
  }
  if (current === cause) return undefined
  const message = (current as { readonly message?: unknown } | undefined)?.message
  return typeof message === "string" && message !== "" ? message : undefined
}

const failure = (fields: {
  readonly reason: ModelFailure
  readonly description: string
  readonly brief: string
  readonly retryable?: boolean
  readonly retryAfter?: Option.Option<Duration.Duration>
}, secrets: ReadonlyArray<Redacted.Redacted>) =>
  new ProviderFailure({
    reason: fields.reason,
    description: scrub(fields.description, secrets),
    brief: fields.brief,
    retryable: fields.retryable ?? false,
    retryAfter: fields.retryAfter ?? Option.none()
  })

/**
 * An `effect/ai` error as a provider failure. Effect 4 names what went wrong (`RateLimitError`,
 * `AuthenticationError`, `NetworkError`, ...) and keeps the HTTP answer beside it: the reason reads as the 3 line's
 * did, from the status and the body's message. The error is never the cause: it holds the response's headers.
 *
 * @internal
 */
export const fromAiError = (
  error: AiError.AiError,
  provider: string,
  secrets: ReadonlyArray<Redacted.Redacted>,
  notFound?: string
): ProviderFailure => {
  const reason = error.reason
  if (reason._tag === "NetworkError") {
    const detail = reason.description ?? underlyingMessage(reason.cause)
    return failure({
      // an unencodable body or an invalid URL never left: the request is what failed
      reason: reason.reason === "TransportError" ? "Unreachable" : "InvalidRequest",
      description: `could not reach ${provider} at ${reason.url} (${reason.reason}${
        detail !== undefined ? `: ${shorten(detail)}` : ""
      })`,
      brief: "model unreachable",
      retryable: reason.reason === "TransportError"
    }, secrets)
  }
  const http = "http" in reason ? reason.http : undefined
  const status = http?.response?.status
  if (status !== undefined) {
    const meaning = status === 404 && notFound !== undefined ? notFound : statusText[status]
    const detail = bodyDetail(http?.body) ?? ("description" in reason ? reason.description : undefined)
    const retryAfter = retryAfterOf(http?.response?.headers ?? {})
    return failure({
      reason: "Http",
      description: `${provider} answered HTTP ${status}${meaning !== undefined ? ` (${meaning})` : ""}${
        detail !== undefined ? `: ${shorten(detail)}` : ""
      }`,
      brief: `model answered HTTP ${status}`,
      retryable: retryableStatus.has(status),
      retryAfter: Option.isSome(retryAfter) ? retryAfter : Option.fromUndefinedOr(error.retryAfter)
    }, secrets)
  }
  return fromReason(error, provider, secrets)
}

/** An `effect/ai` error with no HTTP answer kept, by what it names. */
const fromReason = (
  error: AiError.AiError,
  provider: string,
  secrets: ReadonlyArray<Redacted.Redacted>
): ProviderFailure => {
  const reason = error.reason
  switch (reason._tag) {
    case "InvalidOutputError":
    case "InvalidResponseError":
    case "StructuredOutputError":
    case "InvalidToolResultError":
    case "ToolResultEncodingError":
      return failure({
        reason: "InvalidResponse",
        description: `${provider} sent a response that could not be read: ${shorten(reason.message)}`,
        brief: "model failed"
      }, secrets)
    case "ToolNotFoundError":
      return failure({
        reason: "InvalidResponse",
        description: `${provider}: the model called ${
          JSON.stringify(shorten(reason.toolName))
        }, a tool that was not offered`,
        brief: "model failed"
      }, secrets)
    case "ToolParameterValidationError":
      return failure({
        reason: "InvalidResponse",
        description: `${provider}: the model called ${
          JSON.stringify(reason.toolName)
        } with arguments that could not be read`,
        brief: "model failed"
      }, secrets)
    case "InvalidRequestError":
    case "UnsupportedSchemaError":
    case "InvalidUserInputError":
    case "ToolConfigurationError":
    case "ToolkitRequiredError":
      return failure({
        reason: "InvalidRequest",
        description: `the request could not be built for ${provider}: ${shorten(reason.message)}`,
        brief: "model failed"
      }, secrets)
    case "UnknownError":
      return failure({
        reason: "Unknown",
        description: `${provider} failed: ${shorten(reason.description ?? "unknown error")}`,
        brief: "model failed"
      }, secrets)
    default:
      // a rate limit, an exhausted quota, a refused key or content, an internal error, with no HTTP answer kept
      return failure({
        reason: "ProviderError",
        description: `${provider} reported an error (${reason._tag}): ${shorten(reason.message)}`,
        brief: `model reported an error (${reason._tag})`,
        retryable: error.isRetryable,
        retryAfter: Option.fromUndefinedOr(error.retryAfter)
      }, secrets)
  }
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
  return failure({
    reason: "ProviderError",
    description: `${provider} reported an error${kind !== undefined ? ` (${kind})` : ""}: ${shorten(message)}`,
    brief: `model reported an error${kind !== undefined ? ` (${kind})` : ""}`,
    retryable: kind !== undefined && retryableStreamError.test(kind)
  }, secrets)
}

/** @internal A response the stream's decoding refused (`Schema.SchemaError`). */
export const fromSchemaError = (
  error: { readonly message: string },
  provider: string,
  secrets: ReadonlyArray<Redacted.Redacted>
): ProviderFailure =>
  failure({
    reason: "InvalidResponse",
    description: `${provider} sent a response that could not be read: ${shorten(error.message)}`,
    brief: "model failed"
  }, secrets)

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
 * `InvalidOutputError`): the tool's name, the text and the problem.
 *
 * @internal
 */
export const unparsedToolCallOf = (
  error: AiError.AiError
): { readonly name: string; readonly text: string; readonly problem: string } | undefined => {
  if (error.reason._tag !== "InvalidOutputError") return undefined
  const match = unparsedToolCall.exec(error.reason.description)
  if (match === null) return undefined
  return { name: match[1]!, text: match[2]!, problem: argumentsProblem(match[2]!) }
}
