/**
 * The model configured in the environment (`ZETT_MODEL`, for example `openai:gpt-4.1-mini`), or none.
 *
 * @since 0.1.0
 */
import type { Model } from "@zett/agent"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
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
 * Reads `ZETT_MODEL` from the `ConfigProvider` (the process environment by default). Unset or empty: none.
 * Set: the model, or a `UsageError` when no provider of this build can serve it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromEnvironment: Effect.Effect<Option.Option<EnvironmentModel>, UsageError> = Config.option(
  Config.string(variable)
).pipe(
  Effect.orElseSucceed(() => Option.none<string>()),
  Effect.map(Option.filter((name) => name.trim() !== "")),
  Effect.flatMap(Option.match({
    onNone: () => Effect.succeed(Option.none()),
    onSome: (name) =>
      // the providers (OpenAI, Anthropic, any OpenAI-compatible endpoint) come with @zett/ai
      Effect.fail(
        new UsageError({ message: `${variable}=${name}: no model provider is available in this build yet` })
      )
  }))
)
