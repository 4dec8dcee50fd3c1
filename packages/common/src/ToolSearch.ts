/**
 * Tool search: a lexical index over tool definitions and a ranking (BM25F) of them for a query. Plain TypeScript,
 * no Effect, so that both Effect lines share it.
 *
 * A tool is indexed by fields of different weight: its name split into words (`get_pull_request`,
 * `API-post-page` and `listDirectory` alike), its description, its parameters' names and descriptions, and its
 * server's name and instructions, which every tool of the server shares as context. Words are lowercased, stop
 * words dropped and suffixes stripped (`files`, `filed` and `filing` meet), and a query word also matches the
 * words it begins (`repo` finds `repository`), for less, and the words tool definitions say for it (`folder` finds
 * `directory`), for less again. What a query names (a path, an address, a quoted title, a `#channel`) counts less
 * than what it asks. `@zett/mcp` builds its tool search on it (`McpToolSearch`).
 *
 * @since 0.1.0
 */
import { relatedWords } from "./internal/relatedWords.js"

/** What the index reads of a tool: structurally an `McpTool`.  *
 * @since 0.1.0
 * @category models
 */
export interface Tool {
  /** The name the model calls. */
  readonly name: string
  readonly description: string
  readonly parameters: { readonly [key: string]: unknown }
  /** The tool's own name on its server; its words count as the name's. */
  readonly remoteName?: string | undefined
}

/** One server's tools, with what the server says of itself.  *
 * @since 0.1.0
 * @category models
 */
export interface Group<T extends Tool = Tool> {
  readonly server: string
  readonly instructions?: string | undefined
  readonly tools: ReadonlyArray<T>
}

/** A found tool: its definition, its server, and the score it ranked by.  *
 * @since 0.1.0
 * @category models
 */
export interface Hit<T extends Tool = Tool> {
  readonly tool: T
  readonly server: string
  readonly score: number
}

/** The options of one search.  *
 * @since 0.1.0
 * @category models
 */
export interface SearchOptions {
  /** Only this server's tools. */
  readonly server?: string | undefined
  /** At most this many hits (default 5). */
  readonly limit?: number | undefined
}

/**
 * The ranking's parameters, for measuring other settings (the evaluation's tuning script); a field left out keeps
 * its default (`defaultTuning`). Per-field values are in the order name, description, parameter names, parameter
 * descriptions, server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tuning {
  /** How much a word counts in each field (BM25F's w). */
  readonly weights?: readonly [number, number, number, number, number] | undefined
  /** How strongly each field's length is normalized (BM25F's b, from 0 to 1). */
  readonly normalization?: readonly [number, number, number, number, number] | undefined
  /** BM25's saturation: how fast repeats of a word stop adding. */
  readonly k1?: number | undefined
  /** What a query word that only begins an indexed word (`repo` of `repository`) counts, against a whole word. */
  readonly prefixWeight?: number | undefined
  /** What a related word counts, against a word of the query itself. */
  readonly relatedWeight?: number | undefined
  /** What a related word counts when the query's word is in no tool: then it is the only way to what was meant. */
  readonly unknownWeight?: number | undefined
  /** What a word counts that the request names (in a path, an address, quotes, a #channel), against the others. */
  readonly nameWeight?: number | undefined
  /** A table of related words (a word, and the words it also looks for, space-separated) instead of the default. */
  readonly related?: { readonly [word: string]: string } | undefined
}

/** An index over the tools of some servers, built once and searched any number of times.  *
 * @since 0.1.0
 * @category models
 */
export interface Index<T extends Tool = Tool> {
  /** How many tools it holds. */
  readonly size: number
  readonly servers: ReadonlyArray<string>
  /** The tools by exposed name. */
  readonly get: (name: string) => { readonly tool: T; readonly server: string } | undefined
  /** The best-ranked tools for `query`, best first; empty when no word of the query is in the index. */
  readonly search: (query: string, options?: SearchOptions) => ReadonlyArray<Hit<T>>
}

// -----------------------------------------------------------------------------
// words
// -----------------------------------------------------------------------------

