/**
 * The call deadlines of one connection, watched by one timer. A call adds its entry and removes it when it
 * ends: a set insert and delete, where a fiber raced against each call (`Effect.timeout`, `raceFirst`) cost
 * about as much CPU as the call itself. The timer is a fiber in the connection's scope that sleeps
 * on that scope's `Clock` (so a `TestClock` drives it) until the earliest deadline it knows of, and is woken
 * only for an earlier one: calls one after another under the same timeout never wake it.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import type * as Scope from "effect/Scope"

/** @internal */
export interface Entry {
  /** When the entry expires, in the clock's milliseconds; it may move later (a progress report). */
  readonly deadline: () => number
  /** Called once, by the timer, when the deadline has passed; the entry is already removed. */
  readonly expire: () => void
}

/** @internal */
export interface Deadlines {
  readonly clock: Clock.Clock
  readonly add: (entry: Entry) => void
  readonly remove: (entry: Entry) => void
}

/** @internal */
export const make: Effect.Effect<Deadlines, never, Scope.Scope> = Effect.gen(function*() {
  const clock = yield* Clock.Clock
  const entries = new Set<Entry>()
  const wake = yield* Latch.make(false)
  // when the timer looks next; Infinity while it waits for an entry
  let planned = Infinity
  const expireDue = (): number => {
    const now = clock.currentTimeMillisUnsafe()
    let next = Infinity
    for (const entry of entries) {
      const deadline = entry.deadline()
      if (deadline <= now) {
        entries.delete(entry)
        entry.expire()
      } else if (deadline < next) {
        next = deadline
      }
    }
    return next
  }
  const timer: Effect.Effect<void> = Effect.suspend(() => {
    wake.closeUnsafe()
    planned = expireDue()
    return planned === Infinity
      ? wake.await
      : Effect.raceFirst(
        clock.sleep(Duration.millis(Math.max(0, planned - clock.currentTimeMillisUnsafe()))),
        wake.await
      )
  })
  yield* Effect.forkScoped(Effect.forever(timer))
  return {
    clock,
    add: (entry) => {
      entries.add(entry)
      const deadline = entry.deadline()
      if (deadline < planned) {
        planned = deadline
        wake.openUnsafe()
      }
    },
    remove: (entry) => void entries.delete(entry)
  }
})
