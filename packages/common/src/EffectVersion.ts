/**
 * Which Effect a Zett package finds, and its refusal of any other line than the one it is written for, on both
 * lines. Each line's packages import modules the other line's Effect lacks (the 3 line `effect/Either`, the 4 line
 * `effect/Result` and `effect/unstable/...`); next to the other line's Effect (`--legacy-peer-deps`), an import
 * failed with `ERR_MODULE_NOT_FOUND .../effect/dist/...`, which says nothing of versions. Each package's installed
 * entry (`entry.ts`) loads its index through `loadIndex`, which calls `refuseUnsupported` before anything of
 * Effect is loaded, so that such an import fails with one error naming the version found and the range supported.
 *
 * The one module of this package that uses Node's own modules (the entries it serves run on Node only: bundlers
 * read each package's index); the index does not export it, so `@zett/common` itself still runs anywhere. Import
 * it as `@zett/common/EffectVersion`; `@zett/agent` (either line) exports it as its own `EffectVersion`.
 *
 * @since 0.1.0
 */
/// <reference types="node" />
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The `effect` package a module would load: its version and folder.
 *
 * @since 0.1.0
 * @category models
 */
export interface Found {
  readonly version: string
  readonly path: string
}

/**
 * The `effect` package that `import "effect/..."` in the module at `from` (a `file:` URL) loads, found as Node
 * finds it (the `node_modules` folders from there up), without loading it; `undefined` when there is none.
 * Its `exports` map is not used, so a release that does not export its `package.json` is found too.
 *
 * @since 0.1.0
 * @category constructors
 */
export const find = (from: string): Found | undefined => {
  const paths = createRequire(from).resolve.paths("effect") ?? []
  for (const folder of paths) {
    const path = Path.join(folder, "effect")
    try {
      const manifest = JSON.parse(Fs.readFileSync(Path.join(path, "package.json"), "utf8")) as {
        readonly version?: unknown
      }
      if (typeof manifest.version === "string") return { version: manifest.version, path }
    } catch {
      // no effect here (or no readable manifest): Node would look further up too
    }
  }
  return undefined
}

const numbers = (version: string): readonly [number, number, number] | undefined => {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim())
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])]
}

/**
 * Whether `version` is in `range`, a caret range (`^3.21.0`: 3.21.0 and later releases of 3) or a tilde range
 * (`~4.1.5`: 4.1.5 and later patches of 4.1, for a line whose modules Zett uses may change in a minor) as Zett's
 * `peerDependencies` write them; a pre-release of the range's own line counts as its release.
 *
 * @since 0.1.0
 * @category predicates
 */
export const satisfies = (range: string, version: string): boolean => {
  const kind = range.trim().charAt(0)
  const low = kind === "^" || kind === "~" ? numbers(range.trim().slice(1)) : undefined
  const found = numbers(version)
  if (low === undefined || found === undefined) return false
  const [major, minor, patch] = found
  const [lowMajor, lowMinor, lowPatch] = low
  if (major !== lowMajor) return false
  return kind === "^"
    ? minor > lowMinor || (minor === lowMinor && patch >= lowPatch)
    : minor === lowMinor && patch >= lowPatch
}

/**
 * The refusal: which package, the Effect found and where, the range it supports and what to install.
 *
 * @since 0.1.0
 * @category utils
 */
export const message = (pkg: string, range: string, found: Found): string =>
  `${pkg} needs effect ${range}; found effect ${found.version} at ${found.path}. ` +
  `Install effect@"${range}" and the @effect/* packages of that line.`

/**
 * Refuses to go on when the Effect that the package of `entry` (its installed entry module, a `file:` URL in
 * `build/src/`) would load is outside its `peerDependencies` range: an `Error` with `message` is thrown. Nothing
 * happens when the range is met, or when no Effect is found (the import then fails naming `effect` itself).
 *
 * A throw, not an Effect failure: this runs while the package is being imported, before any Effect can run, and
 * an import has no other channel to fail through.
 *
 * @since 0.1.0
 * @category utils
 */
export const refuseUnsupported = (entry: string): void => {
  const manifestPath = Path.join(Path.dirname(fileURLToPath(entry)), "..", "..", "package.json")
  const manifest = JSON.parse(Fs.readFileSync(manifestPath, "utf8")) as {
    readonly name: string
    readonly peerDependencies?: Readonly<Record<string, string>>
  }
  const range = manifest.peerDependencies?.effect
  const found = find(entry)
  if (range === undefined || found === undefined || satisfies(range, found.version)) return
  throw new Error(message(manifest.name, range, found))
}

/**
 * The installed entry's work: `refuseUnsupported`, then the package's `index.js` (next to `entry`), loaded only
 * then, with `require()` of an ES module (Node 20.19 and later) rather than an awaited `import()`: an app's
 * `require()` of the package could not load a module that awaits. `A` is the index's type, as the entry names it.
 *
 * @since 0.1.0
 * @category utils
 */
export const loadIndex = <A>(entry: string): A => {
  refuseUnsupported(entry)
  return createRequire(entry)("./index.js") as A
}
