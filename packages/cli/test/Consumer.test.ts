/**
 * Zett as a new user gets it: the public packages are built and packed, installed from their tarballs into an
 * app outside the repository that uses another 3.x minor of Effect than this workspace, compiled there under
 * the strictest compiler settings users set, and run with plain `node` (ESM and `require`). The installed
 * `zett` runs too.
 */
import { assert, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as FakeProvider from "@zett/testing/FakeProvider"
import { httpFault, withMarker } from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import * as RedisServer from "@zett/testing/RedisServer"
import * as Source from "@zett/testing/Source"
import * as TempDir from "@zett/testing/TempDir"

// The newest Effect 3 minor is the workspace's (3.22); the app is on the one before, with the packages of that
// line. (Effect 4 is npm's `latest`: these packages take the 3.x line only.)
const appEffect = {
  effect: "~3.21.5",
  "@effect/platform": "~0.96.3",
  "@effect/platform-node": "~0.107.0",
  "@effect/cli": "~0.75.0",
  "@effect/ai": "~0.36.0",
  "@effect/ai-openai": "~0.40.0",
  "@effect/ai-anthropic": "~0.26.0",
  "@effect/experimental": "~0.60.0"
}

const publicPackages = ["agent", "mcp", "mcp-node", "mcp-config", "mcp-redis", "ai", "ai-chat-completions", "ai-google", "ai-amazon-bedrock", "cli"] as const

const codeOnlyPackages: ReadonlyArray<string> = ["@zett/agent", "@zett/mcp", "@zett/mcp-node"]

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv }) =>
  Effect.async<Run>((resume) => {
    const child = ChildProcess.execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr }))
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The installed `zett` (built JavaScript, no tsx), as `npx` finds it in the app. */
const zett = (appDir: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv) =>
  run("npx", ["--no-install", "zett", ...args], { cwd: appDir, env })

const ok = (result: Run, what: string) => assert.strictEqual(result.code, 0, `${what}\n${result.stdout}\n${result.stderr}`)

const npm = (args: ReadonlyArray<string>, cwd: string) => run("npm", [...args, "--no-audit", "--no-fund"], { cwd })

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

