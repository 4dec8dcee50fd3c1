/**
 * The abort signal of one tool call, as the SDK's `Protocol.request` reads it: `aborted`, `reason`,
 * `throwIfAborted` and an `abort` listener, which sends `notifications/cancelled` and rejects the request.
 * Node's `AbortController` is an `EventTarget`: making one and adding the SDK's listener per call showed in the
 * profiles of the warm call (`createAbortSignal`, `Listener`, `addEventListener`) as a sizeable share of a raw SDK
 * call over stdio (figures: docs/benchmarks.md, "Measurements behind choices in the code"). This is the few
 * members a request reads, nothing more.
 *
 * @internal
 */

type Listener = ((event: { readonly type: "abort" }) => void) | {
  readonly handleEvent: (event: { readonly type: "abort" }) => void
}

/** @internal */
export class CallSignal {
  aborted = false
  reason: unknown = undefined
  onabort: ((event: { readonly type: "abort" }) => void) | null = null
  private listeners: Array<Listener> | undefined = undefined

  throwIfAborted(): void {
    if (this.aborted) throw this.reason
  }

  addEventListener(type: string, listener: Listener | null): void {
    if (type !== "abort" || listener === null || this.aborted) return
    ;(this.listeners ??= []).push(listener)
  }

  removeEventListener(type: string, listener: Listener | null): void {
    if (type !== "abort" || this.listeners === undefined) return
    const at = this.listeners.indexOf(listener!)
    if (at >= 0) this.listeners.splice(at, 1)
  }

  /** Aborts once, with `reason` or, as `AbortController.abort()` does, an `AbortError`. */
  abort(reason?: unknown): void {
    if (this.aborted) return
    this.aborted = true
    this.reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason
    const event = { type: "abort" as const }
    this.onabort?.(event)
    const listeners = this.listeners
    this.listeners = undefined
    if (listeners === undefined) return
    for (const listener of listeners) {
      if (typeof listener === "function") listener(event)
      else listener.handleEvent(event)
    }
  }

  /** What the SDK's request options take: the members it reads are all here. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal
  }
}
