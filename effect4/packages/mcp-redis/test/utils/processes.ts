/**
 * What the fleet tests ask of the processes they started: the Node arguments of a child that runs a fixture from
 * the TypeScript sources, and which of some pids still run.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

/**
 * The Node arguments of a child that imports the packages from their TypeScript sources: the source condition,
 * Node 22's own TypeScript transform and the resolve hook of `@zett/mcp`'s tests (`.js` imports to `.ts`).
 */
export const nodeArgs: ReadonlyArray<string> = [
  "--conditions=@zett/source",
  "--experimental-transform-types",
  "--no-warnings=ExperimentalWarning",
  "--import",
  pathToFileURL(Path.join(import.meta.dirname, "..", "..", "..", "mcp", "test", "utils", "sourceHooks.mjs")).href
]

/** The pids among `pids` of a process that runs (not a zombie), read from /proc. */
export const livePids = (pids: Iterable<number>): Array<number> =>
  Array.from(pids).filter((pid) => {
    try {
      const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
      return state !== "Z" && state !== "X"
    } catch {
      return false
    }
  })
