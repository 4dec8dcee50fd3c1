/**
 * The Skills extension of a connection (`McpClient.skills`) over the SDK's `SkillsClient`.
 *
 * @internal
 */
import type { Skill as SdkSkill, SkillFile } from "@modelcontextprotocol/client/ext/skills"
import { SkillsClient, SkillVerificationError } from "@modelcontextprotocol/client/ext/skills"
import type { Scrubber } from "@zett/agent"
import * as Tracing from "@zett/agent/Tracing"
import type * as McpClient from "@zett/mcp/McpClient"
import { McpRequestError, McpSkillVerificationError } from "@zett/mcp/McpError"
import type * as McpSkills from "@zett/mcp/McpSkills"
import * as Effect from "effect/Effect"
import * as Connection from "./connection.js"

/**
 * The Skills extension over the SDK's `SkillsClient`, which walks the pages of `skills/list` and checks each
 * file it reads against the entry (listed, size, digest, `SKILL.md` frontmatter). The entries and files handed on
 * are scrubbed; a file is verified against the entry as the server sent it, kept for each entry handed on. The
 * client declares nothing for it: the extension asks only the server to declare it.
 *
 * @internal
 */
export const make = (connection: Connection.Connection): McpClient.Skills => {
  const { client, scrubber, server } = connection
  const sdk = new SkillsClient(client, { skipInvalid: true })
  const sent = new WeakMap<McpSkills.Skill, SdkSkill>()
  const shown = (skill: SdkSkill): McpSkills.Skill => {
    const scrubbed = scrubber.scrubDeep(skill) as McpSkills.Skill
    sent.set(scrubbed, skill)
    return scrubbed
  }
  const requestOptions = (signal: AbortSignal) => ({ signal, timeout: Connection.sdkTimeoutDisabled })
  const undeclared = (method: string) =>
    new McpRequestError({
      server,
      method,
      reason: "Unsupported",
      description: "the server does not declare the Skills extension (io.modelcontextprotocol/skills)"
    })
  const traced = (method: string) =>
    Tracing.traced(
      method,
      () => ({ attributes: Connection.spanAttributes(connection, method), captureStackTrace: false })
    )

  const list = Effect.tryPromise({
    try: async (signal) => {
      // a server without the extension has no skills (the SDK's own answer, without its debug line)
      if (!sdk.supported) return { skills: [], invalid: [] }
      return sdk.list({}, requestOptions(signal))
    },
    catch: Connection.requestError(connection, "skills/list")
  }).pipe(
    Effect.tap(({ invalid }) =>
      Effect.forEach(invalid, (entry) =>
        Effect.logWarning(
          `MCP server ${server}: skill ${scrubber.scrub(entry.uri ?? `#${entry.index}`)} is skipped: ${
            scrubber.scrub(entry.reason)
          }`
        ).pipe(Effect.annotateLogs("mcp.server", server)), { discard: true })
    ),
    Effect.map(({ skills }) => skills.map(shown)),
    traced("skills/list")
  )

  const get = (uri: string) =>
    Effect.suspend(() =>
      sdk.supported
        ? Effect.tryPromise({
          try: async (signal) => shown((await sdk.get(uri, requestOptions(signal))).skill),
          catch: Connection.requestError(connection, "skills/get")
        })
        : Effect.fail(undeclared("skills/get"))
    ).pipe(traced("skills/get"))

  const read = (skill: McpSkills.Skill, path?: string | undefined) =>
    Effect.suspend(() =>
      sdk.supported
        ? Effect.tryPromise({
          try: async (signal) =>
            fileOf(await sdk.read(sent.get(skill) ?? (skill as SdkSkill), path, requestOptions(signal)), scrubber),
          catch: readError(connection)
        })
        : Effect.fail(undeclared("resources/read"))
    ).pipe(traced("resources/read"))

  return { list, get, read }
}

/** Why a skill's file could not be read: its check against the entry failed, the entry is none, or the request. */
const readError =
  (connection: Connection.Connection) => (cause: unknown): McpSkillVerificationError | McpRequestError =>
    cause instanceof SkillVerificationError
      ? new McpSkillVerificationError({
        server: connection.server,
        uri: connection.scrubber.scrub(cause.uri),
        reason: cause.reason,
        description: connection.scrubber.scrub(cause.message)
      })
      // an entry that is not one (`TypeError`) is refused before any request
      : cause instanceof TypeError
      ? new McpRequestError({
        server: connection.server,
        method: "resources/read",
        reason: "InvalidResponse",
        description: connection.scrubber.scrub(cause.message)
      })
      : Connection.requestError(connection, "resources/read")(cause)

/** A file read and verified, as handed on: scrubbed (the bytes of a text a secret was scrubbed from are the scrubbed text's). */
const fileOf = (file: SkillFile, scrubber: Scrubber.Scrubber): McpSkills.SkillFile => {
  const text = file.text === undefined ? undefined : scrubber.scrub(file.text)
  return {
    uri: scrubber.scrub(file.uri),
    mimeType: file.mimeType,
    bytes: text === file.text ? file.bytes : new TextEncoder().encode(text),
    text,
    verified: file.verified,
    frontmatter: file.frontmatter === undefined ? undefined : scrubber.scrubDeep(file.frontmatter),
    body: file.body === undefined ? undefined : scrubber.scrub(file.body)
  }
}
