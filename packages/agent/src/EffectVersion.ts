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
   * @since 0.1.0
   * @category constructors
   */
  find,
  /**
   * @since 0.1.0
   * @category models
   */
  type Found,
  /**
   * @since 0.1.0
   * @category utils
   */
  loadIndex,
  /**
   * @since 0.1.0
   * @category utils
   */
  message,
  /**
   * @since 0.1.0
   * @category utils
   */
  refuseUnsupported,
  /**
   * @since 0.1.0
   * @category predicates
   */
  satisfies
} from "@zett/common/EffectVersion"
