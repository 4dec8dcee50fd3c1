/**
 * The core package stays neutral: the 3 line's checks of its sources (no Node module, no platform or driver package,
 * only types from the SDK, no side table) and of its tests (no driver and no SDK, themselves or through this line's
 * `@zett/testing-core`; no driver among the dependencies), every assertion kept.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const test = Path.dirname(fileURLToPath(import.meta.url))
const src = Path.join(test, "..", "src")
const testingCore = Path.join(test, "..", "..", "testing-core")
const testing = Path.join(testingCore, "src")

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

describe("the core's tests", () => {
  const driverOrSdk = (from: string) => from.startsWith("@modelcontextprotocol/") || from.startsWith("@zett/mcp-")

  /** What a module of `@zett/testing-core` imports of a driver or the SDK, itself or through the modules it imports. */
  const reaches = (module: string, seen: Set<string> = new Set()): Array<string> => {
    if (seen.has(module)) return []
    seen.add(module)
    return imports(Fs.readFileSync(Path.join(testing, `${module}.ts`), "utf8")).flatMap(({ from }) =>
      driverOrSdk(from)
        ? [`${module}: ${from}`]
        : from.startsWith("./")
        ? reaches(from.slice(2).replace(/\.js$/, ""), seen)
        : []
    )
  }

  it("import no driver and no SDK, themselves or through @zett/testing-core, and nothing of @zett/testing", () => {
    const files = sources(test)
    assert.isAbove(files.length, 10)
    const found = files.flatMap((file) =>
      imports(Fs.readFileSync(file, "utf8")).flatMap(({ from }) =>
        driverOrSdk(from) || from.startsWith("@zett/testing/")
          ? [`${Path.relative(test, file)}: ${from}`]
          : from.startsWith("@zett/testing-core/")
          ? reaches(from.slice("@zett/testing-core/".length)).map((path) => `${Path.relative(test, file)}: ${path}`)
          : []
      )
    )
    assert.deepStrictEqual(found, [])
  })

  it("need no driver installed: the core's dev dependencies and @zett/testing-core's dependencies name none", () => {
    const dependencies = (folder: string) => {
      const pkg = JSON.parse(Fs.readFileSync(Path.join(folder, "package.json"), "utf8"))
      return Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })
    }
    const names = [...dependencies(Path.join(test, "..")), ...dependencies(testingCore)]
    assert.include(names, "@zett/testing-core")
    assert.deepStrictEqual(names.filter((name) => name.startsWith("@zett/mcp-") || name === "@zett/testing"), [])
  })
})