const McpLive = NodeMcpExtension.layer({ callTimeout: "30 seconds" }).pipe(
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

/** The packages built, packed and installed into an app outside the repository, once for all the tests here. */
class Installed extends Context.Tag("Consumer/Installed")<Installed, {
  /** The temporary folder: the tarballs, the app, and the app's HOME. */
  readonly dir: string
  readonly appDir: string
  /** An app with only `codeOnlyPackages`. */
  readonly codeOnlyDir: string
  readonly packs: ReadonlyArray<Pack>
}>() {}

const installed = Layer.scoped(
  Installed,
  Effect.gen(function*() {
    const dir = yield* TempDir.make("zett-consumer-")
    const tarballs = Path.join(dir, "tarballs")
    Fs.mkdirSync(tarballs)
    ok(yield* npm(["run", "build"], Source.root), "npm run build")
    const packed = yield* npm(
      ["pack", ...publicPackages.flatMap((name) => ["-w", `@zett/${name}`]), "--pack-destination", tarballs, "--json"],
      Source.root
    )
    ok(packed, "npm pack")
    const packs = JSON.parse(packed.stdout) as ReadonlyArray<Pack>
    const install = (name: string, chosen: ReadonlyArray<Pack>) =>
      Effect.gen(function*() {
        const appDir = Path.join(dir, name)
        Fs.mkdirSync(appDir)
        Fs.writeFileSync(Path.join(appDir, "package.json"), JSON.stringify({
          name: `zett-consumer-${name}`,
          private: true,
          type: "module",
          dependencies: {
            ...Object.fromEntries(chosen.map((p) => [p.name, `file:${Path.join(tarballs, p.filename)}`])),
            ...appEffect,
            // what the bundled example server runs on, as the README's install line has it
            "@modelcontextprotocol/server": "2.4.0",
            "@types/node": "^20.19.0"
          }
        }, null, 2))
        ok(yield* npm(["install", "--prefer-offline"], appDir), `npm install (${name})`)
        return appDir
      })
    const appDir = yield* install("app", packs)
    // servers written in code only: the core, its Node driver and the agent
    const codeOnlyDir = yield* install("code-only", packs.filter((p) => codeOnlyPackages.includes(p.name)))
    return { dir, appDir, codeOnlyDir, packs }
  })
)

/** Writes `app.ts` with the strictest tsconfig into an installed app, compiles it, and runs it with plain node. */
const compileAndRun = (appDir: string, home: string) =>
  Effect.gen(function*() {
    Fs.writeFileSync(Path.join(appDir, "tsconfig.json"), JSON.stringify(strictTsconfig, null, 2))
    Fs.writeFileSync(Path.join(appDir, "app.ts"), app)
    const tsc = Path.join(Source.root, "node_modules", "typescript", "bin", "tsc")
    ok(yield* run(process.execPath, [tsc, "-p", "."], { cwd: appDir }), "tsc")
    const marker = Crypto.randomUUID()
    const env = { PATH: process.env["PATH"] ?? "", HOME: home, npm_config_update_notifier: "false", ZETT_TEST_MARKER: marker }
    const started = yield* run(process.execPath, [Path.join("out", "app.js")], { cwd: appDir, env })
    ok(started, "node out/app.js")
    return { started, env, marker }
  })

layer(installed, { timeout: "300 seconds", excludeTestServices: true })("a consumer outside the repository", (it) => {
  it.effect("an app with servers written in code installs no Redis client, config parser or dotenv, and runs", () =>
    Effect.gen(function*() {
      const { codeOnlyDir, dir } = yield* Installed
      const modules = Path.join(codeOnlyDir, "node_modules")
      for (const name of ["ioredis", "jsonc-parser", "dotenv", "@zett/mcp-config", "@zett/mcp-redis", "@zett/cli"]) {
        assert.isFalse(Fs.existsSync(Path.join(modules, name)), `${name} is installed`)
      }
      const { marker, started } = yield* compileAndRun(codeOnlyDir, dir)
      assert.strictEqual(started.stdout, "tool result: {\"sum\":42}\n")
      assert.deepStrictEqual(withMarker(marker), [], "no server process is left")
    }))

  it.effect("packed packages install next to Effect 3.21, compile under the strictest tsconfig, and run under plain node", () =>
    Effect.gen(function*() {
      const { appDir, dir, packs } = yield* Installed
      assert.deepStrictEqual(packs.map((p) => p.name), publicPackages.map((name) => `@zett/${name}`))
      for (const pack of packs) {
        const paths = pack.files.map((f) => f.path)
        // no tests or fixtures; TypeScript only where the declaration and source maps point
        assert.deepStrictEqual(paths.filter((p) => /(^|\/)(test|fixtures)\//.test(p)), [], pack.name)
        assert.deepStrictEqual(paths.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts") && !p.startsWith("src/")), [], pack.name)
        for (const file of ["package.json", "README.md", "LICENSE", "build/src/index.js", "build/src/index.d.ts", "build/src/index.d.ts.map"]) {
          assert.include(paths, file, pack.name)
        }
      }

      // exactly one copy of effect, the app's
      const versions = new Set<string>()
      const walk = (folder: string) => {
        for (const entry of Fs.readdirSync(folder, { withFileTypes: true })) {
          if (!entry.isDirectory()) continue
          const child = Path.join(folder, entry.name)
          if (entry.name === "effect" && Fs.existsSync(Path.join(child, "package.json"))) {
            versions.add(`${child}@${JSON.parse(Fs.readFileSync(Path.join(child, "package.json"), "utf8")).version}`)
          }
          if (entry.name === "node_modules" || entry.name.startsWith("@") || folder.endsWith("node_modules")) walk(child)
        }
      }
      walk(Path.join(appDir, "node_modules"))
      assert.strictEqual(versions.size, 1, [...versions].join(", "))
      assert.match([...versions][0]!, /\/app\/node_modules\/effect@3\.21\.\d+$/)

      // the strictest settings users set, with every declaration file checked
      const { env, marker, started } = yield* compileAndRun(appDir, dir)
      assert.strictEqual(started.stdout, "tool result: {\"sum\":42}\n")
      assert.notInclude(started.stderr, "Executing an Effect versioned")
      assert.strictEqual(started.stderr, "")

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
      Fs.writeFileSync(Path.join(appDir, "mcp.json"), JSON.stringify({
        mcpServers: {
          demo: { command: process.execPath, args: [demoServer], env: { ZETT_TEST_MARKER: marker } },
          web: { type: "http", url: web }
        }
      }))
      const tools = yield* npx(["tools", "--config", "mcp.json"])
      ok(tools, "zett tools")
      // under a second in milliseconds (553 ms), else in seconds (1.1 s)
      assert.match(tools.stdout, /^demo\s+stdio\s+2026-07-28\s+(\d+ ms|\d+\.\d s)\s+3\s+\d+\s+ok$/m, tools.stdout)
      assert.match(tools.stdout, /^web\s+streamable-http\s+2025-11-25\s+(\d+ ms|\d+\.\d s)\s+3\s+\d+\s+ok$/m, tools.stdout)
      assert.include(tools.stdout, "demo__add")
      assert.isFalse(Fs.existsSync(Path.join(appDir, "node_modules", "tsx")), "tsx is not installed with zett")

      // `zett tools` loads no model provider: the bundle's files it loads hold no @effect/ai code
      const imports = Path.join(dir, "imports.txt")
      const hook = Path.join(dir, "record-imports.mjs")
      Fs.writeFileSync(hook, [
        `import { register } from "node:module"`,
        `register("data:text/javascript," + encodeURIComponent(${JSON.stringify(
          `import { appendFileSync } from "node:fs"\n` +
            `export async function resolve(specifier, context, next) {\n` +
            `  const result = await next(specifier, context)\n` +
            `  appendFileSync(${JSON.stringify(imports)}, result.url + "\\n")\n` +
            `  return result\n` +
            `}\n`
        )}))`
      ].join("\n"))
      const bin = Path.join(appDir, "node_modules", "@zett", "cli", "bin", "zett.mjs")
      ok(yield* run(process.execPath, ["--import", hook, bin, "tools", "--config", "mcp.json"], { cwd: appDir, env }), "tools with the hook")
      const dist = Path.join(appDir, "node_modules", "@zett", "cli", "dist")
      const loaded = new Set(
        Fs.readFileSync(imports, "utf8").split("\n").filter((url) => url.startsWith("file:")).map((url) => new URL(url).pathname)
      )
      const chunks = Fs.readdirSync(dist).filter((file) => file.endsWith(".js")).map((file) => Path.join(dist, file))
      const withAi = chunks.filter((file) => Fs.readFileSync(file, "utf8").includes("@effect/ai/LanguageModel"))
      assert.isAbove(withAi.length, 0, "the bundle holds the model providers somewhere")
      assert.include([...loaded], Path.join(dist, "main.js"))
      assert.deepStrictEqual(withAi.filter((file) => loaded.has(file)), [], "zett tools loaded a model provider")
      assert.deepStrictEqual(withMarker(marker), [], "no server process is left")
    }).pipe(Effect.scoped), 300_000)

  // REDIS_URL is common in developers' shells: it shares the tool cache of `zett run` and `zett demo`
  it.effect("the installed zett run and zett demo share their tool lists through Redis when REDIS_URL is set", () =>
    Effect.gen(function*() {
      const { appDir, dir } = yield* Installed
      const redis = yield* RedisServer.make
      const env = { PATH: process.env["PATH"] ?? "", HOME: dir, npm_config_update_notifier: "false", REDIS_URL: redis.url }
      const storedFor = (server: string) =>
        Effect.map(
          run("redis-cli", ["-p", String(redis.port), "--scan", "--pattern", `zett:mcp-tools:${server}:*`], { cwd: dir }),
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
    }).pipe(Effect.scoped), 120_000)

  it.effect("the installed zett run and zett demo answer with a warning when REDIS_URL names a Redis that refuses", () =>
    Effect.gen(function*() {
      const { appDir, dir } = yield* Installed
      const port = yield* Processes.freePort
      const env = { PATH: process.env["PATH"] ?? "", HOME: dir, npm_config_update_notifier: "false", REDIS_URL: `redis://127.0.0.1:${port}` }
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
    }).pipe(Effect.scoped), 120_000)
})

/**
 * `zett run` on the installed demo server (named `adder`) with an OpenAI-compatible model on 127.0.0.1 that
 * calls `adder__add` once, then answers; the tool outputs the model received.
 */
const runWithModel = (appDir: string, env: NodeJS.ProcessEnv) =>
  Effect.gen(function*() {
    const demoServer = Path.join(appDir, "node_modules", "@zett", "mcp", "examples", "demo-server.mjs")
    const config = Path.join(appDir, "adder.json")
    Fs.writeFileSync(config, JSON.stringify({ mcpServers: { adder: { command: process.execPath, args: [demoServer] } } }))
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
