/**
 * `zett prompts [SERVER]` and `zett prompt SERVER NAME [JSON]`.
 *
 * @internal
 */
import { McpError, McpPrompts } from "@zett/mcp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Output from "../Output.js"
import * as Catalog from "./catalog.js"
import { inert } from "./inert.js"
import { loadConfiguration, resolveClientFactory } from "./common.js"
import type * as Options from "./options.js"
import { limitOf } from "./options.js"

/** `city, state?`: the arguments, an optional one marked with `?`. */
const argumentsLine = (prompt: McpPrompts.Prompt) =>
  (prompt.arguments ?? []).map((arg) => `${arg.name}${arg.required === true ? "" : "?"}`).join(", ")

export const listHandler = (options: Options.PromptsOptions) =>
  Effect.gen(function*() {
    const factory = yield* resolveClientFactory()
    const output = yield* Output.Output
    const { exists, file, snapshot } = yield* loadConfiguration(options.config, options)
    const servers = yield* Catalog.select(snapshot, file, options.server)
    const listings = yield* Catalog.listAll(factory, servers, {
      what: "prompts",
      limit: limitOf(options.connectTimeout, Duration.seconds(30)),
      concurrency: Option.getOrUndefined(options.discoveryConcurrency),
      list: McpPrompts.list
    })
    const total = listings.reduce((sum, listing) => sum + (listing.items?.length ?? 0), 0)
    yield* Output.line(
      options.json
        ? Catalog.json(listings, {
          config: file,
          configExists: exists,
          skipped: snapshot.skipped,
          offers: "offersPrompts",
          fields: (items) => ({ prompts: items ?? [] }),
          totals: { prompts: total }
        })
        : Catalog.render(listings, {
          config: file,
          configExists: exists,
          width: output.columns,
          counts: [{ header: "PROMPTS", count: (prompts: ReadonlyArray<McpPrompts.Prompt>) => prompts.length }],
          none: "offers no prompts",
          sections: ({ items, server }, width) =>
            items.length === 0 ? [] : [
              `${server}: ${Catalog.plural(items.length, "prompt")}`,
              ...Catalog.rows(
                items.map((p) => [`  ${p.name}`, argumentsLine(p), Catalog.firstLine(p.description ?? p.title ?? "")]),
                width
              )
            ],
          total: () => Catalog.plural(total, "prompt")
        })
    )
    yield* Catalog.unavailableFailure(listings)
  })

const kindOf = (value: unknown) => (Array.isArray(value) ? "an array" : value === null ? "null" : `an ${typeof value}`)

/** The protocol's prompt arguments are strings: numbers and booleans are written as JSON writes them. */
const stringArguments = (args: Readonly<Record<string, unknown>>) =>
  Effect.forEach(Object.entries(args), ([key, value]) =>
    typeof value === "string"
      ? Effect.succeed([key, value] as const)
      : typeof value === "number" || typeof value === "boolean"
      ? Effect.succeed([key, String(value)] as const)
      : Effect.fail(new CliError.UsageError({ message: `the prompt's argument ${key} must be a string; got ${kindOf(value)}` }))).pipe(
      Effect.map((entries) => Object.fromEntries(entries) as Record<string, string>)
    )

export const getHandler = (options: Options.PromptOptions) =>
  Effect.gen(function*() {
    const args = yield* stringArguments(Option.getOrElse(options.arguments, (): Record<string, unknown> => ({})))
    const factory = yield* resolveClientFactory()
    const { file, snapshot } = yield* loadConfiguration(options.config, options)
    const [server] = yield* Catalog.select(snapshot, file, Option.some(options.server))
    const name = server!.name
    const unavailable = (error: McpError.McpConnectError | McpError.McpRequestError | McpError.McpTimeoutError) =>
      new CliError.RunFailed({ message: `cannot get prompt ${options.name}: MCP server ${name} is unavailable: ${McpError.reasonOf(error)}` })
    const callLimit = server!.timeout !== undefined ? Option.some(server!.timeout) : limitOf(options.callTimeout, Duration.seconds(300))
    // connect and list under the connect timeout, so that a wrong name or argument is told before asking for it
    const { client, prompts } = yield* Effect.gen(function*() {
      const client = yield* Catalog.connect(factory, server!, Option.none())
      return { client, prompts: yield* McpPrompts.list(client) }
    }).pipe(
      McpError.within({ server: name, operation: "connect", limit: limitOf(options.connectTimeout, Duration.seconds(30)) }),
      Effect.mapError(unavailable)
    )
    const prompt = prompts.find((p) => p.name === options.name)
    if (prompt === undefined) {
      const names = prompts.map((p) => p.name)
      return yield* new CliError.UsageError({
        message: `no prompt named ${options.name} on ${name}; available: ${
          names.length === 0 ? "none" : names.slice(0, 20).join(", ") + (names.length > 20 ? ", …" : "")
        }`
      })
    }
    const known = (prompt.arguments ?? []).map((arg) => arg.name)
    const unknown = Object.keys(args).filter((key) => !known.includes(key))
    if (unknown.length > 0) {
      return yield* new CliError.UsageError({
        message: `prompt ${options.name} has no argument ${unknown.join(", ")}; its arguments: ${argumentsLine(prompt) || "none"}`
      })
    }
    const missing = (prompt.arguments ?? []).filter((arg) => arg.required === true && !(arg.name in args)).map((arg) => arg.name)
    if (missing.length > 0) {
      return yield* new CliError.UsageError({
        message: `prompt ${options.name} needs ${missing.length === 1 ? "the argument" : "the arguments"} ${missing.join(", ")}` +
          ` (its arguments: ${argumentsLine(prompt)})`
      })
    }
    const got = yield* McpPrompts.get(client, options.name, args).pipe(
      McpError.within({ server: name, operation: "call", limit: callLimit }),
      Effect.mapError((error) =>
        new CliError.RunFailed({
          message: `prompt ${options.name} of ${name} failed: ${McpError.reasonOf(error)}${
            error._tag === "McpRequestError" && error.code !== undefined ? ` (code ${error.code})` : ""
          }`
        })
      )
    )
    const messages = got.messages.map((m) => ({ role: m._tag === "AssistantMessage" ? "assistant" : "user", content: m.content }))
    if (options.json) {
      return yield* Output.line(
        JSON.stringify(
          { server: name, prompt: options.name, ...(got.description !== undefined ? { description: got.description } : {}), messages },
          null,
          2
        )
      )
    }
    for (const [i, message] of messages.entries()) {
      if (i > 0) yield* Output.line()
      // the server's text, inert: --json gives it exactly
      yield* Output.line(inert(`${message.role}: ${message.content}`))
    }
  }).pipe(Effect.scoped)
