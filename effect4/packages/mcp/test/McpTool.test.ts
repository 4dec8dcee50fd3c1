/**
 * `McpTool` is `@zett/common`'s (its behaviour is tested there, once for both lines). What is checked here: the
 * 4 line exports that module, and an MCP tool it builds is a tool the 4 line's agent registers and offers.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel, Tool } from "@zett/agent"
import * as Common from "@zett/common"
import { McpTool } from "@zett/mcp"
import * as Effect from "effect/Effect"

describe("McpTool", () => {
  it("is the shared module", () => {
    assert.strictEqual(McpTool.exposedName, Common.McpTool.exposedName)
    assert.strictEqual(McpTool.cleanSchema, Common.McpTool.cleanSchema)
    assert.strictEqual(
      McpTool.exposedName("catalog", "find items", { namespace: true }),
      "catalog__find_items_0a8ce407"
    )
  })

  it.effect("a listed tool, named and cleaned, is what the agent offers the model (E1) (E4)", () =>
    Effect.gen(function*() {
      const listed = McpTool.fromTool("catalog", {
        name: "search",
        description: "Search the catalog",
        inputSchema: { type: "object", properties: { q: { type: "string", title: "Query" } } }
      }, { namespace: true })
      const offered: Array<unknown> = []
      const tool = Tool.dynamic(listed.name, { ...listed, handler: () => Effect.succeed("found") })
      const agent = yield* Agent.make({ tools: [tool] }).pipe(
        Effect.provide(
          ScriptedModel.layer([(request) => (request.tools.forEach((tool) => offered.push(tool)), { text: "ok" })])
        )
      )
      yield* agent.run("find")
      assert.deepStrictEqual(offered, [{
        name: "catalog__search",
        description: "Search the catalog",
        parameters: { type: "object", properties: { q: { type: "string" } } },
        guidelines: false
      }])
    }))
})
