/**
 * McpToolkit on the SDK's factory against real servers, through `effect/ai`'s own `LanguageModel.generateText`: the
 * example app (`examples/toolkit.ts`: `@zett/ai-chat-completions` against a local Chat Completions endpoint,
 * server-everything over stdio and Streamable HTTP), run as the 3 line's is, in a process of its own; then, with a
 * language model made by `LanguageModel.make` that answers from a script and records what the provider would be
 * sent, a loop of the test's own with server-everything's tools over stdio, interruption of a call on a real stdio
 * server, a cached tool list that starts no process, and `refresh` on the conversation's open connection to an
 * in-process server whose list changes. The 3 line's tests (packages/mcp-node/test/McpToolkit.test.ts) ran
 * `@effect/ai-openai` against a fake Responses API endpoint; its Effect 4 line is a beta that does not run on 4.1, so
 * the example speaks Chat Completions (OpenAI's too) and the assertions read that wire.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig, McpServers, McpToolCache, McpToolkit } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as Source from "@zett/testing-core/Source"
import * as TempDir from "@zett/testing-core/TempDir"
import { LanguageModel, Prompt, type Response, Tool as AiTool } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Fake from "./utils/fakeChatCompletions.js"
import * as Faults from "./utils/faults.js"
import * as Handled from "./utils/handled.js"
import * as Processes from "./utils/processes.js"
import { node, npmServer } from "./utils/servers.js"
import { shop } from "./utils/shopServer.js"

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

const example = Path.join(import.meta.dirname, "..", "examples", "toolkit.ts")

/** The live processes whose PATH carries `marker` (the SDK's default environment for stdio servers keeps PATH). */
const withPathMarker = (marker: string) =>
  Processes.list().filter((p) => {
    if (!Processes.isLive(p)) return false
    try {
      return (Processes.environ(p.pid).PATH ?? "").includes(marker)
    } catch {
      return false
    }
  })

const runExample = (question: string, env: Record<string, string>) =>
  Effect.callback<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    ChildProcess.execFile(
      process.execPath,
      [...Source.nodeArgs, example, question],
      {
        env: { ...process.env, ...env },
        timeout: 90_000
      },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }))
    )
  })

