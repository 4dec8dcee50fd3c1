/**
 * The responses of a Streamable HTTP connection, watched on their way to the MCP SDK's transport: a 401 that
 * challenges for OAuth, the size of each message answering a request, the end of an event stream (early, or
 * resumable from the id of its last whole event, read as the SDK's parser reads it) and a resumption that failed.
 * The driver (`@zett/mcp-node`) of either Effect line wraps the `fetch` of a connection's own sockets in it.
 *
 * @since 0.1.0
 */

/**
 * A `fetch`, as the SDK's transports take one.
 *
 * @since 0.1.0
 */
export type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>

/**
 * What the fetch tells the connection about the responses to its POSTs, by the JSON-RPC request ids each
 * POST carried.
 *
 * @since 0.1.0
 */
export interface ResponseWatch {
  /** The longest message accepted, in bytes: a JSON body, or one event of an event stream. */
  readonly maxMessageBytes: number
  /**
   * An event stream answering `ids` ended (or broke). `resumable`: it carried a whole event with an id, so the
   * SDK resumes it with `Last-Event-ID`.
   */
  readonly onStreamEnd: (ids: ReadonlyArray<string | number>, resumable: boolean) => void
  /**
   * The resumption of a stream answering `ids` failed for good: the server refused it with 405 (the SDK then
   * gives up without a word), or its stream ended without a new event id (the SDK then opens a stream without
   * `Last-Event-ID`, on which the answer never comes). Other failures the SDK retries, and says so when its
   * retries run out.
   */
  readonly onResumeFailed: (ids: ReadonlyArray<string | number>) => void
  /** A response to `ids` went over `maxMessageBytes` and was cut off. */
  readonly onOversized: (ids: ReadonlyArray<string | number>) => void
  /** The server answered 401 with an OAuth challenge: it wants a login. */
  readonly onChallenge: () => void
}

/**
 * Whether a `WWW-Authenticate` value challenges for OAuth: the `Bearer` scheme (RFC 6750), the `DPoP` scheme
 * (RFC 9449), or the `resource_metadata` parameter of the MCP authorization specification (RFC 9728), among any
 * challenges.
 *
 * @since 0.1.0
 */
export const isOAuthChallenge = (header: string | null): boolean =>
  header !== null &&
  (/(?:^|,)\s*(?:bearer|dpop)(?:\s|,|$)/i.test(header) || /(?:^|[\s,])resource_metadata\s*=/i.test(header))

/**
 * `fetch`, watched: a 401 with an OAuth challenge is reported; the responses to POSTs that carried requests are
 * measured and their event streams followed (`ResponseWatch`); a resumption the SDK makes with `Last-Event-ID` is
 * followed to its end. Each request gets a signal of its own, linked to the one it was given for as long as it runs.
 *
 * @since 0.1.0
 */
export const watchedFetch = (fetch: Fetch, watch: ResponseWatch): Fetch => {
  // the requests of each stream the SDK may resume, by the id of its last whole event (its Last-Event-ID)
  const resumable = new Map<string, ReadonlyArray<string | number>>()
  const streams: Streams = {
    watch,
    ended: (ids, lastEventId) => {
      if (lastEventId !== undefined) resumable.set(lastEventId, ids)
      watch.onStreamEnd(ids, lastEventId !== undefined)
    }
  }
  const giveUp = (lastEventId: string, ids: ReadonlyArray<string | number>) => {
    resumable.delete(lastEventId)
    watch.onResumeFailed(ids)
  }
  return (url, init) => {
    const method = (init?.method ?? "GET").toUpperCase()
    const resumed = method === "GET" ? resumption(init?.headers) : undefined
    const resumedIds = resumed !== undefined ? resumable.get(resumed) : undefined
    const link = init?.signal != null ? linkSignal(init.signal) : undefined
    const request: RequestInit = { ...init, ...(link ? { signal: link.signal } : {}) }
    return fetch(url, request).then((response) => {
      if (response.status === 401 && isOAuthChallenge(response.headers.get("www-authenticate"))) watch.onChallenge()
      if (resumed !== undefined && resumedIds !== undefined) {
        if (response.status === 405 || (response.ok && response.body === null)) {
          giveUp(resumed, resumedIds)
        } else if (response.ok) {
          // read as an event stream whatever its content type, as the SDK reads it
          return watchBody(
            response,
            resumedIds,
            {
              watch,
              ended: (ids, lastEventId) => {
                if (lastEventId === undefined) giveUp(resumed, ids)
                else {
                  resumable.delete(resumed)
                  streams.ended(ids, lastEventId)
                }
              }
            },
            link?.unlink,
            true
          )
        }
      }
      if (response.body === null) {
        link?.unlink()
        return response
      }
      const ids = method === "POST" ? parseIds(init?.body) : []
      return ids.length === 0 && link === undefined ? response : watchBody(response, ids, streams, link?.unlink)
    }, (error: unknown) => {
      link?.unlink()
      return Promise.reject(error)
    })
  }
}

