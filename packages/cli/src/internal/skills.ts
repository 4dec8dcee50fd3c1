/**
 * `zett skills [SERVER]` and `zett skill SERVER NAME [PATH]`: a server's skills (the Skills extension), and one
 * skill's SKILL.md or file, read and verified against the server's listing; a file that fails is not printed.
 *
 * @internal
 */
import * as McpError from "@zett/mcp/McpError"
import * as McpSkills from "@zett/mcp/McpSkills"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as Output from "../Output.js"
import * as Catalog from "./catalog.js"
import { nameList } from "./common.js"
import { inert } from "./inert.js"
import type * as Options from "./options.js"
import { callLimit } from "./options.js"

const total = (listings: ReadonlyArray<Catalog.Listing<ReadonlyArray<McpSkills.Skill>>>) =>
  listings.reduce((sum, listing) => sum + (listing.items?.length ?? 0), 0)

export const listHandler = (options: Options.ListingOptions) =>
  Catalog.listCommand(options, {
    what: "skills",
    list: McpSkills.list,
    offers: "offersSkills",
    fields: (items) => ({
      skills: (items ?? []).map((skill) => ({ ...skill, files: McpSkills.files(skill) }))
    }),
    totals: (listings) => ({ skills: total(listings) }),
    counts: [{ header: "SKILLS", count: (skills) => skills.length }],
    sections: ({ items, server }, width) =>
      Catalog.section(
        server,
        items,
        "skill",
        (skill) => [`  ${skill.frontmatter.name}`, skill.uri, Catalog.firstLine(skill.frontmatter.description)],
        width
      ),
    total: (listings) => Catalog.plural(total(listings), "skill")
  })

export const readHandler = (options: Options.SkillOptions) =>
  Effect.gen(function*() {
    const { factory, server } = yield* Catalog.named(options)
    const name = server.name
    const path = Option.getOrUndefined(options.path)
    const { client, listed: skills } = yield* Catalog.connectAndList(factory, server, {
      doing: `load skill ${options.name}`,
      connectTimeout: options.connectTimeout,
      list: McpSkills.list
    })
    const found = McpSkills.find(skills, options.name)
    if (found.length !== 1) {
      return yield* new CliError.UsageError({
        reason: found.length === 0 ? "NotFound" : "InvalidArgument",
        message: found.length === 0
          ? `no skill named ${options.name} on ${name}; available: ${
            nameList(skills.map((skill) => skill.frontmatter.name))
          }`
          : `${found.length} skills of ${name} are named ${options.name}: give the URI of one (${
            found.map((skill) => skill.uri).join(", ")
          })`
      })
    }
    const skill = found[0]!
    const file = yield* McpSkills.read(client, skill, path).pipe(
      McpError.within({ server: name, operation: "call", limit: callLimit(options.callTimeout, server) }),
      Effect.mapError((error) =>
        new CliError.RunFailed({
          reason: "Failed",
          message: error._tag === "McpSkillVerificationError"
            ? `skill ${options.name} of ${name}: ${error.uri} failed verification (${error.reason}); not printed`
            : `skill ${options.name} of ${name} failed: ${Catalog.failureReason(error)}`
        })
      )
    )
    const text = file.text ?? Buffer.from(file.bytes).toString("base64")
    if (options.json) {
      return yield* Output.line(JSON.stringify(
        {
          server: name,
          skill: skill.frontmatter.name,
          uri: file.uri,
          ...(file.mimeType !== undefined ? { mimeType: file.mimeType } : {}),
          verified: file.verified,
          ...(file.frontmatter !== undefined ? { frontmatter: file.frontmatter } : {}),
          ...(file.text !== undefined ? { text: file.text } : { blob: text }),
          ...(path === undefined ? { files: McpSkills.files(skill) } : {})
        },
        null,
        2
      ))
    }
    // the server's text, inert: --json gives it exactly
    yield* Output.line(inert(text.endsWith("\n") ? text.slice(0, -1) : text))
  }).pipe(Effect.scoped)
