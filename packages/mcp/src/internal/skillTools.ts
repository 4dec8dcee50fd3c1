/**
 * A server's skills for the model (`skills: true`): their index in the system text, and `<prefix>__load_skill`,
 * which loads a skill's verified `SKILL.md` or one of its files. A file that fails verification is a tool error
 * that says why; its bytes never reach the model. The texts and the tool's parameters are `@zett/common`'s
 * `McpSkills` (both lines share them).
 *
 * @internal
 */
import * as Tool from "@zett/agent/Tool"
import * as Common from "@zett/common/McpSkills"
import * as ResourceText from "@zett/common/McpToolResult"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { McpClient } from "../McpClient.js"
import type * as McpConnections from "../McpConnections.js"
import * as McpError from "../McpError.js"
import * as McpServerConfig from "../McpServerConfig.js"
import * as McpSkills from "../McpSkills.js"
import * as McpToolResult from "../McpToolResult.js"

export const loadSuffix = Common.loadSuffix

const parameters = Common.loadParameters

/** The skills of one server, as a request listed them. */
export interface Listed {
  readonly server: McpServerConfig.McpServerConfig
  readonly prefix: string
  readonly skills: ReadonlyArray<McpSkills.Skill>
}

/**
 * The skills of `servers` (those with `skills: true`), listed in `connections` (connect and list under `limit`),
 * `concurrency` at a time, in the order given; a listing that fails is a line for the model and a warning, and
 * costs the server its skills, not its tools. No file is read.
 */
export const listAll = (
  connections: McpConnections.McpConnections,
  servers: ReadonlyArray<McpServerConfig.McpServerConfig>,
  options: { readonly limit: Option.Option<Duration.Duration>; readonly concurrency: number }
): Effect.Effect<{ readonly listed: ReadonlyArray<Listed>; readonly failures: ReadonlyArray<string> }> =>
  Effect.forEach(
    servers.filter((server) => server.skills === true),
    (server) =>
      connections.getWithin(server, options.limit).pipe(
        Effect.flatMap(McpSkills.list),
        McpError.within({ server: server.name, operation: "connect", limit: options.limit }),
        Effect.map((skills): Listed | string => ({ server, prefix: McpServerConfig.toolPrefix(server), skills })),
        Effect.catchAll((error) => {
          const reason = McpError.reasonOf(error)
          return Effect.as(
            Effect.annotateLogs(
              Effect.logWarning(`MCP server ${server.name}: its skills could not be listed: ${reason}`),
              "mcp.server",
              server.name
            ),
            `The skills of the MCP server ${JSON.stringify(server.name)} could not be listed: ${reason}.`
          )
        })
      ),
    { concurrency: options.concurrency }
  ).pipe(Effect.map((outcomes) => ({
    listed: outcomes.filter((outcome): outcome is Listed => typeof outcome !== "string"),
    failures: outcomes.filter((outcome): outcome is string => typeof outcome === "string")
  })))

/** What the model is told about the servers' skills; `listed` in configuration order. */
export const describe = (listed: ReadonlyArray<Listed>, failures: ReadonlyArray<string> = []): ReadonlyArray<string> =>
  Common.describe(listed.map((entry) => ({ ...entry, server: entry.server.name })), failures)

/** A file as the model sees it: text, or base64 `blob` when it is not UTF-8 text. */
const fileJson = (file: McpSkills.SkillFile) => {
  const base = { uri: file.uri, ...(file.mimeType !== undefined ? { mimeType: file.mimeType } : {}) }
  const text = file.text ?? ResourceText.blobText(Buffer.from(file.bytes).toString("base64"))
  return text !== undefined ? { ...base, text } : { ...base, blob: Buffer.from(file.bytes).toString("base64") }
}

/** What `loader` needs of the request it serves. */
interface LoaderOptions {
  readonly server: McpServerConfig.McpServerConfig
  readonly prefix: string
  readonly connect: Effect.Effect<McpClient, Tool.ToolError>
  readonly listed: () => ReadonlyArray<McpSkills.Skill> | undefined
  readonly limit: Option.Option<Duration.Duration>
  readonly errorText: McpToolResult.ErrorTextPolicy
}