describe("McpToolkit with effect/ai's LanguageModel and real servers", () => {
  it.live(
    "the example app answers through its own generateText loop with tools of server-everything over stdio and HTTP, and leaves no process",
    () =>
      Effect.gen(function*() {
        const provider = yield* Fake.fakeProvider([
          Fake.calls(["call_sum", "everything__get-sum", { a: 2, b: 3 }]),
          Fake.calls(["call_echo", "everything_http__echo", { message: "five" }]),
          Fake.answer("2 + 3 = 5, and the HTTP server echoed five.")
        ])
        const marker = `/nonexistent/zett-marker-${Crypto.randomUUID()}`
        // the check below finds a process by the marker in its PATH
        const control = ChildProcess.spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
          env: { ...process.env, PATH: `${process.env.PATH}:${marker}` },
          stdio: "ignore"
        })
        assert.isTrue(
          yield* Processes.eventually(() => withPathMarker(marker).length === 1),
          "the control process is found"
        )
        control.kill("SIGKILL")
        assert.isTrue(
          yield* Processes.eventually(() => withPathMarker(marker).length === 0),
          "the control process is gone"
        )
        const run = yield* runExample("What is 2 + 3? Then echo the answer.", {
          OPENAI_API_KEY: "sk-test-toolkit-key",
          OPENAI_BASE_URL: `${provider.url}/v1`,
          PATH: `${process.env.PATH}:${marker}`,
          ZETT_TEST_MARKER: marker
        })
        assert.strictEqual(run.code, 0, run.stderr)
        const lines = run.stdout.trim().split("\n")
        assert.deepStrictEqual(lines, [
          `everything__get-sum: [{"type":"text","text":"The sum of 2 and 3 is 5."}]`,
          `everything_http__echo: [{"type":"text","text":"Echo: five"}]`,
          "2 + 3 = 5, and the HTTP server echoed five."
        ])
        // what the model was given: both servers' tools with their schemas, then each result in the next request
        const [first, second, third] = provider.requests.map((request) => request.body)
        const tools = (first.tools as Array<any>).map((tool) => tool.function.name)
        assert.includeMembers(tools, [
          "everything__get-sum",
          "everything__echo",
          "everything_http__get-sum",
          "everything_http__echo"
        ])
        const sum = (first.tools as Array<any>).find((tool) => tool.function.name === "everything__get-sum")
        assert.deepStrictEqual(Object.keys(sum.function.parameters.properties), ["a", "b"])
        assert.include(
          JSON.stringify(first.messages),
          "Tools named <server>__<tool> belong to the MCP server <server>."
        )
        assert.deepStrictEqual(Fake.toolOutputsOf(second), [[{ type: "text", text: "The sum of 2 and 3 is 5." }]])
        assert.deepStrictEqual(Fake.toolOutputsOf(third).at(-1), [{ type: "text", text: "Echo: five" }])
        // the key went to the provider and nowhere else
        assert.strictEqual(provider.requests[0]!.headers.authorization, "Bearer sk-test-toolkit-key")
        assert.notInclude(run.stdout + run.stderr, "sk-test-toolkit-key")
        assert.deepStrictEqual(withPathMarker(marker), [], "no server process is left")
      }).pipe(Effect.scoped)
  )

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
          Effect.provide(Layer.mergeAll(McpServers.layer([everything]), factory, model.layer))
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
      })
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
          Effect.provide(
            Layer.mergeAll(
              McpServers.layer([Faults.stdioFault("slow", marker, [], [`--record=${record}`])]),
              factory,
              model.layer
            )
          )
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
      }).pipe(Effect.scoped)
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
          Effect.provide(
            Layer.mergeAll(
              McpServers.layer([Faults.stdioFault("f", marker, [], [`--record=${record}`])]),
              factory,
              model.layer
            )
          )
        )
        assert.isTrue(Fs.existsSync(record))
      }).pipe(Effect.scoped)
  )

  it.live("refresh lists again a server that announced a change, on the conversation's open connection", () =>
    Effect.gen(function*() {
      const { make, stats } = shop()
      yield* Effect.scoped(Effect.gen(function*() {
        const before = yield* McpToolkit.make()
        assert.deepStrictEqual(Object.keys(before.toolkit.tools), ["shop__old", "shop__rotate"])
        const fresh = yield* before.refresh
        assert.deepStrictEqual(Object.keys(fresh.toolkit.tools), ["shop__old", "shop__rotate"], "nothing changed yet")
        const { result } = yield* Handled.last(before.toolkit.handle("shop__rotate", {}))
        assert.deepStrictEqual(result, [{ type: "text", text: "rotated" }])
        // the announcement drops the cached list in a fiber of its own: the next refreshes see it
        let after = yield* before.refresh
        for (let i = 0; i < 20 && Object.keys(after.toolkit.tools).includes("shop__old"); i++) {
          yield* Effect.sleep("5 millis")
          after = yield* after.refresh
        }
        assert.deepStrictEqual(Object.keys(after.toolkit.tools), ["shop__rotate", "shop__fresh"])
        assert.deepStrictEqual((yield* Handled.last(after.toolkit.handle("shop__fresh", {}))).result, [{
          type: "text",
          text: "fresh"
        }])
        assert.strictEqual(stats.created, 1, "one connection for the whole conversation")
      })).pipe(
        Effect.provide(
          Layer.mergeAll(
            McpServers.layer([McpServerConfig.http({ name: "shop", url: "http://127.0.0.1:1/shop" })]),
            NodeMcpClientFactory.layerInMemory({ shop: make }),
            McpToolCache.layerMemory({ ttl: "1 hour" })
          )
        )
      )
    }))
})
