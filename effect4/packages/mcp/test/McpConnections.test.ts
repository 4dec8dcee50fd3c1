import { assert, describe, it } from "@effect/vitest"
import { McpConnections, McpError, McpServerConfig } from "@zett/mcp"
import { fakeFactory, tool } from "@zett/testing-core/FakeMcp"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"

const server = McpServerConfig.http({ name: "s", url: "http://127.0.0.1:1/s" })

/** Connections over fake server `s`, whose connect takes `connectDelay` of TestClock time. */
const connectionsWith = (connectDelay?: Duration.Input) =>
  Effect.gen(function*() {
    const { factory, stats } = fakeFactory({ s: { tools: [tool("t")], connectDelay } })
    const scope = yield* Scope.make()
    const connections = yield* McpConnections.make({ source: McpConnections.direct(factory), scope })
    return { connections, stats, scope }
  })

/** The current clock, counting the timers started under it. */
const countingClock = Clock.clockWith((base) => {
  const timers = { started: 0 }
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: () => base.currentTimeMillisUnsafe(),
    currentTimeMillis: base.currentTimeMillis,
    currentTimeNanosUnsafe: () => base.currentTimeNanosUnsafe(),
    currentTimeNanos: base.currentTimeNanos,
    monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: base.monotonicTimeNanos,
    sleep: (duration) => {
      timers.started++
      return base.sleep(duration)
    }
  }
  return Effect.succeed({ clock, timers })
})

/** `effect` with `clock` as its clock (Effect 3's `Effect.withClock`). */
const withClock = <A, E, R>(effect: Effect.Effect<A, E, R>, clock: Clock.Clock) =>
  Effect.provideService(effect, Clock.Clock, clock)

describe("McpConnections", () => {
  it.effect("a request's connections: one per server, reused, and made again after invalidate (D1)", () =>
    Effect.gen(function*() {
      const { connections, scope, stats } = yield* connectionsWith()
      const first = yield* connections.get(server)
      assert.strictEqual(yield* connections.get(server), first)
      yield* connections.invalidate(server)
      const second = yield* connections.get(server)
      assert.notStrictEqual(second, first)
      assert.deepStrictEqual(stats.connects, { s: 2 })
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(stats.open(), 0)
    }))

  it.effect("getWithin bounds the connect, and a warm call starts no timer (D4)", () =>
    Effect.gen(function*() {
      const limit = Option.some(Duration.seconds(5))
      const slow = yield* connectionsWith("10 seconds")
      const timedOut = yield* Effect.forkChild(Effect.flip(slow.connections.getWithin(server, limit)))
      yield* TestClock.adjust("5 seconds")
      const error = yield* Fiber.join(timedOut)
      assert.deepStrictEqual(
        error,
        new McpError.McpTimeoutError({ server: "s", operation: "connect", timeout: Duration.seconds(5) })
      )

      // a connect that takes a moment (Effect 4 starts no timer for one that finishes at once)
      const { connections } = yield* connectionsWith("1 millis")
      const { clock, timers } = yield* countingClock
      const cold = yield* Effect.forkChild(withClock(connections.getWithin(server, limit), clock))
      yield* TestClock.adjust("1 millis")
      const client = yield* Fiber.join(cold)
      // the fake server's moment and the limit's timer
      assert.strictEqual(timers.started, 2)
      assert.strictEqual(yield* withClock(connections.getWithin(server, limit), clock), client)
      assert.strictEqual(timers.started, 2)
    }))

  it.effect("an interrupted connect forgets only its own attempt, not a newer one (D4)", () =>
    Effect.gen(function*() {
      const { connections, stats } = yield* connectionsWith("1 second")
      const first = yield* Effect.forkChild(connections.get(server))
      yield* Effect.yieldNow
      // the first attempt is dropped while it connects, and a second one starts
      yield* connections.invalidate(server)
      const second = yield* Effect.forkChild(connections.get(server))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(first)
      // a third use shares the second attempt
      const third = yield* Effect.forkChild(connections.get(server))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Fiber.join(third), yield* Fiber.join(second))
      assert.deepStrictEqual(stats.connects, { s: 2 })
    }))
})

