// Not part of the evaluation: the measurement behind the choice of ranker (docs/toolsearch.md). It needs
// minisearch, flexsearch and wink-bm25-text-search installed in a folder outside the repository:
//
//   mkdir /tmp/ts-libs && cd /tmp/ts-libs && npm i minisearch@7.2.0 flexsearch@0.8.212 wink-bm25-text-search@3.1.2
//   npx tsx --conditions=@zett/source scripts/toolsearch/compare-libraries.ts /tmp/ts-libs
//
// Every ranker gets the same words (ToolSearch.words) and the same fields and weights; quality is the evaluation's
// (all served requests), speed the median of searching the evaluation's queries over 10,000 tools (the fixture's
// tools repeated under 45 server names), after a warm-up.
import { ToolSearch } from "@zett/common"
import { createRequire } from "node:module"
import * as path from "node:path"
import { evaluate, groupsOf, loadFixture, loadRequests, type Ranker } from "./evaluate.js"

const dir = process.argv[2] ?? "/tmp/ts-libs"
const require = createRequire(path.join(dir, "package.json"))
const MiniSearch = require("minisearch")
const FlexSearch = require("flexsearch")
const bm25 = require("wink-bm25-text-search")

const fixture = loadFixture()
const requests = loadRequests()
const groups = groupsOf(fixture)

interface Doc {
  id: number
  key: string
  name: string
  description: string
  params: string
  paramDescriptions: string
  server: string
}
const docsOf = (gs: ReturnType<typeof groupsOf>): Array<Doc> => {
  const docs: Array<Doc> = []
  for (const g of gs) {
    const server = ToolSearch.words(`${g.server} ${g.instructions}`).join(" ")
    for (const tool of g.tools) {
      const props = (tool.parameters as { properties?: Record<string, { description?: string }> }).properties ?? {}
      docs.push({
        id: docs.length,
        key: `${g.server}/${tool.remoteName}`,
        name: ToolSearch.words(tool.remoteName).join(" "),
        description: ToolSearch.words(tool.description).join(" "),
        params: ToolSearch.words(Object.keys(props).join(" ")).join(" "),
        paramDescriptions: ToolSearch.words(Object.values(props).map((p) => p?.description ?? "").join(" ")).join(" "),
        server
      })
    }
  }
  return docs
}
const fields = ["name", "description", "params", "paramDescriptions", "server"] as const
// the weights ToolSearch had when docs/toolsearch.md compared the libraries (it has since been tuned: see there)
const boost = { name: 3, description: 1, params: 1.2, paramDescriptions: 0.5, server: 1 }

const builders: Record<string, (docs: Array<Doc>) => Ranker> = {
  "hand-written BM25F": () => {
    throw new Error("built separately")
  },
  minisearch: (docs) => {
    const ms = new MiniSearch({
      fields: [...fields],
      storeFields: ["key"],
      tokenize: (text: string) => text.split(" ").filter((w) => w !== ""),
      processTerm: (term: string) => term
    })
    ms.addAll(docs)
    return (query, limit) =>
      ms.search(ToolSearch.words(query).join(" "), {
        boost,
        prefix: (t: string) => t.length >= 4,
        weights: { prefix: 0.5, fuzzy: 0.3 }
      })
        .slice(0, limit).map((r: { key: string; score: number }) => ({ id: r.key, score: r.score }))
  },
  "wink-bm25-text-search": (docs) => {
    const engine = bm25()
    engine.defineConfig({ fldWeights: boost, bm25Params: { k1: 1.2, b: 0.75 } })
    engine.definePrepTasks([(text: string) => text.split(" ").filter((w) => w !== "")])
    for (const doc of docs) engine.addDoc(doc, doc.id)
    engine.consolidate()
    return (query, limit) =>
      engine.search(ToolSearch.words(query).join(" "), limit).map(([id, score]: [number, number]) => ({
        id: docs[id]!.key,
        score
      }))
  },
  flexsearch: (docs) => {
    const index = new FlexSearch.Document({
      document: { id: "id", index: [...fields] },
      tokenize: "forward",
      encoder: (text: string) => text.split(" ").filter((w) => w !== "")
    })
    for (const doc of docs) index.add(doc)
    // flexsearch ranks within a field and gives no scores: a tool's score is the sum over fields of the field's
    // weight over its rank in the field
    return (query, limit) => {
      const scores = new Map<number, number>()
      const q = ToolSearch.words(query).join(" ")
      for (
        const result of index.search(q, { limit: 100, suggest: true }) as Array<
          { field: string; result: Array<number> }
        >
      ) {
        const w = boost[result.field as keyof typeof boost]
        result.result.forEach((id, rank) => scores.set(id, (scores.get(id) ?? 0) + w / (rank + 1)))
      }
      return Array.from(scores).sort((a, b) => b[1] - a[1]).slice(0, limit).map(([id, score]) => ({
        id: docs[id]!.key,
        score
      }))
    }
  }
}

// 10,000 tools: the fixture under 45 server names
const big = Array.from({ length: 45 }, (_, i) =>
  groups.map((g) => ({
    ...g,
    server: `${g.server}${i}`,
    tools: g.tools.map((tool) => ({ ...tool, name: `${g.server}${i}__${tool.remoteName}` }))
  }))).flat()
const bigDocs = docsOf(big)
console.log(`${bigDocs.length} tools in the large index`)
const smallDocs = docsOf(groups)

const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const time = (rank: Ranker) => {
  for (const r of requests.slice(0, 20)) rank(r.query, 5)
  const samples = requests.map((r) => {
    const start = performance.now()
    rank(r.query, 5)
    return performance.now() - start
  })
  return median(samples)
}

for (const [name, build] of Object.entries(builders)) {
  let small: Ranker
  let bigRank: Ranker
  let buildMs: number
  if (name === "hand-written BM25F") {
    const a = ToolSearch.make(groups)
    small = (q, l) => a.search(q, { limit: l }).map((h) => ({ id: `${h.server}/${h.tool.remoteName}`, score: h.score }))
    const start = performance.now()
    const b = ToolSearch.make(big)
    buildMs = performance.now() - start
    bigRank = (q, l) =>
      b.search(q, { limit: l }).map((h) => ({ id: `${h.server}/${h.tool.remoteName}`, score: h.score }))
  } else {
    small = build(smallDocs)
    const start = performance.now()
    bigRank = build(bigDocs)
    buildMs = performance.now() - start
  }
  const { rows } = evaluate(requests, small)
  const all = rows.find(([kind]) => kind === "all served")![1]
  const none = rows.find(([kind]) => kind === "none")![1]
  console.log(
    `${name}: recall@1 ${all.recall1.toFixed(2)} @5 ${all.recall5.toFixed(2)} @10 ${all.recall10.toFixed(2)} MRR ${
      all.mrr.toFixed(2)
    }, ` +
      `none empty ${none.empty}/${none.count}; 10,000 tools: build ${buildMs.toFixed(0)} ms, search median ${
        time(bigRank).toFixed(2)
      } ms`
  )
}
