/**
 * McpToolkit on the SDK's factory against real servers: the example app (`examples/toolkit.ts`, `@effect/ai-openai`
 * against a local Responses API endpoint, server-everything over stdio and Streamable HTTP), interruption of a
 * call on a real stdio server, and a cached tool list that starts no process.
 */
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import * as Source from "@zett/testing-core/Source"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Fake from "@zett/testing/FakeProvider"
import * as Faults from "@zett/testing/Faults"
import * as Processes from "@zett/testing/Processes"
import { shop } from "@zett/testing/ShopServer"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as ChildProcess from "node:child_process"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const here = Path.dirname(fileURLToPath(import.meta.url))
const example = Path.join(here, "..", "examples", "toolkit.ts")

/** A non-streaming Responses API answer: the text, or the function calls, of one turn. */
const responseOf = (script: Fake.StreamScript) =>
  (Fake.openAiEvents(script).at(-1)!.data as { response: unknown }).response
const calls = (...list: ReadonlyArray<[string, string, unknown]>) =>
  Fake.json(200, responseOf({ calls: list.map(([id, name, args]) => ({ id, name, pieces: [JSON.stringify(args)] })) }))
const answer = (text: string) => Fake.json(200, responseOf({ text: [text] }))

/** The `function_call_output` items a Responses API request carries back to the model. */
const outputsOf = (body: any): Array<unknown> =>
  (body.input as Array<any>).filter((item) => item.type === "function_call_output").map((item) =>
    JSON.parse(item.output)
  )

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
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
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

describe("McpToolkit with @effect/ai-openai and real servers", () => {
  it.scopedLive(
    "the example app answers through its own generateText loop with tools of server-everything over stdio and HTTP, and leaves no process",
    () =>
      Effect.gen(function*() {
        const provider = yield* Fake.fakeProvider([
          calls(["call_sum", "everything__get-sum", { a: 2, b: 3 }]),
          calls(["call_echo", "everything_http__echo", { message: "five" }]),
          answer("2 + 3 = 5, and the HTTP server echoed five.")
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
        const tools = (first.tools as Array<any>).map((tool) => tool.name)
        assert.includeMembers(tools, [
          "everything__get-sum",
          "everything__echo",
          "everything_http__get-sum",
          "everything_http__echo"
        ])
        const sum = (first.tools as Array<any>).find((tool) => tool.name === "everything__get-sum")
        assert.deepStrictEqual(Object.keys(sum.parameters.properties), ["a", "b"])
        assert.include(JSON.stringify(first.input), "Tools named <server>__<tool> belong to the MCP server <server>.")
        assert.deepStrictEqual(outputsOf(second), [[{ type: "text", text: "The sum of 2 and 3 is 5." }]])
        assert.deepStrictEqual(outputsOf(third).at(-1), [{ type: "text", text: "Echo: five" }])
        // the key went to the provider and nowhere else
        assert.strictEqual(provider.requests[0]!.headers.authorization, "Bearer sk-test-toolkit-key")
        assert.notInclude(run.stdout + run.stderr, "sk-test-toolkit-key")
        assert.deepStrictEqual(withPathMarker(marker), [], "no server process is left")
      })
  )

  const factory = Layer.mergeAll(Faults.factoryLayer({}), McpToolCache.layerMemory({ ttl: "5 minutes" }))

  it.scopedLive(
    "interrupting a conversation mid-call cancels the call on the stdio server and ends its process",
    () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-toolkit-")
        const record = Path.join(dir, "record.jsonl")
        const marker = Crypto.randomUUID()
        const provider = yield* Fake.fakeProvider([calls(["call_wait", "slow__wait", {}])])
        const model = OpenAiLanguageModel.layer({ model: "gpt-4.1-mini" }).pipe(
          Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-test"), apiUrl: `${provider.url}/v1` })),
          Layer.provide(NodeHttpClient.layerUndici)
        )
        const conversation = Effect.scoped(Effect.gen(function*() {
          const mcp = yield* McpToolkit.make()
          return yield* LanguageModel.generateText({ prompt: Prompt.make("wait"), toolkit: mcp.toolkit })
        })).pipe(
          Effect.provide(McpServers.layer([Faults.stdioFault("slow", marker, [], [`--record=${record}`])])),
          Effect.provide(Layer.merge(factory, model))
        )
        const fiber = yield* Effect.fork(conversation)
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
      })
  )

  it.scopedLive(
    "a conversation whose tool lists are cached starts no process until a tool is called",
    () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-toolkit-")
        const record = Path.join(dir, "record.jsonl")
        const marker = Crypto.randomUUID()
        const provider = yield* Fake.fakeProvider([calls(["call_echo", "f__echo", { text: "hi" }])])
        const model = OpenAiLanguageModel.layer({ model: "gpt-4.1-mini" }).pipe(
          Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-test"), apiUrl: `${provider.url}/v1` })),
          Layer.provide(NodeHttpClient.layerUndici)
        )
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
          Effect.provide(Layer.merge(factory, model))
        )
        assert.isTrue(Fs.existsSync(record))
      })
  )

  it.live("refresh lists again a server that announced a change, on the conversation's open connection", () =>
    Effect.gen(function*() {
      const { make, stats } = shop()
      yield* Effect.scoped(Effect.gen(function*() {
        const before = yield* McpToolkit.make()
        assert.deepStrictEqual(Object.keys(before.toolkit.tools), ["shop__old", "shop__rotate"])
        const fresh = yield* before.refresh
        assert.deepStrictEqual(Object.keys(fresh.toolkit.tools), ["shop__old", "shop__rotate"], "nothing changed yet")
        const { result } = yield* before.toolkit.handle("shop__rotate", {})
        assert.deepStrictEqual(result, [{ type: "text", text: "rotated" }])
        // the announcement drops the cached list in a fiber of its own: the next refreshes see it
        let after = yield* before.refresh
        for (let i = 0; i < 20 && Object.keys(after.toolkit.tools).includes("shop__old"); i++) {
          yield* Effect.sleep("5 millis")
          after = yield* after.refresh
        }
        assert.deepStrictEqual(Object.keys(after.toolkit.tools), ["shop__rotate", "shop__fresh"])
        assert.deepStrictEqual((yield* after.toolkit.handle("shop__fresh", {})).result, [{
          type: "text",
          text: "fresh"
        }])
        assert.strictEqual(stats.created, 1, "one connection for the whole conversation")
      })).pipe(
        Effect.provide(McpServers.layer([McpServerConfig.http({ name: "shop", url: "http://127.0.0.1:1/shop" })])),
        Effect.provide(
          Layer.mergeAll(
            NodeMcpClientFactory.layerInMemory({ shop: make }),
            McpToolCache.layerMemory({ ttl: "1 hour" })
          )
        )
      )
    }))
})
