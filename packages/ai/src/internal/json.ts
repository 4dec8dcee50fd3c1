/** What the client transforms of tool search read of a provider's JSON: objects, text that may not be JSON, a body. */
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as JsonDepth from "@zett/common/JsonDepth"

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

/** How deep an answer may nest: an edit writes it again, and keeps parts of it for later requests. */
const maxAnswerDepth = 256

/**
 * A provider's answer (a JSON body, an event's data) as JSON, measured first: `JSON.stringify` recurses once per
 * level. `undefined` for deeper text too, which is then left as it came for the provider package to read.
 */
export const parseAnswer = (text: unknown): unknown =>
  typeof text === "string" && JsonDepth.deeperThan(text, maxAnswerDepth) ? undefined : parse(text)

const decoder = new TextDecoder()

/** A request's JSON object body, as the provider packages write it (bytes); `undefined` for any other body. */
export const bodyOf = (request: HttpClientRequest.HttpClientRequest): Json | undefined => {
  if (request.body._tag !== "Uint8Array") return undefined
  const body = parse(decoder.decode(request.body.body))
  return isObject(body) ? body : undefined
}

export const decode = (bytes: ArrayBuffer): string => decoder.decode(bytes)
