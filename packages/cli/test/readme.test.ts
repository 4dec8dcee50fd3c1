/**
 * Every README of the repository and the guides of docs/guides, as a newcomer reads them: each `ts` block is extracted and run as written from
 * a temporary folder outside the repository (its `node_modules` is the workspace's, as an installed app's would
 * be), and all of them are compiled together with the workspace's strict settings. A block states what it prints
 * with `console.log(x) // expected`; a block that
 * talks to a model provider or Redis gets a local fake in the provider's wire format, or a real `redis-server`,
 * through the environment variables it reads (`REDIS_URL`: a real Redis). Configuration blocks (`json`, `jsonc`) load as written, and shell
 * transcripts print what they show.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { McpConfiguration, McpInputs } from "@zett/mcp-config"
import * as Source from "@zett/testing-core/Source"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Fake from "@zett/testing/FakeProvider"
import * as RedisServer from "@zett/testing/RedisServer"
import * as TaskServer from "@zett/testing/TaskServer"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = Source.root
// the README's guides, beside it
const guides = fs.readdirSync(path.join(root, "docs", "guides")).filter((name) => name.endsWith(".md")).map((name) =>
  path.join("docs", "guides", name)
)
const readmes = [
  "README.md",
  ...guides,
  ...fs.readdirSync(path.join(root, "packages")).map((name) => path.join("packages", name, "README.md")).filter((
    file
  ) => fs.existsSync(path.join(root, file)))
]
const textOf = (readme: string) => fs.readFileSync(path.join(root, readme), "utf8")
const codeBlocks = readmes.flatMap((readme) =>
  Array.from(textOf(readme).matchAll(/```ts\n([\s\S]*?)```/g), (m, i) => ({ readme, index: i + 1, code: m[1]! }))
)
const readme = ["README.md", ...guides].map(textOf).join("\n")
const jsonBlocks = Array.from(readme.matchAll(/```jsonc?\n([\s\S]*?)```/g), (m) => m[1]!)
// shell blocks written as a transcript: `$ command` lines followed by what they print
const transcripts = Array.from(readme.matchAll(/```sh\n(\$ [\s\S]*?)```/g), (m) => m[1]!)

/** What a block states it prints, in order. */
const expectedOutput = (code: string) =>
  Array.from(code.matchAll(/console\.log\(.*\) \/\/ (.*)$/gm), (m) => m[1]!.trim())

/** A folder outside the repository in which a block runs as an app's file: the workspace's packages resolve from it. */
const appFolder = Effect.gen(function*() {
  const dir = yield* TempDir.make("zett-readme-")
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir")
  fs.writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: "readme-app", private: true, type: "module" })
  )
  return dir
})

interface Outside {
  readonly env: Record<string, string>
  /** What the fake received, checked after the block ran. */
  readonly check: () => void
}

const provider = (replies: ReadonlyArray<Fake.Reply>, env: (url: string) => Record<string, string>) =>
  Effect.map(Fake.fakeProvider(replies), (fake): Outside => ({
    env: env(fake.url),
    check: () => assert.strictEqual(fake.requests.length, replies.length, "the block asked the provider for each reply")
  }))

const hello = { text: ["Hello!"] }

/** What a README's blocks read from the environment. */
const outside: Readonly<Record<string, Effect.Effect<Outside, never, Scope.Scope>>> = {
  [path.join("packages", "ai", "README.md")]: provider(
    [Fake.sse(Fake.openAiEvents(hello))],
    (url) => ({ OPENAI_API_KEY: "sk-readme-test", OPENAI_BASE_URL: `${url}/v1` })
  ),
  [path.join("packages", "ai-google", "README.md")]: provider(
    [Fake.sse(Fake.geminiChunks(hello).map((data) => ({ data })))],
    (url) => ({ GOOGLE_API_KEY: "google-readme-test", GOOGLE_API_URL: url })
  ),
  [path.join("packages", "ai-chat-completions", "README.md")]: provider(
    [Fake.chatSse(Fake.chatChunks(hello))],
    (url) => ({ CHAT_COMPLETIONS_URL: `${url}/v1` })
  ),
  [path.join("packages", "ai-amazon-bedrock", "README.md")]: provider(
    [Fake.bedrockStream(Fake.bedrockEvents(hello))],
    (url) => ({ AWS_BEARER_TOKEN_BEDROCK: "bedrock-readme-test", BEDROCK_URL: url })
  )
}

