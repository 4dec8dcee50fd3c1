/**
 * How a test runs this workspace's TypeScript sources in a child process (the 3 line's `@zett/testing-core/Source`).
 */
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

/**
 * The Node arguments before `-e` for a child that imports the packages from their TypeScript sources: the source
 * condition, Node 22's own TypeScript transform (the sources have parameter properties, which type stripping alone
 * refuses) and a resolve hook that finds the `.ts` of a `.js` import (the 3 line's tests use tsx, which this
 * workspace does not install).
 */
export const nodeArgs: ReadonlyArray<string> = [
  "--conditions=@zett/source",
  "--experimental-transform-types",
  "--no-warnings=ExperimentalWarning",
  "--import",
  pathToFileURL(Path.join(import.meta.dirname, "sourceHooks.mjs")).href
]
