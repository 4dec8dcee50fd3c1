/**
 * Zett as a new user gets it: the public packages are built and packed, and installed into fresh apps outside the
 * repository with README.md's install lines as they are written (utils/installLines.ts: only the `@zett/*` names,
 * which are not on npm, become the paths of their tarballs), for each Effect minor the README has a block for, with
 * `--prefer-online` and no cache from outside the run, so that a registry that moved is seen the day it moves. The apps are
 * compiled there under the strictest compiler settings users set and run with plain `node` (ESM and `require`).
 * The installed `zett` runs too.
 */
import { assert, describe, it as plain, layer } from "@effect/vitest"
import * as Source from "@zett/testing-core/Source"
import * as TempDir from "@zett/testing-core/TempDir"
import * as FakeProvider from "@zett/testing/FakeProvider"
import { httpFault, withMarker } from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import * as RedisServer from "@zett/testing/RedisServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as InstallLines from "./utils/installLines.js"

// The README's install blocks, by Effect minor (ZETT_CONSUMER_MINORS, a comma-separated list). By default the one
// this workspace is not on, which gets the closest look (every sample compiled against it); `npm run
// test:node-versions` takes the other on its Node lines, so that CI, which runs both, installs each block once.
const allMinors = ["3.21", "3.22"] as const
type Minor = typeof allMinors[number]
const oldMinor: Minor = "3.21"
const minors: ReadonlyArray<Minor> = allMinors.filter((minor) =>
  (process.env["ZETT_CONSUMER_MINORS"] ?? oldMinor).split(",").includes(minor)
)
// the app the runtime checks (the packed packages, the installed zett) run in
const appMinor: Minor = minors.includes(oldMinor) ? oldMinor : minors[0]!

/** What an app with servers written in code does not install. */
const notCodeOnly = ["ioredis", "jsonc-parser", "dotenv", "@zett/mcp-config", "@zett/mcp-redis", "@zett/cli"]

const publicPackages = [
  "common",
  "agent",
  "mcp",
  "mcp-auth",
  "mcp-node",
  "mcp-config",
  "mcp-redis",
  "ai",
  "ai-chat-completions",
  "ai-google",
  "ai-amazon-bedrock",
  "cli"
] as const

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
  Effect.async<Run>((resume) => {
    const child = ChildProcess.execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({
            code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
            stdout,
            stderr
          })
        )
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The installed `zett` (built JavaScript, no tsx), as `npx` finds it in the app. */
const zett = (appDir: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  run("npx", ["--no-install", "zett", ...args], { cwd: appDir, env })

const ok = (result: Run, what: string) =>
  assert.strictEqual(result.code, 0, `${what}\n${result.stdout}\n${result.stderr}`)

const npm = (args: ReadonlyArray<string>, cwd: string) => run("npm", [...args, "--no-audit", "--no-fund"], { cwd })

/** The README's minimal app: the first `ts` block after "A minimal app". */
const minimalApp = (() => {
  const text = InstallLines.readme()
  const at = text.indexOf("A minimal app")
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(at))
  if (at === -1 || block === null) throw new Error("README.md has no minimal app")
  return block[1]!
})()

const app = `import { Agent, type Message, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig, McpServers } from "@zett/mcp"
import { NodeMcpExtension } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createRequire } from "node:module"
import * as Path from "node:path"

const require = createRequire(import.meta.url)
const demoServer = Path.join(Path.dirname(require.resolve("@zett/mcp/package.json")), "examples", "demo-server.mjs")
const marker = process.env["ZETT_TEST_MARKER"] ?? ""

const McpLive = NodeMcpExtension.layer({ extension: { callTimeout: "30 seconds" } }).pipe(
  Layer.provide(McpServers.layer([
    McpServerConfig.stdio({ name: "demo", command: process.execPath, args: [demoServer], env: { ZETT_TEST_MARKER: marker } })
  ]))
)

const model = ScriptedModel.layer([
  { toolCalls: [{ name: "demo__add", arguments: { a: 2, b: 40 } }] },
  (request) => {
    const result = request.messages.at(-1) as Message.ToolMessage
    return { text: \`tool result: \${JSON.stringify(result.content)}\` }
  }
])

const AgentLive = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
  Layer.provide(McpLive),
  Layer.provide(model)
)

const reply = await Effect.runPromise(Agent.run("What is 2 + 40?").pipe(Effect.provide(AgentLive)))
console.log(reply.content)
`

const appCjs = `const { McpServerConfig, McpTool } = require("@zett/mcp")
const { Scrubber } = require("@zett/agent")
const server = McpServerConfig.stdio({ name: "demo", command: "node", env: { TOKEN: "cjs-secret-1234" } })
console.log(server.name, McpTool.exposedName("demo", "add", { namespace: true }), Scrubber.make(["cjs-secret-1234"]).scrub("a cjs-secret-1234"))
`

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
  files: ["app.ts"]
}

