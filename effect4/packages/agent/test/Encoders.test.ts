/**
 * Names from outside (a server's, a tool's, a model's, a secret) never throw where they are encoded: the
 * encoders that throw on a lone surrogate (`encodeURIComponent`, `encodeURI`) are given well-formed strings
 * wherever the packages' sources call them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const packages = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "..")

const sources = (folder: string): Array<string> =>
  Fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(folder, entry.name)
    return entry.isDirectory() ? sources(path) : /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : []
  })

describe("encoders of names from outside", () => {
  const files = Fs.readdirSync(packages)
    .filter((name) => name !== "testing" && Fs.existsSync(Path.join(packages, name, "src")))
    .flatMap((name) => sources(Path.join(packages, name, "src")))

  it("the scan reads every package's sources", () => {
    // the Effect 4 line has the agent so far
    assert.isAtLeast(files.length, 15)
  })

  it("every encodeURIComponent and encodeURI takes a well-formed string (toWellFormed), never a raw one", () => {
    const raw = files.flatMap((file) =>
      Array.from(Fs.readFileSync(file, "utf8").matchAll(/\bencodeURI(?:Component)?\(([^\n]*)/g), (m) => m[1]!)
        .filter((argument) => !/^[^()]*\.toWellFormed\(\)\)/.test(argument))
        .map((argument) => `${Path.relative(packages, file)}: ${argument.slice(0, 60)}`)
    )
    assert.deepStrictEqual(raw, [])
  })

  it("encodeURIComponent throws on a lone surrogate, and the well-formed form does not", () => {
    assert.throws(() => encodeURIComponent("\ud800x"))
    assert.strictEqual(encodeURIComponent("\ud800x".toWellFormed()), "%EF%BF%BDx")
  })
})
