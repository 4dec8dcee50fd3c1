// Reads a V8 CPU profile (`node --cpu-prof`) of a lane and prints where the time went: self time by owner
// (Effect, the MCP SDK, zod, Zett's own code and the bench, Node, GC) and the top frames by self time, each
// also in µs per call when `--calls=N` is given.
//
//   node scripts/bench/profile-top.mjs <file.cpuprofile> [--calls=20000] [--top=40] [--markdown]
//     [--inclusive=<name>,<name>...] [--window=<fromUs>,<toUs>]
//
// `--inclusive`: the time of every sample with a frame whose `function@file` contains <name> on its stack
// (each sample counted once per name): what a function costs with everything it calls.
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"

const { positionals, values } = parseArgs({
  allowPositionals: true,
  strict: true,
  options: {
    calls: { type: "string" },
    top: { type: "string", default: "40" },
    markdown: { type: "boolean", default: false },
    inclusive: { type: "string" },
    window: { type: "string" }
  }
})
const file = positionals[0]
if (file === undefined) throw new Error("usage: profile-top.mjs <file.cpuprofile> [--calls=N] [--top=N] [--markdown]")
const calls = values.calls === undefined ? undefined : Number(values.calls)
const top = Number(values.top)
const profile = JSON.parse(readFileSync(file, "utf8"))

// self time per node: the sampling interval that follows each sample belongs to the sampled node
// `--window=<from>,<to>`: only the samples taken between two readings of the monotonic clock in µs (a lane's
// `windowUs`, its timed calls), the clock of the profile's own timestamps
const [from, to] = values.window === undefined ? [-Infinity, Infinity] : values.window.split(",").map(Number)
const self = new Map()
let at = profile.startTime
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i]
  if (at < from || at >= to) continue
  const id = profile.samples[i]
  const dt = profile.timeDeltas[i + 1] ?? 0
  self.set(id, (self.get(id) ?? 0) + dt)
}
const totalUs = [...self.values()].reduce((a, b) => a + b, 0)

/** Who owns a frame, by its script URL. */
const owner = (url, name) => {
  if (url === "") {
    if (name === "(garbage collector)") return "GC"
    if (name === "(idle)") return "idle"
    if (name === "(program)") return "V8 (program)"
    return "V8/native"
  }
  if (url.includes("/node_modules/effect/")) return "effect"
  if (url.includes("/node_modules/@effect/")) return "@effect/*"
  if (url.includes("/node_modules/@modelcontextprotocol/")) return "MCP SDK"
  if (url.includes("/node_modules/zod/")) return "zod (SDK validation)"
  if (url.includes("/node_modules/")) return "other npm"
  if (url.startsWith("node:")) return "Node"
  if (url.includes("/.build/")) return "Zett + bench (bundle)"
  return "other"
}
const shortUrl = (url) =>
  url.replace(/^.*\/node_modules\//, "").replace(/^.*\/scripts\/bench\/\.build\//, ".build/").replace(/^file:\/\//, "")

const byOwner = new Map()
const byFrame = new Map()
for (const node of profile.nodes) {
  const us = self.get(node.id) ?? 0
  if (us === 0) continue
  const { columnNumber, functionName, lineNumber, url } = node.callFrame
  const name = functionName === "" ? "(anonymous)" : functionName
  const who = owner(url, name)
  byOwner.set(who, (byOwner.get(who) ?? 0) + us)
  const key = `${name}\t${shortUrl(url)}:${lineNumber + 1}:${columnNumber + 1}\t${who}`
  byFrame.set(key, (byFrame.get(key) ?? 0) + us)
}

const ms = (us) => (us / 1000).toFixed(1)
const perCall = (us) => (calls === undefined ? "" : (us / calls).toFixed(2))
const pct = (us) => ((100 * us) / totalUs).toFixed(1)
const busyUs = totalUs - (byOwner.get("idle") ?? 0)

const owners = [...byOwner].sort((a, b) => b[1] - a[1])
const frames = [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, top)

if (values.markdown) {
  const perCallHead = calls === undefined ? [] : ["µs per call"]
  console.log(
    `Profile: ${ms(totalUs)} ms sampled, ${ms(busyUs)} ms busy (not idle)${
      calls === undefined ? "" : `, ${calls} calls`
    }.`
  )
  console.log("")
  console.log(`| owner | self ms | % of samples | ${perCallHead.join(" | ")}${perCallHead.length ? " |" : ""}`)
  console.log(`|---|---|---|${perCallHead.map(() => "---|").join("")}`)
  for (const [who, us] of owners) {
    console.log(`| ${who} | ${ms(us)} | ${pct(us)} |${calls === undefined ? "" : ` ${perCall(us)} |`}`)
  }
  console.log("")
  console.log(`| # | function | where | owner | self ms | % |${calls === undefined ? "" : " µs per call |"}`)
  console.log(`|---|---|---|---|---|---|${calls === undefined ? "" : "---|"}`)
  frames.forEach(([key, us], i) => {
    const [name, where, who] = key.split("\t")
    console.log(
      `| ${i + 1} | \`${name}\` | ${where} | ${who} | ${ms(us)} | ${pct(us)} |${
        calls === undefined ? "" : ` ${perCall(us)} |`
      }`
    )
  })
} else {
  console.log(`${ms(totalUs)} ms sampled, ${ms(busyUs)} ms busy${calls === undefined ? "" : `, ${calls} calls`}`)
  console.log("\nby owner (self ms, %, µs/call):")
  for (const [who, us] of owners) {
    console.log(`  ${who.padEnd(24)} ${ms(us).padStart(9)} ${pct(us).padStart(6)}%  ${perCall(us)}`)
  }
  console.log(`\ntop ${top} frames by self time:`)
  for (const [key, us] of frames) {
    const [name, where, who] = key.split("\t")
    console.log(
      `  ${ms(us).padStart(8)} ms ${pct(us).padStart(5)}% ${perCall(us).padStart(7)}  ${name}  ${where}  [${who}]`
    )
  }
}

if (values.inclusive !== undefined) {
  const names = values.inclusive.split(",")
  const parent = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node)
  const label = (node) =>
    `${node.callFrame.functionName || "(anonymous)"}@${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`
  const inclusive = new Map(names.map((name) => [name, 0]))
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0
    if (us === 0) continue
    const seen = new Set()
    for (let cur = node; cur !== undefined; cur = parent.get(cur.id)) {
      const text = label(cur)
      for (const name of names) if (!seen.has(name) && text.includes(name)) seen.add(name)
    }
    for (const name of seen) inclusive.set(name, inclusive.get(name) + us)
  }
  if (values.markdown) {
    console.log("")
    console.log(`| with everything it calls | ms | % |${calls === undefined ? "" : " µs per call |"}`)
    console.log(`|---|---|---|${calls === undefined ? "" : "---|"}`)
    for (const [name, us] of inclusive) {
      console.log(`| \`${name}\` | ${ms(us)} | ${pct(us)} |${calls === undefined ? "" : ` ${perCall(us)} |`}`)
    }
  } else {
    console.log("\ninclusive (ms, %, µs/call):")
    for (const [name, us] of inclusive) {
      console.log(`  ${name.padEnd(40)} ${ms(us).padStart(9)} ${pct(us).padStart(6)}%  ${perCall(us)}`)
    }
  }
}