interface Pack {
  readonly name: string
  readonly filename: string
  readonly files: ReadonlyArray<{ readonly path: string }>
}

/** The apps of one Effect minor: one with the first line of its README block, one with every line. */
interface Apps {
  readonly appDir: string
  /** After the block's first line (and the samples' line): the packages of `notCodeOnly` that were installed. */
  readonly codeOnlyExtras: ReadonlyArray<string>
  /** After the block's first line: the minor of the Effect installed. */
  readonly codeOnlyEffect: string
  /** The README's minimal app after the block's first line, as it ran. */
  readonly minimal: Run
}

/**
 * `ZETT_CONSUMER_SHARED` (.ci/run sets it for the three runs of this file: `npm test`, then Node 22 and 24): a folder
 * where the first run leaves the packed packages and its npm cache, so the packages are built and packed once per CI
 * run. Unset, every run builds, packs and starts from an empty cache.
 */
const shared = process.env["ZETT_CONSUMER_SHARED"]

/** The public packages built and packed, their tarballs copied into `tarballs`. */
const packed = (tarballs: string) =>
  Effect.gen(function*() {
    const packsFile = shared === undefined ? undefined : Path.join(shared, "tarballs", "packs.json")
    if (packsFile !== undefined && Fs.existsSync(packsFile)) {
      const packs = JSON.parse(Fs.readFileSync(packsFile, "utf8")) as ReadonlyArray<Pack>
      for (const pack of packs) {
        Fs.copyFileSync(Path.join(Path.dirname(packsFile), pack.filename), Path.join(tarballs, pack.filename))
      }
      return packs
    }
    ok(yield* npm(["run", "build"], Source.root), "npm run build")
    const result = yield* npm(
      ["pack", ...publicPackages.flatMap((name) => ["-w", `@zett/${name}`]), "--pack-destination", tarballs, "--json"],
      Source.root
    )
    ok(result, "npm pack")
    const packs = JSON.parse(result.stdout) as ReadonlyArray<Pack>
    if (packsFile !== undefined) {
      Fs.mkdirSync(Path.dirname(packsFile), { recursive: true })
      for (const pack of packs) {
        Fs.copyFileSync(Path.join(tarballs, pack.filename), Path.join(Path.dirname(packsFile), pack.filename))
      }
      Fs.writeFileSync(packsFile, JSON.stringify(packs))
    }
    return packs
  })

/** The packages built, packed and installed into apps outside the repository, once for all the tests here. */
class Installed extends Context.Tag("Consumer/Installed")<Installed, {
  /** The temporary folder: the tarballs, the apps, and the apps' HOME. */
  readonly dir: string
  readonly apps: Readonly<Record<Minor, Apps>>
  readonly packs: ReadonlyArray<Pack>
}>() {}

