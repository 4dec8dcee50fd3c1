/**
 * How far apart two names are, for a "did you mean": the agent's answer to a call of a tool it does not
 * have, and the configuration reader's to an unknown key. The functions live in `@zett/common`, which both
 * Effect lines of Zett use; this module keeps them where 0.1 put them.
 *
 * @example
 * ```ts
 * import { EditDistance } from "@zett/agent"
 *
 * EditDistance.levenshtein("argz", "args") // 1
 * EditDistance.nearest("comand", ["command", "args", "env"]) // "command"
 * ```
 *
 * @since 0.1.0
 */
export {
  /**
   * @since 0.1.0
   * @category utils
   */
  levenshtein,
  /**
   * @since 0.1.0
   * @category utils
   */
  nearest,
  /**
   * @since 0.1.0
   * @category models
   */
  type Options
} from "@zett/common/EditDistance"
