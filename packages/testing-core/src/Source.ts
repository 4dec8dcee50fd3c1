/**
 * Child processes that run this workspace's TypeScript sources: Node with the `@zett/source` export
 * condition (the packages' `exports` otherwise point at their build) and tsx to compile as they load.
 */
import * as Path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** The root of the workspace. */
export const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/**
 * The Node arguments before a `.ts` entry (or `-e`): the source condition and the tsx loader, named by its
 * path so that a child started in another folder finds it too.
 */
export const nodeArgs: ReadonlyArray<string> = [
  "--conditions=@zett/source",
  "--import",
  pathToFileURL(Path.join(root, "node_modules", "tsx", "dist", "loader.mjs")).href
]

/** The `zett` command from its sources: the arguments of `node` before zett's own. */
export const zettArgs: ReadonlyArray<string> = [...nodeArgs, Path.join(root, "packages", "cli", "src", "main.ts")]
