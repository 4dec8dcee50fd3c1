/**
 * `zett prompts [SERVER]` and `zett prompt SERVER NAME [JSON]`.
 *
 * @internal
 */
import * as McpError from "@zett/mcp/McpError"
import * as McpPrompts from "@zett/mcp/McpPrompts"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Output from "../Output.js"
import * as Catalog from "./catalog.js"
import { nameList } from "./common.js"
import { inert } from "./inert.js"
import type * as Options from "./options.js"
import { callLimit } from "./options.js"

/** `city, state?`: the arguments, an optional one marked with `?`. */
const argumentsLine = (prompt: McpPrompts.Prompt) =>
  (prompt.arguments ?? []).map((arg) => `${arg.name}${arg.required === true ? "" : "?"}`).join(", ")

const total = (listings: ReadonlyArray<Catalog.Listing<ReadonlyArray<McpPrompts.Prompt>>>) =>
  listings.reduce((sum, listing) => sum + (listing.items?.length ?? 0), 0)

export const listHandler = (options: Options.ListingOptions) =>
  Catalog.listCommand(options, {
    what: "prompts",
    list: McpPrompts.list,
    offers: "offersPrompts",
    fields: (items) => ({ prompts: items ?? [] }),
    totals: (listings) => ({ prompts: total(listings) }),
    counts: [{ header: "PROMPTS", count: (prompts) => prompts.length }],
    sections: ({ items, server }, width) =>
      Catalog.section(
        server,
        items,
        "prompt",
        (p) => [`  ${p.name}`, argumentsLine(p), Catalog.firstLine(p.description ?? p.title ?? "")],
        width
      ),
    total: (listings) => Catalog.plural(total(listings), "prompt")
  })

const kindOf = (value: unknown) => (Array.isArray(value) ? "an array" : value === null ? "null" : `an ${typeof value}`)

/** The protocol's prompt arguments are strings: numbers and booleans are written as JSON writes them. */
const stringArguments = (args: Readonly<Record<string, unknown>>) =>
  Effect.forEach(Object.entries(args), ([key, value]) =>
    typeof value === "string"
      ? Effect.succeed([key, value] as const)
      : typeof value === "number" || typeof value === "boolean"
      ? Effect.succeed([key, String(value)] as const)
      : Effect.fail(
        new CliError.UsageError({
          reason: "InvalidArgument",
          message: `the prompt's argument ${key} must be a string; got ${kindOf(value)}`
        })
      )).pipe(
      Effect.map((entries) => Object.fromEntries(entries) as Record<string, string>)
    )

export const getHandler = (options: Options.PromptOptions) =>
  Effect.gen(function*() {
    const args = yield* stringArguments(Option.getOrElse(options.arguments, (): Record<string, unknown> => ({})))
    const { factory, server } = yield* Catalog.named(options)
    const name = server.name
    // connected and listed first, so that a wrong name or argument is told before asking for it
    const { client, listed: prompts } = yield* Catalog.connectAndList(factory, server, {
      doing: `get prompt ${options.name}`,
      connectTimeout: options.connectTimeout,
      list: McpPrompts.list
    })
    const prompt = prompts.find((p) => p.name === options.name)
    if (prompt === undefined) {
      return yield* new CliError.UsageError({
        reason: "NotFound",
        message: `no prompt named ${options.name} on ${name}; available: ${nameList(prompts.map((p) => p.name))}`
      })
    }
    const known = (prompt.arguments ?? []).map((arg) => arg.name)
    const unknown = Object.keys(args).filter((key) => !known.includes(key))
    if (unknown.length > 0) {
      return yield* new CliError.UsageError({
        reason: "InvalidArgument",
        message: `prompt ${options.name} has no argument ${unknown.join(", ")}; its arguments: ${
          argumentsLine(prompt) || "none"
        }`
      })
    }
    const missing = (prompt.arguments ?? []).filter((arg) => arg.required === true && !(arg.name in args)).map((arg) =>
      arg.name
    )
    if (missing.length > 0) {
      return yield* new CliError.UsageError({
        reason: "InvalidArgument",
        message:
          `prompt ${options.name} needs ${missing.length === 1 ? "the argument" : "the arguments"} ${
            missing.join(", ")
          }` +
          ` (its arguments: ${argumentsLine(prompt)})`
      })
    }
    const got = yield* McpPrompts.get(client, options.name, args).pipe(
      McpError.within({ server: name, operation: "call", limit: callLimit(options.callTimeout, server) }),
      Effect.mapError((error) =>
        new CliError.RunFailed({
          reason: "Failed",
          message: `prompt ${options.name} of ${name} failed: ${Catalog.failureReason(error)}`
        })
      )
    )
    const messages = got.messages.map((m) => ({
      role: m._tag === "AssistantMessage" ? "assistant" : "user",
      content: m.content
    }))
    if (options.json) {
      return yield* Output.line(
        JSON.stringify(
          {
            server: name,
            prompt: options.name,
            ...(got.description !== undefined ? { description: got.description } : {}),
            messages
          },
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
