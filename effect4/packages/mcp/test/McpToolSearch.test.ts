/**
 * Tool search on the 4 line: the ranking is `@zett/common`'s `ToolSearch` (tested there, once for both lines); what
 * is checked here is the 4 line's rule of when to search, and that an index over tools this line names and cleans
 * finds them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Common from "@zett/common"
import { McpTool, McpToolSearch } from "@zett/mcp"

const tools = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => McpTool.fromTool("github", { name: `op_${i}`, description: `Operation number ${i}` }, { namespace: true })
  )

describe("McpToolSearch", () => {
  it("searches past the threshold (more than 40 tools or about 20,000 tokens) in auto mode, always or never as asked", () => {
    assert.isFalse(McpToolSearch.isActive(undefined, tools(40)))
    assert.isTrue(McpToolSearch.isActive(undefined, tools(41)))
    assert.isTrue(McpToolSearch.isActive({ threshold: { tokens: 10 } }, tools(2)))
    assert.isTrue(McpToolSearch.isActive({ mode: "always" }, tools(1)))
    assert.isFalse(McpToolSearch.isActive({ mode: "off" }, tools(1000)))
    assert.deepStrictEqual(McpToolSearch.defaultThreshold, { tools: 40, tokens: 20_000 })
  })

  it("indexes the tools this line names and cleans, with the shared ranking", () => {
    const index = McpToolSearch.makeIndex([{
      server: "github",
      tools: [
        McpTool.fromTool("github", { name: "create_issue", description: "Create a new issue in a repository" }, {
          namespace: true
        }),
        ...tools(5)
      ]
    }])
    const hits = index.search("open an issue")
    assert.strictEqual(hits[0]?.tool.name, "github__create_issue")
    assert.strictEqual(McpToolSearch.makeIndex, Common.ToolSearch.make)
    assert.strictEqual(McpToolSearch.oneLine("Read a file.\nMore."), "Read a file.")
  })
})
