/**
 * `zett tools`: every configured server discovered, as a table or JSON; exit 1 when one is unavailable.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Output from "../Output.js"
import * as ToolsReport from "../ToolsReport.js"
import { discoverWithProgress, loadServers, resolveClientFactory, samplingModel, unavailableFailure } from "./common.js"
import * as Options from "./options.js"
import { connectLimit } from "./options.js"

export const handler = (options: Options.ToolsOptions) =>
  Effect.gen(function*() {
    // the capabilities `call` declares, so that the tools a server offers only with them are listed
    const clientFactory = yield* resolveClientFactory({
      serverRequests: { yesDefaults: false, sampling: yield* samplingModel },
      serverLogLevel: options.serverLogLevel,
      protocol: options.protocol
    })
    const output = yield* Output.Output
    const { exists, file, snapshot } = yield* loadServers(options)
    const reports = yield* discoverWithProgress(
      clientFactory,
      snapshot.servers,
      connectLimit(options.connectTimeout),
      Option.getOrUndefined(options.discoveryConcurrency)
    )
    const report: ToolsReport.ToolsReport = {
      config: file,
      configExists: exists,
      servers: reports,
      skipped: snapshot.skipped
    }
    yield* Output.line(
      options.json
        ? JSON.stringify(ToolsReport.toJson(report), null, 2)
        : ToolsReport.render(report, { width: output.columns, schema: options.schema })
    )
    yield* unavailableFailure(reports)
  })
