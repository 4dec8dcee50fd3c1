/**
 * `zett tools`: every configured server discovered, as a table or JSON; exit 1 when one is unavailable.
 *
 * @internal
 */
import * as McpToolSearch from "@zett/mcp/McpToolSearch"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Discovery from "../Discovery.js"
import * as Output from "../Output.js"
import * as ToolsReport from "../ToolsReport.js"
import { discoverWithProgress, loadServers, resolveClientFactory, samplingModel, unavailableFailure } from "./common.js"
import type * as Options from "./options.js"
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
    if (Option.isSome(options.search)) {
      yield* Output.line(searchReport(reports, options.search.value, options.limit, options.json))
      return yield* unavailableFailure(reports)
    }
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

/**
 * What tool search returns for `query` over the servers discovered: the ranking the model's `search_tools` uses
 * (the same index and words), with each tool's score.
 */
export const searchReport = (
  reports: ReadonlyArray<Discovery.ServerReport>,
  query: string,
  limit: number,
  json: boolean
): string => {
  const available = reports.filter((report) => report.status === "ok")
  const index = McpToolSearch.makeIndex(available.map((report) => ({
    server: report.server,
    instructions: report.instructions,
    tools: report.tools.map((tool) => ({
      name: tool.name,
      remoteName: tool.remoteName,
      description: tool.description,
      parameters: tool.inputSchema
    }))
  })))
  const hits = index.search(query, { limit: Math.max(1, limit) })
  const found = hits.map((hit) => ({
    name: hit.tool.name,
    server: hit.server,
    score: Math.round(hit.score * 100) / 100,
    description: McpToolSearch.oneLine(hit.tool.description)
  }))
  if (json) return JSON.stringify({ query, searched: index.size, tools: found }, null, 2)
  const head = `${index.size.toLocaleString("en-US")} tools of ${available.length} ${
    available.length === 1 ? "server" : "servers"
  } searched for ${JSON.stringify(query)}:`
  if (found.length === 0) return `${head} no tool matched.`
  const width = Math.max(...found.map((hit) => hit.name.length))
  const scores = found.map((hit) => hit.score.toFixed(2))
  const scoreWidth = Math.max(...scores.map((score) => score.length))
  return [
    head,
    ...found.map((hit, i) => `  ${scores[i]!.padStart(scoreWidth)}  ${hit.name.padEnd(width)}  ${hit.description}`)
  ].join("\n")
}
