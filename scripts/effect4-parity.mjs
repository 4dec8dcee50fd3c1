// `node scripts/effect4-parity.mjs [--list]`: how far the Effect 4 line's tests have come to the 3 line's, by test
// title. For each package of both lines, the titles of the 3 line's tests (packages/<pkg>/test, and the tests of
// that package's behaviour that sit in other packages are not moved across) and how many of them a test of the 4
// line (effect4/packages/<pkg>/test, and effect4/test) carries word for word; `--list` prints the titles not found.
// Titles are read from the source (`it(`, `it.effect(`, `it.scoped(`, `it.live(`, `it.prop(`, `test(` with a
// string literal first), so a title built at run time is counted by its literal parts only.
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const list = process.argv.includes("--list")

const files = (dir) =>
  Fs.existsSync(dir)
    ? Fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith(".test.ts")).map((f) =>
      Path.join(dir, f)
    )
    : []

const titles = (file) =>
  Array.from(
    Fs.readFileSync(file, "utf8").matchAll(
      /\b(?:it|test)(?:\.(?:effect|scoped|live|scopedLive|prop|each\([^)]*\)))?(?:\.(?:skip|only|fails))?\(\s*(["'`])((?:\\.|(?!\1).)*)\1/gs
    ),
    (m) => m[2].replace(/\s+/g, " ").trim()
  )

const packages = Fs.readdirSync(Path.join(root, "packages")).filter((p) =>
  Fs.existsSync(Path.join(root, "packages", p, "test"))
)
const four = new Set([
  ...files(Path.join(root, "effect4", "test")),
  ...Fs.readdirSync(Path.join(root, "effect4", "packages")).flatMap((p) =>
    files(Path.join(root, "effect4", "packages", p, "test"))
  )
].flatMap(titles))
// not ported, by design, unless the 4 line has the package: the Effect-free package both lines share (its suite
// runs once), and the app and the providers that stay on the 3 line (`zett` moves at parity; Zett's providers
// only where Effect 4 has none that runs)
const apart = {
  common: "shared by both lines: one suite",
  cli: "the zett app stays on the 3 line until parity",
  "ai-amazon-bedrock": "a provider of the 3 line",
  "ai-chat-completions": "a provider of the 3 line",
  "ai-google": "a provider of the 3 line"
}
let total = 0
let found = 0
console.log("| package | 3 line's tests | carried on the 4 line | share |")
console.log("| --- | --- | --- | --- |")
for (const pkg of packages) {
  const own = files(Path.join(root, "packages", pkg, "test")).flatMap(titles)
  if (apart[pkg] !== undefined && !Fs.existsSync(Path.join(root, "effect4", "packages", pkg))) {
    console.log(`| ${pkg} | ${own.length} | (${apart[pkg]}) | |`)
    continue
  }
  const carried = own.filter((title) => four.has(title))
  total += own.length
  found += carried.length
  console.log(
    `| ${pkg} | ${own.length} | ${carried.length} | ${
      own.length === 0 ? "" : `${Math.round((100 * carried.length) / own.length)}%`
    } |`
  )
  if (list) { for (const title of own.filter((t) => !four.has(t))) console.log(`    not on the 4 line: ${title}`) }
}
console.log(`| the ported packages | ${total} | ${found} | ${Math.round((100 * found) / total)}% |`)
