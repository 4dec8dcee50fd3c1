/**
 * `@zett/common` is shared by the Effect 3 and Effect 4 lines of Zett: it imports no Effect (so it loads next to
 * either), no Node module (the core packages that use it run anywhere; only `EffectVersion`, the installed entries'
 * guard, which the index does not export, uses Node's), nothing it does not declare, and keeps no side table (as the
 * core package's own rule says).
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
  const files = sources(Path.join(root, "src"))
  const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
  const declared = Object.keys(manifest.dependencies ?? {})

  it("depends on no package: npm installs none for it where the Effect 4 workspace lists it, outside that root", () => {
    assert.isAtLeast(files.length, 3)
    assert.deepStrictEqual(
      [manifest.dependencies, manifest.peerDependencies, manifest.optionalDependencies],
      [undefined, undefined, undefined]
    )
  })

  it("imports only its own modules: no Effect, no Node module (but in EffectVersion), no other package", () => {
    const foreign = files.flatMap((file) =>
      Array.from(
        Fs.readFileSync(file, "utf8").matchAll(
          /^(?:import|export)\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\}|\w+)(?:\s*,\s*\{[^}]*\})?\s+from\s*"([^"]+)"|^import\s*"([^"]+)"|\bimport\(\s*"([^"]+)"/gm
        ),
        (m) => m[1] ?? m[2] ?? m[3]!
      )
        .filter((specifier) => !specifier.startsWith("./") && !specifier.startsWith("../"))
        // the installed entries' guard runs on Node only, and the index does not export it (checked below)
        .filter((specifier) => !(Path.basename(file) === "EffectVersion.ts" && specifier.startsWith("node:")))
        .filter((specifier) => !declared.some((name) => specifier === name || specifier.startsWith(`${name}/`)))
        .map((specifier) => `${Path.relative(root, file)}: ${specifier}`)
    )
    assert.deepStrictEqual(foreign, [])
  })

  it("EffectVersion, the one module on Node's modules, is not in the index: importing @zett/common needs no Node", () => {
    const index = Fs.readFileSync(Path.join(root, "src", "index.ts"), "utf8")
    assert.include(index, "export * as EditDistance")
    assert.notInclude(index, "EffectVersion")
    assert.deepStrictEqual(
      files.filter((file) => /from\s*"node:/.test(Fs.readFileSync(file, "utf8"))).map((file) =>
        Path.relative(root, file)
      ),
      [Path.join("src", "EffectVersion.ts")]
    )
  })

  it("keeps no side table: no WeakMap, and no Map or Set at module level", () => {
    const found = files.flatMap((file) =>
      Fs.readFileSync(file, "utf8").split("\n").flatMap((line, i) =>
        /\bWeak(Map|Set)\b/.test(line) || /^(export )?(const|let|var) [^=]+= new (Map|Set)\b/.test(line)
          ? [`${Path.relative(root, file)}:${i + 1}: ${line.trim()}`]
          : []
      )
    )
    assert.deepStrictEqual(found, [])
  })
})
