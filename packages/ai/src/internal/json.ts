/** What the client transforms of tool search read of a provider's JSON: objects, text that may not be JSON, a body. */
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"

export type Json = { readonly [key: string]: unknown }

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The value of JSON text; `undefined` for anything else. */
export const parse = (text: unknown): unknown => {
  if (typeof text !== "string") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const decoder = new TextDecoder()

/** A request's JSON object body, as the provider packages write it (bytes); `undefined` for any other body. */
export const bodyOf = (request: HttpClientRequest.HttpClientRequest): Json | undefined => {
  if (request.body._tag !== "Uint8Array") return undefined
  const body = parse(decoder.decode(request.body.body))
  return isObject(body) ? body : undefined
}

export const decode = (bytes: ArrayBuffer): string => decoder.decode(bytes)