const installed = Layer.scoped(
  Installed,
  Effect.gen(function*() {
    const dir = yield* TempDir.make("zett-consumer-")
    const tarballs = Path.join(dir, "tarballs")
    Fs.mkdirSync(tarballs)
    const packs = yield* packed(tarballs)
    // as npm writes a tarball's path into the app's package.json: the overrides must say it the same way
    const tarballOf = Object.fromEntries(packs.map((p) => [p.name, `../tarballs/${p.filename}`]))
    // a newcomer's npm: every version asked of the registry (a shared cache holds only immutable tarballs)
    const cache = shared === undefined ? Path.join(dir, "npm-cache") : Path.join(shared, "npm-cache")
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      npm_config_cache: cache,
      npm_config_prefer_online: "true",
      npm_config_prefer_offline: "false",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false"
    }
    const reachable = yield* run("npm", ["view", "effect@3", "version"], { cwd: dir, env })
    if (reachable.code !== 0) {
      assert.fail(
        `the npm registry cannot be reached: ${`${reachable.stderr}${reachable.stdout}`.trim().split("\n")[0]}`
      )
    }
    const text = InstallLines.readme()
    const samples = InstallLines.block(text, "the servers of the samples").lines
    const create = (name: string) => {
      const appDir = Path.join(dir, name)
      Fs.mkdirSync(appDir)
      // what the compile of the apps needs (a TypeScript app has it), and nothing of Effect; the `@zett/*`
      // packages that others depend on come from their tarballs, as they would come from the registry
      Fs.writeFileSync(
        Path.join(appDir, "package.json"),
        JSON.stringify(
          {
            name: `zett-consumer-${name}`,
            private: true,
            type: "module",
            devDependencies: { "@types/node": "^20.19.0" },
            overrides: Object.fromEntries(packs.map((p) => [p.name, `file:../tarballs/${p.filename}`]))
          },
          null,
          2
        )
      )
      return appDir
    }
    const install = (appDir: string, lines: ReadonlyArray<string>) =>
      Effect.forEach(lines, (line) =>
        Effect.map(
          run("sh", ["-c", InstallLines.withTarballs(line, tarballOf)], { cwd: appDir, env }),
          (result) => ok(result, `${Path.basename(appDir)}: ${line}`)
        ), { discard: true })
    const apps = {} as Record<Minor, Apps>
    assert.isAbove(minors.length, 0, `ZETT_CONSUMER_MINORS names none of ${allMinors.join(", ")}`)
    for (const minor of minors) {
      const lines = InstallLines.block(text, `Effect ${minor}`).lines
      const appDir = create(`app-${minor}`)
      // servers written in code only: the block's first line, and what the minimal app's server needs
      yield* install(appDir, [lines[0]!, ...samples])
      const modules = Path.join(appDir, "node_modules")
      const codeOnlyExtras = notCodeOnly.filter((name) => Fs.existsSync(Path.join(modules, name)))
      const codeOnlyEffect = String(
        JSON.parse(Fs.readFileSync(Path.join(modules, "effect", "package.json"), "utf8")).version
      )
      Fs.writeFileSync(Path.join(appDir, "tsconfig.json"), JSON.stringify(strictTsconfig, null, 2))
      Fs.writeFileSync(Path.join(appDir, "app.ts"), minimalApp)
      const tsc = Path.join(Source.root, "node_modules", "typescript", "bin", "tsc")
      ok(yield* run(process.execPath, [tsc, "-p", "."], { cwd: appDir }), `tsc (the minimal app, ${minor})`)
      const minimal = yield* run(process.execPath, [Path.join("out", "app.js")], {
        cwd: appDir,
        env: { PATH: process.env["PATH"] ?? "", HOME: dir }
      })
      // then every other line of the block
      yield* install(appDir, lines.slice(1))
      apps[minor] = { appDir, codeOnlyExtras, codeOnlyEffect, minimal }
    }
    return { dir, apps, packs }
  })
)

