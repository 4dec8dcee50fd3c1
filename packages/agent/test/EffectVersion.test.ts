/**
 * The refusal of an Effect outside a package's range: `EffectVersion` itself, and the packages as an app
 * outside the repository installs them (their `package.json` and build copied into its `node_modules`) next to
 * an `effect` of another line, a package whose manifest says 4.0.0 and whose modules are missing as Effect 4's
 * `effect/Either` is.
 */
import { assert, describe, it } from "@effect/vitest"
import { EffectVersion } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const root = Path.resolve(import.meta.dirname, "..", "..", "..")
const packages = Path.join(root, "packages")

/** A temporary folder outside the repository, removed with the scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-effect-version-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)
// @zett/common imports nothing of Effect (its own test checks): it loads next to either line and refuses none
const effectFree = ["common"]
const published = Fs.readdirSync(packages).filter((name) => {
  const manifest = Path.join(packages, name, "package.json")
  return Fs.existsSync(manifest) && JSON.parse(Fs.readFileSync(manifest, "utf8")).private !== true &&
    !effectFree.includes(name)
})

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.async<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = ChildProcess.execFile(
      command,
      args,
      { cwd, timeout: 120_000 },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
        )
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** An app with the built @zett/agent, @zett/mcp-config and @zett/common, and an `effect` package of `version` with no modules. */
const appWith = (version: string) =>
  Effect.gen(function*() {
    const app = yield* tempDir
    // @zett/common too: the entries' guard is its EffectVersion, and every package depends on it
    for (const name of ["agent", "mcp-config", "common"]) {
      const target = Path.join(app, "node_modules", "@zett", name)
      Fs.mkdirSync(target, { recursive: true })
      Fs.copyFileSync(Path.join(packages, name, "package.json"), Path.join(target, "package.json"))
      Fs.cpSync(Path.join(packages, name, "build", "src"), Path.join(target, "build", "src"), { recursive: true })
    }
    const effect = Path.join(app, "node_modules", "effect")
    Fs.mkdirSync(Path.join(effect, "dist"), { recursive: true })
    // Effect 4's map: every module under dist/, where there is no Either.js (nor anything else here)
    Fs.writeFileSync(
      Path.join(effect, "package.json"),
      JSON.stringify({ name: "effect", version, type: "module", exports: { "./*": "./dist/*.js" } })
    )
    Fs.writeFileSync(Path.join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }))
    return { app, effect }
  })

const importIn = (app: string, specifier: string) =>
  run(process.execPath, ["--input-type=module", "-e", `await import(${JSON.stringify(specifier)})`], app)

describe("EffectVersion", () => {
  it("satisfies reads the caret ranges of the packages' peerDependencies", () => {
    assert.isTrue(EffectVersion.satisfies("^3.21.0", "3.21.0"))
    assert.isTrue(EffectVersion.satisfies("^3.21.0", "3.22.4"))
    assert.isTrue(EffectVersion.satisfies("^3.21.0", "3.21.1-beta.0"))
    assert.isFalse(EffectVersion.satisfies("^3.21.0", "3.20.9"))
    assert.isFalse(EffectVersion.satisfies("^3.21.0", "4.0.0"))
    assert.isFalse(EffectVersion.satisfies("^3.21.0", "4.0.0-beta.12"))
    assert.isFalse(EffectVersion.satisfies("^3.21.0", "2.4.0"))
    assert.isFalse(EffectVersion.satisfies("^3.21.0", "not a version"))
  })

  it("find names the effect package Node would load from a module, and its version", () => {
    const found = EffectVersion.find(import.meta.url)
    const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "node_modules", "effect", "package.json"), "utf8"))
    assert.deepStrictEqual(found, { version: manifest.version, path: Path.join(root, "node_modules", "effect") })
    assert.isUndefined(EffectVersion.find(pathToFileURL("/").href))
  })

  it("each published package is installed through its entry, which has exactly the names of its index", () => {
    assert.isAtLeast(published.length, 10)
    for (const name of published) {
      const manifest = JSON.parse(Fs.readFileSync(Path.join(packages, name, "package.json"), "utf8"))
      assert.strictEqual(manifest.exports["."].default, "./build/src/entry.js", name)
      // bundlers read the `module` condition: the index, whose imports they follow
      assert.strictEqual(manifest.exports["."].module, "./build/src/index.js", name)
      assert.strictEqual(manifest.peerDependencies.effect, "^3.21.0", name)
      const names = (file: string) =>
        Array.from(
          Fs.readFileSync(Path.join(packages, name, "src", file), "utf8").matchAll(/^export \* as (\w+) from/gm),
          (m) => m[1]
        )
      const entry = /export const \{([^}]*)\} = loadIndex</.exec(
        Fs.readFileSync(Path.join(packages, name, "src", "entry.ts"), "utf8")
      )
      assert.isNotNull(entry, name)
      // the same names, in any order (the entry's are sorted as the linter asks; the index's are grouped)
      assert.deepStrictEqual(
        entry![1]!.split(",").map((n) => n.trim()).filter((n) => n !== "").sort(),
        names("index.ts").sort(),
        name
      )
    }
  })
})

