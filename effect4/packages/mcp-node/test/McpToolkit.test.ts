/**
 * McpToolkit on the SDK's factory against real servers, through `effect/ai`'s own `LanguageModel.generateText` with a
 * language model made by `LanguageModel.make` that answers from a script and records what the provider would be
 * sent: a loop of the app's own with server-everything's tools over stdio, interruption of a call on a real stdio
 * server, and a cached tool list that starts no process. The 3 line's tests (packages/mcp-node/test/McpToolkit.test.ts)
 * ran `@effect/ai-openai` against a fake Responses API endpoint; its Effect 4 line is a beta, so the model here is
 * `effect/ai`'s own, with the same assertions on what it was given.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig, McpServers, McpToolCache, McpToolkit } from "@zett/mcp"
import { LanguageModel, Prompt, type Response, Tool as AiTool } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Faults from "./utils/faults.js"
import * as Processes from "./utils/processes.js"
import { node, npmServer } from "./utils/servers.js"
import * as TempDir from "./utils/tempDir.js"

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
const calls = (...list: ReadonlyArray<[string, string, unknown]>): ReadonlyArray<Response.PartEncoded> => [
  ...list.map(([id, name, params]): Response.PartEncoded => ({ type: "tool-call", id, name, params })),
  { type: "finish", reason: "tool-calls", usage }
]
const answer = (text: string): ReadonlyArray<Response.PartEncoded> => [
  { type: "text", text },
  { type: "finish", reason: "stop", usage }
]

/** A language model that answers the n-th request with the n-th step, and records each request. */
const scriptedModel = (steps: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>) => {
  const seen: Array<LanguageModel.ProviderOptions> = []
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          seen.push(options)
          return [...steps[Math.min(seen.length - 1, steps.length - 1)]!]
        }),
      streamText: () => Stream.die("not streamed")
    })
  )
  return { seen, layer }
}

/** The tool results a request carries back to the model. */
const resultsOf = (options: LanguageModel.ProviderOptions) =>
  options.prompt.content.flatMap((message) =>
    message.role === "tool" ? message.content.flatMap((part) => part.type === "tool-result" ? [part.result] : []) : []
  )

const factory = Layer.mergeAll(Faults.factoryLayer({}), McpToolCache.layerMemory({ ttl: "5 minutes" })).pipe(
  Layer.provide(NodeServices.layer)
)