/** The minors (`3.21`) of every copy of `effect` installed in an app. */
const effectCopies = (appDir: string): ReadonlyArray<string> => {
  const versions: Array<string> = []
  const walk = (folder: string) => {
    for (const entry of Fs.readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const child = Path.join(folder, entry.name)
      if (entry.name === "effect" && Fs.existsSync(Path.join(child, "package.json"))) {
        versions.push(
          String(JSON.parse(Fs.readFileSync(Path.join(child, "package.json"), "utf8")).version).split(".").slice(0, 2)
            .join(".")
        )
      }
      if (entry.name === "node_modules" || entry.name.startsWith("@") || folder.endsWith("node_modules")) walk(child)
    }
  }
  walk(Path.join(appDir, "node_modules"))
  return versions
}

/** Writes `app.ts` with the strictest tsconfig into an installed app, compiles it, and runs it with plain node. */
const compileAndRun = (appDir: string, home: string) =>
  Effect.gen(function*() {
    Fs.writeFileSync(Path.join(appDir, "tsconfig.json"), JSON.stringify(strictTsconfig, null, 2))
    Fs.writeFileSync(Path.join(appDir, "app.ts"), app)
    const tsc = Path.join(Source.root, "node_modules", "typescript", "bin", "tsc")
    ok(yield* run(process.execPath, [tsc, "-p", "."], { cwd: appDir }), "tsc")
    const marker = Crypto.randomUUID()
    const env = {
      PATH: process.env["PATH"] ?? "",
      HOME: home,
      npm_config_update_notifier: "false",
      ZETT_TEST_MARKER: marker
    }
    const started = yield* run(process.execPath, [Path.join("out", "app.js")], { cwd: appDir, env })
    ok(started, "node out/app.js")
    return { started, env, marker }
  })

