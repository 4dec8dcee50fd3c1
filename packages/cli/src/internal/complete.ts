/**
 * `zett complete SERVER (--prompt NAME | --resource URI) --argument NAME=VALUE [--context NAME=VALUE]...`: the
 * values a server proposes for an argument (`completion/complete`), one a line, or as JSON.
 *
 * @internal
 */
import * as McpError from "@zett/mcp/McpError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as CliError from "../CliError.js"
import * as Output from "../Output.js"
import * as Catalog from "./catalog.js"
import { loadServers, resolveClientFactory } from "./common.js"
import { inert } from "./inert.js"
import type * as Options from "./options.js"
import { callLimit, connectLimit } from "./options.js"

/** The result of `completion/complete` (MCP 2025-06-18 and later: `values` at most 100, `total`, `hasMore`). */
const CompleteResult = Schema.Struct({
  completion: Schema.Struct({
    values: Schema.Array(Schema.String),
    total: Schema.optional(Schema.Number),
    hasMore: Schema.optional(Schema.Boolean)
  })
})

const decodeResult = Schema.decodeUnknown(CompleteResult)

const usage = (message: string) => new CliError.UsageError({ reason: "InvalidArgument", message })

/** `NAME=VALUE`, the value possibly empty (nothing typed yet). */
const pair = (option: string, text: string) => {
  const at = text.indexOf("=")
  const name = at === -1 ? "" : text.slice(0, at)
  return at === -1 || name === ""
    ? Effect.fail(usage(`${option} expects NAME=VALUE (VALUE may be empty), got '${inert(text)}'`))
    : Effect.succeed({ name, value: text.slice(at + 1) })
}

export const handler = (options: Options.CompleteOptions) =>
  Effect.gen(function*() {
    const prompt = Option.getOrUndefined(options.prompt)
    const resource = Option.getOrUndefined(options.resource)
    if ((prompt === undefined) === (resource === undefined)) {
      return yield* usage("say what to complete: --prompt NAME or --resource URI_TEMPLATE (one of them)")
    }
    const argument = yield* pair("--argument", options.argument)
    const context = yield* Effect.forEach(options.context, (text) => pair("--context", text))
    const ref = prompt !== undefined
      ? { type: "ref/prompt", name: prompt } as const
      : { type: "ref/resource", uri: resource! } as const

    const factory = yield* resolveClientFactory({ serverLogLevel: options.serverLogLevel, protocol: options.protocol })
    const { adHoc, file, snapshot } = yield* loadServers(options)
    if (!adHoc && Option.isNone(options.server)) {
      return yield* usage("name the server: zett complete SERVER ... (or give one with --url URL or after --)")
    }
    const [server] = adHoc ? snapshot.servers : yield* Catalog.select(snapshot, file, options.server)
    if (server === undefined) {
      return yield* new CliError.UsageError({ reason: "NotFound", message: `no MCP servers are configured in ${file}` })
    }
    const name = server.name

    const client = yield* Catalog.connect(factory, server, connectLimit(options.connectTimeout)).pipe(
      Effect.mapError((error) =>
        new CliError.RunFailed({
          reason: "Unavailable",
          message: `cannot complete: MCP server ${name} is unavailable: ${McpError.reasonOf(error)}`
        })
      )
    )
    const params = {
      ref,
      argument,
      ...(context.length > 0
        ? { context: { arguments: Object.fromEntries(context.map((c) => [c.name, c.value])) } }
        : {})
    }
    const answer = yield* client.request("completion/complete", params).pipe(
      McpError.within({ server: name, operation: "call", limit: callLimit(options.callTimeout, server) }),
      Effect.mapError((error) =>
        new CliError.RunFailed({
          reason: "Failed",
          message: error._tag === "McpRequestError" && error.code === Catalog.methodNotFound
            ? `MCP server ${name} offers no completions (completion/complete: method not found)`
            : `cannot complete argument ${argument.name} on ${name}: ${Catalog.failureReason(error)}`
        })
      )
    )
    const { completion } = yield* decodeResult(answer).pipe(
      Effect.mapError((error) =>
        new CliError.RunFailed({
          reason: "Failed",
          message: `MCP server ${name} answered completion/complete with no completion: ${
            ParseResult.TreeFormatter.formatErrorSync(error).split("\n").join(" ")
          }`
        })
      )
    )
    if (options.json) {
      return yield* Output.line(JSON.stringify({ server: name, ref, argument: argument.name, ...completion }, null, 2))
    }
    // the server's words, one a line and inert: --json gives them exactly
    for (const value of completion.values) yield* Output.line(inert(value).replace(/\n/g, "\\n"))
    const more = completion.total !== undefined && completion.total > completion.values.length
      ? `${completion.total - completion.values.length} more`
      : completion.hasMore === true
      ? "more"
      : undefined
    if (more !== undefined) {
      yield* Output.errorLine(`zett: ${name} has ${more} values for ${argument.name}; type more of it to narrow them`)
    }
    if (completion.values.length === 0) yield* Output.errorLine(`zett: ${name} proposes no value for ${argument.name}`)
  }).pipe(Effect.scoped)
