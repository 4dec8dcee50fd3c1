/**
 * The runs in progress, counted per extension instance: what `Agent.pending` reads. Made by `Agent.makeActiveRuns`
 * (or by an agent's `make` when its context holds none), so the count lives as long as the agents that share it.
 *
 * @internal
 */
import type { Any as Extension } from "../Extension.js"

/** @internal */
export interface Pending {
  readonly enter: (extensions: ReadonlyArray<Extension>) => void
  readonly exit: (extensions: ReadonlyArray<Extension>) => void
  readonly isPending: (extension: Extension) => boolean
}

/** @internal */
export const make = (): Pending => {
  // an extension instance may serve several agents and concurrent runs: one count per instance
  const active = new Map<Extension, number>()
  return {
    enter: (extensions) => {
      for (const extension of extensions) active.set(extension, (active.get(extension) ?? 0) + 1)
    },
    exit: (extensions) => {
      for (const extension of extensions) {
        const count = (active.get(extension) ?? 1) - 1
        // an extension no run uses is no longer held: an agent's extensions may be dropped with their agent
        if (count > 0) active.set(extension, count)
        else active.delete(extension)
      }
    },
    isPending: (extension) => (active.get(extension) ?? 0) > 0
  }
}
