/**
 * `zett demo` (`npm start`): the bundled example server, its tools, one agent turn that calls `demo__add`, and the checks that the sum came back and that every connection and process is gone.
 *
 * @internal
 */
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Demo from "../Demo.js"
import * as EnvironmentModel from "../EnvironmentModel.js"
import * as Output from "../Output.js"
import * as ToolsReport from "../ToolsReport.js"
import { discoverWithProgress, givenModel, resolveClientFactory, runAgent, unavailableFailure } from "./common.js"
import type * as Options from "./options.js"
import { callLimit, connectLimit, extensionLimit } from "./options.js"

export const handler = (options: Options.DemoOptions) =>
  Effect.gen(function*() {
    const given = yield* givenModel
    const output = yield* Output.Output
    const fromEnvironment = options.scripted || Option.isSome(given)
      ? Option.none()
      : yield* EnvironmentModel.fromEnvironment
    const model = Option.isSome(given)
      ? { name: "the model given to the command", layer: given.value }
      : Option.getOrElse(fromEnvironment, () => ({ name: "scripted (offline)", layer: Demo.scriptedModel }))
    const scripted = Option.isNone(given) && Option.isNone(fromEnvironment)
    const server = Demo.server()
    const tracker = Demo.track(yield* resolveClientFactory())
    const results = Demo.observeResults()
    const connectTimeout = connectLimit(options.connectTimeout)

    const pathService = yield* Path.Path
    const shown = pathService.relative(process.cwd(), Demo.serverScript)
    yield* Output.line(`zett demo: the bundled example MCP server, started over stdio (node ${shown})`)
    yield* Output.line(`Model: ${model.name}`)
    yield* Output.line()

    const reports = yield* discoverWithProgress(tracker.factory, [server], connectTimeout)
    yield* Output.line(
      ToolsReport.render(
        { config: "(none: the demo's server is given in code)", configExists: true, servers: reports, skipped: [] },
        { width: output.columns, title: "The demo's MCP server" }
      )
    )
    yield* unavailableFailure(reports)

    yield* Output.line()
    yield* Output.line(`> ${Demo.prompt}`)
    const reply = yield* runAgent(
      Demo.prompt,
      { servers: [server] },
      {
        clientFactory: tracker.factory,
        extension: {
          connectTimeout: extensionLimit(connectTimeout),
          callTimeout: extensionLimit(callLimit(options.callTimeout))
        }
      },
      model.layer,
      [results.extension]
    )
    yield* Output.line()
    yield* Output.line(`Answer: ${reply.content}`)

    const left = yield* Demo.awaitGone(tracker)
    const opened = tracker.opened()
    const closed = tracker.closed()
    yield* Output.line(
      `MCP connections: ${opened} opened, ${closed} closed; ` +
        (left.length === 0
          ? `no server process left (${tracker.pids().length} started).`
          : `server processes still running: ${left.join(", ")}.`)
    )
    if (opened !== closed || left.length > 0) {
      return yield* new CliError.RunFailed({
        reason: "CheckFailed",
        message: "the demo left MCP connections or server processes open"
      })
    }
    // the check is on what the tool returned to the model, not on the wording of the answer
    if (scripted && results.sum() !== 42) {
      return yield* new CliError.RunFailed({
        reason: "CheckFailed",
        message: `the demo expected the sum 42 from demo__add, and received ${JSON.stringify(results.sum() ?? null)}`
      })
    }
  })
