/**
 * The core package stays neutral: the 3 line's checks of its sources (no Node module, no platform or driver package,
 * only types from the SDK, no side table), every assertion kept. The 3 line's checks of its tests (no driver or SDK
 * through `@zett/testing-core`) have no counterpart yet: this line's core tests take types from the SDK in four
 * files and there is no `@zett/testing-core` on this line.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const test = Path.dirname(fileURLToPath(import.meta.url))
const src = Path.join(test, "..", "src")

const sources = (folder: string): Array<string> =>
  Fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(folder, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/** Every import and export-from statement of a file, whole (one may span lines). */
const imports = (text: string) =>
  Array.from(text.matchAll(/^(?:import|export)[^;]*?from\s+"([^"]+)"/gms), (m) => ({ statement: m[0], from: m[1]! }))

describe("the core package", () => {
  const files = sources(src)

  it("has sources to check", () => {
    assert.isAbove(files.length, 10)
  })

  it("imports no Node module, no Node platform package and no driver package", () => {
    const found = files.flatMap((file) =>
      imports(Fs.readFileSync(file, "utf8"))
        .filter(({ from }) =>
          from.startsWith("node:") || from.startsWith("@effect/platform-node") || from.startsWith("@zett/mcp-")
        )
        .map(({ from }) => `${Path.relative(src, file)}: ${from}`)
    )
    assert.deepStrictEqual(found, [])
  })

  it("takes only types from the MCP SDK", () => {
    const found = files.flatMap((file) =>
      imports(Fs.readFileSync(file, "utf8"))
        .filter(({ from, statement }) =>
          from.startsWith("@modelcontextprotocol/") && !/^(import|export) type\b/.test(statement)
        )
        .map(({ from }) => `${Path.relative(src, file)}: ${from}`)
    )
    assert.deepStrictEqual(found, [])
  })

  it("keeps no side table: no WeakMap, and no Map or Set at module level", () => {
    const found = files.flatMap((file) =>
      Fs.readFileSync(file, "utf8").split("\n").flatMap((line, i) =>
        /\bWeak(Map|Set)\b/.test(line) || /^(export )?(const|let|var) [^=]+= new (Map|Set)\b/.test(line)
          ? [`${Path.relative(src, file)}:${i + 1}: ${line.trim()}`]
          : []
      )
    )
    assert.deepStrictEqual(found, [])
  })
})
