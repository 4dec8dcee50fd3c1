/** @internal */

/** Edit distance (insert, delete, substitute, each 1), case-insensitive: small models mix up case and separators. */
const distance = (a: string, b: string): number => {
  a = a.toLowerCase()
  b = b.toLowerCase()
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
 * The `limit` names nearest to `name`: a name that contains it (or is contained in it) first, then by edit
 * distance, ties in the order given.
 *
 * @internal
 */
export const closest = (name: string, names: Iterable<string>, limit = 3): Array<string> => {
  const lower = name.toLowerCase()
  return Array.from(names, (candidate, index) => {
    const other = candidate.toLowerCase()
    const contains = lower !== "" && (other.includes(lower) || lower.includes(other))
    return { candidate, index, score: distance(name, candidate) - (contains ? 1000 : 0) }
  })
    .sort((x, y) => x.score - y.score || x.index - y.index)
    .slice(0, limit)
    .map((x) => x.candidate)
}