/** Where a watched body reports to. */
interface Streams {
  readonly watch: ResponseWatch
  /** An event stream ended; `lastEventId`: the id of its last whole event, from which the SDK resumes it. */
  readonly ended: (ids: ReadonlyArray<string | number>, lastEventId: string | undefined) => void
}

/** The `Last-Event-ID` of a GET: the SDK resuming a stream. */
const resumption = (headers: RequestInit["headers"]): string | undefined => {
  if (headers === undefined) return undefined
  const value = headers instanceof Headers
    ? headers.get("last-event-id")
    : Array.isArray(headers)
    ? headers.find(([name]) => name.toLowerCase() === "last-event-id")?.[1]
    : Object.entries(headers).find(([name]) => name.toLowerCase() === "last-event-id")?.[1]
  return value ?? undefined
}

/**
 * A signal of the request's own, aborted with the connection's. undici's `fetch` removes the listener it adds
 * to a request's signal only when the request is garbage collected; on the connection's signal, which every
 * request of the SDK's transport carries, they would pile up (and Node warns past 1,500). The link is removed
 * when the request ends.
 */
const linkSignal = (parent: AbortSignal): { readonly signal: AbortSignal; readonly unlink: () => void } => {
  const controller = new AbortController()
  const abort = () => controller.abort(parent.reason)
  if (parent.aborted) abort()
  else parent.addEventListener("abort", abort, { once: true })
  return { signal: controller.signal, unlink: () => parent.removeEventListener("abort", abort) }
}

/** The ids of the requests in a JSON-RPC message or batch, as the transport sent it. */
const requestIds = (body: unknown): ReadonlyArray<string | number> => {
  const out: Array<string | number> = []
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message === "object" && message !== null && "method" in message && "id" in message) {
      const id = (message as { readonly id: unknown }).id
      if (typeof id === "string" || typeof id === "number") out.push(id)
    }
  }
  return out
}

const parseIds = (body: RequestInit["body"]): ReadonlyArray<string | number> => {
  if (typeof body !== "string") return []
  try {
    return requestIds(JSON.parse(body))
  } catch {
    return []
  }
}

/**
 * The response, with its body passed through as it arrives, and `done` called when it ends. For a POST that
 * carried requests (`ids`), the body is measured: a message over the limit errors the body (and is reported), and
 * the end of an event stream is reported with whether it carried event ids. A body that breaks (the socket closed
 * mid-response) ends the same way as one that ends early.
 */
const watchBody = (
  response: Response,
  ids: ReadonlyArray<string | number>,
  streams: Streams,
  done: (() => void) | undefined,
  asEventStream = false
): Response => {
  const watch = streams.watch
  const reader = response.body!.getReader()
  const watched = ids.length > 0
  const eventStream = watched &&
    (asEventStream || (response.headers.get("content-type") ?? "").startsWith("text/event-stream"))
  const eventIds = eventStream ? new EventIds() : undefined
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    done?.()
    if (eventIds !== undefined) streams.ended(ids, eventIds.last)
  }
  let bytes = 0
  // whether the bytes so far end with a newline: a newline after it ends an event
  let atLineStart = true
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (error) {
        end()
        controller.error(error)
        return
      }
      if (chunk.done) {
        end()
        controller.close()
        return
      }
      if (!watched) {
        controller.enqueue(chunk.value)
        return
      }
      const view = chunk.value
      if (eventStream) {
        // bytes since the last blank line (the end of an event); an `id:` field makes the stream resumable
        let eventEnd = -1
        for (let i = view.lastIndexOf(10); i !== -1; i = i === 0 ? -1 : view.lastIndexOf(10, i - 1)) {
          if (i > 0 ? view[i - 1] === 10 : atLineStart) {
            eventEnd = i
            break
          }
        }
        bytes = eventEnd === -1 ? bytes + view.length : view.length - eventEnd - 1
        eventIds!.feed(view)
        if (view.length > 0) atLineStart = view[view.length - 1] === 10
      } else {
        bytes += view.length
      }
      if (bytes > watch.maxMessageBytes) {
        ended = true
        done?.()
        watch.onOversized(ids)
        controller.error(new Error(`a message larger than ${watch.maxMessageBytes} bytes`))
        void reader.cancel().catch(() => {})
        return
      }
      controller.enqueue(chunk.value)
    },
    cancel: (reason) => {
      ended = true
      done?.()
      return reader.cancel(reason)
    }
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

