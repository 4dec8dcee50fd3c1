/**
 * Which Effect a Zett package finds, and its refusal of any other line than the one it is written for. Zett's
 * packages import modules of Effect 3 (`effect/Either`, ...) that Effect 4 no longer has; forced next to Effect 4
 * (`--legacy-peer-deps`), an import failed with `ERR_MODULE_NOT_FOUND .../effect/dist/Either.js`, which says
 * nothing of versions. Each package's installed entry (`entry.ts`) loads its index through `loadIndex`, which
 * calls `refuseUnsupported` before anything of Effect is loaded, so that such an import fails with one error
 * naming the version found and the range supported.
 *
 * The functions are `@zett/common`'s, which the Effect 4 line's entries use too (there refusing Effect 3); this
 * module keeps them where 0.1 put them. It imports nothing of Effect: it must load whichever Effect is installed.
 *
 * @since 0.1.0
 */
export {
  /**
   * The `effect` package that `import "effect/..."` in the module at `from` (a `file:` URL) loads, found as Node
   * finds it, without loading it; `undefined` when there is none.
   *
   * @since 0.1.0
   * @category constructors
   */
  find,
  /**
   * The `effect` package a module would load: its version and folder.
   *
   * @since 0.1.0
   * @category models
   */
  type Found,
  /**
   * The installed entry's work: `refuseUnsupported`, then the package's `index.js` (next to `entry`), with
   * `require()` of an ES module.
   *
   * @since 0.1.0
   * @category utils
   */
  loadIndex,
  /**
   * The refusal: which package, the Effect found and where, the range it supports and what to install.
   *
   * @since 0.1.0
   * @category utils
   */
  message,
  /**
   * Throws an `Error` with `message` when the Effect that the package of `entry` would load is outside its
   * `peerDependencies` range.
   *
   * @since 0.1.0
   * @category utils
   */
  refuseUnsupported,
  /**
   * Whether `version` is in `range`, a caret (`^3.21.0`) or tilde (`~4.1.5`) range as Zett's `peerDependencies`
   * write them.
   *
   * @since 0.1.0
   * @category predicates
   */
  satisfies
} from "@zett/common/EffectVersion"
