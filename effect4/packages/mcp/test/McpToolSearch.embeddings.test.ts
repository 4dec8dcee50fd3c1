/**
 * Tool search with an embedding model the app provides (`McpToolSearch.Embeddings`, `layerEmbeddings` for
 * `effect/ai`'s `EmbeddingModel`): the 3 line's tests, every assertion kept. Read from what the model
 * was given: a request that shares no word with the tool it needs is found by meaning, the tools are embedded once
 * per version of the lists, and a failing model leaves the words' ranking with a warning. The embedding model is a
 * fake whose vectors count a few families of related words, as a real model's place related words near each other.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent } from "@zett/agent"
import { McpClientFactory, McpServerConfig, McpServers, McpToolCache, McpToolkit, McpToolSearch } from "@zett/mcp"
import { captureLogs } from "@zett/testing-core/CapturedLogs"
import { agentWith, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, tool } from "@zett/testing-core/FakeMcp"
import { EmbeddingModel, LanguageModel, Prompt, type Response } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

// 30 + 15 tools: past the default threshold of 40
const githubTools = [
  tool("create_issue", { type: "object" }, "Create a new issue in a GitHub repository"),
  tool("create_pull_request", { type: "object" }, "Create a new pull request in a GitHub repository"),
  ...Array.from(
    { length: 28 },
    (_, i) => tool(`other_${i}`, { type: "object" }, `Another GitHub operation number ${i}`)
  )
]
const fileTools = [
  tool("read_file", { type: "object" }, "Read the complete contents of a file as text."),
  tool("list_directory", { type: "object" }, "Get a listing of all files and directories in a path"),
  ...Array.from(
    { length: 13 },
    (_, i) => tool(`file_op_${i}`, { type: "object" }, `Another file operation number ${i}`)
  )
]

const families = [
  ["issue", "bug", "defect", "problem", "ticket"],
  ["pull", "merge", "review", "patch"],
  ["read", "contents", "open", "show", "text"],
  ["directory", "folder", "listing", "files"]
]

/** A vector per text: how many words of each family it has, and a little of everything else. */
const vectorOf = (text: string): Array<number> => {
  const words = text.toLowerCase().split(/[^a-z]+/).filter((word) => word !== "")
  return [
    ...families.map((family) => words.filter((word) => family.includes(word)).length),
    0.1 + words.filter((word) => !families.some((family) => family.includes(word))).length * 0.01
  ]
}

const fakeEmbedder = (fail?: () => unknown) => {
  const calls: Array<ReadonlyArray<string>> = []
  const embedder: McpToolSearch.Embedder = {
    embed: (input) =>
      Effect.suspend(() => {
        calls.push([input])
        return fail === undefined ? Effect.succeed({ vector: vectorOf(input) }) : Effect.fail(fail())
      }),
    embedMany: (input) =>
      Effect.suspend(() => {
        calls.push(input)
        return fail === undefined
          ? Effect.succeed({ embeddings: input.map((text) => ({ vector: vectorOf(text) })) })
          : Effect.fail(fail())
      })
  }
  return { calls, layer: Layer.succeed(McpToolSearch.Embeddings)(embedder) }
}

const servers = () => fakeFactory({ github: { tools: githubTools }, files: { tools: fileTools } })

const foundNames = (content: unknown) => (content as { tools: Array<{ name: string }> }).tools.map((t) => t.name)

// "report a defect" shares no word with create_issue's name or description
const defect = { name: "search_tools", arguments: { query: "report a defect in the login page", limit: 3 } }

