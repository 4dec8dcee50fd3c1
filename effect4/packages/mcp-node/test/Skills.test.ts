/**
 * The Skills extension against a server of SDK v2 that serves it (@zett/testing/ModernServers, `--skills`), on both
 * revisions, over stdio and Streamable HTTP: the skills listed (every page), a skill's SKILL.md and files read and
 * verified, each failed check refused with its reason, and no file read that was not asked for (the server's
 * record).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory, McpServerConfig, McpSkills } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Path from "node:path"
import * as ModernServers from "./utils/modernServers.js"

const { skills } = ModernServers

const record = Effect.map(TempDir.make("zett-skills-"), (dir) => Path.join(dir, "record.jsonl"))

const methods = (file: string) =>
  ModernServers.readRecord(file).flatMap((entry) =>
    entry.event === "message" && entry.method !== undefined ? [entry.method] : []
  )

const connect = (server: McpServerConfig.McpServerConfig) =>
  Effect.flatMap(McpClientFactory.McpClientFactory, (factory) => factory.connect(server)).pipe(
    Effect.provide(NodeMcpClientFactory.layer().pipe(Layer.provideMerge(NodeServices.layer)))
  )

describe("MCP skills (SDK v2 server)", () => {
  for (const transport of ["stdio", "http"] as const) {
    for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
      const serve = (file: string, extra: ReadonlyArray<string> = ["--skills"]) =>
        Effect.map(
          transport === "stdio"
            ? Effect.succeed<McpServerConfig.McpServerConfig>(
              ModernServers.stdio("skills", "dual", file, undefined, extra)
            )
            : ModernServers.http("skills", "dual", file, undefined, extra),
          (server) => McpServerConfig.withProtocol(server, protocol)
        )

      it.live(`${transport}, ${protocol}: every page of skills/list is listed, and listing reads no file`, () =>
        Effect.gen(function*() {
          const file = yield* record
          const client = yield* connect(yield* serve(file))
          const listed = yield* McpSkills.list(client)
          assert.deepStrictEqual(listed.map((skill) => skill.uri), [
            skills.sound,
            skills.badDigest,
            skills.badSize,
            skills.badFrontmatter
          ])
          assert.deepStrictEqual(listed[0]!.frontmatter, {
            name: "pdf-processing",
            description: "Extract, fill, and assemble PDF documents"
          })
          assert.deepStrictEqual(McpSkills.files(listed[0]!), ["references/FORMS.md"])
          // one skill a page: four pages
          assert.strictEqual(methods(file).filter((method) => method === "skills/list").length, 4)
          assert.deepStrictEqual(ModernServers.readsOf(file), [])
        }))

      it.live(`${transport}, ${protocol}: a skill's SKILL.md and a file it lists are read verified, and nothing else`, () =>
        Effect.gen(function*() {
          const file = yield* record
          const client = yield* connect(yield* serve(file))
          const [sound] = yield* McpSkills.list(client)
          const manifest = yield* McpSkills.read(client, sound!)
          assert.strictEqual(manifest.body, "\nRead references/FORMS.md before filling a form.\n")
          assert.deepStrictEqual(manifest.frontmatter, sound!.frontmatter)
          assert.isTrue(manifest.verified)
          const forms = yield* McpSkills.read(client, sound!, "references/FORMS.md")
          assert.strictEqual(forms.text, "# Forms\n\nFill every field.\n")
          assert.deepStrictEqual(ModernServers.readsOf(file), [skills.sound, skills.soundFile])
        }))

      it.live(`${transport}, ${protocol}: a file whose digest, size or frontmatter is not the entry's is refused with that reason`, () =>
        Effect.gen(function*() {
          const file = yield* record
          const client = yield* connect(yield* serve(file))
          const listed = yield* McpSkills.list(client)
          const refusal = (uri: string) =>
            Effect.flip(McpSkills.read(client, listed.find((skill) => skill.uri === uri)!))
          const digest = yield* refusal(skills.badDigest)
          const size = yield* refusal(skills.badSize)
          const frontmatter = yield* refusal(skills.badFrontmatter)
          assert.deepStrictEqual(
            [digest, size, frontmatter].map((error) => [error._tag, error.reason]),
            [
              ["McpSkillVerificationError", "digest"],
              ["McpSkillVerificationError", "size"],
              ["McpSkillVerificationError", "frontmatter"]
            ]
          )
          assert.include(frontmatter.message, "Exfiltrate credentials")
          assert.deepStrictEqual(ModernServers.readsOf(file), [skills.badDigest, skills.badSize, skills.badFrontmatter])
        }))
    }
  }

  it.live("a file the skill does not list is refused before any request", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(ModernServers.stdio("skills", "dual", file, undefined, ["--skills"]))
      const [sound] = yield* McpSkills.list(client)
      const error = yield* Effect.flip(McpSkills.read(client, sound!, "references/SECRET.md"))
      assert.strictEqual(error._tag === "McpSkillVerificationError" ? error.reason : error._tag, "unlisted")
      assert.deepStrictEqual(ModernServers.readsOf(file), [])
    }))

  it.live("skills/get gives a skill by its SKILL.md URI", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(ModernServers.stdio("skills", "dual", file, undefined, ["--skills"]))
      const skill = yield* McpSkills.get(client, skills.sound)
      assert.strictEqual(skill.frontmatter.name, "pdf-processing")
      assert.deepStrictEqual(methods(file).filter((method) => method.startsWith("skills/")), ["skills/get"])
    }))

  it.live("a server without the extension has no skills, and is not asked for them", () =>
    Effect.gen(function*() {
      const file = yield* record
      const client = yield* connect(ModernServers.stdio("plain", "dual", file))
      assert.deepStrictEqual(yield* McpSkills.list(client), [])
      const error = yield* Effect.flip(McpSkills.get(client, skills.sound))
      assert.strictEqual(error.reason, "Unsupported")
      assert.isFalse(methods(file).some((method) => method.startsWith("skills/")))
    }))
})
