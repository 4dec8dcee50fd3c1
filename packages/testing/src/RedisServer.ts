/**
 * A real `redis-server` (the Debian package) for the length of a scope: on 127.0.0.1, on a free port, with its
 * data in a temporary folder and nothing saved to disk. A test can stop it, start it again on the same port,
 * or freeze it (SIGSTOP: connected, but answering nothing) to play a Redis that is down or slow.
 */
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Processes from "./Processes.js"

export interface RedisServer {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** The pid of the running server's group (its lifeline), or undefined while stopped. */
  readonly pid: () => number | undefined
  /** Kills the server (SIGKILL); its data is gone with it. */
  readonly stop: Effect.Effect<void>
  /** Starts a server again on the same port (after `stop`), empty. */
  readonly start: Effect.Effect<void, Error>
  /** Stops the server answering (SIGSTOP) without closing its connections. */
  readonly freeze: Effect.Effect<void>
  /** Lets a frozen server answer again (SIGCONT). */
  readonly thaw: Effect.Effect<void>
}

export const make: Effect.Effect<RedisServer, Error, Scope.Scope> = Effect.gen(function*() {
  const dir = yield* TempDir.make("zett-redis-")
  const port = yield* Processes.freePort
  const outer = yield* Effect.scope
  let running: { readonly scope: Scope.CloseableScope; readonly pid: number } | undefined

  const signal = (name: NodeJS.Signals) =>
    Effect.sync(() => {
      if (running === undefined) return
      try {
        process.kill(-running.pid, name)
      } catch {
        // already gone
      }
    })

  const stop = Effect.suspend(() => {
    const current = running
    if (current === undefined) return Effect.void
    running = undefined
    return Scope.close(current.scope, Exit.void)
  })

  const start = Effect.suspend(() => {
    if (running !== undefined) return Effect.void
    return Effect.gen(function*() {
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const spawned = yield* Processes.spawnScoped({
        command: "redis-server",
        args: [
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--dir",
          dir,
          "--save",
          "",
          "--appendonly",
          "no",
          "--daemonize",
          "no",
          "--protected-mode",
          "no"
        ],
        ready: /Ready to accept connections/
      }).pipe(Scope.extend(scope), Effect.onError(() => Scope.close(scope, Exit.void)))
      running = { scope, pid: spawned.pid }
    })
  })

  yield* start
  // a frozen server must not outlive the test either (SIGKILL also ends stopped processes; this keeps it tidy)
  yield* Effect.addFinalizer(() => Effect.zipRight(signal("SIGCONT"), stop))
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid: () => running?.pid,
    stop,
    start,
    freeze: signal("SIGSTOP"),
    thaw: signal("SIGCONT")
  }
})