const BOM = Uint8Array.of(0xef, 0xbb, 0xbf)
const decoder = new TextDecoder()

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}

const ID = 0x69, D = 0x64, A = 0x61, T = 0x74, COLON = 0x3a, SPACE = 0x20, LF = 10, CR = 13

/**
 * The event ids of an event stream as the SDK reads them (eventsource-parser): an event counts once a blank
 * line ends it and it has a data line; its id is its last `id` field without a NUL. `last` is the id the SDK
 * resumes from: that of the last such event with a non-empty id. An event the stream cut off never counts.
 * Lines end with CR, LF or CRLF, across chunks.
 *
 * @since 0.1.0
 */
export class EventIds {
  /**
   * @since 0.1.0
   */
  last: string | undefined = undefined
  // the line being read: its length, its first bytes, and all of it while it may be an `id` line
  private length = 0
  private readonly head = new Uint8Array(5)
  private idLine: Array<Uint8Array> | undefined = []
  // the event being read
  private id: string | undefined = undefined
  private data = false
  private atCr = false
  // how much of a byte order mark the stream began with, -1 once past it
  private bom = 0

  /**
   * @since 0.1.0
   */
  feed(chunk: Uint8Array): void {
    let i = 0
    // a byte order mark at the start is dropped by the SDK's decoder (its bytes may come in several chunks)
    while (this.bom >= 0 && i < chunk.length) {
      if (chunk[i] === BOM[this.bom]) {
        i++
        this.bom = this.bom === 2 ? -1 : this.bom + 1
      } else {
        if (this.bom > 0) this.append(BOM, 0, this.bom)
        this.bom = -1
      }
    }
    if (this.atCr && i < chunk.length) {
      // a CR that ended a chunk ends its line once the next byte is known (the parser waits for it too)
      this.atCr = false
      this.endLine()
      if (chunk[i] === LF) i++
    }
    let lf = -2
    let cr = -2
    while (i < chunk.length) {
      // a search runs again only once its line end is passed
      if (lf !== -1 && lf < i) lf = chunk.indexOf(LF, i)
      if (cr !== -1 && cr < i) cr = chunk.indexOf(CR, i)
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr)
      if (end === -1) {
        this.append(chunk, i, chunk.length)
        return
      }
      this.append(chunk, i, end)
      if (chunk[end] === CR && end === chunk.length - 1) {
        this.atCr = true
        return
      }
      this.endLine()
      i = end + (chunk[end] === CR && chunk[end + 1] === LF ? 2 : 1)
    }
  }

  /**
   * @since 0.1.0
   */
  private append(chunk: Uint8Array, from: number, to: number): void {
    if (from === to) return
    const headBefore = Math.min(this.length, 5)
    if (headBefore < 5) this.head.set(chunk.subarray(from, Math.min(to, from + 5 - headBefore)), headBefore)
    this.length += to - from
    if (this.idLine === undefined) return
    const head = Math.min(this.length, 3)
    const maybeId = this.head[0] === ID && (head < 2 || this.head[1] === D) && (head < 3 || this.head[2] === COLON)
    if (maybeId) this.idLine.push(chunk.subarray(from, to))
    else this.idLine = undefined
  }

  /**
   * @since 0.1.0
   */
  private endLine(): void {
    const length = this.length
    const head = this.head
    if (length === 0) {
      if (this.data && this.id !== undefined && this.id !== "") this.last = this.id
      this.id = undefined
      this.data = false
    } else if (
      length >= 4 && head[0] === D && head[1] === A && head[2] === T && head[3] === A &&
      (length === 4 || head[4] === COLON)
    ) {
      this.data = true
    } else if (this.idLine !== undefined && (length === 2 || (length >= 3 && head[2] === COLON))) {
      const line = concat(this.idLine)
      const value = length === 2 ? "" : decoder.decode(line.subarray(line[3] === SPACE ? 4 : 3))
      if (!value.includes("\0")) this.id = value
    }
    this.length = 0
    this.idLine = []
  }
}
