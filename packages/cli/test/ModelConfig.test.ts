import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { AiModelConfig } from "@zett/ai"
import { Message, Model } from "@zett/agent"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { inspect } from "node:util"
import { buildModel, fakeProvider, KEY, openAiEvents, sse } from "./utils.js"

const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromJson(env))

describe("AiModel configuration from the environment", () => {
  it.effect("configured is None without ZETT_MODEL (or with an empty one), so the demo can fall back", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone(yield* AiModelConfig.configured.pipe(withEnv({}))))
      assert.isTrue(Option.isNone(yield* AiModelConfig.configured.pipe(withEnv({ ZETT_MODEL: "  ", OPENAI_API_KEY: KEY }))))
    }))

  it.effect("configured reads provider, model, key (redacted) and base URL", () =>
    Effect.gen(function*() {
      const openai = yield* AiModelConfig.configured.pipe(withEnv({ ZETT_MODEL: "openai:gpt-4.1-mini", OPENAI_API_KEY: KEY }))
      assert.isTrue(Option.isSome(openai))
      const config = Option.getOrThrow(openai)
      assert.strictEqual(config.provider, "openai")
      assert.strictEqual(config.model, "gpt-4.1-mini")
      assert.strictEqual(Redacted.value(Option.getOrThrow(config.apiKey)), KEY)
      assert.isTrue(Option.isNone(config.baseUrl))
      assert.notInclude(inspect(config, { depth: 10 }), KEY)
      assert.notInclude(JSON.stringify(config), KEY)

      const anthropic = Option.getOrThrow(
        yield* AiModelConfig.configured.pipe(withEnv({
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
        yield* AiModelConfig.configured.pipe(
          withEnv({ ZETT_MODEL: "openai:qwen2.5:7b", OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" })
        )
      )
      assert.strictEqual(local.model, "qwen2.5:7b")
      assert.isTrue(Option.isNone(local.apiKey))
    }))

  it.effect("configured rejects a malformed ZETT_MODEL and a missing key when no base URL is set", () =>
    Effect.gen(function*() {
      for (const spec of ["gpt-4.1-mini", "mistral:large", "openai:", ":gpt"]) {
        const error = yield* Effect.flip(AiModelConfig.configured.pipe(withEnv({ ZETT_MODEL: spec, OPENAI_API_KEY: KEY })))
        assert.isTrue(ConfigError.isInvalidData(error), spec)
        assert.include(String(error), "expected openai:<model>, openai-chat:<model>, anthropic:<model>, google:<model> or bedrock:<model>")
      }
      const missing = yield* Effect.flip(
        AiModelConfig.configured.pipe(withEnv({ ZETT_MODEL: "anthropic:claude-sonnet-4-5" }))
      )
      assert.isTrue(ConfigError.isMissingData(missing))
      assert.include(String(missing), "ANTHROPIC_API_KEY is needed for api.anthropic.com")
      const empty = yield* Effect.flip(
        AiModelConfig.configured.pipe(withEnv({ ZETT_MODEL: "openai:gpt-4.1", OPENAI_API_KEY: "" }))
      )
      assert.include(String(empty), "OPENAI_API_KEY")
    }))

  it.effect("layerFromConfig fails with a ConfigError when no model is configured", () =>
    Effect.gen(function*() {
      const error = yield* Layer.build(AiModelConfig.layerFromConfigNode()).pipe(Effect.scoped, withEnv({}), Effect.flip)
      assert.isTrue(ConfigError.isMissingData(error))
      assert.include(String(error), "ZETT_MODEL")
    }))

  it.scoped("layerFromConfig reaches an OpenAI-compatible base URL without a key (Ollama, vLLM, LM Studio)", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([sse(openAiEvents({ text: ["local"] }))])
      const model = yield* buildModel(
        AiModelConfig.layerFromConfig().pipe(
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
})
