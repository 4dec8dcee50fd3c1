// `npx tsx --conditions=@zett/source scripts/bench/profile.ts [--calls=20000] [--transport=stdio]`: a CPU
// profile of the agent's call path in the bundle that the benchmark runs. Builds scripts/bench/.build, runs
// the `calls` case for Zett (one Agent.run, a scripted model returning the calls) under `node --cpu-prof`,
// and prints profile-top.mjs's summary (also as markdown with `--markdown`).
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { buildLane } from "./build.js"
import { benchDir } from "./common.js"

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    calls: { type: "string", default: "20000" },
    warmup: { type: "string", default: "200" },
    transport: { type: "string", default: "stdio" },
    lib: { type: "string", default: "zett" },
    markdown: { type: "boolean", default: false },
    top: { type: "string", default: "40" }
  }
})
const lane = await buildLane()
const dir = join(benchDir, ".build", "profile")
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
const run = spawnSync(process.execPath, [
  "--expose-gc",
  "--cpu-prof",
  `--cpu-prof-dir=${dir}`,
  lane,
  "--case=calls",
  `--lib=${values.lib}`,
  `--transport=${values.transport}`,
  `--calls=${values.calls}`,
  `--warmup=${values.warmup}`
], { cwd: benchDir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
const result = run.stdout.split("\n").find((line) => line.startsWith("RESULT "))
if (run.status !== 0 || result === undefined) throw new Error(`the lane failed (exit ${run.status})`)
process.stdout.write(`${result}\n\n`)
// the lane's own profile: the server processes it spawns do not inherit --cpu-prof
const profile = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"))
if (profile === undefined) throw new Error("no profile written")
spawnSync(process.execPath, [
  join(benchDir, "profile-top.mjs"),
  join(dir, profile),
  `--calls=${values.calls}`,
  `--top=${values.top}`,
  ...(values.markdown ? ["--markdown"] : [])
], { stdio: "inherit" })
