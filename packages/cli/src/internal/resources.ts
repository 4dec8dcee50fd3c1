/**
 * `zett resources [SERVER]` and `zett read SERVER URI`.
 *
 * @internal
 */
import { McpError, McpResources } from "@zett/mcp"
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

interface Found {
  readonly resources: ReadonlyArray<McpResources.Resource>
  readonly templates: ReadonlyArray<McpResources.ResourceTemplate>
}

const methodNotFound = -32601

export const listHandler = (options: Options.ResourcesOptions) =>
  Effect.gen(function*() {
    const factory = yield* resolveClientFactory()
    const output = yield* Output.Output
    const { exists, file, snapshot } = yield* loadConfiguration(options.config, options)
    const servers = yield* Catalog.select(snapshot, file, options.server)
    const listings = yield* Catalog.listAll(factory, servers, {
      what: "resources",
      limit: limitOf(options.connectTimeout, Duration.seconds(30)),
      concurrency: Option.getOrUndefined(options.discoveryConcurrency),
      list: (client) =>
        Effect.all({
          resources: McpResources.list(client),
          // a server with resources but without templates may not know the method
          templates: McpResources.listTemplates(client).pipe(
            Effect.catchIf((error) => error.code === methodNotFound, () => Effect.succeed([]))
          )
        }, { concurrency: 2 })
    })
    const count = (pick: (found: Found) => number) =>
      listings.reduce((sum, listing) => sum + (listing.items === undefined ? 0 : pick(listing.items)), 0)
    yield* Output.line(
      options.json
        ? Catalog.json(listings, {
          config: file,
          configExists: exists,
          skipped: snapshot.skipped,
          offers: "offersResources",
          fields: (items) => ({ resources: items?.resources ?? [], resourceTemplates: items?.templates ?? [] }),
          totals: {
            resources: count((found) => found.resources.length),
            resourceTemplates: count((found) => found.templates.length)
          }
        })
        : Catalog.render(listings, {
          config: file,
          configExists: exists,
          width: output.columns,
          counts: [
            { header: "RESOURCES", count: (found: Found) => found.resources.length },
            { header: "TEMPLATES", count: (found: Found) => found.templates.length }
          ],
          none: "offers no resources",
          sections: ({ items, server }, width) => [
            ...(items.resources.length === 0 ? [] : [
              `${server}: ${Catalog.plural(items.resources.length, "resource")}`,
              ...Catalog.rows(
                items.resources.map((r) => [`  ${r.uri}`, r.mimeType ?? "", Catalog.firstLine(r.description ?? r.title ?? r.name)]),
                width
              )
            ]),
            ...(items.templates.length === 0 ? [] : [
              `${server}: ${Catalog.plural(items.templates.length, "resource template")}`,
              ...Catalog.rows(
                items.templates.map((t) => [`  ${t.uriTemplate}`, t.mimeType ?? "", Catalog.firstLine(t.description ?? t.title ?? t.name)]),
                width
              )
            ])
          ],
          total: () =>
            `${Catalog.plural(count((found) => found.resources.length), "resource")}, ${
              Catalog.plural(count((found) => found.templates.length), "resource template")
            }`
        })
    )
    yield* Catalog.unavailableFailure(listings)
  })

export const readHandler = (options: Options.ReadOptions) =>
  Effect.gen(function*() {
    const factory = yield* resolveClientFactory()
    const { file, snapshot } = yield* loadConfiguration(options.config, options)
    const [server] = yield* Catalog.select(snapshot, file, Option.some(options.server))
    const client = yield* Catalog.connect(factory, server!, limitOf(options.connectTimeout, Duration.seconds(30))).pipe(
      Effect.mapError((error) =>
        new CliError.RunFailed({ message: `cannot read ${options.uri}: MCP server ${server!.name} is unavailable: ${McpError.reasonOf(error)}` })
      )
    )
    const contents = yield* McpResources.read(client, options.uri).pipe(
      McpError.within({
        server: server!.name,
        operation: "call",
        limit: server!.timeout !== undefined ? Option.some(server!.timeout) : limitOf(options.callTimeout, Duration.seconds(300))
      }),
      Effect.mapError((error) =>
        new CliError.RunFailed({
          message: `cannot read ${options.uri} of ${server!.name}: ${McpError.reasonOf(error)}${
            error._tag === "McpRequestError" && error.code !== undefined ? ` (code ${error.code})` : ""
          }`
        })
      )
    )
    if (options.json) {
      return yield* Output.line(JSON.stringify({ server: server!.name, uri: options.uri, contents }, null, 2))
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
