// `npx tsx --conditions=@zett/source scripts/bench/profile.ts [--calls=20000] [--transport=stdio] [--lib=zett]
// [--markdown] [--top=40]`: a CPU profile of the agent's call path in the bundle that the benchmark runs. Builds
// scripts/bench/.build, runs the `calls` case (Zett: one Agent.run, a scripted model returning the calls; raw:
// the SDK client's callTool in a loop) under `node --cpu-prof`, and prints profile-top.mjs's summary (also as
// markdown with `--markdown`). `npm run bench` runs it too, for Zett and the raw SDK, and puts both in
// docs/benchmarks.md with the stored profile from before the per-call rework (profile-before.md).
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import { buildLane } from "./build.js"
import { benchDir } from "./common.js"

export interface ProfileOptions {
  readonly lib: string
  readonly calls: number
  readonly warmup: number
  readonly transport: string
  readonly top: number
  readonly markdown: boolean
}

/** The lane's RESULT (parsed) and profile-top.mjs's summary of its whole process. */
export const profileCalls = (
  lane: string,
  options: ProfileOptions
): { readonly result: Record<string, unknown>; readonly summary: string } => {
  const dir = join(benchDir, ".build", "profile")
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const run = spawnSync(process.execPath, [
    "--expose-gc",
    "--cpu-prof",
    `--cpu-prof-dir=${dir}`,
    lane,
    "--case=calls",
    `--lib=${options.lib}`,
    `--transport=${options.transport}`,
    `--calls=${options.calls}`,
    `--warmup=${options.warmup}`
  ], { cwd: benchDir, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
  const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "))
  if (run.status !== 0 || line === undefined) throw new Error(`the lane failed (exit ${run.status})`)
  // the lane's own profile: the server processes it spawns do not inherit --cpu-prof
  const profile = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"))
  if (profile === undefined) throw new Error("no profile written")
  const top = spawnSync(process.execPath, [
    join(benchDir, "profile-top.mjs"),
    join(dir, profile),
    `--calls=${options.calls}`,
    `--top=${options.top}`,
    ...(options.markdown ? ["--markdown"] : [])
  ], { encoding: "utf8" })
  if (top.status !== 0) throw new Error(`profile-top.mjs failed: ${top.stderr}`)
  return { result: JSON.parse(line.slice("RESULT ".length)), summary: top.stdout }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
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
  const { result, summary } = profileCalls(await buildLane(), {
    lib: values.lib,
    calls: Number(values.calls),
    warmup: Number(values.warmup),
    transport: values.transport,
    top: Number(values.top),
    markdown: values.markdown
  })
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n\n${summary}`)
}
