// npm run eval:toolsearch [-- --misses]   (--misses: the tuning half's requests whose tools are not in the first five)
//
// Recall@1/@5/@10 and MRR per kind of request for Zett's tool search over the captured tool lists of real MCP
// servers (fixtures/tools.json, from capture.mjs). The requests whose number is odd are the tuning half (the
// ranker's weights were chosen looking at them only); the even ones are held out. Both halves and the whole set
// are printed.
import { ToolSearch } from "@zett/common"
import { checkLabels, evaluate, groupsOf, halves, loadFixture, loadRequests, table } from "./evaluate.js"

const fixture = loadFixture()
const requests = loadRequests()
const problems = checkLabels(fixture, requests, ToolSearch.words)
if (problems.length > 0) {
  console.error(`requests.json has problems:\n${problems.join("\n")}`)
  process.exit(1)
}
const groups = groupsOf(fixture)
const index = ToolSearch.make(groups)
const rank = (query: string, limit: number) =>
  index.search(query, { limit }).map((hit) => ({ id: `${hit.server}/${hit.tool.remoteName}`, score: hit.score }))

const { heldOut, tune } = halves(requests)
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
  console.log(`${name}\n\n${table(rows)}\n`)
  // the misses of the tuning half only: reading the held-out misses would tune on them
  if (process.argv.includes("--misses") && name === "tuning half (odd ids)") {
    for (const miss of misses) console.log(`miss ${miss.id}: ${miss.query}\n    ${miss.top.join(", ")}`)
    console.log()
  }
}

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
