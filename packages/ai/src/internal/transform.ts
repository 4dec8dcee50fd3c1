/**
 * A client transform of tool search: it acts on a `POST` to the provider's endpoint made inside a request `AiModel`
 * sent deferred tools in (`AiModel.DeferredTools`), editing the JSON body and, when the edit asks for it, the
 * answer; any other request passes untouched.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as AiModel from "../AiModel.js"
import * as Answer from "./answer.js"
import { bodyOf, type Json } from "./json.js"

type Deferred = NonNullable<Context.Tag.Service<typeof AiModel.DeferredTools>>

export interface Options {
  /** The end of the endpoint's path: `/messages`, `/responses`. */
  readonly path: string
  readonly body: (body: Json, deferred: Deferred) => Json
  /** What else the request needs (a header). */
  readonly request?: (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest
  /** The answer's edit, if this request's answer needs one. */
  readonly answer?: (deferred: Deferred) => Answer.Edit | undefined
}

export const make = (options: Options) => (client: HttpClient.HttpClient): HttpClient.HttpClient => {
  const matches = (request: HttpClientRequest.HttpClientRequest): boolean =>
    request.method === "POST" && URL.canParse(request.url, "http://localhost") &&
    new URL(request.url, "http://localhost").pathname.endsWith(options.path)
  const edited = HttpClient.mapRequestEffect(client, (request) =>
    Effect.map(AiModel.DeferredTools, (deferred) => {
      const body = deferred === undefined || !matches(request) ? undefined : bodyOf(request)
      if (deferred === undefined || body === undefined) return request
      const sent = HttpClientRequest.bodyUnsafeJson(request, options.body(body, deferred))
      return options.request === undefined ? sent : options.request(sent)
    }))
  const answer = options.answer
  return answer === undefined ?
    edited :
    HttpClient.transform(edited, (effect, request) =>
      Effect.flatMap(AiModel.DeferredTools, (deferred) => {
        const edit = deferred === undefined || !matches(request) ? undefined : answer(deferred)
        return edit === undefined ? effect : Effect.flatMap(effect, (response) => Answer.edit(response, edit))
      }))
}
