/** @internal */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { scrub } from "./failure.js"

const secretHeaders = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "openai-organization",
  "openai-project",
  "cookie"
])

type HttpError = HttpClientError.HttpClientError

const stripRequest = (request: HttpClientRequest.HttpClientRequest): HttpClientRequest.HttpClientRequest =>
  HttpClientRequest.modify(request, {
    headers: Headers.fromInput(
      Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          secretHeaders.has(name.toLowerCase()) ? "<redacted>" : value
        ])
      )
    )
  })

const withRequest = (
  request: HttpClientRequest.HttpClientRequest,
  response?: HttpClientResponse.HttpClientResponse
) =>
(error: HttpClientError.HttpClientError): HttpClientError.HttpClientError =>
  error._tag === "RequestError"
    ? new HttpClientError.RequestError({
      request,
      reason: error.reason,
      ...(error.cause !== undefined ? { cause: error.cause } : {}),
      ...(error.description !== undefined ? { description: error.description } : {})
    })
    : new HttpClientError.ResponseError({
      request,
      response: response ?? error.response,
      reason: error.reason,
      ...(error.cause !== undefined ? { cause: error.cause } : {}),
      ...(error.description !== undefined ? { description: error.description } : {})
    })

// A successful response whose request (and the request of any error its body raises) carries no secret header.
const safeResponse = (
  response: HttpClientResponse.HttpClientResponse,
  request: HttpClientRequest.HttpClientRequest
): HttpClientResponse.HttpClientResponse => {
  const proxy: HttpClientResponse.HttpClientResponse = new Proxy(response, {
    get(target, property) {
      if (property === "request") return request
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value === "function") return value.bind(target)
      if (Effect.isEffect(value)) {
        return Effect.mapError(value as Effect.Effect<unknown, HttpError>, withRequest(request, proxy))
      }
      if (typeof value === "object" && value !== null && Stream.StreamTypeId in value) {
        return Stream.mapError(value as Stream.Stream<unknown, HttpError>, withRequest(request, proxy))
      }
      return value
    }
  })
  return proxy
}

/**
 * Keeps the key out of every HTTP error @effect/ai builds: its `HttpRequestError` / `HttpResponseError` copy the
 * request headers (unredacted outside a logger) and the error body, and those errors reach the exit of its own
 * spans, where an exporter or an `inspect` would show them. Secret request headers are replaced by
 * `<redacted>` in what the errors see (never on the wire), and secrets are cut out of error bodies (a proxy may
 * echo the key in a 401).
 *
 * @internal
 */
export const protectSecrets = (secrets: ReadonlyArray<Redacted.Redacted>) => (client: HttpClient.HttpClient) =>
  HttpClient.transform(client, (effect, request) => {
    const safe = stripRequest(request)
    return effect.pipe(
      Effect.mapError(withRequest(safe)),
      Effect.flatMap((response) => {
        if (response.status < 400) return Effect.succeed(safeResponse(response, safe))
        return response.text.pipe(
          Effect.map((text) => {
            const headers = new globalThis.Headers(response.headers)
            headers.delete("content-length")
            return HttpClientResponse.fromWeb(
              safe,
              new Response(scrub(text, secrets), { status: response.status, headers })
            )
          }),
          Effect.mapError(withRequest(safe))
        )
      })
    )
  })