describe("McpToolkit with effect/ai's LanguageModel and real servers", () => {
  it.live(
    "a generateText loop of the app's own answers with server-everything's tools over stdio, and leaves no process",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const model = scriptedModel([
          calls(["call_sum", "everything__get-sum", { a: 2, b: 3 }]),
          calls(["call_echo", "everything__echo", { message: "five" }]),
          answer("2 + 3 = 5, and the server echoed five.")
        ])
        const everything = McpServerConfig.stdio({
          name: "everything",
          command: node,
          args: [npmServer("@modelcontextprotocol/server-everything"), "stdio"],
          env: { ZETT_TEST_MARKER: marker }
        })
        const lines = yield* Effect.scoped(Effect.gen(function*() {
          const mcp = yield* McpToolkit.make()
          const out: Array<string> = []
          let prompt = Prompt.concat(
            Prompt.make([{ role: "system", content: mcp.system }]),
            Prompt.make("What is 2 + 3? Then echo the answer.")
          )
          for (let turn = 0; turn < 5; turn++) {
            const response = yield* LanguageModel.generateText({ prompt, toolkit: mcp.toolkit })
            for (const result of response.toolResults) out.push(`${result.name}: ${JSON.stringify(result.result)}`)
            if (response.finishReason !== "tool-calls") {
              out.push(response.text)
              break
            }
            prompt = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
          }
          assert.strictEqual(Faults.withMarker(marker).length, 1, "one server process for the conversation")
          return out
        })).pipe(
          Effect.provide(McpServers.layer([everything])),
          Effect.provide(Layer.merge(factory, model.layer))
        )
        assert.deepStrictEqual(lines, [
          `everything__get-sum: [{"type":"text","text":"The sum of 2 and 3 is 5."}]`,
          `everything__echo: [{"type":"text","text":"Echo: five"}]`,
          "2 + 3 = 5, and the server echoed five."
        ])
        // what the model was given: the server's tools with their schemas, then each result in the next request
        const [first, second, third] = model.seen
        const tools = first!.tools.map((tool) => tool.name)
        assert.includeMembers(tools, ["everything__get-sum", "everything__echo"])
        const sum = first!.tools.find((tool) => tool.name === "everything__get-sum")!
        assert.deepStrictEqual(
          Object.keys((AiTool.getJsonSchema(sum) as { properties: Record<string, unknown> }).properties),
          ["a", "b"]
        )
        assert.include(
          JSON.stringify(first!.prompt.content[0]),
          "Tools named <server>__<tool> belong to the MCP server <server>."
        )
        assert.deepStrictEqual(resultsOf(second!), [[{ type: "text", text: "The sum of 2 and 3 is 5." }]])
        assert.deepStrictEqual(resultsOf(third!).at(-1), [{ type: "text", text: "Echo: five" }])
        assert.isTrue(
          yield* Processes.eventually(() => Faults.withMarker(marker).length === 0),
          "no server process is left"
        )
      }),
    60_000
  )

  it.live(
    "interrupting a conversation mid-call cancels the call on the stdio server and ends its process",
    () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-toolkit-")
        const record = Path.join(dir, "record.jsonl")
        const marker = Crypto.randomUUID()
        const model = scriptedModel([calls(["call_wait", "slow__wait", {}])])
        const conversation = Effect.scoped(Effect.gen(function*() {
          const mcp = yield* McpToolkit.make()
          return yield* LanguageModel.generateText({ prompt: Prompt.make("wait"), toolkit: mcp.toolkit })
        })).pipe(
          Effect.provide(McpServers.layer([Faults.stdioFault("slow", marker, [], [`--record=${record}`])])),
          Effect.provide(Layer.merge(factory, model.layer))
        )
        const fiber = yield* Effect.forkChild(conversation)
        const started = yield* Processes.eventually(
          () => Faults.readRecord(record).some((entry) => entry.event === "wait-started"),
          30_000
        )
        assert.isTrue(started, "the call reached the server")
        assert.strictEqual(Faults.withMarker(marker).length, 1)
        yield* Fiber.interrupt(fiber)
        const events = Faults.readRecord(record).map((entry) => entry.event)
        assert.deepStrictEqual(events, ["ready", "wait-started", "wait-cancelled"], "the server saw its call cancelled")
        assert.deepStrictEqual(Faults.withMarker(marker), [], "no server process is left")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a conversation whose tool lists are cached starts no process until a tool is called",
    () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-toolkit-")
        const record = Path.join(dir, "record.jsonl")
        const marker = Crypto.randomUUID()
        const model = scriptedModel([calls(["call_echo", "f__echo", { text: "hi" }])])
        const starts = () => Faults.readRecord(record).filter((entry) => entry.event === "ready").length
        yield* Effect.gen(function*() {
          const cold = yield* Effect.scoped(Effect.map(McpToolkit.make(), (mcp) => Object.keys(mcp.toolkit.tools)))
          assert.deepStrictEqual(cold, ["f__echo", "f__report", "f__wait"])
          assert.strictEqual(starts(), 1)
          yield* Effect.scoped(Effect.gen(function*() {
            const warm = yield* McpToolkit.make()
            assert.deepStrictEqual(Object.keys(warm.toolkit.tools), cold)
            assert.strictEqual(starts(), 1, "a cached list starts no process")
            const response = yield* LanguageModel.generateText({ prompt: Prompt.make("echo"), toolkit: warm.toolkit })
            assert.deepStrictEqual(response.toolResults[0]!.result, [{ type: "text", text: "f echo: hi" }])
            assert.strictEqual(starts(), 2, "the call starts one")
          }))
          assert.deepStrictEqual(Faults.withMarker(marker), [], "no server process is left")
        }).pipe(
          Effect.provide(McpServers.layer([Faults.stdioFault("f", marker, [], [`--record=${record}`])])),
          Effect.provide(Layer.merge(factory, model.layer))
        )
        assert.isTrue(Fs.existsSync(record))
      }).pipe(Effect.scoped),
    60_000
  )
})
