/**
 * The model configured in the environment, or none: `ZETT_MODEL=openai:gpt-4.1-mini` (with `OPENAI_API_KEY`,
 * or `OPENAI_BASE_URL` for any OpenAI-compatible server), `openai-chat:<model>`, `anthropic:<model>` (with
 * `ANTHROPIC_API_KEY`), `google:<model>` or `bedrock:<model id>`.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Model } from "@zett/agent"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { UsageError } from "./CliError.js"

/**
 * A model taken from the environment: its name as configured, and the layer that provides it.
 *
 * @since 0.1.0
 * @category models
 */
export interface EnvironmentModel {
  readonly name: string
  readonly layer: Layer.Layer<Model.Model, unknown>
}

/**
 * The variable that names the model.
 *
 * @since 0.1.0
 * @category constants
 */
export const variable = "ZETT_MODEL"

/**
 * One line for a configuration error: `OPENAI_API_KEY: OPENAI_API_KEY is needed for api.openai.com; ...`.
 *
 * @since 0.1.0
 * @category utils
 */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return `${describeConfigError(error.left)}; ${describeConfigError(error.right)}`
    case "InvalidData":
    case "MissingData":
    case "SourceUnavailable":
    case "Unsupported":
      return `${error.path.join(".")}: ${error.message}`
  }
}

/**
 * Reads the model from the `ConfigProvider` (the process environment by default). `ZETT_MODEL` unset or
 * empty: none. Set but malformed, or without its provider's key: a `UsageError` (exit code 2). The
 * providers are loaded only when a model is named, and then only the named one's package, so that commands
 * start faster.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEnvironment: Effect.Effect<Option.Option<EnvironmentModel>, UsageError> = Effect.gen(function*() {
  const named = yield* Config.option(Config.string(variable)).pipe(
    Effect.orElseSucceed(() => Option.none<string>()),
    Effect.map(Option.filter((name) => name.trim() !== ""))
  )
  if (Option.isNone(named)) return Option.none()
  const ModelConfig = yield* Effect.promise(() => import("./internal/modelConfig.js"))
  const configured = yield* ModelConfig.configured.pipe(
    Effect.mapError((error) => new UsageError({ reason: "NoModel", message: describeConfigError(error) }))
  )
  return Option.map(configured, (config): EnvironmentModel => ({
    name: `${config.provider}:${config.model}`,
    // retries are the provider's business: a line each on `--log-level debug`, otherwise only the final error
    layer: ModelConfig.layer(config, { retryLogLevel: LogLevel.Debug }).pipe(Layer.provide(NodeHttpClient.layerUndici))
  }))
})
