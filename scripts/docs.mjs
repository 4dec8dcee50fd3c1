// `npm run docs`: the API reference of every public package (packages/<name>/docs/modules), made by @effect/docgen
// from the JSDoc of the sources, the examples in it type-checked and run. The reference is kept in the repository
// (each package README links it); `--check` fails when what was made differs from what is committed.
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const check = process.argv.includes("--check")
// `npm run docs -- mcp agent` makes only the packages named
const named = process.argv.slice(2).filter((arg) => !arg.startsWith("--"))
const packages = Fs.readdirSync(Path.join(root, "packages")).filter((name) =>
  Fs.existsSync(Path.join(root, "packages", name, "docgen.json")) && (named.length === 0 || named.includes(name))
)
const docgen = Path.join(root, "node_modules", "@effect", "docgen", "bin.cjs")

const make = (name) =>
  new Promise((resolve) => {
    const cwd = Path.join(root, "packages", name)
    Fs.rmSync(Path.join(cwd, "docs"), { recursive: true, force: true })
    // the examples import the packages by name: the condition points them at the sources, as the tests do
    const child = spawn(process.execPath, [docgen], {
      cwd,
      env: {
        ...process.env,
        // docgen runs the workspace's tsc and tsx on the examples
        PATH: `${Path.join(root, "node_modules", ".bin")}${Path.delimiter}${process.env.PATH ?? ""}`,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=@zett/source`.trim()
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const output = []
    child.stdout.on("data", (chunk) => output.push(chunk))
    child.stderr.on("data", (chunk) => output.push(chunk))
    child.on("close", (code) => {
      // docgen's scratch folder for the examples is not part of the reference
      Fs.rmSync(Path.join(cwd, "docs", "examples"), { recursive: true, force: true })
      if (code !== 0) process.stderr.write(`docs: @zett/${name} failed\n${Buffer.concat(output)}\n`)
      else process.stdout.write(`docs: @zett/${name}\n`)
      resolve(code === 0)
    })
  })

// two at a time: each is mostly one TypeScript program's type-check
const results = []
for (let i = 0; i < packages.length; i += 2) {
  for (const ok of await Promise.all(packages.slice(i, i + 2).map(make))) results.push(ok)
}
if (!results.every(Boolean)) process.exit(1)
if (check) {
  const status = spawnSync("git", ["status", "--porcelain", "--", ...packages.map((name) => `packages/${name}/docs`)], {
    cwd: root,
    encoding: "utf8"
  })
  if (status.stdout.trim() !== "") {
    console.error(
      `docs: the committed API reference is not what the sources make (run npm run docs and commit):\n${status.stdout}`
    )
    process.exit(1)
  }
}
