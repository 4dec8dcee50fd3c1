import { assert, describe, it } from "vitest"
import * as ToolSearch from "../src/ToolSearch.js"

const tool = (name: string, description: string, properties: Record<string, unknown> = {}) => ({
  name,
  description,
  parameters: { type: "object", properties }
})

const groups = [
  {
    server: "github",
    tools: [
      tool("github__create_issue", "Create a new issue in a GitHub repository", { title: { type: "string" } }),
      tool("github__create_pull_request", "Create a new pull request in a GitHub repository"),
      tool("github__search_code", "Search for code across GitHub repositories", { q: { type: "string" } })
    ]
  },
  {
    server: "files",
    instructions: "Reads and writes files on the local disk.",
    tools: [
      tool("files__listDirectory", "Get a detailed listing of all files and directories in a specified path"),
      tool("files__move_file", "Move or rename files and directories", {
        source: { type: "string", description: "The path to move from" },
        destination: { type: "string" }
      })
    ]
  },
  {
    server: "maps",
    tools: [
      tool("maps__maps_geocode", "Convert an address into geographic coordinates", { address: { type: "string" } })
    ]
  }
]

describe("ToolSearch", () => {
  it("splits names on underscores, dashes and case, drops stop words and strips suffixes", () => {
    assert.deepStrictEqual(ToolSearch.words("get_pull_request API-post-page listDirectory HTTPServer"), [
      "get",
      "pull",
      "request",
      "api",
      "post",
      "page",
      "list",
      "directory",
      "http",
      "server"
    ])
    assert.deepStrictEqual(ToolSearch.words("the entities of the files, creating"), ["entity", "file", "creat"])
  })

  it("ranks the tool whose name and description hold the query's words first", () => {
    const index = ToolSearch.make(groups)
    const hits = index.search("open a new issue on GitHub")
    assert.strictEqual(hits[0]?.tool.name, "github__create_issue")
    assert.strictEqual(hits[0]?.server, "github")
  })

  it("finds a tool by a word that begins one of its words, and by a related word", () => {
    const index = ToolSearch.make(groups)
    assert.strictEqual(index.search("repo code")[0]?.tool.name, "github__search_code")
    // `folder` is a related word of `directory`; the tool's name splits on case
    assert.strictEqual(index.search("show the folder")[0]?.tool.name, "files__listDirectory")
  })

  it("reads parameter names and descriptions, and the server's name and instructions", () => {
    const index = ToolSearch.make(groups)
    assert.strictEqual(index.search("destination")[0]?.tool.name, "files__move_file")
    assert.strictEqual(index.search("local disk").length, 2)
  })

  it("keeps to one server and to the limit when asked", () => {
    const index = ToolSearch.make(groups)
    assert.deepStrictEqual(index.search("create", { server: "files" }), [])
    assert.strictEqual(index.search("create github", { limit: 1 }).length, 1)
    assert.strictEqual(index.search("create github", { limit: 0 }).length, 0)
  })

  it("loadedNames reads back the names of a search's result, and none from anything else", () => {
    const index = ToolSearch.make(groups)
    const found = ToolSearch.result(index.search("create an issue", { limit: 2 }))
    assert.deepStrictEqual(ToolSearch.loadedNames(found), found.tools.map((tool) => tool.name))
    assert.strictEqual(ToolSearch.loadedNames(found).length, 2)
    assert.deepStrictEqual(ToolSearch.loadedNames(ToolSearch.result([])), [])
    for (const other of [undefined, null, "text", 7, { tools: "x" }, { tools: [null, 1, { name: 2 }] }]) {
      assert.deepStrictEqual(ToolSearch.loadedNames(other), [], JSON.stringify(other))
    }
  })

  it("finds nothing for a query none of whose words is in the index", () => {
    const index = ToolSearch.make(groups)
    assert.deepStrictEqual(index.search("order a large pizza"), [])
    assert.deepStrictEqual(index.search(""), [])
  })

  it("holds the first of two tools of one name, as a call reaches it", () => {
    const index = ToolSearch.make([
      { server: "a", tools: [tool("same", "first one")] },
      { server: "b", tools: [tool("same", "second one")] }
    ])
    assert.strictEqual(index.size, 1)
    assert.strictEqual(index.get("same")?.server, "a")
  })

  it("takes other ranking parameters and another table of related words when asked", () => {
    // without the related words, `folder` is in no definition
    assert.deepStrictEqual(ToolSearch.make(groups, { related: {} }).search("show the folder"), [])
    const own = ToolSearch.make(groups, { related: { chart: "geographic" } })
    assert.strictEqual(own.search("chart")[0]?.tool.name, "maps__maps_geocode")
    // the parameter names weigh nothing: `destination` is found through nothing else
    const noParameters = ToolSearch.make(groups, { weights: [3, 1.5, 0, 1, 1] })
    assert.deepStrictEqual(noParameters.search("destination"), [])
    const scores = (tuning?: ToolSearch.Tuning) => ToolSearch.make(groups, tuning).search("issue")[0]!.score
    assert.strictEqual(scores({ ...ToolSearch.defaultTuning }), scores())
    assert.isAbove(scores({ k1: 0.5 }), scores())
  })

  it("reads the plural of an acronym as the acronym, and called, named and titled as function words", () => {
    assert.deepStrictEqual(ToolSearch.words("open PRs, URLs and IDs"), ["open", "pr", "url", "id"])
    assert.deepStrictEqual(ToolSearch.words("a branch called main, a file named a.txt"), [
      "branch",
      "main",
      "file",
      "txt"
    ])
  })

  it("lets a related word count more when the query's own word is in no tool", () => {
    const top = (query: string, tuning?: ToolSearch.Tuning) => ToolSearch.make(groups, tuning).search(query)[0]!
    // `folder` is in no definition: `directory` stands in for it at 0.8, not 0.4
    assert.strictEqual(top("folder").tool.name, "files__listDirectory")
    assert.isAbove(top("folder").score, top("folder", { unknownWeight: 0.4 }).score)
    // `path` is in the index, so its related word counts 0.4 whatever the other weight is
    const related = { path: "geographic" }
    const geocode = (unknownWeight: number) =>
      ToolSearch.make(groups, { related, unknownWeight }).search("path").find((hit) => hit.server === "maps")!.score
    assert.strictEqual(geocode(0.4), geocode(0.8))
  })

  it("looks for the words of every key that stems alike", () => {
    const index = ToolSearch.make(groups, { related: { record: "geographic", records: "rename" } })
    assert.sameMembers(index.search("records").map((hit) => hit.tool.name), ["maps__maps_geocode", "files__move_file"])
  })

  it("reads a web address, a file's path or name, and a chat channel in a request as what it is about", () => {
    const index = ToolSearch.make([{
      server: "s",
      tools: [
        tool("navigate", "Navigate to a URL"),
        tool("read", "Read the contents of a file"),
        tool("post", "Post a message to a channel")
      ]
    }], { related: {} })
    const first = (query: string) => index.search(query, { limit: 1 })[0]?.tool.name
    assert.strictEqual(first("what is on https://example.org today"), "navigate")
    assert.strictEqual(first("what is on www.example.org"), "navigate")
    assert.strictEqual(first("what does ~/notes/todo say"), "read")
    assert.strictEqual(first("what does report.csv say"), "read")
    assert.strictEqual(first("what does src/index.ts say"), "read")
    assert.strictEqual(first("tell #frontend we ship today"), "post")
    // the same words with none of those shapes find nothing: no word of them is in a definition
    assert.deepStrictEqual(index.search("what is on example today, what does todo say, tell frontend we ship"), [])
  })

  it("counts less what a request names (a path, an address, a quoted title, a #channel) than what it asks", () => {
    const index = ToolSearch.make([{
      server: "s",
      tools: [tool("get_config", "Get the configuration"), tool("read_file", "Read a file")]
    }], { related: {} })
    const names = (query: string) => index.search(query).map((hit) => hit.tool.name)
    // `config` is only the file's name here: reading is what is asked
    assert.deepStrictEqual(names("read src/config.ts"), ["read_file", "get_config"])
    assert.deepStrictEqual(names("read the 'config' notes"), ["read_file", "get_config"])
    assert.deepStrictEqual(names("read #config"), ["read_file", "get_config"])
    // the same word said, not named, counts whole
    assert.deepStrictEqual(names("read config"), ["get_config", "read_file"])
    const score = (query: string, nameWeight?: number) =>
      ToolSearch.make(groups, { nameWeight }).search(query)[0]!.score
    assert.isAbove(score("#issue", 0.6), score("#issue"))
  })

  it("reads log in, sign in, sign up, look up, look like and set up as one word each", () => {
    const index = ToolSearch.make([{
      server: "s",
      tools: [tool("fill_form", "Fill the fields of a form"), tool("logs", "Read the log of a pod")]
    }], { related: { login: "form", signup: "form" } })
    const first = (query: string) => index.search(query, { limit: 1 })[0]?.tool.name
    assert.strictEqual(first("log in as demo"), "fill_form")
    assert.strictEqual(first("Sign up with jane"), "fill_form")
    assert.strictEqual(first("read the log in the pod"), "logs")
    const looks = ToolSearch.make([{
      server: "s",
      tools: [tool("screenshot", "Take a screenshot of the page"), tool("find", "Look for text on the page")]
    }], { related: { looklike: "screenshot", lookup: "find" } })
    assert.strictEqual(looks.search("what does the page look like", { limit: 1 })[0]?.tool.name, "screenshot")
    assert.strictEqual(looks.search("look up pricing on the page", { limit: 1 })[0]?.tool.name, "find")
  })

  it("shows the first sentence of a description on one line", () => {
    assert.strictEqual(ToolSearch.oneLine("Read a file.\nIt returns text."), "Read a file.")
    assert.strictEqual(ToolSearch.oneLine("Lists files\n\n- path: where"), "Lists files")
    assert.strictEqual(ToolSearch.oneLine("Lists files\nin a folder"), "Lists files in a folder")
    assert.strictEqual(ToolSearch.oneLine("x".repeat(200), 10), `${"x".repeat(9)}…`)
  })
})

