/**
 * The in-process lock per key of the memory and file token stores: one holder per key at a time, none across
 * keys. A key's semaphore lives while someone holds or waits for it, and goes with the last of them, so that a
 * long-lived process that signs in to ever new servers keeps no lock for each.
 */
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"

export interface KeyedLock {
  /** Runs `effect` while holding the lock of `key`, waiting for it if it is held. */
  <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** How many keys are held or waited for now. */
  readonly size: () => number
}

export const makeUnsafe = (): KeyedLock => {
  // a count of holders and waiters per key rather than an RcMap: no scope to close, and nothing deferred
  const entries = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
  const lock = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    // counted in and out in one uninterruptible region: an interruption cannot come between the two
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        let entry = entries.get(key)
        if (entry === undefined) {
          entry = { semaphore: Semaphore.makeUnsafe(1), users: 0 }
          entries.set(key, entry)
        }
        entry.users++
        const taken = entry
        return Effect.ensuring(
          restore(taken.semaphore.withPermit(effect)),
          Effect.sync(() => {
            // none holds or waits for this semaphore any more: a later user makes a new one
            if (--taken.users === 0) entries.delete(key)
          })
        )
      })
    )
  return Object.assign(lock, { size: () => entries.size })
}

export const make: Effect.Effect<KeyedLock> = Effect.sync(makeUnsafe)