describe("McpConnections.pooled", () => {
  it.effect("a connection the pool holds open is borrowed without a timer; a connect, one after an invalidation and one after an idle close are timed", () =>
    Effect.gen(function*() {
      const limit = Option.some(Duration.seconds(5))
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")], connectDelay: "10 seconds" } })
      const pool = yield* McpConnections.pooled(factory, { idleTimeToLive: "1 hour" })
      const { clock, timers } = yield* countingClock
      const request = Effect.flatMap(
        Scope.make(),
        (scope) => Effect.map(McpConnections.make({ source: pool, scope }), (connections) => ({ connections, scope }))
      )
      const borrow = (connections: McpConnections.McpConnections, within: Option.Option<Duration.Duration>) =>
        Effect.forkChild(withClock(connections.getWithin(server, within), clock))

      // a connect that hangs is timed out by the limit, pooled or not
      const first = yield* request
      const hanging = yield* borrow(first.connections, limit)
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual((yield* Effect.flip(Fiber.join(hanging)))._tag, "McpTimeoutError")
      // the pool's connect goes on: the next request waits for it under its own limit, and leaves it pooled
      const second = yield* request
      const connecting = yield* borrow(second.connections, Option.some(Duration.seconds(30)))
      yield* TestClock.adjust("10 seconds")
      const client = yield* Fiber.join(connecting)
      yield* Scope.close(second.scope, Exit.void)
      const started = timers.started
      // the next request borrows the open connection: no timer, no connect
      const third = yield* request
      assert.strictEqual(yield* Fiber.join(yield* borrow(third.connections, limit)), client)
      assert.strictEqual(timers.started, started)
      assert.deepStrictEqual(stats.connects, { s: 1 })
      // once the pool has closed it, the connection is not open: the next connect is timed again
      yield* third.connections.invalidate(server)
      const fourth = yield* request
      const again = yield* borrow(fourth.connections, limit)
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual((yield* Effect.flip(Fiber.join(again)))._tag, "McpTimeoutError")
      assert.isAbove(timers.started, started)
      assert.deepStrictEqual(stats.connects, { s: 2 })
      // the new connection opens in the pool; the old one closes when the request that held it ends, and leaves
      // the new one open for the next borrow
      yield* TestClock.adjust("5 seconds")
      yield* Scope.close(third.scope, Exit.void)
      const before = timers.started
      const fifth = yield* request
      const next = yield* Fiber.join(yield* borrow(fifth.connections, limit))
      assert.notStrictEqual(next, client)
      assert.strictEqual(timers.started, before)
      assert.deepStrictEqual([stats.connects, stats.closes], [{ s: 2 }, { s: 1 }])
      // and again: each invalidation gives the next connection a key of its own
      yield* fifth.connections.invalidate(server)
      const sixth = yield* request
      const reconnecting = yield* borrow(sixth.connections, Option.some(Duration.seconds(30)))
      yield* TestClock.adjust("10 seconds")
      const last = yield* Fiber.join(reconnecting)
      yield* Scope.close(fifth.scope, Exit.void)
      assert.deepStrictEqual([stats.connects, stats.closes], [{ s: 3 }, { s: 2 }])
      const seventh = yield* request
      const settled = timers.started
      assert.strictEqual(yield* Fiber.join(yield* borrow(seventh.connections, limit)), last)
      assert.strictEqual(timers.started, settled)
      // a connection the pool closed when it was idle is not open either: the next connect is timed
      yield* Scope.close(sixth.scope, Exit.void)
      yield* Scope.close(seventh.scope, Exit.void)
      yield* TestClock.adjust("61 minutes")
      assert.deepStrictEqual(stats.closes, { s: 3 })
      const eighth = yield* request
      const timed = yield* borrow(eighth.connections, limit)
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual((yield* Effect.flip(Fiber.join(timed)))._tag, "McpTimeoutError")
    }))
})
