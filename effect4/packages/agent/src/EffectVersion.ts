/**
 * Which Effect a Zett package finds, and its refusal of any other line than the one it is written for. This line's
 * packages import modules of Effect 4 (`effect/Result`, `effect/unstable/...`) that Effect 3 does not have; next to
 * Effect 3 (`--legacy-peer-deps`), an import would fail with `ERR_MODULE_NOT_FOUND .../effect/dist/...`, which says
 * nothing of versions. Each package's installed entry (`entry.ts`) loads its index through `loadIndex`, which calls
 * `refuseUnsupported` before anything of Effect is loaded, so that such an import fails with one error naming the
 * version found and the range supported (`^4.1.0` for this package, `~4.1.5` for those on Effect 4's unstable
 * modules).
 *
 * The functions are `@zett/common`'s, the same module the Effect 3 line's entries refuse Effect 4 with. It imports
 * nothing of Effect: it must load whichever Effect is installed.
 *
 * @since 1.0.0
 */
export {
  /**
   * The `effect` package that `import "effect/..."` in the module at `from` (a `file:` URL) loads, found as Node
   * finds it, without loading it; `undefined` when there is none.
   *
   * @since 1.0.0
   * @category constructors
   */
  find,
  /**
   * The `effect` package a module would load: its version and folder.
   *
   * @since 1.0.0
   * @category models
   */
  type Found,
  /**
   * The installed entry's work: `refuseUnsupported`, then the package's `index.js` (next to `entry`), with
   * `require()` of an ES module.
   *
   * @since 1.0.0
   * @category utils
   */
  loadIndex,
  /**
   * The refusal: which package, the Effect found and where, the range it supports and what to install.
   *
   * @since 1.0.0
   * @category utils
   */
  message,
  /**
   * Throws an `Error` with `message` when the Effect that the package of `entry` would load is outside its
   * `peerDependencies` range.
   *
   * @since 1.0.0
   * @category utils
   */
  refuseUnsupported,
  /**
   * Whether `version` is in `range`, a caret (`^3.21.0`) or tilde (`~4.1.5`) range as Zett's `peerDependencies`
   * write them.
   *
   * @since 1.0.0
   * @category predicates
   */
  satisfies
} from "@zett/common/EffectVersion"
