/**
 * The `fetch` of one Streamable HTTP connection: undici's `fetch` over an undici `Agent` of the connection's
 * own, destroyed when the connection's scope closes. The global `fetch` pools its sockets process-wide, so
 * idle connections to a server would outlive the request that opened them. (Node 20's global `fetch` is an
 * older undici, which does not take this undici's `Agent` as its dispatcher: the `fetch` is undici's too.)
 *
 * For POSTs, the response body is watched on its way to the SDK (`ResponseWatch`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
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

/** The `fetch` the SDK's transport is given. */
export type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>

type Undici = typeof import("undici").default

// undici is loaded with the first HTTP connection: an app (or `zett`) that uses only stdio servers does not
// pay for importing it. It is CommonJS: its exports are the default export of the module namespace, in Node
// as in a bundle (where named exports of a dynamic import may not be there).
let undici: Promise<Undici> | undefined
const loadUndici = Effect.promise(() => (undici ??= import("undici").then((module) => module.default)))

/**
 * A fetch with an `Agent` of its own; closing the scope destroys the agent and every socket it opened.
 *
 * @internal
 */
export const make = (watch: ResponseWatch): Effect.Effect<Fetch, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { Agent, fetch } = yield* loadUndici
    const dispatcher = yield* Effect.acquireRelease(
      Effect.sync(() => new Agent()),
      (agent) => Effect.promise(() => agent.destroy().catch(() => {}))
    )
    return (url, init) => {
      const link = init?.signal != null ? linkSignal(init.signal) : undefined
      const request = { ...init, ...(link ? { signal: link.signal } : {}), dispatcher } as Parameters<typeof fetch>[1]
      return (fetch(url, request) as unknown as Promise<Response>).then((response) => {
        if (response.body === null) {
          link?.unlink()
          return response
        }
        const ids = (init?.method ?? "GET").toUpperCase() === "POST" ? parseIds(init?.body) : []
        return ids.length === 0 && link === undefined ? response : watchBody(response, ids, watch, link?.unlink)
      }, (error: unknown) => {
        link?.unlink()
        return Promise.reject(error)
      })
    }
  })

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

const parseIds = (body: RequestInit["body"]): ReadonlyArray<string | number> => {
  if (typeof body !== "string") return []
  try {
    return GuardedTransport.requestIds(JSON.parse(body))
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
  watch: ResponseWatch,
  done: (() => void) | undefined
): Response => {
  const reader = response.body!.getReader()
  const watched = ids.length > 0
  const eventStream = watched && (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    done?.()
    if (eventStream) watch.onStreamEnd(ids, resumable)
  }
  let bytes = 0
  // whether the bytes so far end with a newline: a newline after it ends an event, an `id:` after it is a field
  let atLineStart = true
  let resumable = false
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
      const view = Buffer.from(chunk.value.buffer, chunk.value.byteOffset, chunk.value.byteLength)
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
        if (!resumable) resumable = (atLineStart && view.indexOf("id:") === 0) || view.indexOf("\nid:") !== -1
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
