/**
 * How far apart two names are, for a "did you mean": the agent's answer to a call of a tool it does not
 * have, and the configuration reader's to an unknown key. The functions are `@zett/common`'s, the same module
 * the Effect 3 line uses.
 *
 * @example
 * ```ts
 * import { EditDistance } from "@zett/agent"
 *
 * EditDistance.levenshtein("argz", "args") // 1
 * EditDistance.nearest("comand", ["command", "args", "env"]) // "command"
 * ```
 *
 * @since 1.0.0
 */
export {
  /**
   * @since 1.0.0
   * @category utils
   */
  levenshtein,
  /**
   * @since 1.0.0
   * @category utils
   */
  nearest,
  /**
   * @since 1.0.0
   * @category models
   */
  type Options
} from "@zett/common/EditDistance"
