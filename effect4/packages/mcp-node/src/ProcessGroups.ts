/**
 * The process groups of the stdio servers still running, and what becomes of them when the host ends without
 * closing its scopes. Scope finalizers do not run when the host calls `process.exit()` or dies of a signal that
 * nobody handles, and a server in a process group of its own does not get the terminal's Ctrl-C either: while
 * `layer` is open, an `exit` hook and SIGINT/SIGTERM/SIGHUP hooks SIGKILL the groups still registered, so no
 * server (nor a grandchild behind a wrapper such as `npx`) outlives its host.
 *
 * The hooks are installed when the layer's scope opens and removed when it closes. `NodeMcpClientFactory.layer`
 * provides `layer` itself; `layerNone` registers nothing and installs nothing, for hosts that manage the
 * lifetimes of their processes themselves.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

/**
 * @since 1.0.0
 * @category tags
 */
export class ProcessGroups extends Context.Service<ProcessGroups, {
  /**
   * Registers the process group of a server just started (its leader's pid). The effect returned unregisters
   * it, and is to be run as soon as no member of the group runs: its pgid may then be given to unrelated
   * processes. Unregistering twice, or after the pgid was registered again, leaves the newer registration be.
   */
  readonly register: (pgid: number) => Effect.Effect<Effect.Effect<void>>
}>()("@zett/mcp-node/ProcessGroups") {}

// A server in a group of its own no longer gets the terminal's Ctrl-C: these signals, when they are about to kill
// the host, take the groups along.
const fatalSignals: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP"]

// Marks the signal listeners of every instance (of every copy of this package), which do not count as the
// application's own: with two of them and no application listener, each deferring to the other would leave the
// host immune to the signal.
const hookKey = Symbol.for("@zett/mcp-node/ProcessGroups/hook")

/**
 * Installs the hooks in the current scope and removes them when it closes. Closing kills nothing: a group still
 * registered then belongs to a connection whose own scope outlives this one, and its close ladder ends it.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make: Effect.Effect<ProcessGroups["Service"], never, Scope.Scope> = Effect.gen(function*() {
  // one entry per registration, so that a stale unregister cannot drop a reused pgid's newer registration
  const live = new Set<{ readonly pgid: number }>()

  const killAll = () => {
    for (const group of live) {
      try {
        process.kill(-group.pgid, "SIGKILL")
      } catch {
        // already gone
      }
    }
    live.clear()
  }

  // Prepended: a listener that removes itself when called, as `NodeRuntime.runMain`'s does, must still count as
  // the application's, or the groups would be killed under its closing scopes.
  const onSignal = Object.assign((sig: NodeJS.Signals) => {
    // the application handles it, and closes its scopes
    if (process.listeners(sig).some((listener) => !Object.hasOwn(listener, hookKey))) return
    killAll()
    removeSignalHooks()
    // die of the same signal, as the host would have without these hooks
    process.kill(process.pid, sig)
  }, { [hookKey]: true })

  const signals = process.platform !== "win32"
  const removeSignalHooks = () => {
    if (signals) { for (const sig of fatalSignals) process.removeListener(sig, onSignal) }
  }

  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.on("exit", killAll)
      if (signals) { for (const sig of fatalSignals) process.prependListener(sig, onSignal) }
    }),
    () =>
      Effect.sync(() => {
        process.removeListener("exit", killAll)
        removeSignalHooks()
        live.clear()
      })
  )

  return ProcessGroups.of({
    register: (pgid) =>
      Effect.sync(() => {
        const entry = { pgid }
        live.add(entry)
        return Effect.sync(() => {
          live.delete(entry)
        })
      })
  })
})

/**
 * The hooks, for as long as the layer is open.
 *
 * @since 1.0.0
 * @category layers
 */
export const layer: Layer.Layer<ProcessGroups> = Layer.effect(ProcessGroups, make)

/**
 * No hooks: a group is ended by its connection's scope only. For hosts that manage process lifetimes themselves
 * (a supervisor that kills the host's whole tree, a host whose own exit handling closes its scopes).
 *
 * @since 1.0.0
 * @category constructors
 */
export const none: ProcessGroups["Service"] = ProcessGroups.of({ register: () => Effect.succeed(Effect.void) })

/**
 * `none` as a layer.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerNone: Layer.Layer<ProcessGroups> = Layer.succeed(ProcessGroups, none)
