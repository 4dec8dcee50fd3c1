/**
 * How far apart two names are, for a "did you mean": the agent's answer to a call of a tool it does not
 * have, and the configuration reader's to an unknown key. Both Effect lines of Zett use this one module.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Compares the lower-case forms (default false): a model or a hand-written file may get the case wrong. */
  readonly ignoreCase?: boolean | undefined
}

/**
 * The Levenshtein distance: the fewest single-character insertions, deletions and substitutions that turn
 * `self` into `that`.
 *
 * @example
 * ```ts
 * import { EditDistance } from "@zett/common"
 *
 * EditDistance.levenshtein("argz", "args") // 1
 * EditDistance.levenshtein("ENV", "env", { ignoreCase: true }) // 0
 * ```
 *
 * @since 0.1.0
 * @category utils
 */
export const levenshtein = (self: string, that: string, options?: Options): number => {
  const a = options?.ignoreCase === true ? self.toLowerCase() : self
  const b = options?.ignoreCase === true ? that.toLowerCase() : that
  // one row of the table at a time: the cost of turning a prefix of `a` into each prefix of `b`
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      )
    }
    previous = current
  }
  return previous[b.length]!
}

/**
 * The name of `candidates` nearest to `name`, when one is near enough to be what was meant: at most a third of
 * its length away (2 for a short name), case aside, and not a whole different name (`x` is not a misspelt `a`).
 *
 * @example
 * ```ts
 * import { EditDistance } from "@zett/common"
 *
 * EditDistance.nearest("comand", ["command", "args", "env"]) // "command"
 * EditDistance.nearest("x", ["a", "b"]) // undefined
 * ```
 *
 * @since 0.1.0
 * @category utils
 */
export const nearest = (name: string, candidates: Iterable<string>): string | undefined => {
  let best: { readonly name: string; readonly distance: number } | undefined
  for (const candidate of candidates) {
    const distance = levenshtein(name, candidate, { ignoreCase: true })
    const near = distance < candidate.length && distance <= Math.max(2, Math.floor(candidate.length / 3))
    if (near && (best === undefined || distance < best.distance)) best = { name: candidate, distance }
  }
  return best?.name
}

/**
 * The `limit` names nearest to `name`: a name that contains it (or is contained in it) first, then by edit
 * distance, ties in the order given; case aside, as small models mix up case and separators.
 *
 * @example
 * ```ts
 * import { EditDistance } from "@zett/common"
 *
 * EditDistance.closest("add", ["math__subtract", "math__add"]) // ["math__add", "math__subtract"]
 * ```
 *
 * @since 0.1.0
 * @category utils
 */
export const closest = (name: string, names: Iterable<string>, limit = 3): Array<string> => {
  const lower = name.toLowerCase()
  return Array.from(names, (candidate, index) => {
    const other = candidate.toLowerCase()
    const contains = lower !== "" && (other.includes(lower) || lower.includes(other))
    return { candidate, index, score: levenshtein(name, candidate, { ignoreCase: true }) - (contains ? 1000 : 0) }
  })
    .sort((x, y) => x.score - y.score || x.index - y.index)
    .slice(0, limit)
    .map((x) => x.candidate)
}
