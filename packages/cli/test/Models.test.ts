/**
 * `zett run` on the providers written in this repository (Chat Completions, Gemini, Bedrock), each against a fake
 * server on 127.0.0.1 speaking its wire format.
 */
import { assert, describe, it } from "@effect/vitest"
import * as FakeProvider from "@zett/testing/FakeProvider"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { awaitSleeps, demoCall, demoTools, fakeFactory, httpConfig, tempDir, zett } from "./utils/zett.js"

const KEY = "sk-zett-models-test-0123456789SECRET"
const lines = (text: string) => text.split("\n").filter((line) => line !== "")

describe("zett run on the providers written here", () => {
  it.scoped("a Chat-Completions-only endpoint: streamed tool-call deltas run the MCP tool, the answer streams", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const server = yield* FakeProvider.fakeProvider([
        FakeProvider.chatSse(FakeProvider.chatChunks({
          text: ["Adding."],
          calls: [{ id: "call_1", name: "demo__add", pieces: ["{\"a\":", "2,\"b\"", ":40}"] }],
          usage: { input: 100, output: 20 }
        })),
        FakeProvider.chatSse(
          FakeProvider.chatChunks({ text: ["2 + 40 ", "= 42"], usage: { input: 150, output: 8, cached: 100 } })
        )
      ])
      const result = yield* zett(["run", "What is 2 + 40?", "--config", config, "--verbose"], {
        clientFactory: factory,
        env: { ZETT_MODEL: "openai-chat:qwen2.5:7b", OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${server.url}/v1` }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(lines(result.stdout), [
        "Adding.",
        "→ demo__add {\"a\":2,\"b\":40}",
        "← demo__add: {\"sum\":42}",
        "2 + 40 = 42"
      ])
      // --verbose: the usage of both turns
      assert.strictEqual(result.stderr, "zett: usage: 250 input tokens (100 cached), 28 output tokens\n")
      assert.deepStrictEqual(server.requests.map((r) => r.url), ["/v1/chat/completions", "/v1/chat/completions"])
      assert.strictEqual(server.requests[0]!.body.model, "qwen2.5:7b")
      assert.include(server.requests[0]!.body.tools.map((t: any) => t.function.name), "demo__add")
      assert.deepStrictEqual(server.requests[1]!.body.messages.slice(-2), [
        {
          role: "assistant",
          content: "Adding.",
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "demo__add", arguments: "{\"a\":2,\"b\":40}" }
          }]
        },
        { role: "tool", tool_call_id: "call_1", content: "{\"sum\":42}" }
      ])
      assert.notInclude(result.stdout + result.stderr, KEY)
    }))

  it.scoped("an unknown tool from the model reaches it as a failed call; the run goes on", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const server = yield* FakeProvider.fakeProvider([
        FakeProvider.chatSse(
          FakeProvider.chatChunks({ calls: [{ id: "c1", name: "add", pieces: ["{\"a\":2,\"b\":40}"] }] })
        ),
        FakeProvider.chatSse(FakeProvider.chatChunks({ text: ["sorry"] }))
      ])
      const result = yield* zett(["run", "What is 2 + 40?", "--config", config], {
        clientFactory: factory,
        env: { ZETT_MODEL: "openai-chat:small", OPENAI_BASE_URL: `${server.url}/v1` }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(server.requests[1]!.body.messages.at(-1), {
        role: "tool",
        tool_call_id: "c1",
        content: JSON.stringify({
          error: {
            type: "UnknownTool",
            message: "there is no tool named \"add\"; the closest names are demo__add, demo__fail"
          }
        })
      })
    }))

  it.scoped("an unreachable model: one error line by default; each retry on --log-level debug", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, [])
      const env = { ZETT_MODEL: "openai-chat:small", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }
      const runWithRetries = (args: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.fork(zett(args, { env }))
          for (const delay of ["1 second", "2 seconds", "4 seconds"] as const) {
            yield* awaitSleeps(1)
            yield* TestClock.adjust(delay)
          }
          return yield* Fiber.join(fiber)
        })
      const quiet = yield* runWithRetries(["run", "Hi", "--config", config])
      assert.strictEqual(quiet.code, 1)
      assert.match(
        quiet.stderr,
        /^zett: model request failed: could not reach openai-chat at http:\/\/127\.0\.0\.1:1\/v1\/chat\/completions \(Transport: [^\n]*\)\n$/
      )
      const debug = yield* runWithRetries(["run", "Hi", "--config", config, "--log-level", "debug"])
      const retries = lines(debug.stderr).filter((line) => line.includes("retrying"))
      assert.deepStrictEqual(retries.map((line) => line.replace(/ \(reason=.*$/, "")), [
        "zett: debug: model unreachable, retrying in 1 s (1/3)",
        "zett: debug: model unreachable, retrying in 2 s (2/3)",
        "zett: debug: model unreachable, retrying in 4 s (3/3)"
      ])
    }))

  it.scoped("zett run on google: (a fake Gemini API): the function call runs the MCP tool, the answer streams", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const gemini = (chunks: ReadonlyArray<unknown>) => FakeProvider.sse(chunks.map((data) => ({ data })))
      const server = yield* FakeProvider.fakeProvider([
        gemini(FakeProvider.geminiChunks({ calls: [{ id: "", name: "demo__add", pieces: ["{\"a\":2,\"b\":40}"] }] })),
        gemini(FakeProvider.geminiChunks({ text: ["2 + 40 = 42"], usage: { input: 50, output: 6 } }))
      ])
      const result = yield* zett(["run", "What is 2 + 40?", "--config", config, "--verbose"], {
        clientFactory: factory,
        env: { ZETT_MODEL: "google:gemini-2.5-flash", GOOGLE_API_KEY: KEY, GOOGLE_BASE_URL: server.url }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(lines(result.stdout), [
        "→ demo__add {\"a\":2,\"b\":40}",
        "← demo__add: {\"sum\":42}",
        "2 + 40 = 42"
      ])
      assert.strictEqual(result.stderr, "zett: usage: 50 input tokens, 6 output tokens\n")
      assert.deepStrictEqual(server.requests.map((r) => r.url), [
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
      ])
      assert.deepStrictEqual(server.requests[1]!.body.contents.at(-1), {
        role: "user",
        parts: [{ functionResponse: { id: "call_0", name: "demo__add", response: { result: { sum: 42 } } } }]
      })
      assert.notInclude(result.stdout + result.stderr, KEY)
    }))

  it.scoped("zett run on bedrock: (a fake Bedrock runtime, binary event stream): the tool call runs, the answer streams", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const config = httpConfig(dir, ["demo"])
      const { factory } = fakeFactory({ demo: { tools: demoTools, call: demoCall } })
      const server = yield* FakeProvider.fakeProvider([
        FakeProvider.bedrockStream(
          FakeProvider.bedrockEvents({
            calls: [{ id: "tooluse_1", name: "demo__add", pieces: ["{\"a\":2,", "\"b\":40}"] }]
          }),
          { split: 40 }
        ),
        FakeProvider.bedrockStream(FakeProvider.bedrockEvents({ text: ["2 + 40 = 42"] }))
      ])
      const result = yield* zett(["run", "What is 2 + 40?", "--config", config], {
        clientFactory: factory,
        env: {
          ZETT_MODEL: "bedrock:anthropic.claude-3-5-haiku-20241022-v1:0",
          AWS_BEARER_TOKEN_BEDROCK: KEY,
          BEDROCK_BASE_URL: server.url
        }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(lines(result.stdout), [
        "→ demo__add {\"a\":2,\"b\":40}",
        "← demo__add: {\"sum\":42}",
        "2 + 40 = 42"
      ])
      assert.strictEqual(server.requests[0]!.url, "/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream")
      assert.strictEqual(server.requests[0]!.headers.authorization, `Bearer ${KEY}`)
      assert.notInclude(result.stdout + result.stderr, KEY)
    }))
})