describe("tool search with an embedding model", () => {
  it.effect("a request that shares no word with the tool it needs finds it by meaning, where the words alone miss it", () =>
    Effect.gen(function*() {
      const embeddings = fakeEmbedder()
      const withModel = agentWith({ servers: [http("github"), http("files")], clientFactory: servers().factory }, [
        { toolCalls: [defect] },
        { toolCalls: [{ name: "github__create_issue", arguments: {} }] },
        { text: "done" }
      ])
      yield* Agent.run("the login page is broken").pipe(
        Effect.provide(Layer.provide(withModel.layer, embeddings.layer))
      )
      const found = foundNames(toolMessages(withModel.requests[1]!)[0]!.content)
      assert.strictEqual(found[0], "github__create_issue")
      assert.strictEqual(found.length, 3)
      // what the search found is offered at the next step
      assert.include(withModel.requests[1]!.tools.map((t) => t.name), "github__create_issue")

      const wordsAlone = agentWith({ servers: [http("github"), http("files")], clientFactory: servers().factory }, [
        { toolCalls: [defect] },
        { text: "done" }
      ])
      yield* Agent.run("the login page is broken").pipe(Effect.provide(wordsAlone.layer))
      assert.notInclude(foundNames(toolMessages(wordsAlone.requests[1]!)[0]!.content), "github__create_issue")
    }))

  it.effect("the tools are embedded once for a version of the lists, with their server and description; each search embeds its query", () =>
    Effect.gen(function*() {
      const embeddings = fakeEmbedder()
      const { layer, requests } = agentWith({
        servers: [http("github"), http("files")],
        clientFactory: servers().factory
      }, [
        { toolCalls: [defect, { name: "search_tools", arguments: { query: "open a folder", server: "files" } }] },
        { toolCalls: [{ name: "search_tools", arguments: { query: "merge my patch" } }] },
        { text: "done" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(Layer.provide(layer, embeddings.layer)))
      const batches = embeddings.calls.filter((texts) => texts.length > 1)
      assert.strictEqual(batches.length, 1)
      assert.strictEqual(batches[0]!.length, 45)
      assert.include(batches[0], "github: create issue. Create a new issue in a GitHub repository")
      assert.deepStrictEqual(embeddings.calls.filter((texts) => texts.length === 1), [
        ["report a defect in the login page"],
        ["open a folder"],
        ["merge my patch"]
      ])
      // a search for one server keeps to it
      const [, folder] = toolMessages(requests[1]!)
      assert.strictEqual(foundNames(folder!.content)[0], "files__list_directory")
      assert.isTrue(foundNames(folder!.content).every((name) => name.startsWith("files__")))
      assert.strictEqual(foundNames(toolMessages(requests[2]!).at(-1)!.content)[0], "github__create_pull_request")
    }))

  it.effect("a failing embedding model leaves the words' ranking, with a warning that names the error's kind and not its message", () =>
    Effect.gen(function*() {
      const { layer: logs, lines } = captureLogs()
      const failing = fakeEmbedder(() => ({ _tag: "HttpResponseError", message: "401: key sk-embed-secret refused" }))
      const { layer, requests } = agentWith({
        servers: [http("github"), http("files")],
        clientFactory: servers().factory
      }, [
        { toolCalls: [{ name: "search_tools", arguments: { query: "create an issue", limit: 2 } }] },
        { text: "done" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(Layer.mergeAll(Layer.provide(layer, failing.layer), logs)))
      const found = toolMessages(requests[1]!)[0]!
      assert.strictEqual(found.status, "ok")
      assert.strictEqual(foundNames(found.content)[0], "github__create_issue")
      const warning = lines.find((line) => line.message.includes("tool search ranked by words alone"))
      assert.strictEqual(warning?.level, "WARN")
      assert.include(warning?.message, "the embedding model failed (HttpResponseError)")
      assert.notInclude(JSON.stringify(lines), "sk-embed-secret")
    }))

  it.effect("embeddings that do not match the tools are a failure of the model, not of the search", () =>
    Effect.gen(function*() {
      const { layer: logs, lines } = captureLogs()
      const short: McpToolSearch.Embedder = {
        embed: (input) => Effect.succeed({ vector: vectorOf(input) }),
        embedMany: (input) => Effect.succeed({ embeddings: input.slice(1).map((text) => ({ vector: vectorOf(text) })) })
      }
      const { layer, requests } = agentWith({
        servers: [http("github"), http("files")],
        clientFactory: servers().factory
      }, [
        { toolCalls: [{ name: "search_tools", arguments: { query: "create an issue", limit: 2 } }] },
        { text: "done" }
      ])
      yield* Agent.run("hi").pipe(
        Effect.provide(Layer.mergeAll(Layer.provide(layer, Layer.succeed(McpToolSearch.Embeddings)(short)), logs))
      )
      assert.strictEqual(foundNames(toolMessages(requests[1]!)[0]!.content)[0], "github__create_issue")
      assert.isDefined(lines.find((line) => line.message.includes("embeddings that do not match the tools")))
    }))

  it.effect("McpToolkit: an @effect/ai EmbeddingModel ranks its searches too", () =>
    Effect.gen(function*() {
      const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
      const steps: Array<ReadonlyArray<Response.PartEncoded>> = [
        [{ type: "tool-call", id: "c1", name: "search_tools", params: { query: "report a defect", limit: 1 } }, {
          type: "finish",
          reason: "tool-calls",
          usage
        }]
      ]
      let step = 0
      const embeddingModel = Layer.effect(
        EmbeddingModel.EmbeddingModel,
        EmbeddingModel.make({
          embedMany: ({ inputs }) =>
            Effect.succeed({ results: inputs.map(vectorOf), usage: { inputTokens: undefined } })
        })
      )
      const layer = Layer.mergeAll(
        McpServers.layer([http("github"), http("files")]),
        Layer.succeed(McpClientFactory.McpClientFactory, servers().factory),
        McpToolCache.layerMemory({ ttl: "5 minutes" }),
        McpToolSearch.layerEmbeddings.pipe(Layer.provide(embeddingModel)),
        Layer.effect(
          LanguageModel.LanguageModel,
          LanguageModel.make({
            generateText: () => Effect.sync(() => [...steps[Math.min(step++, steps.length - 1)]!]),
            streamText: () => Stream.die("not streamed")
          })
        )
      )
      const result = yield* Effect.gen(function*() {
        const mcp = yield* McpToolkit.make()
        return yield* LanguageModel.generateText({ prompt: Prompt.make("the login is broken"), toolkit: mcp.toolkit })
      }).pipe(Effect.scoped, Effect.provide(layer))
      const searched = result.toolResults[0]!
      assert.deepStrictEqual(foundNames(searched.result), ["github__create_issue"])
    }))
})
