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
   * @since 1.0.0
   * @category constructors
   */
  find,
  /**
   * @since 1.0.0
   * @category models
   */
  type Found,
  /**
   * @since 1.0.0
   * @category utils
   */
  loadIndex,
  /**
   * @since 1.0.0
   * @category utils
   */
  message,
  /**
   * @since 1.0.0
   * @category utils
   */
  refuseUnsupported,
  /**
   * @since 1.0.0
   * @category predicates
   */
  satisfies
} from "@zett/common/EffectVersion"
