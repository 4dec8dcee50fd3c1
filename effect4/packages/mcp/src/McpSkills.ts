/**
 * The skills of a connected MCP server (the Skills extension, `io.modelcontextprotocol/skills`): list them (every
 * page of `skills/list`), get one by the URI of its `SKILL.md` (`skills/get`), and read one of its files with
 * verification: the file must be listed in the skill's entry, its size and SHA-256 digest must be the entry's,
 * and the frontmatter of a `SKILL.md` must equal the entry's. A file that fails is an
 * `McpSkillVerificationError`, and its bytes go nowhere.
 *
 * Nothing is read ahead of need: listing reads no file, and `read` reads the one file asked for. A server that
 * does not declare the extension has no skills (`list` gives none); `get` and `read` then fail with an
 * `McpRequestError` of kind `Unsupported`, as they do for a client whose driver has no skills. The entries and their
 * index are `@zett/common`'s `McpSkills`, the same on both Effect lines.
 *
 * ```ts
 * const client = yield* factory.connect(server)
 * const skills = yield* McpSkills.list(client)
 * const manifest = yield* McpSkills.read(client, skills[0])                      // its SKILL.md, verified
 * const forms = yield* McpSkills.read(client, skills[0], "references/FORMS.md")  // a file it lists
 * ```
 *
 * @since 1.0.0
 */
import * as Common from "@zett/common/McpSkills"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import type * as McpClient from "./McpClient.js"
import type { McpRequestError, McpSkillVerificationError } from "./McpError.js"

/**
 * The extension's identifier, as a server declares it in its capabilities.
 *
 * @since 1.0.0
 * @category constants
 */
export const extensionId: string = Common.extensionId

/**
 * One file of a skill as its entry lists it: its resource URI, the SHA-256 digest of its bytes
 * (`sha256:<hex>`), and their length.
 *
 * @since 1.0.0
 * @category models
 */
export interface SkillResource extends Common.SkillResource {}

/**
 * A skill's entry, as `skills/list` and `skills/get` give it: the URI of its `SKILL.md`, the frontmatter of that
 * file verbatim (`name` and `description` always), and every file of the skill, or `"dynamic"` for generated
 * content (whose files are not checked against a digest).
 *
 * @since 1.0.0
 * @category models
 */
export interface Skill extends Common.Skill {}

/**
 * A skill file as read and verified: exactly the bytes the entry's digest covers, their text when the server
 * sent text (always for a `SKILL.md`), and for the skill's own `SKILL.md` its parsed frontmatter and the markdown
 * after it. `verified` is `false` only for a `"dynamic"` skill, whose size and digest are not published.
 *
 * @since 1.0.0
 * @category models
 */
export interface SkillFile extends Common.SkillFile {}

/**
 * The name of a skill's own `SKILL.md`, the file `read` reads by default.
 *
 * @since 1.0.0
 * @category constants
 */
export const manifest: string = Common.manifest

/**
 * Every skill the server lists, all pages. A server without the extension has none.
 *
 * @since 1.0.0
 * @category requests
 */
export const list = (client: McpClient.McpClient): Effect.Effect<ReadonlyArray<Skill>, McpRequestError> =>
  client.skills.list.pipe(Effect.withSpan("McpSkills.list", { attributes: { "mcp.server": client.server } }))

/**
 * One skill's entry by the URI of its `SKILL.md`, listed or not (`skills/get`); an unknown one is the server's
 * error (usually code -32602).
 *
 * @since 1.0.0
 * @category requests
 */
export const get: {
  (uri: string): (client: McpClient.McpClient) => Effect.Effect<Skill, McpRequestError>
  (client: McpClient.McpClient, uri: string): Effect.Effect<Skill, McpRequestError>
} = dual(
  2,
  (client: McpClient.McpClient, uri: string): Effect.Effect<Skill, McpRequestError> =>
    client.skills.get(uri).pipe(
      Effect.withSpan("McpSkills.get", { attributes: { "mcp.server": client.server, "mcp.skill": uri } })
    )
)

/**
 * Reads one file of `skill` and verifies it against the entry: `path` is relative to the skill's root
 * (`references/FORMS.md`), `SKILL.md` by default. A file the entry does not list is refused before any request.
 *
 * @since 1.0.0
 * @category requests
 */
export const read: {
  (skill: Skill, path?: string): (
    client: McpClient.McpClient
  ) => Effect.Effect<SkillFile, McpRequestError | McpSkillVerificationError>
  (client: McpClient.McpClient, skill: Skill, path?: string): Effect.Effect<
    SkillFile,
    McpRequestError | McpSkillVerificationError
  >
} = dual(
  (args) => typeof (args[0] as { readonly server?: unknown }).server === "string",
  (client: McpClient.McpClient, skill: Skill, path?: string) =>
    client.skills.read(skill, path).pipe(
      Effect.withSpan("McpSkills.read", {
        attributes: { "mcp.server": client.server, "mcp.skill": skill.uri, "mcp.skill.file": path ?? manifest }
      })
    )
)

/**
 * The skills whose name, or the URI of whose `SKILL.md`, is `reference`. Names are labels and two skills of one
 * server may share one: the caller tells them apart by URI.
 *
 * @since 1.0.0
 * @category utils
 */
export const find: (skills: ReadonlyArray<Skill>, reference: string) => ReadonlyArray<Skill> = Common.find

/**
 * The files of a skill other than its `SKILL.md`, relative to its root (`references/FORMS.md`); none for a
 * `"dynamic"` skill.
 *
 * @since 1.0.0
 * @category utils
 */
export const files: (skill: Skill) => ReadonlyArray<string> = Common.files

/**
 * One line per skill for a model: its name, its description, and its URI when another skill of the list has the
 * same name.
 *
 * @since 1.0.0
 * @category utils
 */
export const index: (skills: ReadonlyArray<Skill>) => ReadonlyArray<string> = Common.index
