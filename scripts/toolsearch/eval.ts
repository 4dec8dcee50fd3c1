// npm run eval:toolsearch [-- --misses] [-- --split tune|held-out]
//
// Recall@1/@5/@10 and MRR per kind of request for Zett's tool search over the captured tool lists of real MCP
// servers (fixtures/tools.json, from capture.mjs). The requests whose number is odd are the tuning half (the
// ranker's weights were chosen looking at them only); the even ones are held out. Both halves and the whole set
// are printed.
import { ToolSearch } from "@zett/common"
import { checkLabels, evaluate, groupsOf, loadFixture, loadRequests, table } from "./evaluate.js"

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

const tune = requests.filter((request) => Number(request.id.slice(1)) % 2 === 1)
const heldOut = requests.filter((request) => Number(request.id.slice(1)) % 2 === 0)
const servers = fixture.servers.map((server) => `${server.package}@${server.version}`)
console.log(
  `${index.size} tools of ${fixture.servers.length} servers (captured ${fixture.capturedAt}): ${servers.join(", ")}\n`
)
for (const [name, set] of [["all requests", requests], ["tuning half (odd ids)", tune], ["held-out half (even ids)", heldOut]] as const) {
  const { misses, rows } = evaluate(set, rank)
  console.log(`${name}\n\n${table(rows)}\n`)
  if (process.argv.includes("--misses") && name === "all requests") {
    for (const miss of misses) console.log(`miss ${miss.id}: ${miss.query}\n    ${miss.top.join(", ")}`)
    console.log()
  }
}
