/**
 * `@zett/common` is shared by the Effect 3 and Effect 4 lines of Zett: it may import nothing but its own
 * modules, so that it loads next to either Effect and pulls in no other package.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { assert, describe, it } from "vitest"

const root = Path.join(import.meta.dirname, "..")

const sources = (folder: string): Array<string> =>
  Fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(folder, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })

describe("@zett/common", () => {
  it("imports only its own modules, and depends on no package", () => {
    const files = sources(Path.join(root, "src"))
    assert.isAtLeast(files.length, 3)
    const foreign = files.flatMap((file) =>
      Array.from(Fs.readFileSync(file, "utf8").matchAll(/^(?:import|export)\b[^"\n]*\bfrom\s*"([^"]+)"|^import\s*"([^"]+)"|\bimport\(\s*"([^"]+)"/gm), (m) => m[1] ?? m[2] ?? m[3]!)
        .filter((specifier) => !specifier.startsWith("./") && !specifier.startsWith("../"))
        .map((specifier) => `${Path.relative(root, file)}: ${specifier}`)
    )
    assert.deepStrictEqual(foreign, [])
    const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
    assert.deepStrictEqual(
      [manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies],
      [undefined, undefined, undefined]
    )
  })
})
