/** @internal */
import type { Any as Extension } from "../Extension.js"

// Counted per extension instance across every agent, since one instance may serve several agents.
const active = new WeakMap<Extension, number>()

/** @internal */
export const isPending = (extension: Extension): boolean => (active.get(extension) ?? 0) > 0

/** @internal */
export const enter = (extensions: ReadonlyArray<Extension>): void => {
  for (const extension of extensions) active.set(extension, (active.get(extension) ?? 0) + 1)
}

/** @internal */
export const exit = (extensions: ReadonlyArray<Extension>): void => {
  for (const extension of extensions) active.set(extension, (active.get(extension) ?? 1) - 1)
}
