/**
 * `zett run`: the agent with the configured MCP tools and the model named in the environment.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { modelLayer, noModel, resolveClientFactory, resolveConfigPath, runAgent } from "./common.js"
import * as Options from "./options.js"
import { extensionLimit, limitOf } from "./options.js"

export const handler = (options: Options.RunOptions) =>
  Effect.gen(function*() {
    const model = yield* modelLayer
    if (Option.isNone(model)) return yield* noModel
    const clientFactory = yield* resolveClientFactory
    // the extension reads the default file itself; a file named with --config must exist
    const configPath = Option.isSome(options.config) ? yield* resolveConfigPath(options.config) : undefined
    yield* runAgent(options.prompt, {
      configPath,
      clientFactory,
      connectTimeout: extensionLimit(limitOf(options.connectTimeout, Duration.seconds(30))),
      callTimeout: extensionLimit(limitOf(options.callTimeout, Duration.seconds(300))),
      discoveryConcurrency: Option.getOrUndefined(options.discoveryConcurrency)
    }, model.value)
  })
