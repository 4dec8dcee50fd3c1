/**
 * The Effect 4 line as a new user gets it: its packages (and `@zett/common`) built and packed, and installed into
 * a fresh app outside the repository with the root README.md's "Effect 4" install block as it is written (only the
 * `@zett/<name>@next` words, which are not on npm yet, become the paths of their tarballs), with `--prefer-online`
 * and no cache from outside the run. The app is compiled there under the strictest compiler settings users set, with
 * `skipLibCheck` off, and run with plain `node`: effect4/README.md's minimal app (an agent with the tools of a real
 * MCP server over stdio) and its app with an `effect/ai` `generateText` loop of its own over the same server.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const effect4 = Path.resolve(import.meta.dirname, "..")
const root = Path.resolve(effect4, "..")

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv }
) =>
  Effect.callback<Run>((resume) => {
    const child = ChildProcess.execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resume(Effect.succeed({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
          stdout,
          stderr
        }))
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

const ok = (result: Run, what: string) =>
  assert.strictEqual(result.code, 0, `${what}\n${result.stdout}\n${result.stderr}`)

/** The root README's install block titled "Effect 4…": its `npm install` lines, whole. */
export const installLines = (readme: string): ReadonlyArray<string> => {
  const block = /```sh\n# Effect 4[^\n]*\n([\s\S]*?)```/.exec(readme)
  if (block === null) throw new Error("README.md has no install block titled \"Effect 4…\"")
  return block[1]!.split("\n").filter((line) => line.startsWith("npm install "))
}

/** The root README's block of the samples' servers ("the servers of the samples"): its `npm install` lines. */
export const sampleServerLines = (readme: string): ReadonlyArray<string> => {
  const block = /```sh\n# the servers of the samples[^\n]*\n([\s\S]*?)```/.exec(readme)
  if (block === null) throw new Error("README.md has no install block titled \"the servers of the samples…\"")
  return block[1]!.split("\n").filter((line) => line.startsWith("npm install "))
}

/** `line` with each `@zett/<name>@next` word replaced by the path of its tarball. */
export const withTarballs = (line: string, tarballs: Readonly<Record<string, string>>): string =>
  line.replace(/(^|\s)(@zett\/[a-z0-9-]+)@next(?=\s|$)/g, (_whole, space: string, name: string) => {
    const tarball = tarballs[name]
    if (tarball === undefined) throw new Error(`no tarball for ${name}, which README.md installs for Effect 4`)
    return `${space}${tarball}`
  })

/** effect4/README.md's apps: the first `ts` block after each of these words, and the file it is compiled from. */
const samples = [
  { after: "A minimal app", file: "app.ts" },
  { after: "An app with its own `effect/ai` loop", file: "loop.ts" }
].map(({ after, file }) => {
  const text = Fs.readFileSync(Path.join(effect4, "README.md"), "utf8")
  const at = text.indexOf(after)
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(at))
  if (at === -1 || block === null) throw new Error(`effect4/README.md has no app after "${after}"`)
  const code = block[1]!
  // what it prints: its console.log line says so in a comment
  const prints = /console\.log\([^\n]*\/\/ (.+)$/m.exec(code)?.[1]
  if (prints === undefined) throw new Error(`effect4/README.md's app after "${after}" does not say what it prints`)
  return { after, file, code, prints: prints.trim() }
})

const strictTsconfig = {
  compilerOptions: {
    strict: true,
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    exactOptionalPropertyTypes: true,
    noPropertyAccessFromIndexSignature: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    types: ["node"],
    outDir: "out"
  },
  files: ["app.ts", "loop.ts"]
}

/** The public packages of this workspace: every package folder, and `@zett/common`, which it lists. */
const publicPackages = (): ReadonlyArray<string> => [
  "@zett/common",
  ...Fs.readdirSync(Path.join(effect4, "packages")).flatMap((folder) => {
    const file = Path.join(effect4, "packages", folder, "package.json")
    if (!Fs.existsSync(file)) return []
    const pkg = JSON.parse(Fs.readFileSync(file, "utf8")) as { readonly name: string; readonly private?: boolean }
    return pkg.private === true ? [] : [pkg.name]
  })
]

/** Every `effect` package installed anywhere under `modules`, by version. */
const effectCopies = (modules: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const visit = (dir: string, depth: number) => {
    if (depth > 6 || !Fs.existsSync(dir)) return
    for (const entry of Fs.readdirSync(dir)) {
      if (entry === ".bin" || entry === ".cache") continue
      const at = Path.join(dir, entry)
      if (entry.startsWith("@")) {
        visit(at, depth)
        continue
      }
      if (entry === "effect") {
        found.push(String(JSON.parse(Fs.readFileSync(Path.join(at, "package.json"), "utf8")).version))
      }
      visit(Path.join(at, "node_modules"), depth + 1)
    }
  }
  visit(modules, 0)
  return found
}

class Installed extends Context.Service<Installed, {
  readonly appDir: string
  readonly lines: ReadonlyArray<string>
  /** After the block's first line: the version of every `effect` installed. */
  readonly firstLineEffects: ReadonlyArray<string>
  /** Each of effect4/README.md's apps after the block's first line, as it ran. */
  readonly ran: ReadonlyArray<Run>
  /** After every line of the block: the version of every `effect` installed. */
  readonly allLinesEffects: ReadonlyArray<string>
}>()("Consumer/Installed") {}

