#!/usr/bin/env node
// What importing Effect's own modules costs beside the raw SDK v2 client and the three packages: the floor under the
// import goal (docs/benchmarks.md section 22). Each figure is a fresh process's own CPU at exit (Node's start-up
// included), the cases interleaved, order rotated each round; the packages load through their builds (`npm run
// build` first). `node scripts/bench/import-floor.mjs [rounds]`, from the repository's root (or from effect4/ with
// its Node 22 first on PATH: there the Effect 4 modules stand in, `ServiceMap` for `Context`).
import { spawnSync } from "node:child_process"
import * as Fs from "node:fs"

const effect4 = Fs.existsSync("node_modules/effect/dist/ServiceMap.js")
const context = effect4 ? "effect/ServiceMap" : "effect/Context"
const imports = (specifiers) => specifiers.map((s) => `import(${JSON.stringify(s)})`).join(", ")
const cases = {
  "node alone": "",
  "raw SDK v2 client": imports(["@modelcontextprotocol/client"]),
  "Effect, Layer, Stream, Context": imports(["effect/Effect", "effect/Layer", "effect/Stream", context]),
  "the same and Schema": imports(["effect/Effect", "effect/Layer", "effect/Stream", context, "effect/Schema"]),
  "the three packages": imports(["@zett/agent", "@zett/mcp", "@zett/mcp-node"])
}
const rounds = Number(process.argv[2] ?? 9)
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]))
const names = Object.keys(cases)
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length]
    const script = `await Promise.all([${cases[name]}]); const u = process.cpuUsage(); console.log(u.user + u.system)`
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })
    if (run.status !== 0) throw new Error(`${name}: ${run.stderr}`)
    samples[name].push(Number(run.stdout.trim()) / 1000)
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const raw = median(samples["raw SDK v2 client"])
console.log(`${process.version}, ${rounds} rounds; CPU ms of the whole process, median [min]; ratio to the raw client`)
for (const name of names) {
  const m = median(samples[name])
  console.log(`${name}: ${m.toFixed(0)} [${Math.min(...samples[name]).toFixed(0)}] ${(m / raw).toFixed(2)}x`)
}
