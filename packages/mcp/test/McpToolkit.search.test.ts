/**
 * Tool search in `McpToolkit`, through `@effect/ai`'s own `LanguageModel.generateText` with a scripted language
 * model that records what the provider would be sent: the tools offered, the search's result, and the found tool
 * offered and called after `refresh`.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory, McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import { fakeFactory, tool } from "@zett/testing-core/FakeMcp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const http = (name: string, extra: McpServerConfig.Extra = {}) =>
  McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}`, ...extra })

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 }

const setup = (steps: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>) => {
  const seen: Array<ReadonlyArray<string>> = []
  const { factory, stats } = fakeFactory({
    github: {
      tools: [
        tool("create_issue", { type: "object" }, "Create a new issue in a GitHub repository"),
        ...Array.from({ length: 45 }, (_, i) => tool(`other_${i}`, { type: "object" }, `Another operation number ${i}`))
      ]
    }
  })
  const layer = Layer.mergeAll(
    McpServers.layer([http("github", { alwaysLoad: ["other_0"] })]).pipe(Layer.orDie),
    Layer.succeed(McpClientFactory.McpClientFactory, factory),
    McpToolCache.layerMemory({ ttl: "5 minutes" }),
    Layer.effect(
      LanguageModel.LanguageModel,
      LanguageModel.make({
        generateText: (options) =>
          Effect.sync(() => {
            seen.push(options.tools.map((t) => t.name))
            return [...steps[Math.min(seen.length - 1, steps.length - 1)]!]
          }),
        streamText: () => Effect.dieMessage("not streamed") as never
      })
    )
  )
  return { layer, seen, stats }
}

describe("McpToolkit with tool search", () => {
  it.scoped("offers search_tools and the always-loaded tools; a search's tools are offered after refresh and run", () => {
    const { layer, seen, stats } = setup([
      [{ type: "tool-call", id: "c1", name: "search_tools", params: { query: "create an issue", limit: 1 } }, {
        type: "finish",
        reason: "tool-calls",
        usage
      }],
      [{ type: "tool-call", id: "c2", name: "github__create_issue", params: { title: "x" } }, {
        type: "finish",
        reason: "tool-calls",
        usage
      }]
    ])
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make()
      assert.deepStrictEqual(mcp.tools.map((t) => t.name), ["github__other_0"])
      assert.strictEqual(mcp.deferred.length, 45)
      assert.include(mcp.system, "Tool search is on: 45 tools of the MCP servers github are not offered until found.")
      const first = yield* LanguageModel.generateText({ prompt: Prompt.make("file a bug"), toolkit: mcp.toolkit })
      assert.deepStrictEqual([...seen[0]!].sort(), ["github__other_0", "search_tools"])
      const result = first.toolResults[0]!
      assert.deepStrictEqual(result.result, {
        tools: [{ name: "github__create_issue", description: "Create a new issue in a GitHub repository" }],
        note: "These tools are loaded now: call them by name."
      })
      const next = yield* mcp.refresh
      assert.deepStrictEqual(next.tools.map((t) => t.name).sort(), ["github__create_issue", "github__other_0"])
      const second = yield* LanguageModel.generateText({ prompt: Prompt.make("file a bug"), toolkit: next.toolkit })
      assert.include(seen[1]!, "github__create_issue")
      assert.strictEqual(second.toolResults[0]!.isFailure, false)
      assert.deepStrictEqual(stats.calls.map((call) => call.name), ["create_issue"])
    }).pipe(Effect.provide(layer))
  })

  it.scoped("with mode off every tool is in the toolkit", () => {
    const { layer } = setup([])
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make({ toolSearch: { mode: "off" } })
      assert.strictEqual(mcp.tools.length, 46)
      assert.deepStrictEqual(mcp.deferred, [])
      assert.notInclude(mcp.system, "Tool search")
      assert.isFalse(Object.hasOwn(mcp.toolkit.tools, "search_tools"))
    }).pipe(Effect.provide(layer))
  })

  it.scoped("with deferLoading the toolkit also holds the tools held back, and a call of one runs on its server with no refresh", () => {
    const { layer, seen, stats } = setup([
      [{ type: "tool-call", id: "c1", name: "github__create_issue", params: { title: "x" } }, {
        type: "finish",
        reason: "tool-calls",
        usage
      }]
    ])
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make({ deferLoading: true })
      // what is offered and what is held back are as without it
      assert.deepStrictEqual(mcp.tools.map((t) => t.name), ["github__other_0"])
      assert.strictEqual(mcp.deferred.length, 45)
      assert.strictEqual(Object.keys(mcp.toolkit.tools).length, 47)
      const result = yield* LanguageModel.generateText({ prompt: Prompt.make("file a bug"), toolkit: mcp.toolkit })
      assert.strictEqual(seen[0]!.length, 47)
      assert.include(seen[0]!, "search_tools")
      assert.strictEqual(result.toolResults[0]!.isFailure, false)
      assert.deepStrictEqual(stats.calls.map((call) => call.name), ["create_issue"])
    }).pipe(Effect.provide(layer))
  })
})