describe("a Zett package next to an Effect it does not support", () => {
  it.scoped(
    "Effect 4: the import fails with one error naming the version found and the range, not a missing module",
    () =>
      Effect.gen(function*() {
        const tsc = Path.join(root, "node_modules", "typescript", "bin", "tsc")
        const built = yield* run(process.execPath, [
          tsc,
          "-b",
          "packages/agent/tsconfig.src.json",
          "packages/mcp-config/tsconfig.src.json"
        ], root)
        assert.strictEqual(built.code, 0, built.stdout + built.stderr)
        const { app, effect } = yield* appWith("4.0.0")
        const expected = `needs effect ^3.21.0; found effect 4.0.0 at ${Fs.realpathSync(effect)}. ` +
          `Install effect@"^3.21.0" and the @effect/* packages of that line.`
        for (const pkg of ["@zett/mcp-config", "@zett/agent"]) {
          const result = yield* importIn(app, pkg)
          assert.strictEqual(result.code, 1, pkg)
          assert.include(result.stderr, `Error: ${pkg} ${expected}`, pkg)
          assert.strictEqual(result.stderr.split(expected).length - 1, 1, result.stderr)
          assert.notInclude(result.stderr, "ERR_MODULE_NOT_FOUND", pkg)
        }
        // required from CommonJS (require of an ES module): the same refusal
        const required = yield* run(process.execPath, ["-e", `require("@zett/mcp-config")`], app)
        assert.strictEqual(required.code, 1)
        assert.include(required.stderr, `Error: @zett/mcp-config ${expected}`)
        assert.notInclude(required.stderr, "ERR_MODULE_NOT_FOUND")
        // Effect 3 before 3.21 is outside the range too
        const old = yield* appWith("3.20.0")
        const refused = yield* importIn(old.app, "@zett/mcp-config")
        assert.include(refused.stderr, "@zett/mcp-config needs effect ^3.21.0; found effect 3.20.0")
      })
  )

  it.scoped("an Effect in the range is not refused: the import goes on to load it", () =>
    Effect.gen(function*() {
      const tsc = Path.join(root, "node_modules", "typescript", "bin", "tsc")
      const built = yield* run(process.execPath, [tsc, "-b", "packages/agent/tsconfig.src.json"], root)
      assert.strictEqual(built.code, 0, built.stdout + built.stderr)
      const { app } = yield* appWith("3.22.4")
      const result = yield* importIn(app, "@zett/agent")
      // this effect has no modules, so loading them fails; what matters is that nothing refused the version
      assert.strictEqual(result.code, 1)
      assert.notInclude(result.stderr, "needs effect")
      assert.include(result.stderr, "ERR_MODULE_NOT_FOUND")
      assert.include(result.stderr, Path.join("node_modules", "effect", "dist"))
    }))
})