describe("ToolSearch with embeddings", () => {
  const tool = (name: string, description: string) => ({
    name: `s__${name}`,
    remoteName: name,
    description,
    parameters: {}
  })
  const groups = [
    { server: "tracker", tools: [tool("create_issue", "Create an issue"), tool("close_issue", "Close an issue")] },
    { server: "files", tools: [tool("readFile", "Read a file"), tool("API-post-page", "Post a page")] }
  ]
  const index = ToolSearch.make(groups)
  const { texts, tools } = ToolSearch.toEmbed(groups)
  // one dimension per tool: the query's vector says how close each tool is
  const vectors = tools.map((_, i) => tools.map((_, j) => (i === j ? 1 : 0)))
  const embedded = ToolSearch.embedded(tools, vectors)

  it("embeds each tool as its server, its name's words and its description", () => {
    assert.deepStrictEqual(texts, [
      "tracker: create issue. Create an issue",
      "tracker: close issue. Close an issue",
      "files: read File. Read a file",
      "files: API post page. Post a page"
    ])
  })

  it("refuses embeddings that are not one finite vector of one length per tool", () => {
    assert.strictEqual(ToolSearch.embedded(tools, vectors.slice(1)), "embeddings that do not match the tools")
    assert.strictEqual(
      ToolSearch.embedded(tools, [...vectors.slice(1), [1, 0, Number.NaN, 0]]),
      "embeddings that do not match the tools"
    )
    assert.strictEqual(ToolSearch.embedded(tools, [...vectors.slice(1), [1]]), "embeddings that do not match the tools")
    assert.strictEqual(ToolSearch.embedded(tools, { length: 4 }), "embeddings that do not match the tools")
  })

  it("fuses the words' ranking with the embeddings': agreement ranks first, and a query with no word of a tool finds the closest", () => {
    if (typeof embedded === "string") return assert.fail(embedded)
    const names = (query: string, vector: ReadonlyArray<number>, options?: ToolSearch.SearchOptions) => {
      const hits = ToolSearch.searchEmbedded(index, embedded, query, vector, options)
      return typeof hits === "string" ? hits : hits.map((hit) => hit.tool.remoteName)
    }
    // the words find the two issue tools, the embedding is closest to readFile: both rankings' tools come first
    assert.deepStrictEqual(names("issue", [0, 0.5, 1, 0]), ["create_issue", "close_issue", "readFile", "API-post-page"])
    assert.deepStrictEqual(names("issue", [0, 0.5, 1, 0], { limit: 2 }), ["create_issue", "close_issue"])
    // no word in common: the embedding alone ranks, every tool has a place
    assert.deepStrictEqual(names("zebra", [0.2, 1, 0.1, 0]), [
      "close_issue",
      "create_issue",
      "readFile",
      "API-post-page"
    ])
    assert.deepStrictEqual(names("zebra", [0.2, 1, 0.1, 0], { server: "files" }), ["readFile", "API-post-page"])
    assert.deepStrictEqual(names("x", [1, 0, 0, 0], { limit: 0 }), [])
    assert.strictEqual(names("issue", [1, 0]), "a query embedding that does not match the tools'")
  })
})
