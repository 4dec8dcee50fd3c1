/** @internal */
import * as EditDistance from "../EditDistance.js"

/**
 * The `limit` names nearest to `name`: a name that contains it (or is contained in it) first, then by edit
 * distance, ties in the order given; case aside, as small models mix up case and separators.
 *
 * @internal
 */
export const closest = (name: string, names: Iterable<string>, limit = 3): Array<string> => {
  const lower = name.toLowerCase()
  return Array.from(names, (candidate, index) => {
    const other = candidate.toLowerCase()
    const contains = lower !== "" && (other.includes(lower) || lower.includes(other))
    return { candidate, index, score: EditDistance.levenshtein(name, candidate, { ignoreCase: true }) - (contains ? 1000 : 0) }
  })
    .sort((x, y) => x.score - y.score || x.index - y.index)
    .slice(0, limit)
    .map((x) => x.candidate)
}
