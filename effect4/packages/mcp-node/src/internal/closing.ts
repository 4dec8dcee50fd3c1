/**
 * Closing a connection's transport: best effort, bounded in time by a promise race.
 *
 * @internal
 */
import type { Transport } from "@modelcontextprotocol/client"
import * as Effect from "effect/Effect"

/**
 * `promise`, or `ms` at most. The timer keeps the process alive while a close runs (nothing else may), and is
 * cleared when the promise wins, so nothing lingers after a close.
 *
 * @internal
 */
export const atMost = (promise: Promise<unknown>, ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    promise.then(done, done)
  })

/**
 * Waits for `close` to finish, or `ms` at most. The bound is a promise race, not an Effect timeout: a finalizer
 * that runs on an interrupted fiber (a timed-out connect, an interrupted request) must not be made
 * interruptible, or it is cut short at once and the scope closes while the server still runs.
 *
 * @internal
 */
export const closeWithin = (close: () => Promise<void>, ms: number) => Effect.promise(() => atMost(close(), ms))

/** Never rejects: closing is best effort. @internal */
export const closeQuietly = (transport: Transport, beforeClose?: () => Promise<void>) => async () => {
  try {
    if (beforeClose !== undefined) await beforeClose()
  } catch {
    // a failed DELETE still lets us close our side
  }
  try {
    await transport.close()
  } catch {
    // already closed
  }
}
