/**
 * The refusal of an Effect outside a package's range, the mirror of the Effect 3 line's: `EffectVersion` itself
 * (`@zett/common`'s, shared by both lines), and this line's packages as an app outside the repository installs them
 * (their `package.json` and build copied into its `node_modules`) next to an `effect` of the other line, a package
 * whose manifest says 3.22.4, whose `exports` map is Effect 3's and whose modules are missing, as Effect 3's
 * `effect/Result` is.
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
const common = Path.join(root, "..", "packages", "common")

/** A temporary folder outside the repository, removed with the scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-effect-version-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)
const published = Fs.readdirSync(packages).filter((name) => {
  const manifest = Path.join(packages, name, "package.json")
  return Fs.existsSync(manifest) && JSON.parse(Fs.readFileSync(manifest, "utf8")).private !== true
})
// the agent host uses no unstable module of Effect 4 and takes any 4.1 or later; the packages on `effect/unstable`
// (the ai, http and process modules may change in a minor) pin 4.1
const rangeOf = (name: string) => name === "agent" ? "^4.1.0" : "~4.1.5"

const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
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

/**
 * An app with the built @zett/agent, @zett/mcp-config and @zett/common, and an `effect` package of `version` with no
 * modules: Effect 3's `exports` map (each module under dist/esm/ or dist/cjs/) for a 3, Effect 4's (under dist/)
 * otherwise.
 */
const appWith = (version: string) =>
  Effect.gen(function*() {
    const app = yield* tempDir
    for (const [name, folder] of [["agent", packages], ["mcp-config", packages], ["common", Path.dirname(common)]]) {
      const target = Path.join(app, "node_modules", "@zett", name!)
      Fs.mkdirSync(target, { recursive: true })
      Fs.copyFileSync(Path.join(folder!, name!, "package.json"), Path.join(target, "package.json"))
      Fs.cpSync(Path.join(folder!, name!, "build", "src"), Path.join(target, "build", "src"), { recursive: true })
    }
    const effect = Path.join(app, "node_modules", "effect")
    Fs.mkdirSync(Path.join(effect, "dist"), { recursive: true })
    const exports = version.startsWith("3.")
      ? { "./*": { import: "./dist/esm/*.js", default: "./dist/cjs/*.js" } }
      : { "./*": "./dist/*.js" }
    Fs.writeFileSync(
      Path.join(effect, "package.json"),
      JSON.stringify({ name: "effect", version, type: "module", exports })
    )
    Fs.writeFileSync(Path.join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }))
    return { app, effect }
  })

const importIn = (app: string, specifier: string) =>
  run(process.execPath, ["--input-type=module", "-e", `await import(${JSON.stringify(specifier)})`], app)

const build = (...projects: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const tsc = Path.join(root, "node_modules", "typescript", "bin", "tsc")
    const built = yield* run(process.execPath, [tsc, "-b", ...projects], root)
    assert.strictEqual(built.code, 0, built.stdout + built.stderr)
  })

