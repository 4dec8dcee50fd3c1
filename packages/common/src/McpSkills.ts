/**
 * The skills of an MCP server (the Skills extension, `io.modelcontextprotocol/skills`) as data, without any Effect:
 * a skill's entry and a verified file, which skills a reference names, a skill's other files, and the index of
 * skills a model reads. Both Effect lines' `McpSkills` export these and add the requests.
 *
 * @since 0.1.0
 */

/**
 * The extension's identifier, as a server declares it in its capabilities.
 *
 * @since 0.1.0
 * @category constants
 */
export const extensionId = "io.modelcontextprotocol/skills"

/**
 * One file of a skill as its entry lists it: its resource URI, the SHA-256 digest of its bytes
 * (`sha256:<hex>`), and their length.
 *
 * @since 0.1.0
 * @category models
 */
export interface SkillResource {
  readonly uri: string
  readonly digest: string
  readonly size: number
}

/**
 * A skill's entry, as `skills/list` and `skills/get` give it: the URI of its `SKILL.md`, the frontmatter of that
 * file verbatim (`name` and `description` always), and every file of the skill, or `"dynamic"` for generated
 * content (whose files are not checked against a digest).
 *
 * @since 0.1.0
 * @category models
 */
export interface Skill {
  readonly uri: string
  readonly frontmatter: {
    readonly name: string
    readonly description: string
    readonly [key: string]: unknown
  }
  readonly resources: ReadonlyArray<SkillResource> | "dynamic"
}

/**
 * A skill file as read and verified: exactly the bytes the entry's digest covers, their text when the server
 * sent text (always for a `SKILL.md`), and for the skill's own `SKILL.md` its parsed frontmatter and the markdown
 * after it. `verified` is `false` only for a `"dynamic"` skill, whose size and digest are not published.
 *
 * @since 0.1.0
 * @category models
 */
export interface SkillFile {
  readonly uri: string
  readonly mimeType: string | undefined
  readonly bytes: Uint8Array
  readonly text: string | undefined
  readonly verified: boolean
  readonly frontmatter: Readonly<Record<string, unknown>> | undefined
  readonly body: string | undefined
}

/**
 * The name of a skill's own `SKILL.md`, the file `read` reads by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const manifest = "SKILL.md"

/**
 * The skills whose name, or the URI of whose `SKILL.md`, is `reference`. Names are labels and two skills of one
 * server may share one: the caller tells them apart by URI.
 *
 * @since 0.1.0
 * @category utils
 */
export const find = (skills: ReadonlyArray<Skill>, reference: string): ReadonlyArray<Skill> => {
  const byUri = skills.filter((skill) => skill.uri === reference)
  return byUri.length > 0 ? byUri : skills.filter((skill) => skill.frontmatter.name === reference)
}

/**
 * The files of a skill other than its `SKILL.md`, relative to its root (`references/FORMS.md`); none for a
 * `"dynamic"` skill.
 *
 * @since 0.1.0
 * @category utils
 */
export const files = (skill: Skill): ReadonlyArray<string> => {
  if (skill.resources === "dynamic") return []
  const root = skill.uri.slice(0, skill.uri.length - manifest.length)
  return skill.resources.flatMap((file) =>
    file.uri !== skill.uri && file.uri.startsWith(root) ? [file.uri.slice(root.length)] : []
  )
}

/**
 * One line per skill for a model: its name, its description, and its URI when another skill of the list has the
 * same name.
 *
 * @since 0.1.0
 * @category utils
 */
export const index = (skills: ReadonlyArray<Skill>): ReadonlyArray<string> =>
  skills.map((skill) => {
    const shared = skills.some((other) => other !== skill && other.frontmatter.name === skill.frontmatter.name)
    const name = shared ? `${skill.frontmatter.name} (${skill.uri})` : skill.frontmatter.name
    return `${name}: ${oneLine(skill.frontmatter.description)}`
  })

const oneLine = (text: string): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > 300 ? `${line.slice(0, 300)}…` : line
}

/**
 * The suffix of a server's skill tool: `<prefix>__load_skill`.
 *
 * @since 0.1.0
 * @category load_skill tool
 */
export const loadSuffix = "load_skill"

/**
 * The parameters of a server's skill tool: the skill (a name or a `SKILL.md` URI) and, optionally, a file of it.
 *
 * @since 0.1.0
 * @category load_skill tool
 */
export const loadParameters = {
  type: "object",
  properties: {
    skill: { type: "string", description: "The skill's name, as the index shows it, or the URI of its SKILL.md" },
    path: {
      type: "string",
      description:
        "A file of the skill, relative to its folder (e.g. references/FORMS.md); leave it out for the skill itself"
    }
  },
  required: ["skill"]
} as const

/**
 * The description of a server's skill tool.
 *
 * @since 0.1.0
 * @category load_skill tool
 */
export const loadDescription = (server: string): string =>
  `Loads a skill of the MCP server ${JSON.stringify(server)} (listed in the system text): its ` +
  "instructions (SKILL.md), checked against the server's listing; with path, one of the files the skill names."

/**
 * Why a skill file was refused, as the model reads it: only what did not match, never the file nor what it says.
 *
 * @since 0.1.0
 * @category load_skill tool
 */
export const refusal = (reason: "unlisted" | "size" | "digest" | "frontmatter"): string => refusals[reason]

const refusals = {
  unlisted: "the skill does not list such a file",
  size: "its size is not the one the server lists for it (verification failed)",
  digest: "its content is not the one the server lists for it (digest verification failed)",
  frontmatter: "its frontmatter differs from the one the server lists for the skill (verification failed)"
} as const

/**
 * What the model is told about the servers' skills (`listed` in configuration order, each server by its name and its
 * tools' prefix), followed by the lines of the listings that failed.
 *
 * @since 0.1.0
 * @category load_skill tool
 */
export const describe = (
  listed: ReadonlyArray<{ readonly server: string; readonly prefix: string; readonly skills: ReadonlyArray<Skill> }>,
  failures: ReadonlyArray<string> = []
): ReadonlyArray<string> => {
  const withSkills = listed.filter((entry) => entry.skills.length > 0)
  if (withSkills.length === 0) return failures
  const lines = [
    "Skills of MCP servers (instructions for a task, with files they may name): before following one, load it " +
    `with <server>__${loadSuffix}, and load a file it names the same way, with its path.`
  ]
  for (const entry of withSkills) {
    lines.push(`Skills of the MCP server ${JSON.stringify(entry.server)} (${entry.prefix}__${loadSuffix}):`)
    for (const line of index(entry.skills)) lines.push(`- ${line}`)
  }
  return lines.concat(failures)
}
