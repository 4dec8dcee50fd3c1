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
export const make = (): ConnectionFetch => {
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
        const body = empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>)
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
