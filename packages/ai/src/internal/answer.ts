/** A provider's answer read and written again by a client transform of tool search: server-sent events or JSON. */
import * as Sse from "@effect/experimental/Sse"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { decode, parseAnswer } from "./json.js"

export interface Edit {
  /** Made for each answer: an answer's events may depend on the ones before (a block's deltas on its start). */
  readonly events: () => (data: unknown, event: Sse.Event) => ReadonlyArray<Sse.Event>
  /** A whole JSON answer. */
  readonly json: (data: unknown) => unknown
}

/** The answer with its events or its JSON edited; an error status, or a body of another type, is left as it is. */
export const edit = (
  response: HttpClientResponse.HttpClientResponse,
  edit: Edit
): Effect.Effect<HttpClientResponse.HttpClientResponse> => {
  if (response.status < 200 || response.status >= 300) return Effect.succeed(response)
  // the body changes length, and what undici decoded is no longer encoded
  const headers = Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => name !== "content-length" && name !== "content-encoding")
  )
  const init = { status: response.status, headers }
  const type = response.headers["content-type"] ?? ""
  if (type.includes("text/event-stream")) {
    const events = Stream.suspend(() => {
      const editEvent = edit.events()
      return response.stream.pipe(
        Stream.decodeText(),
        Stream.pipeThroughChannel(Sse.makeChannel()),
        Stream.mapConcat((event) => editEvent(parseAnswer(event.data), event)),
        Stream.map((event) => Sse.encoder.write(event)),
        Stream.encodeText
      )
    })
    return Effect.map(
      Stream.toReadableStreamEffect(events),
      (body) => HttpClientResponse.fromWeb(response.request, new Response(body, init))
    )
  }
  if (type.includes("json")) {
    return response.arrayBuffer.pipe(
      Effect.map((bytes) => {
        const body = decode(bytes)
        const data = parseAnswer(body)
        const text = data === undefined ? body : JSON.stringify(edit.json(data))
        return HttpClientResponse.fromWeb(response.request, new Response(text, init))
      }),
      // a body that cannot be read is left for the provider to report
      Effect.orElseSucceed(() => response)
    )
  }
  return Effect.succeed(response)
}