const installed = Layer.effect(
  Installed,
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "zett-consumer-effect4-"))),
      (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
    )
    const tarballs = Path.join(dir, "tarballs")
    Fs.mkdirSync(tarballs)
    // what is packed is what was built: build first (incremental, nothing to do after `npm run test:effect4`'s tsc)
    ok(yield* run("npx", ["tsc", "-b", "tsconfig.json"], { cwd: effect4 }), "tsc -b")
    const names = publicPackages()
    const packed = yield* run(
      "npm",
      ["pack", ...names.flatMap((name) => ["-w", name]), "--pack-destination", tarballs, "--json"],
      { cwd: effect4 }
    )
    ok(packed, "npm pack")
    const packs = JSON.parse(packed.stdout) as ReadonlyArray<{ readonly name: string; readonly filename: string }>
    assert.deepStrictEqual(packs.map((p) => p.name).toSorted(), [...names].toSorted())
    const tarballOf = Object.fromEntries(packs.map((p) => [p.name, `../tarballs/${p.filename}`]))

    // a newcomer's npm: every version asked of the registry (a shared cache holds only immutable tarballs)
    const shared = process.env["ZETT_CONSUMER_SHARED"]
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      npm_config_cache: shared === undefined ? Path.join(dir, "npm-cache") : Path.join(shared, "npm-cache"),
      npm_config_prefer_online: "true",
      npm_config_prefer_offline: "false",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false"
    }
    const appDir = Path.join(dir, "app")
    Fs.mkdirSync(appDir)
    // what the compile needs (a TypeScript app has it), nothing of Effect; the `@zett/*` packages that others
    // depend on come from their tarballs, as they would come from the registry
    Fs.writeFileSync(
      Path.join(appDir, "package.json"),
      JSON.stringify(
        {
          name: "zett-consumer-effect4",
          private: true,
          type: "module",
          devDependencies: { "@types/node": "^22.19.0" },
          overrides: Object.fromEntries(packs.map((p) => [p.name, `file:../tarballs/${p.filename}`]))
        },
        null,
        2
      )
    )
    const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")
    const lines = installLines(readme)
    const install = (line: string) =>
      Effect.map(run("sh", ["-c", withTarballs(line, tarballOf)], { cwd: appDir, env }), (result) => ok(result, line))

    // the block's first line, and what the minimal app's server needs
    yield* install(lines[0]!)
    const firstLineEffects = effectCopies(Path.join(appDir, "node_modules"))
    yield* Effect.forEach(sampleServerLines(readme), install, { discard: true })
    const modules = Path.join(appDir, "node_modules")
    Fs.writeFileSync(Path.join(appDir, "tsconfig.json"), JSON.stringify(strictTsconfig, null, 2))
    for (const sample of samples) Fs.writeFileSync(Path.join(appDir, sample.file), sample.code)
    const tsc = Path.join(effect4, "node_modules", "typescript", "bin", "tsc")
    ok(yield* run(process.execPath, [tsc, "-p", "."], { cwd: appDir }), "tsc (the README's apps)")
    const ran = yield* Effect.forEach(
      samples,
      (sample) =>
        run(process.execPath, [Path.join("out", sample.file.replace(/\.ts$/, ".js"))], {
          cwd: appDir,
          env: { PATH: process.env["PATH"] ?? "", HOME: dir }
        })
    )
    yield* Effect.forEach(lines.slice(1), install, { discard: true })
    return { appDir, lines, firstLineEffects, ran, allLinesEffects: effectCopies(modules) }
  })
)

describe("the README's Effect 4 install block", () => {
  const readme = Fs.readFileSync(Path.join(root, "README.md"), "utf8")

  layer(installed, { timeout: "600 seconds", excludeTestServices: true })("in a fresh app", (it) => {
    it.effect("its first line installs exactly one effect, a 4.1", () =>
      Effect.gen(function*() {
        const { firstLineEffects } = yield* Installed
        assert.strictEqual(firstLineEffects.length, 1, `effect copies: ${firstLineEffects.join(", ")}`)
        assert.match(firstLineEffects[0]!, /^4\.1\./)
      }))

    for (const [i, sample] of samples.entries()) {
      it.effect(`effect4/README.md's app after "${sample.after}" compiles strictly against it, runs, and prints what it says`, () =>
        Effect.gen(function*() {
          const run = (yield* Installed).ran[i]!
          ok(run, `node ${sample.file}`)
          assert.strictEqual(run.stdout.trim(), sample.prints)
        }))
    }

    it.effect("every line of the block installs, and the app still has exactly one effect", () =>
      Effect.gen(function*() {
        const { allLinesEffects, lines } = yield* Installed
        assert.isAbove(lines.length, 1)
        assert.strictEqual(allLinesEffects.length, 1, `effect copies: ${allLinesEffects.join(", ")}`)
        assert.match(allLinesEffects[0]!, /^4\.1\./)
      }))
  })

  // a line that names a package this workspace does not have fails the install above too; this says which
  it.effect("names only packages of this line, each with the next tag", () =>
    Effect.sync(() => {
      const names = new Set(publicPackages())
      const zett = installLines(readme).flatMap((line) =>
        Array.from(line.matchAll(/@zett\/[a-z0-9-]+(@\S+)?/g), (m) => m[0])
      )
      assert.isAbove(zett.length, 0)
      for (const word of zett) {
        assert.match(word, /@next$/, `${word}: the 4 line is under the next tag`)
        assert.isTrue(names.has(word.slice(0, -"@next".length)), `${word}: not a package of effect4/`)
      }
    }))
})