/** A block that reads REDIS_URL gets a real Redis (and a key for the tokens it seals). */
const redis = Effect.map(Effect.orDie(RedisServer.make), (server): Outside => ({
  env: { REDIS_URL: server.url, ZETT_TOKEN_KEY: "a-random-key-of-the-readme-test-0123456789" },
  check: () => {}
}))

/** A block that reads TASK_SERVER_URL gets the task server (the Tasks extension) over HTTP, which must make its tasks. */
const taskServer = Effect.orDie(Effect.gen(function*() {
  const dir = yield* TempDir.make("zett-readme-tasks-")
  const record = path.join(dir, "record.jsonl")
  const server = yield* TaskServer.http("builds", record, `zett-readme-tasks-${process.pid}`)
  return {
    env: { TASK_SERVER_URL: server.url },
    check: () => assert.isAbove(TaskServer.created(record).length, 0, "the server ran the block's calls as tasks")
  } satisfies Outside
}))

/** A root README block on OpenAI's API (a loop of the app's own): a tool call of server-everything, then the answer. */
const response = (script: Fake.StreamScript) =>
  Fake.json(200, (Fake.openAiEvents(script).at(-1)!.data as { response: unknown }).response)
// generateText asks for a whole response (not a stream)
const openAiLoop = provider([
  response({ calls: [{ id: "call_1", name: "everything__get-sum", pieces: ["{\"a\":2,\"b\":3}"] }] }),
  response({ text: ["2 + 3 = 5"] })
], (url) => ({ OPENAI_API_KEY: "sk-readme-test", OPENAI_BASE_URL: `${url}/v1` }))

/**
 * A guide block on Anthropic's API with deferred loading (the demo server's tools, searched): a search, the call of
 * what it found, the answer; the fake must be offered the held-back tools deferred and get the search's result as
 * a reference.
 */
const anthropicSearch = Effect.map(
  Fake.fakeProvider([
    Fake.sse(Fake.anthropicEvents({
      calls: [{ id: "toolu_1", name: "search_tools", pieces: ["{\"query\":\"add two numbers\",\"limit\":1}"] }]
    })),
    Fake.sse(Fake.anthropicEvents({ calls: [{ id: "toolu_2", name: "demo__add", pieces: ["{\"a\":2,\"b\":40}"] }] })),
    Fake.sse(Fake.anthropicEvents({ text: ["2 + 40 = 42"] }))
  ]),
  (fake): Outside => ({
    env: { ANTHROPIC_API_KEY: "sk-ant-readme-test", ANTHROPIC_BASE_URL: fake.url },
    check: () => {
      assert.strictEqual(fake.requests.length, 3, "the block asked the provider for each reply")
      const tools = fake.requests[0]!.body.tools as Array<{ name: string; defer_loading?: boolean }>
      assert.deepStrictEqual(
        tools.map((tool) => `${tool.name}${tool.defer_loading === true ? " (deferred)" : ""}`).sort(),
        ["demo__add (deferred)", "demo__fail (deferred)", "demo__weather (deferred)", "search_tools"]
      )
      assert.include(
        JSON.stringify(fake.requests[1]!.body.messages),
        "{\"type\":\"tool_reference\",\"tool_name\":\"demo__add\"}"
      )
    }
  })
)

/**
 * A guide block on Anthropic's API with its own search (the demo server's tools, searched by the API): the API's
 * search and the call of what it found in one answer, then the answer; the fake must be offered the search tool and
 * the held-back tools deferred, and get the search's blocks back in the second request.
 */