/** An argument the tool cannot use, as the model reads it. */
const failed = (name: string, description: string) =>
  new Tool.ToolError({ reason: "InvalidArguments", message: `${name}: ${description}` })

/** The skill a call names, read: its instructions and files, or the one file asked for. */
const load = (
  options: LoaderOptions,
  name: string,
  client: McpClient,
  reference: string,
  path: string | undefined
) =>
  Effect.gen(function*() {
    const skills = options.listed() ?? (yield* McpSkills.list(client))
    const found = McpSkills.find(skills, reference)
    if (found.length > 1) {
      return yield* failed(
        name,
        `${found.length} skills are named ${JSON.stringify(reference)}: give the URI of one (${
          found.map((skill) => skill.uri).join(", ")
        })`
      )
    }
    // a skill the server does not list is asked for by its URI
    const skill = found[0] ??
      (reference.endsWith(`/${McpSkills.manifest}`) ? yield* McpSkills.get(client, reference) : undefined)
    if (skill === undefined) {
      return yield* failed(
        name,
        `the MCP server ${JSON.stringify(options.server.name)} has no skill ${JSON.stringify(reference)}`
      )
    }
    const file = yield* McpSkills.read(client, skill, path)
    if (path !== undefined && path !== McpSkills.manifest) return fileJson(file)
    return {
      skill: skill.frontmatter.name,
      uri: skill.uri,
      instructions: file.body ?? file.text ?? "",
      files: McpSkills.files(skill)
    }
  })

/**
 * The tool of one server, as the agent's tool (`make`) and the toolkit's (`loader`) share it. `connect` gives the
 * request's connection (its failure already a `ToolError`); `listed` the skills the request listed (else they are
 * listed when the tool is called).
 */
export const loader = (options: LoaderOptions): {
  readonly name: string
  readonly description: string
  readonly parameters: typeof parameters
  readonly run: (args: unknown) => Effect.Effect<unknown, Tool.ToolError>
} => {
  const { errorText, prefix, server } = options
  const name = `${prefix}__${loadSuffix}`

  return {
    name,
    description: Common.loadDescription(server.name),
    parameters,
    run: (args) => {
      const given = (args ?? {}) as { readonly skill?: unknown; readonly path?: unknown }
      if (typeof given.skill !== "string" || given.skill === "") {
        return failed(name, "needs skill (a name or a SKILL.md URI)")
      }
      if (given.path !== undefined && typeof given.path !== "string") return failed(name, "path must be a string")
      const reference = given.skill
      const path = given.path === "" ? undefined : given.path
      return Effect.flatMap(options.connect, (client) => load(options, name, client, reference, path)).pipe(
        McpError.within({ server: server.name, operation: "call", limit: options.limit }),
        Effect.catchTags({
          McpTimeoutError: (error) =>
            new Tool.ToolError({
              reason: "Timeout",
              message: `${name} did not finish within ${Duration.format(error.timeout)}`
            }),
          // neither the file nor what it says (a differing frontmatter field) is handed on: only what did not match
          McpSkillVerificationError: (error) =>
            new Tool.ToolError({
              reason: "ToolFailed",
              message: `${name}: ${error.uri} was refused: ${
                Common.refusal(error.reason)
              }. Its content was not loaded.`,
              cause: error
            }),
          McpRequestError: (error) =>
            new Tool.ToolError({
              reason: "RequestFailed",
              message: McpToolResult.describeFailure(McpToolResult.RemoteFailure.RequestError({ error }), errorText),
              cause: error
            })
        }),
        Effect.withSpan("McpExtension.skills", { attributes: { "mcp.server": server.name, "mcp.tool": name } })
      )
    }
  }
}

/** The agent's tool of one server (`loader`). */
export const make = (options: Parameters<typeof loader>[0]): Tool.Tool => {
  const tool = loader(options)
  return Tool.dynamic(tool.name, {
    description: tool.description,
    parameters: tool.parameters,
    guidelines: false,
    handler: tool.run
  })
}