describe("EffectVersion", () => {
  it("satisfies reads the caret ranges of the packages' peerDependencies", () => {
    assert.isTrue(EffectVersion.satisfies("^4.1.0", "4.1.0"))
    assert.isTrue(EffectVersion.satisfies("^4.1.0", "4.1.5"))
    assert.isTrue(EffectVersion.satisfies("^4.1.0", "4.2.0-beta.0"))
    assert.isFalse(EffectVersion.satisfies("^4.1.0", "4.0.9"))
    assert.isFalse(EffectVersion.satisfies("^4.1.0", "3.22.4"))
    assert.isFalse(EffectVersion.satisfies("^4.1.0", "5.0.0"))
    assert.isFalse(EffectVersion.satisfies("^4.1.0", "not a version"))
    // and the tilde ranges of the packages on Effect 4's unstable modules
    assert.isTrue(EffectVersion.satisfies("~4.1.5", "4.1.5"))
    assert.isTrue(EffectVersion.satisfies("~4.1.5", "4.1.9"))
    assert.isFalse(EffectVersion.satisfies("~4.1.5", "4.1.4"))
    assert.isFalse(EffectVersion.satisfies("~4.1.5", "4.2.0"))
    assert.isFalse(EffectVersion.satisfies("~4.1.5", "3.22.4"))
  })

  it("find names the effect package Node would load from a module, and its version", () => {
    const found = EffectVersion.find(import.meta.url)
    const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "node_modules", "effect", "package.json"), "utf8"))
    assert.deepStrictEqual(found, { version: manifest.version, path: Path.join(root, "node_modules", "effect") })
    assert.isTrue(manifest.version.startsWith("4."))
    assert.isUndefined(EffectVersion.find(pathToFileURL("/").href))
  })

  it("each published package is installed through its entry, which has exactly the names of its index", () => {
    assert.isAtLeast(published.length, 8)
    for (const name of published) {
      const manifest = JSON.parse(Fs.readFileSync(Path.join(packages, name, "package.json"), "utf8"))
      assert.strictEqual(manifest.exports["."].default, "./build/src/entry.js", name)
      // bundlers read the `module` condition: the index, whose imports they follow
      assert.strictEqual(manifest.exports["."].module, "./build/src/index.js", name)
      assert.deepStrictEqual(manifest.sideEffects, ["./build/src/entry.js"], name)
      assert.strictEqual(manifest.peerDependencies.effect, rangeOf(name), name)
      // the entry's guard is @zett/agent's: a package that imports it depends on it
      if (name !== "agent") assert.strictEqual(manifest.dependencies["@zett/agent"], "^1.0.0-next.0", name)
      const names = (file: string) =>
        Array.from(
          Fs.readFileSync(Path.join(packages, name, "src", file), "utf8").matchAll(/^export \* as (\w+) from/gm),
          (m) => m[1]
        )
      const entry = /export const \{([^}]*)\} = loadIndex</.exec(
        Fs.readFileSync(Path.join(packages, name, "src", "entry.ts"), "utf8")
      )
      assert.isNotNull(entry, name)
      // the same names, in any order (the entry's are sorted; the index's are grouped)
      assert.deepStrictEqual(
        entry![1]!.split(",").map((n) => n.trim()).filter((n) => n !== "").sort(),
        names("index.ts").sort(),
        name
      )
    }
  })
})

describe("a Zett package next to an Effect it does not support", () => {
  it.effect(
    "Effect 3: the import fails with one error naming the version found and the range, not a missing module",
    () =>
      Effect.gen(function*() {
        yield* build("packages/agent/tsconfig.src.json", "packages/mcp-config/tsconfig.src.json")
        const { app, effect } = yield* appWith("3.22.4")
        const expected = (range: string) =>
          `needs effect ${range}; found effect 3.22.4 at ${Fs.realpathSync(effect)}. ` +
          `Install effect@"${range}" and the @effect/* packages of that line.`
        for (const [pkg, range] of [["@zett/mcp-config", "~4.1.5"], ["@zett/agent", "^4.1.0"]] as const) {
          const result = yield* importIn(app, pkg)
          assert.strictEqual(result.code, 1, pkg)
          assert.include(result.stderr, `Error: ${pkg} ${expected(range)}`, pkg)
          assert.strictEqual(result.stderr.split(expected(range)).length - 1, 1, result.stderr)
          assert.notInclude(result.stderr, "ERR_MODULE_NOT_FOUND", pkg)
          assert.notInclude(result.stderr, "ERR_PACKAGE_PATH_NOT_EXPORTED", pkg)
        }
        // required from CommonJS (require of an ES module): the same refusal
        const required = yield* run(process.execPath, ["-e", `require("@zett/mcp-config")`], app)
        assert.strictEqual(required.code, 1)
        assert.include(required.stderr, `Error: @zett/mcp-config ${expected("~4.1.5")}`)
        assert.notInclude(required.stderr, "ERR_MODULE_NOT_FOUND")
        // Effect 4 before 4.1.5 is outside the range of the packages on its unstable modules too
        const old = yield* appWith("4.1.4")
        const refused = yield* importIn(old.app, "@zett/mcp-config")
        assert.include(refused.stderr, "@zett/mcp-config needs effect ~4.1.5; found effect 4.1.4")
      })
  )

  it.effect("an Effect in the range is not refused: the import goes on to load it", () =>
    Effect.gen(function*() {
      yield* build("packages/agent/tsconfig.src.json")
      const { app } = yield* appWith("4.1.5")
      const result = yield* importIn(app, "@zett/agent")
      // this effect has no modules, so loading them fails; what matters is that nothing refused the version
      assert.strictEqual(result.code, 1)
      assert.notInclude(result.stderr, "needs effect")
      assert.include(result.stderr, "ERR_MODULE_NOT_FOUND")
      assert.include(result.stderr, Path.join("node_modules", "effect", "dist"))
    }))
})