const anthropicHosted = Effect.map(
  Fake.fakeProvider([
    Fake.sse(Fake.anthropicEvents({
      hostedSearch: { id: "srvtoolu_1", query: "add two numbers", found: ["demo__add"] },
      calls: [{ id: "toolu_1", name: "demo__add", pieces: ["{\"a\":2,\"b\":40}"] }]
    })),
    Fake.sse(Fake.anthropicEvents({ text: ["2 + 40 = 42"] }))
  ]),
  (fake): Outside => ({
    env: { ANTHROPIC_API_KEY: "sk-ant-readme-test", ANTHROPIC_BASE_URL: fake.url },
    check: () => {
      assert.strictEqual(fake.requests.length, 2, "the block asked the provider for each reply")
      const tools = fake.requests[0]!.body.tools as Array<{ name: string; defer_loading?: boolean }>
      assert.deepStrictEqual(
        tools.map((tool) => `${tool.name}${tool.defer_loading === true ? " (deferred)" : ""}`).sort(),
        ["demo__add (deferred)", "demo__fail (deferred)", "demo__weather (deferred)", "tool_search_tool_bm25"]
      )
      const assistant = (fake.requests[1]!.body.messages as Array<{ role: string; content: Array<{ type: string }> }>)
        .find((message) => message.role === "assistant")
      assert.deepStrictEqual(assistant?.content.map((block) => block.type), [
        "server_tool_use",
        "tool_search_tool_result",
        "tool_use"
      ])
    }
  })
)

/**
 * A guide block on OpenAI's API with its client-executed tool search (the demo server's tools, searched): a
 * tool_search_call, the call of what it found, the answer; the fake must be offered the search alone and get what it
 * found as a tool_search_output.
 */
const openAiSearch = Effect.map(
  Fake.fakeProvider([
    Fake.sse(Fake.openAiToolSearchEvents("call_1", { query: "add two numbers", limit: 1 })),
    Fake.sse(Fake.openAiEvents({ calls: [{ id: "call_2", name: "demo__add", pieces: ["{\"a\":2,\"b\":40}"] }] })),
    Fake.sse(Fake.openAiEvents({ text: ["2 + 40 = 42"] }))
  ]),
  (fake): Outside => ({
    env: { OPENAI_API_KEY: "sk-readme-test", OPENAI_BASE_URL: `${fake.url}/v1` },
    check: () => {
      assert.strictEqual(fake.requests.length, 3, "the block asked the provider for each reply")
      for (const seen of fake.requests) {
        assert.deepStrictEqual(seen.body.tools, [{
          type: "tool_search",
          execution: "client",
          description: (seen.body.tools as Array<{ description: string }>)[0]!.description,
          parameters: (seen.body.tools as Array<{ parameters: unknown }>)[0]!.parameters
        }])
      }
      const output = (fake.requests[1]!.body.input as Array<{ type?: string; tools?: Array<{ name: string }> }>)
        .find((item) => item.type === "tool_search_output")
      assert.deepStrictEqual(output?.tools?.map((tool) => tool.name), ["demo__add"])
    }
  })
)

/**
 * A guide block with OpenAI's embeddings for tool search (the demo server's tools): the model searches in words
 * that are not the tool's, the embeddings rank `add` first, the model calls it and answers. The fake embeds a text
 * as [1, 0] when it speaks of sums and [0, 1] otherwise; it must be asked for the tools' embeddings once, then the
 * query's.
 */
