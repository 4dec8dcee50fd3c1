/** @internal */
import * as Context from "effect/Context"
import type { Any as Extension } from "../Extension.js"

/**
 * The runs in progress, counted per extension instance (one instance may serve several agents).
 *
 * @internal
 */
export interface Counts {
  readonly isPending: (extension: Extension) => boolean
  readonly enter: (extensions: ReadonlyArray<Extension>) => void
  readonly exit: (extensions: ReadonlyArray<Extension>) => void
}

/** @internal */
export const make = (): Counts => {
  const active = new WeakMap<Extension, number>()
  return {
    isPending: (extension) => (active.get(extension) ?? 0) > 0,
    enter: (extensions) => {
      for (const extension of extensions) active.set(extension, (active.get(extension) ?? 0) + 1)
    },
    exit: (extensions) => {
      for (const extension of extensions) active.set(extension, (active.get(extension) ?? 1) - 1)
    }
  }
}

/**
 * One set of counts for the process unless a host provides its own: a reference with a default, where the
 * Effect 3 line kept a module-level map.
 *
 * @internal
 */
export const ActiveRuns: Context.Reference<Counts> = Context.Reference<Counts>("@zett/agent/Agent/ActiveRuns", {
  defaultValue: make
})
