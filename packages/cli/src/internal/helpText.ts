/**
 * `@effect/cli`'s help, laid out for a terminal: each line wrapped at `width` columns where it is longer (a
 * paragraph's continuation keeps its indent; the usage line breaks between its options, never inside one), and
 * an option that may be repeated shown as optional (`[--config text]...`, not `--config text...`, which reads as
 * required).
 *
 * @internal
 */

/** The words of a usage line: `[...]` and `(...)` groups stay whole. */
const usageWords = (line: string): Array<string> => {
  const words: Array<string> = []
  let depth = 0
  let word = ""
  for (const char of line) {
    if (char === "[" || char === "(") depth++
    if (char === "]" || char === ")") depth = Math.max(0, depth - 1)
    if (char === " " && depth === 0) {
      if (word !== "") words.push(word)
      word = ""
    } else {
      word += char
    }
  }
  if (word !== "") words.push(word)
  return words
}

const wrap = (words: ReadonlyArray<string>, first: string, rest: string, width: number): Array<string> => {
  const lines: Array<string> = []
  let line = first
  let empty = true
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line)
      line = rest
      empty = true
    }
    line += empty ? word : ` ${word}`
    empty = false
  }
  lines.push(line)
  return lines
}

/** The help text `text` laid out for `width` columns. */
export const layout = (text: string, width: number): string =>
  text.split("\n").flatMap((line) => {
    if (line.startsWith("$ ")) {
      // `--config text...` → `[--config text]...`: an option repeated zero or more times is optional
      const usage = line.replace(/(?<=^|\s)(--[\w-]+ \w+)\.\.\.(?=\s|$)/g, "[$1]...")
      return usage.length <= width ? [usage] : wrap(usageWords(usage.slice(2)), "$ ", "    ", width)
    }
    if (line.length <= width) return [line]
    const indent = /^ */.exec(line)![0]
    return wrap(line.slice(indent.length).split(/ +/), indent, indent, width)
  }).join("\n")

/** Whether `text` is a help page (it has a usage section), not a completion script or a version. */
export const isHelp = (text: string): boolean => /(^|\n)(\u001b\[[0-9;]*m)*USAGE(\u001b\[[0-9;]*m)*\n/.test(text)