const openAiEmbeddings = Effect.suspend(() => {
  const answers = [
    Fake.sse(Fake.openAiEvents({
      calls: [{
        id: "call_1",
        name: "search_tools",
        pieces: ["{\"query\":\"total of a couple of values\",\"limit\":1}"]
      }]
    })),
    Fake.sse(Fake.openAiEvents({ calls: [{ id: "call_2", name: "demo__add", pieces: ["{\"a\":2,\"b\":40}"] }] })),
    Fake.sse(Fake.openAiEvents({ text: ["2 + 40 = 42"] }))
  ]
  let answered = 0
  const reply: Fake.Reply = (res, req, seen) => {
    if (!seen.url.endsWith("/embeddings")) return answers[answered++]!(res, req, seen)
    const input = (seen.body as { input: string | Array<string> }).input
    const data = (Array.isArray(input) ? input : [input]).map((text, index) => ({
      object: "embedding",
      index,
      embedding: /sum|total/i.test(text) ? [1, 0] : [0, 1]
    }))
    return Fake.json(200, {
      object: "list",
      data,
      model: "text-embedding-3-small",
      usage: { prompt_tokens: 1, total_tokens: 1 }
    })(res, req, seen)
  }
  return Effect.map(Fake.fakeProvider([reply]), (fake): Outside => ({
    env: { OPENAI_API_KEY: "sk-readme-test", OPENAI_BASE_URL: `${fake.url}/v1` },
    check: () => {
      const embeddings = fake.requests.filter((seen) => seen.url.endsWith("/embeddings"))
        .map((seen) => (seen.body as { input: Array<string> }).input)
      assert.strictEqual(embeddings.length, 2, "the tools' embeddings once, then the query's")
      assert.include(embeddings[0], "demo: add. Adds two numbers and returns their sum")
      assert.strictEqual(embeddings[0]!.length, 3)
      assert.deepStrictEqual(embeddings[1], ["total of a couple of values"])
      const found = (fake.requests.filter((seen) => seen.url.endsWith("/responses"))[1]!.body.input as Array<
        { type?: string; output?: string }
      >).find((item) => item.type === "function_call_output")
      assert.deepStrictEqual(
        (JSON.parse(found!.output!) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name),
        ["demo__add"]
      )
    }
  }))
})

/** A block that exports OpenTelemetry: a receiver of OTLP over HTTP, which must get the agent's span. */
const otlp = Effect.map(Fake.fakeProvider([Fake.json(200, {})]), (receiver): Outside => ({
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  check: () => {
    const traces = receiver.requests.filter((r) => r.url === "/v1/traces").map((r) => JSON.stringify(r.body))
    assert.isTrue(traces.some((body) => body.includes("invoke_agent")), "the receiver got the agent's span")
  }
}))

const needsOf = (readme: string, code: string): Effect.Effect<Outside, never, Scope.Scope> =>
  Effect.gen(function*() {
    const parts = [
      ...(outside[readme] !== undefined ? [yield* outside[readme]] : []),
      ...((readme === "README.md" || guides.includes(readme)) && code.includes("OPENAI_BASE_URL") &&
          !code.includes("OpenAiToolSearch") && !code.includes("OpenAiEmbeddingModel")
        ? [yield* openAiLoop]
        : []),
      ...(code.includes("OpenAiToolSearch") ? [yield* openAiSearch] : []),
      ...(code.includes("OpenAiEmbeddingModel") ? [yield* openAiEmbeddings] : []),
      ...(code.includes("ANTHROPIC_BASE_URL") && !code.includes("AnthropicToolSearch.hosted")
        ? [yield* anthropicSearch]
        : []),
      ...(code.includes("AnthropicToolSearch.hosted") ? [yield* anthropicHosted] : []),
      ...(code.includes("OTLPTraceExporter") ? [yield* otlp] : []),
      ...(/REDIS_URL|McpRedis\.layerConfig\(\)/.test(code) ? [yield* redis] : []),
      ...(code.includes("TASK_SERVER_URL") ? [yield* taskServer] : [])
    ]
    return {
      env: Object.assign({}, ...parts.map((part) => part.env)),
      check: () => parts.forEach((part) => part.check())
    }
  })

const run = (file: string, cwd: string, env: Record<string, string>) =>
  Effect.async<{ code: number; stdout: string; stderr: string }>((resume) => {
    execFile(
      process.execPath,
      [...Source.nodeArgs, file],
      { cwd, timeout: 100_000, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error ? 1 : 0, stdout, stderr }))
    )
  })

