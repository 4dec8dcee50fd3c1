/**
 * The install lines of README.md as a newcomer copies them: the `sh` blocks whose first line is a `# ` title, each
 * `npm install` line of them as written. The `@zett/*` packages are not on npm: in a line they are the only words
 * replaced, by the paths of their packed tarballs.
 */
import * as Source from "@zett/testing-core/Source"
import * as Fs from "node:fs"
import * as Path from "node:path"

export interface Block {
  /** The block's first line, without `# `. */
  readonly title: string
  /** Its `npm install` lines, whole (with their comments, which the shell drops). */
  readonly lines: ReadonlyArray<string>
  /** Where the block starts in the README's text. */
  readonly offset: number
}

export const readme = (): string => Fs.readFileSync(Path.join(Source.root, "README.md"), "utf8")

/** Every titled `sh` block of `text` that holds `npm install` lines, in order. */
export const blocks = (text: string): ReadonlyArray<Block> =>
  Array.from(text.matchAll(/```sh\n# ([^\n]*)\n([\s\S]*?)```/g), (m) => ({
    title: m[1]!,
    lines: m[2]!.split("\n").filter((line) => line.startsWith("npm install ")),
    offset: m.index
  })).filter((block) => block.lines.length > 0)

/** The block titled with `title` at its start. */
export const block = (text: string, title: string): Block => {
  const found = blocks(text).find((b) => b.title.startsWith(title))
  if (found === undefined) throw new Error(`README.md has no install block titled "${title}…"`)
  return found
}

/** The words of a line the shell would run (its comment dropped). */
const words = (line: string): ReadonlyArray<string> => line.replace(/\s#.*$/, "").trim().split(/\s+/)

/** The names of the packages a line installs (`effect@~3.22` is `effect`). */
export const names = (line: string): ReadonlyArray<string> =>
  words(line).slice(2).filter((word) => !word.startsWith("-")).map((word) => {
    const at = word.indexOf("@", 1)
    return at === -1 ? word : word.slice(0, at)
  })

/** `line` with each `@zett/<name>` word replaced by the path of its tarball. */
export const withTarballs = (line: string, tarballs: Readonly<Record<string, string>>): string =>
  line.replace(/(^|\s)(@zett\/[a-z-]+)(?=\s|$)/g, (whole, space: string, name: string) => {
    const tarball = tarballs[name]
    if (tarball === undefined) throw new Error(`no tarball for ${name}, which README.md installs`)
    return `${space}${tarball}`
  })

/** The guides of docs/guides: their samples use what the README's install lines install. */
export const guides = (): ReadonlyArray<{ readonly file: string; readonly text: string }> => {
  const folder = Path.join(Source.root, "docs", "guides")
  return Fs.readdirSync(folder).filter((name) => name.endsWith(".md")).map((name) => ({
    file: Path.join("docs", "guides", name),
    text: Fs.readFileSync(Path.join(folder, name), "utf8")
  }))
}