describe("the README's samples", () => {
  const text = InstallLines.readme()
  // a guide's samples come after every line of the README
  const samples = [
    ...Array.from(text.matchAll(/```ts\n([\s\S]*?)```/g), (m) => ({ file: "README.md", code: m[1]!, offset: m.index })),
    ...InstallLines.guides().flatMap(({ file, text: guide }) =>
      Array.from(
        guide.matchAll(/```ts\n([\s\S]*?)```/g),
        (m) => ({ file, code: m[1]!, offset: text.length, line: guide.slice(0, m.index).split("\n").length })
      )
    )
  ]
  const packageOf = (specifier: string) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

  plain(
    "every sample of the README and its guides imports (or resolves) only packages that the README's install lines above it install",
    () => {
      assert.isAbove(samples.length, 15)
      const missing = samples.flatMap((sample) => {
        const { code, file, offset } = sample
        const installed = new Set(
          InstallLines.blocks(text).filter((block) => block.offset < offset).flatMap((block) =>
            block.lines.flatMap(InstallLines.names)
          )
        )
        const line = "line" in sample ? sample.line : text.slice(0, offset).split("\n").length
        // what it imports, and what it resolves to start (a server's file)
        const specifiers = [
          ...Array.from(code.matchAll(/^(?:import|export)[^"]*?from\s+"([^"]+)"/gm), (m) => m[1]!),
          ...Array.from(code.matchAll(/\bresolve\("([^"]+)"\)/g), (m) => m[1]!)
        ]
        return specifiers
          .filter((specifier) => !specifier.startsWith("node:") && !specifier.startsWith("."))
          .map(packageOf)
          .filter((name) => !installed.has(name))
          .map((name) => `${file}:${line}: ${name}`)
      })
      assert.deepStrictEqual([...new Set(missing)], [])
    }
  )
})

layer(installed, { timeout: "600 seconds", excludeTestServices: true })("a consumer outside the repository", (it) => {
  for (const minor of minors) {
    it.effect(`Effect ${minor}: the README's first line installs no Redis client, config parser or dotenv, and the README's minimal app runs`, () =>
      Effect.gen(function*() {
        const { apps } = yield* Installed
        const { codeOnlyEffect, codeOnlyExtras, minimal } = apps[minor]
        assert.deepStrictEqual(codeOnlyExtras, [])
        assert.strictEqual(codeOnlyEffect.split(".").slice(0, 2).join("."), minor)
        ok(minimal, "node out/app.js (the README's minimal app)")
        assert.strictEqual(minimal.stdout, "42\n")
      }))

    it.effect(
      `Effect ${minor}: the README's lines install every package next to one copy of Effect; an app of them compiles under the strictest tsconfig and runs`,
      () =>
        Effect.gen(function*() {
          const { apps, dir } = yield* Installed
          const { appDir } = apps[minor]
          assert.deepStrictEqual(effectCopies(appDir), [`${minor}`])
          const { marker, started } = yield* compileAndRun(appDir, dir)
          assert.strictEqual(started.stdout, "tool result: {\"sum\":42}\n")
          assert.strictEqual(started.stderr, "")
          assert.deepStrictEqual(withMarker(marker), [], "no server process is left")
        }),
      300_000
    )
  }

  it.effect.runIf(minors.includes(oldMinor))(
    "every ts sample of the README and its guides compiles in the app its lines installed, under the strictest tsconfig",
    () =>
      Effect.gen(function*() {
        const { apps } = yield* Installed
        const appDir = apps[oldMinor].appDir
        const samplesDir = Path.join(appDir, "samples")
        Fs.mkdirSync(samplesDir)
        const texts = [InstallLines.readme(), ...InstallLines.guides().map((guide) => guide.text)]
        const files = Array.from(texts.join("\n").matchAll(/```ts\n([\s\S]*?)```/g), (m, i) => {
          const file = `sample-${i + 1}.ts`
          Fs.writeFileSync(Path.join(samplesDir, file), m[1]!)
          return file
        })
        assert.isAbove(files.length, 15)
        Fs.writeFileSync(
          Path.join(samplesDir, "tsconfig.json"),
          JSON.stringify(
            { ...strictTsconfig, compilerOptions: { ...strictTsconfig.compilerOptions, noEmit: true }, files },
            null,
            2
          )
        )
        const tsc = Path.join(Source.root, "node_modules", "typescript", "bin", "tsc")
        ok(yield* run(process.execPath, [tsc, "-p", "samples"], { cwd: appDir }), "tsc -p samples")
      }),
    300_000
  )

  it.effect(
    "the packed packages hold what an app loads; required from CommonJS, and as the installed zett, they run",
    () =>
      Effect.gen(function*() {
        const { apps, dir, packs } = yield* Installed
        const appDir = apps[appMinor].appDir
        assert.deepStrictEqual(packs.map((p) => p.name), publicPackages.map((name) => `@zett/${name}`))
        for (const pack of packs) {
          const paths = pack.files.map((f) => f.path)
          // no tests or fixtures; TypeScript only where the declaration and source maps point
          assert.deepStrictEqual(paths.filter((p) => /(^|\/)(test|fixtures)\//.test(p)), [], pack.name)
          assert.deepStrictEqual(
            paths.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts") && !p.startsWith("src/")),
            [],
            pack.name
          )
          for (
            const file of [
              "package.json",
              "README.md",
              "LICENSE",
              "build/src/index.js",
              "build/src/index.d.ts",
              "build/src/index.d.ts.map"
            ]
          ) {
            assert.include(paths, file, pack.name)
          }
        }

        const { env, marker } = yield* compileAndRun(appDir, dir)

        // CommonJS on Node 20.19 and later: require(esm)
        Fs.writeFileSync(Path.join(appDir, "app.cjs"), appCjs)
        const required = yield* run(process.execPath, ["app.cjs"], { cwd: appDir, env })
        ok(required, "node app.cjs")
        assert.strictEqual(required.stdout, "demo demo__add a <redacted>\n")

        // the installed zett: built JavaScript, no tsx
        const npx = (args: ReadonlyArray<string>) => zett(appDir, args, env)
        const version = yield* npx(["--version"])
        ok(version, "zett --version")
        assert.strictEqual(version.stdout, "0.1.0\n")
        const demoServer = Path.join(appDir, "node_modules", "@zett", "mcp", "examples", "demo-server.mjs")
        // an HTTP server too: the bundle loads undici (CommonJS) on the first HTTP connection
        const web = yield* httpFault(Crypto.randomUUID(), ["none"])
        Fs.writeFileSync(
          Path.join(appDir, "mcp.json"),
          JSON.stringify({
            mcpServers: {
              demo: { command: process.execPath, args: [demoServer], env: { ZETT_TEST_MARKER: marker } },
              web: { type: "http", url: web }
            }
          })
        )
        const tools = yield* npx(["tools", "--config", "mcp.json"])
        ok(tools, "zett tools")
        // under a second in milliseconds (553 ms), else in seconds (1.1 s)
        assert.match(tools.stdout, /^demo\s+stdio\s+2026-07-28\s+(\d+ ms|\d+\.\d s)\s+3\s+\d+\s+ok$/m, tools.stdout)
        assert.match(
          tools.stdout,
          /^web\s+streamable-http\s+2025-11-25\s+(\d+ ms|\d+\.\d s)\s+3\s+\d+\s+ok$/m,
          tools.stdout
        )
        assert.include(tools.stdout, "demo__add")
        assert.isFalse(Fs.existsSync(Path.join(appDir, "node_modules", "tsx")), "tsx is not installed with zett")

        // `zett tools` loads no model provider: the bundle's files it loads hold no @effect/ai code
        const imports = Path.join(dir, "imports.txt")
        const hook = Path.join(dir, "record-imports.mjs")
        Fs.writeFileSync(
          hook,
          [
            `import { register } from "node:module"`,
            `register("data:text/javascript," + encodeURIComponent(${
              JSON.stringify(
                `import { appendFileSync } from "node:fs"\n` +
                  `export async function resolve(specifier, context, next) {\n` +
                  `  const result = await next(specifier, context)\n` +
                  `  appendFileSync(${JSON.stringify(imports)}, result.url + "\\n")\n` +
                  `  return result\n` +
                  `}\n`
              )
            }))`
          ].join("\n")
        )
        const bin = Path.join(appDir, "node_modules", "@zett", "cli", "bin", "zett.mjs")
        ok(
          yield* run(process.execPath, ["--import", hook, bin, "tools", "--config", "mcp.json"], { cwd: appDir, env }),
          "tools with the hook"
        )
        const dist = Path.join(appDir, "node_modules", "@zett", "cli", "dist")
        const loaded = new Set(
          Fs.readFileSync(imports, "utf8").split("\n").filter((url) => url.startsWith("file:")).map((url) =>
            new URL(url).pathname
          )
        )
        const chunks = Fs.readdirSync(dist).filter((file) => file.endsWith(".js")).map((file) => Path.join(dist, file))
        const withAi = chunks.filter((file) => Fs.readFileSync(file, "utf8").includes("@effect/ai/LanguageModel"))
        assert.isAbove(withAi.length, 0, "the bundle holds the model providers somewhere")
        assert.include([...loaded], Path.join(dist, "main.js"))
        assert.deepStrictEqual(withAi.filter((file) => loaded.has(file)), [], "zett tools loaded a model provider")
        assert.deepStrictEqual(withMarker(marker), [], "no server process is left")
      }).pipe(Effect.scoped),
    300_000
  )

  // REDIS_URL is common in developers' shells: it shares the tool cache of `zett run` and `zett demo`
  it.effect(
    "the installed zett run and zett demo share their tool lists through Redis when REDIS_URL is set",
    () =>
      Effect.gen(function*() {
        const { apps, dir } = yield* Installed
        const appDir = apps[appMinor].appDir
        const redis = yield* RedisServer.make
        const env = {
          PATH: process.env["PATH"] ?? "",
          HOME: dir,
          npm_config_update_notifier: "false",
          REDIS_URL: redis.url
        }
        const storedFor = (server: string) =>
          Effect.map(
            run("redis-cli", ["-p", String(redis.port), "--scan", "--pattern", `zett:mcp-tools:${server}:*`], {
              cwd: dir
            }),
            (result) => result.stdout.split("\n").filter((key) => key !== "")
          )

        const demo = yield* zett(appDir, ["demo"], env)
        ok(demo, "zett demo")
        assert.include(demo.stdout, "Answer: 2 + 40 = 42")
        assert.strictEqual(demo.stderr, "")
        assert.lengthOf(yield* storedFor("demo"), 1)

        const result = yield* runWithModel(appDir, env)
        ok(result.run, "zett run")
        assert.include(result.run.stdout, "The adder says 42.")
        assert.strictEqual(result.run.stderr, "")
        assert.deepStrictEqual(result.toolOutputs, ["{\"sum\":42}"])
        assert.lengthOf(yield* storedFor("adder"), 1)
      }).pipe(Effect.scoped)
  )

  it.effect(
    "the installed zett run and zett demo answer with a warning when REDIS_URL names a Redis that refuses",
    () =>
      Effect.gen(function*() {
        const { apps, dir } = yield* Installed
        const appDir = apps[appMinor].appDir
        const port = yield* Processes.freePort
        const env = {
          PATH: process.env["PATH"] ?? "",
          HOME: dir,
          npm_config_update_notifier: "false",
          REDIS_URL: `redis://127.0.0.1:${port}`
        }
        const warning = `zett: warning: Redis is unreachable (connect ECONNREFUSED 127.0.0.1:${port}): ` +
          "each process discovers by itself until it is back"

        const demo = yield* zett(appDir, ["demo"], env)
        ok(demo, "zett demo")
        assert.include(demo.stdout, "Answer: 2 + 40 = 42")
        assert.include(demo.stderr.split("\n"), warning)
        assert.notInclude(demo.stderr, "internal error")

        const result = yield* runWithModel(appDir, env)
        ok(result.run, "zett run")
        assert.include(result.run.stdout, "The adder says 42.")
        assert.include(result.run.stderr.split("\n"), warning)
        assert.notInclude(result.run.stderr, "internal error")
        assert.deepStrictEqual(result.toolOutputs, ["{\"sum\":42}"])
      }).pipe(Effect.scoped)
  )
})

/**
 * `zett run` on the installed demo server (named `adder`) with an OpenAI-compatible model on 127.0.0.1 that
 * calls `adder__add` once, then answers; the tool outputs the model received.
 */
const runWithModel = (appDir: string, env: NodeJS.ProcessEnv) =>
  Effect.gen(function*() {
    const demoServer = Path.join(appDir, "node_modules", "@zett", "mcp", "examples", "demo-server.mjs")
    const config = Path.join(appDir, "adder.json")
    Fs.writeFileSync(
      config,
      JSON.stringify({ mcpServers: { adder: { command: process.execPath, args: [demoServer] } } })
    )
    const openai = yield* FakeProvider.fakeProvider([
      FakeProvider.sse(FakeProvider.openAiEvents({
        calls: [{ id: "call_1", name: "adder__add", pieces: ["{\"a\":2,\"b\":40}"] }]
      })),
      FakeProvider.sse(FakeProvider.openAiEvents({ text: ["The adder says 42."] }))
    ])
    const result = yield* zett(appDir, ["run", "--config", config, "What is 2 + 40?"], {
      ...env,
      ZETT_MODEL: "openai:gpt-4.1-mini",
      OPENAI_API_KEY: "sk-zett-consumer-test",
      OPENAI_BASE_URL: `${openai.url}/v1`
    })
    const toolOutputs = openai.requests.flatMap((request) =>
      (request.body.input as ReadonlyArray<{ type: string; output?: string }>)
        .filter((item) => item.type === "function_call_output")
        .map((item) => item.output)
    )
    return { run: result, toolOutputs }
  })