describe("README", () => {
  it("every README with code has TypeScript blocks to run", () => {
    assert.isAtLeast(codeBlocks.filter((block) => block.readme === "README.md").length, 2)
    assert.isAtLeast(codeBlocks.filter((block) => guides.includes(block.readme)).length, 15)
    assert.isAtLeast(new Set(codeBlocks.map((block) => block.readme)).size, 19)
  })

  codeBlocks.forEach(({ code, index, readme }) => {
    it.scopedLive(
      `${readme} code block ${index} runs as written, outside the repository, and prints what it says`,
      () =>
        Effect.gen(function*() {
          const dir = yield* appFolder
          const needs = yield* needsOf(readme, code)
          fs.writeFileSync(path.join(dir, "app.ts"), code)
          const { code: exit, stderr, stdout } = yield* run(path.join(dir, "app.ts"), dir, needs.env)
          assert.strictEqual(exit, 0, stderr)
          assert.deepStrictEqual(stdout.trim().split("\n"), expectedOutput(code), stderr)
          needs.check()
        })
    )
  })

  it.scopedLive(
    "every README block compiles with the workspace's strict settings, as an app's file",
    () =>
      Effect.gen(function*() {
        const dir = yield* appFolder
        const names = codeBlocks.map(({ code, index, readme }) => {
          const name = `${readme.replaceAll(path.sep, "-").replace(/\.md$/, "")}-${index}.ts`
          fs.writeFileSync(path.join(dir, name), code)
          return name
        })
        fs.writeFileSync(
          path.join(dir, "tsconfig.json"),
          JSON.stringify({
            extends: path.join(root, "tsconfig.base.json"),
            compilerOptions: {
              noEmit: true,
              composite: false,
              incremental: false,
              declaration: false,
              declarationMap: false,
              types: ["node"]
            },
            files: names
          })
        )
        const { code, stdout } = yield* Effect.async<{ code: number; stdout: string }>((resume) => {
          execFile(process.execPath, [path.join(root, "node_modules", "typescript", "bin", "tsc"), "-p", dir], {
            cwd: dir,
            timeout: 240_000
          }, (error, stdout) => resume(Effect.succeed({ code: error ? 1 : 0, stdout })))
        })
        assert.strictEqual(code, 0, stdout)
      }),
    240_000
  )

  jsonBlocks.forEach((text, i) => {
    it.scoped(`README configuration block ${i + 1} loads as written`, () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-readme-")
        // a block that names its file (`// .vscode/mcp.json`) is written there, with what it refers to
        const named = /^\/\/ (\S+)/.exec(text)?.[1]
        const file = path.join(dir, named ?? "mcp.json")
        fs.mkdirSync(path.dirname(file), { recursive: true })
        fs.writeFileSync(file, text)
        fs.writeFileSync(path.join(dir, ".env"), "")
        const snapshot = yield* McpConfiguration.fromFile(file)
        assert.isAbove(snapshot.servers.length, 0)
      }).pipe(Effect.provide(NodeContext.layer), Effect.provide(McpInputs.layerValues({ token: "t" }))))
  })

  transcripts.forEach((transcript, i) => {
    it.scopedLive(`README shell transcript ${i + 1} prints what it shows`, () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-readme-")
        const demo = path.join(root, "packages", "mcp", "examples", "demo-server.mjs")
        fs.writeFileSync(
          path.join(dir, "mcp.json"),
          JSON.stringify({ servers: { demo: { command: process.execPath, args: [demo] } } })
        )
        // `zett` from this workspace's sources (the installed bin runs the build)
        const bin = path.join(dir, "bin")
        fs.mkdirSync(bin)
        fs.writeFileSync(
          path.join(bin, "zett"),
          `#!/bin/sh\nexec "${process.execPath}" ${Source.zettArgs.map((arg) => `"${arg}"`).join(" ")} "$@"\n`,
          { mode: 0o755 }
        )
        const lines = transcript.trimEnd().split("\n")
        const command = lines[0]!.slice(2)
        const { stdout } = yield* Effect.async<{ stdout: string }>((resume) => {
          execFile("bash", ["-c", `{ ${command}; } 2>&1`], {
            cwd: dir,
            timeout: 100_000,
            env: { ...process.env, PATH: `${bin}:${process.env.PATH}` }
          }, (_error, stdout) => resume(Effect.succeed({ stdout })))
        })
        assert.deepStrictEqual(stdout.trimEnd().split("\n"), lines.slice(1))
      }))
  })
})