// Function words of requests and tool descriptions: they match everything and so rank nothing. A plain object, not
// a Set: the core package keeps no module-level collections.
const stopWords: { readonly [word: string]: true } = Object.fromEntries(
  (
    "a an the and or but if then else of to in on at by for with without from into onto over under about as is are " +
    "was were be been being am do does did done doing have has had having it its this that these those there here " +
    "i me my we our us you your he she they them their his her what which who whom whose when where why how all any " +
    "each every some no not only own same so than too very can could should would will shall may might must just " +
    "also please up out via using use used e g eg etc called named titled"
  ).split(" ").map((word) => [word, true] as const)
)

const isVowel = (c: string | undefined) => c === "a" || c === "e" || c === "i" || c === "o" || c === "u"

/**
 * A light English stemmer: plural and verb endings, so that the forms of a word meet (`entities`/`entity`,
 * `creating`/`created`/`create`, `files`/`file`). Not Porter: it never maps two different common words together
 * where a lighter rule will do, and tool vocabulary is mostly nouns and imperatives.
 *
 * @since 0.1.0
 * @category utils
 */
export const stem = (word: string): string => {
  let w = word
  if (w.length <= 3) return w
  if (w.endsWith("ies") && w.length > 4) w = w.slice(0, -3) + "y"
  else if (w.endsWith("sses")) w = w.slice(0, -2)
  else if (w.endsWith("xes") || w.endsWith("ches") || w.endsWith("shes")) w = w.slice(0, -2)
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1)
  if (w.endsWith("ing") && w.length > 5) w = undouble(w.slice(0, -3))
  else if (w.endsWith("ed") && w.length > 4 && !w.endsWith("eed")) w = undouble(w.slice(0, -2))
  if (w.endsWith("e") && w.length > 4 && !isVowel(w[w.length - 2])) w = w.slice(0, -1)
  return w
}

const undouble = (w: string) =>
  w.length > 3 && w[w.length - 1] === w[w.length - 2] && !isVowel(w[w.length - 1]) && !"lsz".includes(w[w.length - 1]!)
    ? w.slice(0, -1)
    : w

const isLower = (c: number) => c >= 97 && c <= 122
const isUpper = (c: number) => c >= 65 && c <= 90
const isDigit = (c: number) => c >= 48 && c <= 57
const letterOrNumber = /[\p{L}\p{N}]/u

const isWordChar = (text: string, i: number) => {
  if (i >= text.length) return false
  const c = text.charCodeAt(i)
  return isLower(c) || isUpper(c) || isDigit(c) || (c > 127 && letterOrNumber.test(text[i]!))
}

/**
 * The raw words of `text`, lowercased: runs of letters and digits, split where the case turns (`getPullRequest`,
 * `HTTPServer`). A scanner rather than regular expressions: the index reads every word of every definition.
 */
const scan = (text: string, emit: (word: string) => void) => {
  let start = -1
  const flush = (end: number) => {
    if (start >= 0 && end > start) emit(text.slice(start, end).toLowerCase())
    start = -1
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (!isWordChar(text, i)) {
      flush(i)
      continue
    }
    if (start < 0) {
      start = i
      continue
    }
    const before = text.charCodeAt(i - 1)
    // the plural of an acronym (PRs, URLs, IDs) is the acronym
    if (
      c === 115 && isUpper(before) && i - start >= 2 && isUpper(text.charCodeAt(i - 2)) && !isWordChar(text, i + 1)
    ) {
      flush(i)
      continue
    }
    // aB starts a word at B; ABc starts one at B
    const pluralAcronym = text.charCodeAt(i + 1) === 115 && !isWordChar(text, i + 2)
    if (
      isUpper(c) &&
      (isLower(before) || isDigit(before) || (isUpper(before) && isLower(text.charCodeAt(i + 1)) && !pluralAcronym))
    ) {
      flush(i)
      start = i
    }
  }
  flush(text.length)
}

/** A raw word as the index keeps it, or `undefined` for a stop word or a single letter. */
const normalize = (word: string): string | undefined =>
  stopWords[word] === true || (word.length === 1 && !isDigit(word.charCodeAt(0))) ? undefined : stem(word)

/**
 * The words of `text` as the index keeps them: split on case and punctuation, lowercased, stop words out, stemmed.
 * `memo` remembers what each raw word became, for a caller that reads much text.
 *
 * @since 0.1.0
 * @category utils
 */
