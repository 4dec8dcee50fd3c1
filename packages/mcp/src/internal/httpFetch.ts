/**
 * A `fetch` for one Streamable HTTP connection, over `node:http` with a keep-alive agent of its own. The
 * global `fetch` pools its sockets process-wide, so idle connections to a server outlive the request that
 * opened them; with an agent per connection, closing the connection destroys every socket it used.
 *
 * It does what the SDK's transport needs and no more: one request, no redirects followed (the SDK asks for
 * `redirect: "manual"` and follows them itself), the body streamed as it arrives. A network failure rejects
 * with `TypeError("fetch failed", { cause })`, as the global `fetch` does.
 *
 * @internal
 */
import * as Http from "node:http"
import * as Https from "node:https"
import { Readable } from "node:stream"
import * as GuardedTransport from "./guardedTransport.js"

/**
 * What the fetch tells the connection about the responses to its POSTs, by the JSON-RPC request ids each
 * POST carried.
 *
 * @internal
 */
export interface ResponseWatch {
  /** The longest message accepted, in bytes: a JSON body, or one event of an event stream. */
  readonly maxMessageBytes: number
  /**
   * An event stream answering `ids` ended (or broke). `resumable`: it carried event ids, so the SDK resumes
   * it with `Last-Event-ID`.
   */
  readonly onStreamEnd: (ids: ReadonlyArray<string | number>, resumable: boolean) => void
  /** A response to `ids` went over `maxMessageBytes` and was cut off. */
  readonly onOversized: (ids: ReadonlyArray<string | number>) => void
}

const parseIds = (body: RequestInit["body"]): ReadonlyArray<string | number> => {
  if (typeof body !== "string") return []
  try {
    return GuardedTransport.requestIds(JSON.parse(body))
  } catch {
    return []
  }
}

/**
 * The response body, passed through as it arrives, measured: a message over the limit errors the stream
 * (and is reported), the end of an event stream is reported with whether it carried event ids.
 */
const watchBody = (
  source: Http.IncomingMessage,
  ids: ReadonlyArray<string | number>,
  watch: ResponseWatch
): ReadableStream<Uint8Array> => {
  const body = Readable.toWeb(source) as ReadableStream<Uint8Array>
  const eventStream = (source.headers["content-type"] ?? "").startsWith("text/event-stream")
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    if (eventStream && !oversized) watch.onStreamEnd(ids, resumable)
  }
  // a stream that breaks (the socket closed mid-response) ends the same way as one that ends early
  source.once("close", () => {
    if (!source.complete) end()
  })
  let bytes = 0
  // whether the bytes so far end with a newline: a newline after it ends an event, an `id:` after it is a field
  let atLineStart = true
  let resumable = false
  let oversized = false
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (eventStream) {
          const view = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
          // bytes since the last blank line (the end of an event); an `id:` field makes the stream resumable
          let eventEnd = -1
          for (let i = view.lastIndexOf(10); i !== -1; i = i === 0 ? -1 : view.lastIndexOf(10, i - 1)) {
            if (i > 0 ? view[i - 1] === 10 : atLineStart) {
              eventEnd = i
              break
            }
          }
          bytes = eventEnd === -1 ? bytes + view.length : view.length - eventEnd - 1
          if (!resumable) resumable = (atLineStart && view.indexOf("id:") === 0) || view.indexOf("\nid:") !== -1
          if (view.length > 0) atLineStart = view[view.length - 1] === 10
        } else {
          bytes += chunk.length
        }
        if (bytes > watch.maxMessageBytes) {
          oversized = true
          watch.onOversized(ids)
          controller.error(new Error(`a message larger than ${watch.maxMessageBytes} bytes`))
          return
        }
        controller.enqueue(chunk)
      },
      flush: end
    })
  )
}

/** @internal */
export interface ConnectionFetch {
  readonly fetch: (url: string | URL, init?: RequestInit) => Promise<Response>
  /** Destroys every socket of this connection, idle or busy. */
  readonly close: () => void
}

const nullBodyStatus = new Set([101, 204, 205, 304])

const bodyOf = (body: RequestInit["body"]): string | Uint8Array | undefined => {
  if (body === undefined || body === null) return undefined
  if (typeof body === "string" || body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  return String(body)
}

/** @internal */
export const make = (watch?: ResponseWatch): ConnectionFetch => {
  const http = new Http.Agent({ keepAlive: true })
  const https = new Https.Agent({ keepAlive: true })
  let closed = false

  const fetch = (url: string | URL, init?: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const signal = init?.signal ?? undefined
      if (signal?.aborted) return reject(signal.reason)
      if (closed) return reject(new TypeError("fetch failed", { cause: new Error("the connection is closed") }))
      const target = new URL(url)
      const secure = target.protocol === "https:"
      const headers: Record<string, string> = {}
      new Headers(init?.headers).forEach((value, key) => {
        headers[key] = value
      })
      const method = (init?.method ?? "GET").toUpperCase()
      const ids = watch !== undefined && method === "POST" ? parseIds(init?.body) : []
      const request = (secure ? Https : Http).request(target, {
        method,
        headers,
        agent: secure ? https : http,
        ...(signal !== undefined ? { signal } : {})
      })
      request.once("response", (response) => {
        const status = response.statusCode ?? 500
        const responseHeaders = new Headers()
        const raw = response.rawHeaders
        for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!)
        const empty = method === "HEAD" || nullBodyStatus.has(status)
        if (empty) response.resume()
        const body = empty
          ? null
          : watch !== undefined && ids.length > 0
          ? watchBody(response, ids, watch)
          : (Readable.toWeb(response) as ReadableStream<Uint8Array>)
        try {
          resolve(new Response(body, { status, statusText: response.statusMessage ?? "", headers: responseHeaders }))
        } catch (error) {
          response.destroy()
          reject(new TypeError("fetch failed", { cause: error }))
        }
      })
      request.once("error", (error) => {
        reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }))
      })
      request.end(bodyOf(init?.body))
    })

  return {
    fetch,
    close: () => {
      closed = true
      http.destroy()
      https.destroy()
    }
  }
}
