/**
 * Turns of the event loop, taken one at a time by the connects of the SDK-backed client factory. Starting a
 * connection is mostly synchronous work: spawning a stdio server forks this process (tens of milliseconds on a
 * busy machine), and the SDK client builds its schema validator. Connects that start together (a fresh layer's
 * first requests, each connecting the servers it calls) did all of it back to back in one turn, and no answer
 * of an open connection could be read meanwhile: a call that its server had answered at once ended seconds
 * later, or timed out. Between two starts the event loop now polls for what came in.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

interface Waiter {
  readonly resume: () => void
  cancelled: boolean
}

/**
 * A gate of turns, one per client factory (made in its `make`).
 *
 * @internal
 */
export interface Turns {
  /**
   * Waits for a turn of its own: the first caller goes at once, those that come meanwhile one per later turn, in
   * order. What runs after it until its first wait for I/O is the work of that turn.
   */
  readonly take: Effect.Effect<void>
}

/** @internal */
export const make: Effect.Effect<Turns> = Effect.sync(() => {
  const waiting: Array<Waiter> = []
  let taken = false
  // Runs in the check phase of the event loop; the next one runs in the next iteration, after its poll for I/O.
  const next = () => {
    let waiter = waiting.shift()
    while (waiter !== undefined && waiter.cancelled) waiter = waiting.shift()
    if (waiter === undefined) {
      taken = false
      return
    }
    waiter.resume()
    setImmediate(next)
  }
  const take = Effect.callback<void>((resume) => {
    const waiter: Waiter = { resume: () => resume(Effect.void), cancelled: false }
    if (taken) {
      waiting.push(waiter)
    } else {
      taken = true
      waiter.resume()
      setImmediate(next)
    }
    // an interrupted waiter (a connect timed out in the queue) leaves its turn to the next one
    return Effect.sync(() => void (waiter.cancelled = true))
  })
  return { take }
})
