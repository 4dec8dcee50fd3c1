/**
 * `zett run`: the agent with the configured MCP tools and the model named in the environment.
 *
 * @internal
 */
import type { Message } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Output from "../Output.js"
import * as AdHoc from "./adhoc.js"
import {
  loadConfiguration,
  modelLayer,
  noModel,
  offerLogins,
  resolveClientFactory,
  resolveConfigPath,
  runAgent
} from "./common.js"
import * as Inputs from "./inputs.js"
import type * as Options from "./options.js"
import { callLimit, connectLimit, extensionLimit } from "./options.js"

export const handler = (options: Options.RunOptions) =>
  Effect.gen(function*() {
    const model = yield* modelLayer
    if (Option.isNone(model)) return yield* noModel
    // sampling runs through the agent's own model
    const clientFactory = yield* resolveClientFactory({
      serverRequests: { yesDefaults: options.yesDefaults, sampling: "agent" },
      serverLogLevel: options.serverLogLevel,
      protocol: options.protocol
    })
    // the extension reads the default file itself (and re-reads it while it runs); a file named with --config
    // must exist; several files are merged here, once
    // a server given on the command line (`--url`, or a command after `--`) is the run's only server
    const given = yield* AdHoc.server(options)
    const [first, ...more] = options.config
    const configPath = Option.isNone(given) && first !== undefined && more.length === 0
      ? yield* resolveConfigPath(Option.some(first))
      : undefined
    const servers = Option.isSome(given)
      ? [given.value]
      : more.length > 0
      ? (yield* loadConfiguration(options.config, options)).snapshot.servers
      : undefined
    // on a terminal, the logins the servers need come first: nothing inside the request waits for a browser
    yield* offerLogins(
      clientFactory,
      servers !== undefined
        ? Effect.succeed(servers)
        : Effect.orElseSucceed(
          Effect.map(loadConfiguration(options.config, options), (loaded) => loaded.snapshot.servers),
          () => []
        )
    )
    const result = yield* runAgent(options.prompt, { configPath, servers, strictConfig: !options.lenient }, {
      clientFactory,
      extension: {
        connectTimeout: extensionLimit(connectLimit(options.connectTimeout)),
        callTimeout: extensionLimit(callLimit(options.callTimeout)),
        discoveryConcurrency: Option.getOrUndefined(options.discoveryConcurrency),
        toolSearch: { mode: options.toolSearch }
      }
    }, model.value).pipe(Inputs.provide)
    if (options.verbose) {
      const output = yield* Output.Output
      yield* output.stderr(`zett: ${usageLine(result.runUsage ?? result.usage)}\n`)
    }
  })

const count = (n: number) => n.toLocaleString("en-US")

/** `usage: 1,250 input tokens (1,000 cached), 48 output tokens`, or that the provider reported none. */
export const usageLine = (usage: Message.Usage | undefined): string =>
  usage === undefined
    ? "usage: the model reported no token usage"
    : `usage: ${count(usage.inputTokens)} input tokens${
      usage.cachedInputTokens !== undefined ? ` (${count(usage.cachedInputTokens)} cached)` : ""
    }, ${count(usage.outputTokens)} output tokens`
