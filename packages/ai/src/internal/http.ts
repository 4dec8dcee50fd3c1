/** @internal */
import type * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as UrlParams from "@effect/platform/UrlParams"
import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Inspectable from "effect/Inspectable"
import type * as Option from "effect/Option"
import * as Record from "effect/Record"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { scrub } from "./failure.js"

/**
 * Headers that carry a credential to a provider or a proxy in front of it, besides the ones `@effect/platform`
 * redacts by default (`authorization`, `cookie`, `set-cookie`, `x-api-key`).
 */
const providerSecretHeaders: ReadonlyArray<string> = [
  "proxy-authorization",
  "api-key",
  "x-goog-api-key",
  "openai-organization",
  "openai-project"
]

/** The request as errors may keep it: every header named in `Headers.currentRedactedNames` reads `<redacted>`. */
const redactRequest = (
  request: HttpClientRequest.HttpClientRequest,
  names: ReadonlyArray<string | RegExp>
): HttpClientRequest.HttpClientRequest =>
  HttpClientRequest.setHeaders(request, Record.map(Headers.redact(request.headers, names), String))

// the response an error keeps answers with the redacted request as well
const redactedResponse = (
  response: HttpClientResponse.HttpClientResponse,
  request: HttpClientRequest.HttpClientRequest
): HttpClientResponse.HttpClientResponse =>
  response instanceof RedactedResponse ? response : new RedactedResponse(response, request)

const responseError =
  (request: HttpClientRequest.HttpClientRequest, response?: HttpClientResponse.HttpClientResponse) =>
  (error: HttpClientError.ResponseError): HttpClientError.ResponseError =>
    new HttpClientError.ResponseError({
      request,
      response: response ?? redactedResponse(error.response, request),
      reason: error.reason,
      ...(error.cause !== undefined ? { cause: error.cause } : {}),
      ...(error.description !== undefined ? { description: error.description } : {})
    })

const withRequest =
  (request: HttpClientRequest.HttpClientRequest) =>
  (error: HttpClientError.HttpClientError): HttpClientError.HttpClientError =>
    error._tag === "RequestError"
      ? new HttpClientError.RequestError({
        request,
        reason: error.reason,
        ...(error.cause !== undefined ? { cause: error.cause } : {}),
        ...(error.description !== undefined ? { description: error.description } : {})
      })
      : responseError(request)(error)

/**
 * A successful response whose `request` (and the request of any error its body raises) is the redacted one: the
 * body of a streamed answer can still fail (a connection cut mid-stream), and @effect/ai keeps that error's request.
 * Delegation as in @effect/platform's own response wrappers.
 */
class RedactedResponse implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId

  constructor(
    readonly original: HttpClientResponse.HttpClientResponse,
    readonly request: HttpClientRequest.HttpClientRequest
  ) {}

  private body<A>(
    effect: Effect.Effect<A, HttpClientError.ResponseError>
  ): Effect.Effect<A, HttpClientError.ResponseError> {
    return Effect.mapError(effect, responseError(this.request, this))
  }

  get status(): number {
    return this.original.status
  }
  get headers(): Headers.Headers {
    return this.original.headers
  }
  get cookies(): Cookies.Cookies {
    return this.original.cookies
  }
  get remoteAddress(): Option.Option<string> {
    return this.original.remoteAddress
  }
  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return this.body(this.original.formData)
  }
  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return this.body(this.original.text)
  }
  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return this.body(this.original.json)
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return this.body(this.original.urlParamsBody)
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return this.body(this.original.arrayBuffer)
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.mapError(this.original.stream, responseError(this.request, this))
  }
  toJSON(): unknown {
    return {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status,
      headers: Inspectable.redact(this.headers)
    }
  }
  toString(): string {
    return Inspectable.format(this.toJSON())
  }
  [Inspectable.NodeInspectSymbol](): unknown {
    return this.toJSON()
  }
}

/**
 * Keeps the key out of every HTTP error @effect/ai builds. Its `HttpRequestError` / `HttpResponseError` copy the
 * request headers and the error body, and those errors reach the exit of its own spans, where an exporter or an
 * `inspect` shows them: `Headers` redact themselves only inside a logger. So the provider's request runs with its
 * credential headers added to `Headers.currentRedactedNames` (which also redacts them in the `http.client` span),
 * and what errors see of the request has those headers read `<redacted>` (never on the wire). Secrets are cut out of
 * error bodies (a proxy may echo the key in a 401).
 *
 * @internal
 */
export const protectSecrets = (secrets: ReadonlyArray<Redacted.Redacted>) => (client: HttpClient.HttpClient) =>
  HttpClient.transform(client, (effect, request) =>
    Effect.gen(function*() {
      const safe = redactRequest(request, yield* FiberRef.get(Headers.currentRedactedNames))
      const response = yield* Effect.mapError(effect, withRequest(safe))
      if (response.status < 400) return new RedactedResponse(response, safe)
      const text = yield* Effect.mapError(response.text, withRequest(safe))
      const headers = new globalThis.Headers(response.headers)
      headers.delete("content-length")
      return HttpClientResponse.fromWeb(safe, new Response(scrub(text, secrets), { status: response.status, headers }))
    }).pipe(Effect.locallyWith(Headers.currentRedactedNames, Arr.appendAll(providerSecretHeaders))))
