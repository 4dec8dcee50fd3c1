// npm run eval:toolsearch [-- --misses]   (--misses: the tuning half's requests whose tools are not in the first five)
//
// Recall@1/@5/@10 and MRR per kind of request for Zett's tool search over the captured tool lists of real MCP
// servers (fixtures/tools.json, from capture.mjs). In requests.json, the requests whose number is odd are the tuning
// half and the even ones are held out; requests-2.json to requests-8.json were written later by helpers that saw
// only the fixture (laterSets in evaluate.ts says what each has been to the ranker's choices). Every set is printed
// per kind, then side by side.
import { ToolSearch } from "@zett/common"
import {
  checkLabels,
  evaluate,
  groupsOf,
  halves,
  laterSets,
  loadFixture,
  loadRequests,
  type Scores,
  table
} from "./evaluate.js"

const fixture = loadFixture()
const requests = loadRequests()
const later = laterSets.map((set) => ({ ...set, requests: loadRequests(set.file) }))
for (const { file, requests: set } of [{ file: "requests.json", requests }, ...later]) {
  const problems = checkLabels(fixture, set, ToolSearch.words)
  if (problems.length > 0) {
    console.error(`${file} has problems:\n${problems.join("\n")}`)
    process.exit(1)
  }
}
const groups = groupsOf(fixture)
const index = ToolSearch.make(groups)
const rank = (query: string, limit: number) =>
  index.search(query, { limit }).map((hit) => ({ id: `${hit.server}/${hit.tool.remoteName}`, score: hit.score }))

const { heldOut, tune } = halves(requests)
// each set's figures over the requests a tool serves, kept from its table for the side-by-side one
const served = new Map<ReadonlyArray<(typeof requests)[number]>, Scores>()
const servers = fixture.servers.map((server) => `${server.package}@${server.version}`)
console.log(
  `${index.size} tools of ${fixture.servers.length} servers (captured ${fixture.capturedAt}): ${servers.join(", ")}\n`
)
for (
  const [name, set] of [["all requests", requests], ["tuning half (odd ids)", tune], [
    "held-out half (even ids)",
    heldOut
  ]] as const
) {
  const { misses, rows } = evaluate(set, rank)
  served.set(set, Object.fromEntries(rows)["all served"]!)
  console.log(`${name}\n\n${table(rows)}\n`)
  // the misses of the tuning half only: reading the held-out misses would tune on them
  if (process.argv.includes("--misses") && name === "tuning half (odd ids)") {
    for (const miss of misses) console.log(`miss ${miss.id}: ${miss.query}\n    ${miss.top.join(", ")}`)
    console.log()
  }
}

for (const { file, requests: set, role } of later) {
  const { rows } = evaluate(set, rank)
  served.set(set, Object.fromEntries(rows)["all served"]!)
  console.log(`${file}: ${role}\n\n${table(rows)}\n`)
}

// every set side by side: recall@5 and MRR over the requests a tool serves
console.log(
  "| set | role | served requests | recall@1 | recall@5 | recall@10 | MRR |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |"
)
for (
  const [name, role, set] of [
    ["requests.json, odd ids", "tuning", tune],
    ["requests.json, even ids", "held out (its figures were read while choosing, its misses were not)", heldOut],
    ...later.map(({ file, requests: set, role }) => [file, role, set] as const)
  ] as const
) {
  const s = served.get(set)!
  console.log(
    `| ${name} | ${role} | ${s.count} | ${s.recall1.toFixed(2)} | ${s.recall5.toFixed(2)} | ${
      s.recall10.toFixed(2)
    } | ${s.mrr.toFixed(2)} |`
  )
}
console.log()

// Speed: the fixture's tools under 45 server names (10,125 tools), the index built once, then every request's
// query searched (limit 5) after a warm-up; the median and the 95th percentile of one search.
const big = Array.from({ length: 45 }, (_, i) =>
  groups.map((group) => ({
    ...group,
    server: `${group.server}${i}`,
    tools: group.tools.map((tool) => ({ ...tool, name: `${group.server}${i}__${tool.remoteName}` }))
  }))).flat()
const buildStart = performance.now()
const large = ToolSearch.make(big)
const buildMs = performance.now() - buildStart
for (const request of requests) large.search(request.query, { limit: 5 })
const samples: Array<number> = []
for (let round = 0; round < 5; round++) {
  for (const request of requests) {
    const start = performance.now()
    large.search(request.query, { limit: 5 })
    samples.push(performance.now() - start)
  }
}
samples.sort((a, b) => a - b)
const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(3)
console.log(
  `speed: ${large.size.toLocaleString("en-US")} tools, index built in ${
    buildMs.toFixed(0)
  } ms; one search (limit 5): ` +
    `median ${at(0.5)} ms, p95 ${at(0.95)} ms over ${samples.length} searches`
)