export const words = (text: string, memo?: Map<string, string | undefined>): Array<string> => {
  const out: Array<string> = []
  scan(text, (raw) => {
    let word: string | undefined
    if (memo === undefined) word = normalize(raw)
    else if (memo.has(raw)) word = memo.get(raw)
    else memo.set(raw, word = normalize(raw))
    if (word !== undefined) out.push(word)
  })
  return out
}

/** The first sentence or line of a description, at most `max` characters: what a search result shows of a tool.  *
 * @since 0.1.0
 * @category utils
 */
export const oneLine = (description: string, max = 160): string => {
  const line = description.trim().split(/\n\s*\n|\n(?=\s*[-*#])/, 1)[0]!.replace(/\s+/g, " ")
  const end = line.search(/(?<=[.!?])\s/)
  const first = end > 0 ? line.slice(0, end) : line
  return first.length <= max ? first : `${first.slice(0, max - 1).trimEnd()}…`
}

// -----------------------------------------------------------------------------
// fields
// -----------------------------------------------------------------------------

/** The fields a tool is indexed by: name, description, parameter names, parameter descriptions, server. */
const fieldCount = 5

/**
 * The ranking's parameters. The field weights, their normalization and `k1` were chosen by a grid search on the
 * tuning half of the evaluation (scripts/toolsearch/tune.ts): the description counts more than the parameters'
 * names, which repeat across tools (`path`, `owner`, `repo`) and rank little, and a larger `k1` lets a word a tool
 * says often (what it is about) keep adding. A prefix counts half a word of the query, a related word 0.4 (0.8 when
 * the query's word is in no tool), and a word the query names (in a path, an address, quotes) 0.3.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTuning: {
  readonly weights: readonly [number, number, number, number, number]
  readonly normalization: readonly [number, number, number, number, number]
  readonly k1: number
  readonly prefixWeight: number
  readonly relatedWeight: number
  readonly unknownWeight: number
  readonly nameWeight: number
} = {
  weights: [3, 1.5, 0.6, 1, 1],
  normalization: [0.3, 0.5, 0.5, 0.75, 0.5],
  k1: 2,
  prefixWeight: 0.5,
  relatedWeight: 0.4,
  unknownWeight: 0.8,
  nameWeight: 0.3
}
/** A word is looked up as a prefix only from this length, so that `go` finds nothing it should not. */
const minPrefix = 4
/** How many parameters and how deep in nested objects the index reads. */
const maxParameters = 64
const maxDepth = 3

const parameterFields = (schema: unknown, names: Array<string>, descriptions: Array<string>, depth: number) => {
  if (depth > maxDepth || typeof schema !== "object" || schema === null) return
  const properties = (schema as { readonly properties?: unknown }).properties
  if (typeof properties !== "object" || properties === null) return
  let count = 0
  for (const [name, value] of Object.entries(properties)) {
    if (count++ >= maxParameters) break
    names.push(name)
    if (typeof value !== "object" || value === null) continue
    const description = (value as { readonly description?: unknown }).description
    if (typeof description === "string") descriptions.push(description)
    parameterFields(value, names, descriptions, depth + 1)
    const items = (value as { readonly items?: unknown }).items
    if (items !== undefined) parameterFields(items, names, descriptions, depth + 1)
  }
}

/** The words of each field of a tool. */
const fieldsOf = (
  tool: Tool,
  serverWords: ReadonlyArray<string>,
  memo: Map<string, string | undefined>
): Array<ReadonlyArray<string>> => {
  const names: Array<string> = []
  const descriptions: Array<string> = []
  parameterFields(tool.parameters, names, descriptions, 0)
  // the exposed name holds the server prefix; the remote name says what the tool does
  const name = tool.remoteName ?? tool.name
  return [
    words(name, memo),
    words(tool.description, memo),
    words(names.join(" "), memo),
    words(descriptions.join(" "), memo),
    serverWords
  ]
}

// -----------------------------------------------------------------------------
// index
// -----------------------------------------------------------------------------

/** One word's occurrences: per tool that has it, its count in each field. */
interface Postings {
  readonly docs: Array<number>
  /** `fieldCount` counts per entry of `docs`. */
  readonly counts: Array<number>
}

/** The tools of some groups and their words, read once by `make`: what the ranking is derived from. */
interface Corpus<T extends Tool> {
  readonly tools: ReadonlyArray<T>
  readonly serverOf: ReadonlyArray<string>
  /** `fieldCount` lengths per tool. */
  readonly lengths: ReadonlyArray<number>
  /** Each field's lengths summed over the tools. */
  readonly totals: ReadonlyArray<number>
  readonly postings: ReadonlyMap<string, Postings>
  readonly byName: ReadonlyMap<string, { readonly tool: T; readonly server: string }>
}

const collect = <T extends Tool>(
  groups: ReadonlyArray<Group<T>>,
  memo: Map<string, string | undefined>
): Corpus<T> => {
  const tools: Array<T> = []
  const serverOf: Array<string> = []
  const lengths: Array<number> = []
  const totals = new Array<number>(fieldCount).fill(0)
  const postings = new Map<string, Postings>()
  const byName = new Map<string, { readonly tool: T; readonly server: string }>()
  for (const group of groups) {
    const serverWords = words(`${group.server} ${group.instructions ?? ""}`, memo)
    for (const tool of group.tools) {
      // the first of two tools of one name is the one a call reaches
      if (byName.has(tool.name)) continue
      const doc = tools.length
      tools.push(tool)
      serverOf.push(group.server)
      byName.set(tool.name, { tool, server: group.server })
      const fields = fieldsOf(tool, serverWords, memo)
      for (let f = 0; f < fieldCount; f++) {
        const list = fields[f]!
        lengths.push(list.length)
        totals[f] += list.length
        for (const word of list) {
          let entry = postings.get(word)
          if (entry === undefined) postings.set(word, entry = { docs: [], counts: [] })
          // a tool's row is the last one of the word's postings, or a new one
          let row = entry.docs.length - 1
          if (row < 0 || entry.docs[row] !== doc) {
            entry.docs.push(doc)
            for (let g = 0; g < fieldCount; g++) entry.counts.push(0)
            row++
          }
          entry.counts[row * fieldCount + f]++
        }
      }
    }
  }
  return { tools, serverOf, lengths, totals, postings, byName }
}

/**
 * What a search reads, made once by `make` and shared by every search of the index: the corpus, the ranking's
 * parameters and what derives from them.
 */
interface Ranking<T extends Tool> {
  readonly tools: ReadonlyArray<T>
  readonly serverOf: ReadonlyArray<string>
  readonly lengths: ReadonlyArray<number>
  readonly postings: ReadonlyMap<string, Postings>
  readonly averages: ReadonlyArray<number>
  readonly vocabulary: ReadonlyArray<string>
  readonly expansions: ReadonlyMap<string, ReadonlyArray<string>>
  readonly weights: readonly [number, number, number, number, number]
  readonly normalization: readonly [number, number, number, number, number]
  readonly k1: number
  readonly prefixWeight: number
  readonly relatedWeight: number
  readonly unknownWeight: number
  readonly nameWeight: number
}

/**
 * Builds the index of some servers' tools. The work is proportional to the words of every definition; a search
 * costs in proportion to the tools that hold its words. `tuning` changes the ranking's parameters, to measure other
 * settings (`defaultTuning` otherwise).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <T extends Tool>(groups: ReadonlyArray<Group<T>>, tuning?: Tuning): Index<T> => {
  const weights = tuning?.weights ?? defaultTuning.weights
  const normalization = tuning?.normalization ?? defaultTuning.normalization
  const k1 = tuning?.k1 ?? defaultTuning.k1
  const prefixWeight = tuning?.prefixWeight ?? defaultTuning.prefixWeight
  const relatedWeight = tuning?.relatedWeight ?? defaultTuning.relatedWeight
  const unknownWeight = tuning?.unknownWeight ?? defaultTuning.unknownWeight
  const nameWeight = tuning?.nameWeight ?? defaultTuning.nameWeight
  const memo = new Map<string, string | undefined>()
  const { byName, lengths, postings, serverOf, tools, totals } = collect(groups, memo)
  const n = tools.length
  const averages = totals.map((total) => n === 0 ? 1 : Math.max(total / n, 1))
  // the words in order, for prefix lookups by binary search
  const vocabulary = Array.from(postings.keys()).sort()
  const servers = Array.from(new Set(serverOf))

  // the related words, as the index keeps words
  const expansions = new Map<string, ReadonlyArray<string>>()
  for (const [word, others] of Object.entries(tuning?.related ?? relatedWords)) {
    // keys that keep the same word (`record`, `records`) look for all their words
    for (const key of words(word, memo)) {
      expansions.set(key, Array.from(new Set([...(expansions.get(key) ?? []), ...words(others, memo)])))
    }
  }

  const ranking: Ranking<T> = {
    tools,
    serverOf,
    lengths,
    postings,
    averages,
    vocabulary,
    expansions,
    weights,
    normalization,
    k1,
    prefixWeight,
    relatedWeight,
    unknownWeight,
    nameWeight
  }
  return {
    size: n,
    servers,
    get: (name) => byName.get(name),
    search: (query, options) => search(ranking, query, options)
  }
}

const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5))

// A word's weighted count in one tool, each field normalized by its length (BM25F).
const weighted = <T extends Tool>(ranking: Ranking<T>, entry: Postings, i: number): number => {
  const { averages, lengths, normalization, weights } = ranking
  const doc = entry.docs[i]!
  let tf = 0
  for (let f = 0; f < fieldCount; f++) {
    const count = entry.counts[i * fieldCount + f]!
    if (count === 0) continue
    const length = lengths[doc * fieldCount + f]!
    tf += weights[f]! * count / (1 - normalization[f]! + normalization[f]! * length / averages[f]!)
  }
  return tf
}

const prefixed = (vocabulary: ReadonlyArray<string>, word: string): Array<string> => {
  let lo = 0
  let hi = vocabulary.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (vocabulary[mid]! < word) lo = mid + 1
    else hi = mid
  }
  const found: Array<string> = []
  for (let i = lo; i < vocabulary.length && vocabulary[i]!.startsWith(word); i++) {
    if (vocabulary[i] !== word) found.push(vocabulary[i]!)
  }
  return found
}

// What the shape of a word of a request says of what it is about, whatever its words: a web address, a file's path
// or name, a chat channel. Each is tested on one word at a time, anchored, so that a search costs in proportion to
// the length of its query, however long and odd it is.
const hints: ReadonlyArray<readonly [RegExp, ReadonlyArray<string>]> = [
  [/\b(?:https?:\/\/|www\.)\S/i, words("url web page navigate")],
  [
    /^(?:~|\.{1,2})?\/[\w.-]|[\w-]\.(?:md|txt|csv|tsv|json|ya?ml|xml|toml|ini|log|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg|webp|mp3|mp4|wav|zip|gz|tar|py|rb|go|rs|java|kt|cpp|cs|sh|sql|html?|css|env|lock)$|(?:^|[^\w-])[a-z0-9_-]+\.(?:[cm]?js|jsx|tsx?)$/,
    words("file directory path")
  ],
  [/^#[a-z]/i, words("channel")]
]

// A quoted title, or a word with a path's, an address's or a file name's shape, or a #channel or @someone: what a
// request names (an argument of the call), not what it asks to be done.
const quoted = /(^|[\s(])(?:"[^"]{1,200}"|'[^']{1,200}'|“[^”]{1,200}”|‘[^’]{1,200}’|`[^`]{1,200}`)(?=$|[\s.,;:!?)])/g
const nameLike = /[/\\]|^[#@~]|\w\.\w/

// Verbs of two words that mean another thing than their first (`log in` is not about logs, `look like` not about
// looking for), read as one word.
const phrasal = /\b(log(?=\s+in\b)|sign(?=\s+(?:in|up)\b)|look(?=\s+(?:up|like)\b)|set(?=\s+up\b))\s+(in|up|like)\b/gi

const partsOf = (query: string): { readonly said: string; readonly named: string } => {
  const named: Array<string> = []
  const rest = query.replace(quoted, (match, before: string) => {
    named.push(match)
    return before
  })
  const said: Array<string> = []
  for (const token of rest.split(/\s+/)) (nameLike.test(token) ? named : said).push(token)
  return {
    said: said.join(" ").replace(phrasal, (_, verb: string, particle: string) => verb + particle),
    named: named.join(" ")
  }
}

const hintsOf = (query: string): Array<string> => {
  const found = new Set<ReadonlyArray<string>>()
  for (const token of query.split(/\s+/)) {
    // the word without the punctuation around it: `(notes.md)`, `~/a,`, `'report.csv'`
    const bare = token.replace(/^[("'`“‘]+/, "").replace(/[)"'`”’.,;:!?]+$/, "")
    for (const [pattern, said] of hints) if (pattern.test(bare)) found.add(said)
  }
  return Array.from(found).flat()
}

const search = <T extends Tool>(
  ranking: Ranking<T>,
  query: string,
  options?: SearchOptions
): ReadonlyArray<Hit<T>> => {
  const { expansions, k1, nameWeight, postings, prefixWeight, relatedWeight, serverOf, tools, unknownWeight } = ranking
  const n = tools.length
  const limit = Math.max(0, Math.floor(options?.limit ?? 5))
  if (n === 0 || limit === 0) return []
  const scores = new Float64Array(n)
  const touched: Array<number> = []
  // a tool is touched once, even when a field of weight 0 leaves its score at 0
  const seen = new Uint8Array(n)
  const add = (entry: Postings, factor: number) => {
    const weight = factor * idf(n, entry.docs.length)
    for (let i = 0; i < entry.docs.length; i++) {
      const doc = entry.docs[i]!
      const tf = weighted(ranking, entry, i)
      if (seen[doc] === 0) {
        seen[doc] = 1
        touched.push(doc)
      }
      scores[doc] += weight * tf / (k1 + tf)
    }
  }
  // a word said twice in a query counts once, and the best of the ways a word is reached
  const weightOf = new Map<string, number>()
  const reach = (word: string, weight: number) => {
    if (postings.has(word) && (weightOf.get(word) ?? 0) < weight) weightOf.set(word, weight)
    if (word.length >= minPrefix) {
      for (const longer of prefixed(ranking.vocabulary, word)) {
        if ((weightOf.get(longer) ?? 0) < weight * prefixWeight) weightOf.set(longer, weight * prefixWeight)
      }
    }
  }
  const { named, said } = partsOf(query)
  const asked = words(said)
  for (const word of asked) reach(word, 1)
  for (const word of words(named)) reach(word, nameWeight)
  for (const word of hintsOf(query)) reach(word, relatedWeight)
  for (const word of asked) {
    const weight = postings.has(word) ? relatedWeight : unknownWeight
    for (const other of expansions.get(word) ?? []) reach(other, weight)
  }
  for (const [word, weight] of weightOf) add(postings.get(word)!, weight)
  const server = options?.server
  const ranked = touched.filter((doc) => scores[doc]! > 0 && (server === undefined || serverOf[doc] === server))
  ranked.sort((a, b) => scores[b]! - scores[a]! || a - b)
  return ranked.slice(0, limit).map((doc) => ({ tool: tools[doc]!, server: serverOf[doc]!, score: scores[doc]! }))
}

// -----------------------------------------------------------------------------
// embeddings
// -----------------------------------------------------------------------------

/**
 * What a tool's embedding is made of: its server, its name's words and its description (its first 2,000
 * characters).
 *
 * @since 0.1.0
 * @category embeddings
 */
export const embeddingText = (server: string, tool: Tool): string =>
  `${server}: ${
    (tool.remoteName ?? tool.name).replace(/[_\-.]+/g, " ").replace(/([a-z0-9])([A-Z])/g, "$1 $2").trim()
  }. ${tool.description.slice(0, 2_000)}`

/**
 * The tools of an index with their embeddings (in the index's order: `embeddingText` of each), ready to rank by.
 *
 * @since 0.1.0
 * @category embeddings
 */
export interface Embedded<T extends Tool = Tool> {
  readonly tools: ReadonlyArray<{ readonly tool: T; readonly server: string }>
  readonly vectors: ReadonlyArray<ReadonlyArray<number>>
  readonly norms: ReadonlyArray<number>
}

const normOf = (values: ReadonlyArray<number>): number => {
  let sum = 0
  for (const x of values) sum += x * x
  return Math.sqrt(sum)
}

const isVector = (values: unknown, length?: number): values is ReadonlyArray<number> =>
  Array.isArray(values) && values.length > 0 && (length === undefined || values.length === length) &&
  values.every((x) => typeof x === "number" && Number.isFinite(x))

/**
 * The tools of `groups` and the texts to embed, in one order.
 *
 * @since 0.1.0
 * @category embeddings
 */
export const toEmbed = <T extends Tool>(
  groups: ReadonlyArray<Group<T>>
): { readonly tools: ReadonlyArray<{ readonly tool: T; readonly server: string }>; readonly texts: Array<string> } => {
  const tools = groups.flatMap((group) => group.tools.map((tool) => ({ tool, server: group.server })))
  return { tools, texts: tools.map(({ server, tool }) => embeddingText(server, tool)) }
}

/**
 * The tools with the vectors a model gave for their texts, or why they cannot be used (not one finite vector of
 * one length per tool).
 *
 * @since 0.1.0
 * @category embeddings
 */
export const embedded = <T extends Tool>(
  tools: ReadonlyArray<{ readonly tool: T; readonly server: string }>,
  vectors: unknown
): Embedded<T> | string => {
  const first = Array.isArray(vectors) ? vectors[0] : undefined
  const length = isVector(first) ? first.length : 0
  if (!Array.isArray(vectors) || vectors.length !== tools.length || !vectors.every((v) => isVector(v, length))) {
    return "embeddings that do not match the tools"
  }
  return { tools, vectors: vectors as ReadonlyArray<ReadonlyArray<number>>, norms: vectors.map(normOf) }
}

// Reciprocal rank fusion: a rank's weight falls slowly, so agreement of the two rankings counts more than either
// ranking's top; 60 is the constant of its authors (Cormack, Clarke and Büttcher, 2009), not tuned here.
const fusion = 60

/**
 * The best-ranked tools for `query` by its words (the index) and by the similarity of its embedding to the tools'
 * (cosine), the two rankings fused by reciprocal rank; or why the query's embedding cannot be used. Every tool
 * has a rank by similarity, so a query that shares no word with any tool still finds the closest.
 *
 * @since 0.1.0
 * @category embeddings
 */
export const searchEmbedded = <T extends Tool>(
  index: Index<T>,
  tools: Embedded<T>,
  query: string,
  queryVector: unknown,
  options?: SearchOptions
): ReadonlyArray<Hit<T>> | string => {
  if (!isVector(queryVector, tools.vectors[0]?.length)) return "a query embedding that does not match the tools'"
  const server = options?.server
  const limit = Math.max(0, Math.floor(options?.limit ?? 5))
  const norm = normOf(queryVector) || 1
  const fused = new Map<T, { server: string; score: number }>()
  index.search(query, { server, limit: index.size }).forEach((hit, rank) =>
    fused.set(hit.tool, { server: hit.server, score: 1 / (fusion + rank + 1) })
  )
  const similar: Array<{ readonly at: number; readonly similarity: number }> = []
  tools.tools.forEach((entry, at) => {
    if (server !== undefined && entry.server !== server) return
    const vector = tools.vectors[at]!
    let dot = 0
    for (let i = 0; i < vector.length; i++) dot += vector[i]! * queryVector[i]!
    similar.push({ at, similarity: dot / ((tools.norms[at] || 1) * norm) })
  })
  similar.sort((a, b) => b.similarity - a.similarity || a.at - b.at)
  similar.forEach(({ at }, rank) => {
    const { server, tool } = tools.tools[at]!
    fused.set(tool, { server, score: (fused.get(tool)?.score ?? 0) + 1 / (fusion + rank + 1) })
  })
  return [...fused].map(([tool, { score, server }]) => ({ tool, server, score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
}

/**
 * The name of the search tool the model is given (`@zett/mcp`'s `McpToolSearch.toolName`).
 *
 * @since 0.1.0
 * @category search tool
 */
export const toolName = "search_tools"

/**
 * The most tools one search returns, whatever the model asks.
 *
 * @since 0.1.0
 * @category search tool
 */
export const maxLimit = 20

/**
 * The search tool as the model reads it: `servers` are the servers searched (an enum when there are several),
 * `deferred` how many tools are held back, `limit` how many a search returns when the model does not say.
 *
 * @since 0.1.0
 * @category search tool
 */
export const definition = (servers: ReadonlyArray<string>, deferred: number, limit: number): {
  readonly name: string
  readonly description: string
  readonly parameters: { readonly [key: string]: unknown }
} => ({
  name: toolName,
  description: `Finds tools of the MCP servers by what they do and loads them (${deferred.toLocaleString("en-US")} ` +
    "tools are not loaded until found). Search with a few words of the task, such as \"create issue\" or \"list " +
    "files\"; then call the tools it returns by name. Search again with other words if none fits.",
  parameters: {
    type: "object",
    properties: {
      query: { type: "string", description: "What the tool should do, in a few words." },
      ...(servers.length > 1
        ? { server: { type: "string", enum: servers, description: "Only the tools of this MCP server." } }
        : {}),
      limit: {
        type: "integer",
        minimum: 1,
        maximum: maxLimit,
        description: `How many tools at most (default ${limit}).`
      }
    },
    required: ["query"],
    additionalProperties: false
  }
})

/**
 * A search as the model asked for it.
 *
 * @since 0.1.0
 * @category search tool
 */
export interface Arguments {
  readonly query: string
  readonly server: string | undefined
  readonly limit: number
}

/**
 * The search tool's arguments, or what is wrong with them in a sentence the model reads.
 *
 * @since 0.1.0
 * @category search tool
 */
export const readArguments = (
  args: unknown,
  servers: ReadonlyArray<string>,
  defaultLimit: number
): { readonly _tag: "Success"; readonly value: Arguments } | { readonly _tag: "Failure"; readonly message: string } => {
  const record = typeof args === "object" && args !== null ? args as Record<string, unknown> : {}
  const query = record.query
  if (typeof query !== "string" || query.trim() === "") {
    return { _tag: "Failure", message: "query must be a non-empty string: what the tool should do, in a few words" }
  }
  const server = record.server
  if (server !== undefined && server !== null && (typeof server !== "string" || !servers.includes(server))) {
    return {
      _tag: "Failure",
      message: `server must be one of ${servers.map((name) => JSON.stringify(name)).join(", ")}`
    }
  }
  const limit = record.limit
  if (limit !== undefined && limit !== null && (typeof limit !== "number" || !Number.isFinite(limit) || limit < 1)) {
    return { _tag: "Failure", message: `limit must be a number from 1 to ${maxLimit}` }
  }
  return {
    _tag: "Success",
    value: {
      query,
      server: typeof server === "string" ? server : undefined,
      limit: Math.min(maxLimit, Math.floor(typeof limit === "number" ? limit : defaultLimit))
    }
  }
}

/**
 * What a search returns to the model: the found tools' names and one-line descriptions, and what to do next.
 *
 * @since 0.1.0
 * @category search tool
 */
export const result = (hits: ReadonlyArray<Hit>): {
  readonly tools: ReadonlyArray<{ readonly name: string; readonly description: string }>
  readonly note: string
} =>
  hits.length === 0
    ? { tools: [], note: "No tool matched. Search again with other words for what the tool should do." }
    : {
      tools: hits.map((hit) => ({ name: hit.tool.name, description: oneLine(hit.tool.description) })),
      note: "These tools are loaded now: call them by name."
    }

/**
 * The names a search's result lists (`result`'s `tools`), read back from what a provider is handed: anything else
 * lists none.
 *
 * @since 0.1.0
 * @category search tool
 */
export const loadedNames = (found: unknown): ReadonlyArray<string> => {
  const tools = typeof found === "object" && found !== null ? (found as { readonly tools?: unknown }).tools : undefined
  return Array.isArray(tools)
    ? tools.flatMap((tool: unknown) =>
      typeof tool === "object" && tool !== null && typeof (tool as { readonly name?: unknown }).name === "string"
        ? [(tool as { readonly name: string }).name]
        : []
    )
    : []
}

/**
 * The system text of a request under tool search: the servers searched (the first 20 named) and how many tools are
 * held back, so that the model knows to search.
 *
 * @since 0.1.0
 * @category search tool
 */
export const describe = (servers: ReadonlyArray<string>, deferred: number): string => {
  const shown = servers.slice(0, 20).join(", ") + (servers.length > 20 ? ` and ${servers.length - 20} more` : "")
  return `Tool search is on: ${deferred.toLocaleString("en-US")} tools of the MCP servers ${shown} are not offered ` +
    `until found. Call ${toolName} with what you need to do; the tools it finds are loaded for the ` +
    "rest of this conversation and are then called by name. A tool already known by name may be called directly."
}
