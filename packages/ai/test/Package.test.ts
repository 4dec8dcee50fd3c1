/**
 * What installing `@zett/ai` asks for: `AiModel` needs `@effect/ai` and no provider, so the package neither
 * imports a provider package nor names one among its peers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const providers = [
  "@effect/ai-openai",
  "@effect/ai-anthropic",
  "@effect/ai-google",
  "@effect/ai-amazon-bedrock",
  "@effect/platform-node"
]

const sources = (dir: string): Array<string> =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(Path.join(dir, entry.name))
      : entry.name.endsWith(".ts")
      ? [Path.join(dir, entry.name)]
      : []
  )

describe("the @zett/ai package", () => {
  it("imports no provider package and names none among its peers", () => {
    const imported = sources(Path.join(root, "src")).flatMap((file) =>
      // the code, not the examples of its documentation
      [
        ...Fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").matchAll(
          /from "([^"]+)"|import\("([^"]+)"\)/g
        )
      ]
        .map((match) => match[1] ?? match[2] ?? "")
        .filter((specifier) => providers.some((name) => specifier === name || specifier.startsWith(`${name}/`)))
        .map((specifier) => `${Path.relative(root, file)}: ${specifier}`)
    )
    assert.deepStrictEqual(imported, [])
    const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
    assert.deepStrictEqual(Object.keys(manifest.peerDependencies).filter((name) => providers.includes(name)), [])
    assert.deepStrictEqual(Object.keys(manifest.peerDependencies).sort(), [
      "@effect/ai",
      "@effect/experimental",
      "@effect/platform",
      "effect"
    ])
  })
})
