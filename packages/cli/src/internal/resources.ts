/**
 * `zett resources [SERVER]` and `zett read SERVER URI`.
 *
 * @internal
 */
import * as McpError from "@zett/mcp/McpError"
import * as McpResources from "@zett/mcp/McpResources"
import * as Effect from "effect/Effect"
import * as CliError from "../CliError.js"
import * as Output from "../Output.js"
import * as Catalog from "./catalog.js"
import { inert } from "./inert.js"
import type * as Options from "./options.js"
import { callLimit, connectLimit } from "./options.js"

interface Found {
  readonly resources: ReadonlyArray<McpResources.Resource>
  readonly templates: ReadonlyArray<McpResources.ResourceTemplate>
}

const count = (listings: ReadonlyArray<Catalog.Listing<Found>>, pick: (found: Found) => number) =>
  listings.reduce((sum, listing) => sum + (listing.items === undefined ? 0 : pick(listing.items)), 0)

export const listHandler = (options: Options.ListingOptions) =>
  Catalog.listCommand(options, {
    what: "resources",
    list: (client) =>
      Effect.all({
        resources: McpResources.list(client),
        // a server with resources but without templates may not know the method
        templates: McpResources.listTemplates(client).pipe(
          Effect.catchIf((error) => error.code === Catalog.methodNotFound, () => Effect.succeed([]))
        )
      }, { concurrency: 2 }),
    offers: "offersResources",
    fields: (items) => ({ resources: items?.resources ?? [], resourceTemplates: items?.templates ?? [] }),
    totals: (listings) => ({
      resources: count(listings, (found) => found.resources.length),
      resourceTemplates: count(listings, (found) => found.templates.length)
    }),
    counts: [
      { header: "RESOURCES", count: (found) => found.resources.length },
      { header: "TEMPLATES", count: (found) => found.templates.length }
    ],
    sections: ({ items, server }, width) => [
      ...Catalog.section(
        server,
        items.resources,
        "resource",
        (r) => [`  ${r.uri}`, r.mimeType ?? "", Catalog.firstLine(r.description ?? r.title ?? r.name)],
        width
      ),
      ...Catalog.section(
        server,
        items.templates,
        "resource template",
        (t) => [`  ${t.uriTemplate}`, t.mimeType ?? "", Catalog.firstLine(t.description ?? t.title ?? t.name)],
        width
      )
    ],
    total: (listings) =>
      `${Catalog.plural(count(listings, (found) => found.resources.length), "resource")}, ${
        Catalog.plural(count(listings, (found) => found.templates.length), "resource template")
      }`
  })

export const readHandler = (options: Options.ReadOptions) =>
  Effect.gen(function*() {
    const { factory, server } = yield* Catalog.named(options)
    const client = yield* Catalog.connect(factory, server, connectLimit(options.connectTimeout)).pipe(
      Effect.mapError((error) =>
        new CliError.RunFailed({
          reason: "Unavailable",
          message: `cannot read ${options.uri}: MCP server ${server.name} is unavailable: ${McpError.reasonOf(error)}`
        })
      )
    )
    const contents = yield* McpResources.read(client, options.uri).pipe(
      McpError.within({ server: server.name, operation: "call", limit: callLimit(options.callTimeout, server) }),
      Effect.mapError((error) =>
        new CliError.RunFailed({
          reason: "Failed",
          message: `cannot read ${options.uri} of ${server.name}: ${Catalog.failureReason(error)}`
        })
      )
    )
    if (options.json) {
      return yield* Output.line(JSON.stringify({ server: server.name, uri: options.uri, contents }, null, 2))
    }
    for (const content of contents) {
      // several contents are told apart by a line naming each
      if (contents.length > 1) {
        yield* Output.line(inert(`--- ${content.uri}${content.mimeType !== undefined ? ` (${content.mimeType})` : ""}`))
      }
      const shown = McpResources.forModel(content)
      const text = typeof shown.text === "string" ? shown.text : String(shown.blob)
      // the server's text, inert: --json gives it exactly
      yield* Output.line(inert(text.endsWith("\n") ? text.slice(0, -1) : text))
    }
  }).pipe(Effect.scoped)
