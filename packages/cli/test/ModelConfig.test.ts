import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Source from "@zett/testing-core/Source"
import * as TempDir from "@zett/testing-core/TempDir"
import { anthropicEvents, fakeProvider, json, openAiEvents, sse } from "@zett/testing/FakeProvider"
import { KEY } from "@zett/testing/ModelProbes"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { inspect } from "node:util"
import * as ModelConfig from "../src/internal/modelConfig.js"

const buildModel = <E>(layer: Layer.Layer<Model.Model, E>): Effect.Effect<Model.Model["Type"], E, Scope.Scope> =>
  Layer.build(layer).pipe(Effect.map(Context.get(Model.Model)))

const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromJson(env))

describe("the model named by ZETT_MODEL", () => {
  it.effect("configured is None without ZETT_MODEL (or with an empty one), so the demo can fall back", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone(yield* ModelConfig.configured.pipe(withEnv({}))))
      assert.isTrue(
        Option.isNone(yield* ModelConfig.configured.pipe(withEnv({ ZETT_MODEL: "  ", OPENAI_API_KEY: KEY })))
      )
    }))

  it.effect("configured reads provider, model, key (redacted) and base URL", () =>
    Effect.gen(function*() {
      const openai = yield* ModelConfig.configured.pipe(
        withEnv({ ZETT_MODEL: "openai:gpt-4.1-mini", OPENAI_API_KEY: KEY })
      )
      assert.isTrue(Option.isSome(openai))
      const config = Option.getOrThrow(openai)
      assert.strictEqual(config.provider, "openai")
      assert.strictEqual(config.model, "gpt-4.1-mini")
      assert.strictEqual(Redacted.value(Option.getOrThrow(config.apiKey)), KEY)
      assert.isTrue(Option.isNone(config.baseUrl))
      assert.notInclude(inspect(config, { depth: 10 }), KEY)
      assert.notInclude(JSON.stringify(config), KEY)

      const anthropic = Option.getOrThrow(
        yield* ModelConfig.configured.pipe(withEnv({
          ZETT_MODEL: "Anthropic:claude-sonnet-4-5",
          ANTHROPIC_API_KEY: KEY,
          ANTHROPIC_BASE_URL: "http://127.0.0.1:9999/"
        }))
      )
      assert.strictEqual(anthropic.provider, "anthropic")
      assert.strictEqual(anthropic.model, "claude-sonnet-4-5")
      assert.deepStrictEqual(anthropic.baseUrl, Option.some("http://127.0.0.1:9999"))

      // a model name may contain colons (Ollama tags)
      const local = Option.getOrThrow(
        yield* ModelConfig.configured.pipe(
          withEnv({ ZETT_MODEL: "openai:qwen2.5:7b", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" })
        )
      )
      assert.strictEqual(local.model, "qwen2.5:7b")
      assert.isTrue(Option.isNone(local.apiKey))
    }))

  it.effect("configured rejects a malformed ZETT_MODEL and a missing key when no base URL is set", () =>
    Effect.gen(function*() {
      for (const spec of ["gpt-4.1-mini", "mistral:large", "openai:", ":gpt"]) {
        const error = yield* Effect.flip(
          ModelConfig.configured.pipe(withEnv({ ZETT_MODEL: spec, OPENAI_API_KEY: KEY }))
        )
        assert.isTrue(ConfigError.isInvalidData(error), spec)
        assert.include(
          String(error),
          "expected openai:<model>, openai-chat:<model>, anthropic:<model>, google:<model> or bedrock:<model>"
        )
      }
      const missing = yield* Effect.flip(
        ModelConfig.configured.pipe(withEnv({ ZETT_MODEL: "anthropic:claude-sonnet-4-5" }))
      )
      assert.isTrue(ConfigError.isMissingData(missing))
      assert.include(String(missing), "ANTHROPIC_API_KEY is needed for api.anthropic.com")
      const empty = yield* Effect.flip(
        ModelConfig.configured.pipe(withEnv({ ZETT_MODEL: "openai:gpt-4.1", OPENAI_API_KEY: "" }))
      )
      assert.include(String(empty), "OPENAI_API_KEY")
    }))

  it.effect("layerFromConfig fails with a ConfigError when no model is configured", () =>
    Effect.gen(function*() {
      const error = yield* Layer.build(ModelConfig.layerFromConfig().pipe(Layer.provide(NodeHttpClient.layerUndici)))
        .pipe(Effect.scoped, withEnv({}), Effect.flip)
      assert.isTrue(ConfigError.isMissingData(error))
      assert.include(String(error), "ZETT_MODEL")
    }))

  it.scoped("layerFromConfig reaches an OpenAI-compatible base URL without a key (Ollama, vLLM, LM Studio)", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["local"] }))])
      const model = yield* buildModel(
        ModelConfig.layerFromConfig().pipe(
          Layer.provide(NodeHttpClient.layerUndici),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({
            ZETT_MODEL: "openai:llama3.2",
            OPENAI_BASE_URL: `${provider.url}/v1/`
          })))
        )
      )
      const events = yield* Stream.runCollect(
        model.stream({ messages: [Message.user("hi")], tools: [], serverTools: [] })
      )
      assert.deepStrictEqual(Array.from(events)[0], Model.textDelta("local"))
      const seen = provider.requests[0]!
      assert.strictEqual(seen.url, "/v1/responses")
      assert.strictEqual(seen.body.model, "llama3.2")
      assert.isUndefined(seen.headers.authorization)
    }))

  it.scoped("ZETT_DEFER_LOADING=true sends what tool search holds back to Claude as deferred tools; other providers refuse it", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      const env = (extra: Record<string, string>) =>
        Layer.setConfigProvider(ConfigProvider.fromJson({ ZETT_DEFER_LOADING: "true", ...extra }))
      const model = yield* buildModel(
        ModelConfig.layerFromConfig().pipe(
          Layer.provide(NodeHttpClient.layerUndici),
          Layer.provide(
            env({ ZETT_MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: provider.url })
          )
        )
      )
      const search = { name: "search_tools", description: "Finds tools", parameters: { type: "object" } }
      const held = { name: "demo__add", description: "Adds", parameters: { type: "object" } }
      yield* Stream.runDrain(model.stream({
        messages: [Message.user("hi")],
        tools: [search],
        serverTools: [],
        deferredTools: [held],
        toolSearch: "search_tools"
      }))
      const seen = provider.requests[0]!
      assert.deepStrictEqual(
        seen.body.tools.map((tool: { name: string; defer_loading?: boolean }) => [tool.name, tool.defer_loading]),
        [["search_tools", undefined], ["demo__add", true]]
      )
      assert.include(String(seen.headers["anthropic-beta"]), "advanced-tool-use-2025-11-20")
      // the key is still protected: it goes in its header, never into what errors and spans see
      assert.strictEqual(seen.headers["x-api-key"], KEY)

      const refused = yield* ModelConfig.configured.pipe(
        withEnv({ ZETT_MODEL: "google:gemini-2.5-flash", GOOGLE_API_KEY: KEY, ZETT_DEFER_LOADING: "true" }),
        Effect.flip
      )
      assert.include(String(refused), "ZETT_DEFER_LOADING")
      assert.include(String(refused), "deferred loading is OpenAI's Responses API's and Anthropic's")
    }))

  it.scoped("ZETT_DEFER_LOADING=true on openai: gives GPT the Responses API's client-executed tool search, the held-back tools not sent", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["ok"] }))])
      const model = yield* buildModel(
        ModelConfig.layerFromConfig().pipe(
          Layer.provide(NodeHttpClient.layerUndici),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({
            ZETT_DEFER_LOADING: "true",
            ZETT_MODEL: "openai:gpt-4.1-mini",
            OPENAI_API_KEY: KEY,
            OPENAI_BASE_URL: `${provider.url}/v1`
          })))
        )
      )
      const search = { name: "search_tools", description: "Finds tools", parameters: { type: "object" } }
      const held = { name: "demo__add", description: "Adds", parameters: { type: "object" } }
      yield* Stream.runDrain(model.stream({
        messages: [Message.user("hi")],
        tools: [search],
        serverTools: [],
        deferredTools: [held],
        toolSearch: "search_tools"
      }))
      const seen = provider.requests[0]!
      assert.deepStrictEqual(seen.body.tools, [{
        type: "tool_search",
        execution: "client",
        description: "Finds tools",
        parameters: { type: "object" }
      }])
      // the key is still protected: it goes in its header, never into what errors and spans see
      assert.strictEqual(seen.headers.authorization, `Bearer ${KEY}`)
    }))

  it.scoped("ZETT_DEFER_LOADING=hosted gives Claude Anthropic's BM25 search and GPT the Responses API's own tool_search; another value is refused", () =>
    Effect.gen(function*() {
      const search = { name: "search_tools", description: "Finds tools", parameters: { type: "object" } }
      const held = { name: "demo__add", description: "Adds", parameters: { type: "object" } }
      const request = {
        messages: [Message.user("hi")],
        tools: [search],
        serverTools: [],
        deferredTools: [held],
        toolSearch: "search_tools"
      }
      const modelOf = (env: Record<string, string>) =>
        buildModel(
          ModelConfig.layerFromConfig().pipe(
            Layer.provide(NodeHttpClient.layerUndici),
            Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({ ZETT_DEFER_LOADING: "hosted", ...env })))
          )
        )
      const claude = yield* fakeProvider([sse(anthropicEvents({ text: ["ok"] }))])
      yield* Stream.runDrain((yield* modelOf({
        ZETT_MODEL: "anthropic:claude-sonnet-4-5",
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: claude.url
      })).stream(request))
      assert.deepStrictEqual(claude.requests[0]!.body.tools, [
        { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
        { name: "demo__add", description: "Adds", input_schema: { type: "object" }, defer_loading: true }
      ])
      assert.strictEqual(claude.requests[0]!.headers["x-api-key"], KEY)

      const gpt = yield* fakeProvider([sse(openAiEvents({ text: ["ok"] }))])
      yield* Stream.runDrain((yield* modelOf({
        ZETT_MODEL: "openai:gpt-4.1-mini",
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: `${gpt.url}/v1`
      })).stream(request))
      const tools = gpt.requests[0]!.body.tools
      assert.deepStrictEqual(tools[0], { type: "tool_search" })
      assert.strictEqual(tools[1].name, "demo__add")
      assert.strictEqual(tools[1].defer_loading, true)
      assert.strictEqual(gpt.requests[0]!.headers.authorization, `Bearer ${KEY}`)

      const refused = yield* ModelConfig.configured.pipe(
        withEnv({ ZETT_MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: KEY, ZETT_DEFER_LOADING: "server" }),
        Effect.flip
      )
      assert.include(String(refused), "ZETT_DEFER_LOADING")
      assert.include(String(refused), "hosted")
    }))

  it.scoped("a 404 from openai: says the endpoint lacks the Responses API and suggests openai-chat:", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([json(404, { error: { message: "File Not Found", code: 404 } })])
      const model = yield* buildModel(
        ModelConfig.layer({
          provider: "openai",
          model: "gpt-4.1-mini",
          apiKey: Option.some(Redacted.make(KEY)),
          baseUrl: Option.some(`${provider.url}/v1`)
        }).pipe(Layer.provide(NodeHttpClient.layerUndici))
      )
      const error = yield* Stream.runDrain(model.stream({ messages: [Message.user("Hi")], tools: [], serverTools: [] }))
        .pipe(Effect.flip)
      assert.strictEqual(error.reason, "Http")
      assert.strictEqual(
        error.description,
        "openai answered HTTP 404 (not found: the endpoint has no Responses API (/v1/responses) or no such model; " +
          "for a server that speaks only Chat Completions use openai-chat:<model>): File Not Found"
      )
    }))

  // each provider's package loads when its model is built: `openai:` loads no code of the others
  it.scoped("zett run on openai: loads @effect/ai-openai and none of the other providers' packages", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make("zett-model-imports-")
      const imports = Path.join(dir, "imports.txt")
      const hook = Path.join(dir, "record-imports.mjs")
      Fs.writeFileSync(
        hook,
        [
          `import { register } from "node:module"`,
          `register("data:text/javascript," + encodeURIComponent(${
            JSON.stringify(
              `import { appendFileSync } from "node:fs"\n` +
                `export async function resolve(specifier, context, next) {\n` +
                `  const result = await next(specifier, context)\n` +
                `  appendFileSync(${JSON.stringify(imports)}, result.url + "\\n")\n` +
                `  return result\n` +
                `}\n`
            )
          }))`
        ].join("\n")
      )
      const config = Path.join(dir, "mcp.json")
      Fs.writeFileSync(config, JSON.stringify({ mcpServers: {} }))
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["Hello from the model."] }))])
      const result = yield* Effect.async<{ code: number | null; stdout: string; stderr: string }>((resume) => {
        const child = ChildProcess.execFile(
          process.execPath,
          ["--import", hook, ...Source.zettArgs, "run", "--config", config, "Hi"],
          {
            cwd: Source.root,
            timeout: 100_000,
            env: {
              PATH: process.env.PATH ?? "",
              HOME: dir,
              ZETT_MODEL: "openai:gpt-4.1-mini",
              OPENAI_API_KEY: KEY,
              OPENAI_BASE_URL: `${provider.url}/v1`
            }
          },
          (error, stdout, stderr) =>
            resume(
              Effect.succeed({
                code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
                stdout,
                stderr
              })
            )
        )
        return Effect.sync(() => child.kill("SIGKILL"))
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.include(result.stdout, "Hello from the model.")
      const loaded = Fs.readFileSync(imports, "utf8").split("\n").filter((url) => url.startsWith("file:"))
      assert.isAbove(loaded.filter((url) => url.includes("/@effect/ai-openai/")).length, 0)
      const others = /ai-anthropic|ai-chat-completions|ai-google|ai-amazon-bedrock|Bedrock|Gemini|OpenAiChat/
      assert.deepStrictEqual(loaded.filter((url) => others.test(url)), [])
    }))
})
