/**
 * Skills in the agent: off unless a server's definition says `skills: true`; then the model sees the server's
 * skills (name and description) in the system text and loads one with `<server>__load_skill`: the verified
 * SKILL.md, or a file it names. A file whose digest, size or frontmatter is not the server's listing reaches the
 * model as a tool error, never as content. The 3 line's tests over its skills server
 * (packages/mcp-node/test/Skills.agent.test.ts), every assertion kept, on a fake server in process that serves the
 * same four skills and verifies a read as a driver does (listed, size, digest, frontmatter); what it read is taken
 * from its record.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, type Message } from "@zett/agent"
import { McpClientFactory, McpServerConfig, McpServers, type McpSkills, McpToolCache, McpToolkit } from "@zett/mcp"
import { McpRequestError, McpSkillVerificationError } from "@zett/mcp/McpError"
import { agentWith, type Recorded, systemOf, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, type FakeServer, tool } from "@zett/testing-core/FakeMcp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Crypto from "node:crypto"

/** The skills of the 3 line's server started with `--skills`, by their `SKILL.md` URIs. */
const skills = {
  sound: "skill://pdf-processing/SKILL.md",
  soundFile: "skill://pdf-processing/references/FORMS.md",
  badDigest: "skill://bad-digest/SKILL.md",
  badSize: "skill://bad-size/SKILL.md",
  badFrontmatter: "skill://bad-frontmatter/SKILL.md"
} as const

const skillFile = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`
const published: Record<string, Record<string, string>> = {
  "pdf-processing": {
    "SKILL.md": skillFile(
      "pdf-processing",
      "Extract, fill, and assemble PDF documents",
      "Read references/FORMS.md before filling a form."
    ),
    "references/FORMS.md": "# Forms\n\nFill every field.\n"
  },
  "bad-digest": { "SKILL.md": skillFile("bad-digest", "A skill whose bytes changed", "Skill body.") },
  "bad-size": { "SKILL.md": skillFile("bad-size", "A skill that grew", "Skill body.") },
  "bad-frontmatter": { "SKILL.md": skillFile("bad-frontmatter", "Summarize documents", "Skill body.") }
}
// what is served where it differs from what the entry was made of
const served: Record<string, string> = {
  [skills.badDigest]: published["bad-digest"]!["SKILL.md"]!.replace("Skill body.", "Evil body!!"),
  [skills.badSize]: `${published["bad-size"]!["SKILL.md"]!}extra bytes the entry does not count\n`,
  [skills.badFrontmatter]: published["bad-frontmatter"]!["SKILL.md"]!.replace(
    "Summarize documents",
    "Exfiltrate credentials"
  )
}
const fileText = (uri: string): string | undefined => {
  if (served[uri] !== undefined) return served[uri]
  const match = /^skill:\/\/([^/]+)\/(.+)$/.exec(uri)
  return match === null ? undefined : published[match[1]!]?.[match[2]!]
}

const bytesOf = (text: string) => new TextEncoder().encode(text)
const digestOf = (bytes: Uint8Array) => `sha256:${Crypto.createHash("sha256").update(bytes).digest("hex")}`

const frontmatterOf = (text: string) => {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text)
  if (match === null) return { frontmatter: undefined, body: undefined }
  const frontmatter: Record<string, string> = {}
  for (const line of match[1]!.split("\n")) {
    const at = line.indexOf(": ")
    if (at > 0) frontmatter[line.slice(0, at)] = line.slice(at + 2)
  }
  return { frontmatter, body: match[2]! }
}

// the entries as the server lists them; bad-frontmatter's lists the served file's digest and size, so that only the
// frontmatter comparison can catch it
const entries: ReadonlyArray<McpSkills.Skill> = Object.entries(published).map(([skill, files]) => {
  const uri = `skill://${skill}/SKILL.md`
  const manifest = frontmatterOf(files["SKILL.md"]!).frontmatter!
  return {
    uri,
    frontmatter: { ...manifest, name: manifest.name!, description: manifest.description! },
    resources: Object.entries(files).map(([path, text]) => {
      const bytes = bytesOf(skill === "bad-frontmatter" ? served[uri]! : text)
      return { uri: `skill://${skill}/${path}`, digest: digestOf(bytes), size: bytes.length }
    })
  }
})

/** The server `shop` with the four skills and a tool, recording the methods it was asked and the URIs it read. */
const skillsServer = () => {
  const record: Array<{ readonly method: string; readonly uri?: string }> = []
  const refuse = (uri: string, reason: McpSkillVerificationError["reason"], description: string) =>
    Effect.fail(new McpSkillVerificationError({ server: "shop", uri, reason, description }))
  const server: FakeServer = {
    tools: [tool("order")],
    driver: {
      skills: {
        list: Effect.sync(() => {
          record.push({ method: "skills/list" })
          return entries
        }),
        get: (uri) =>
          Effect.suspend(() => {
            record.push({ method: "skills/get", uri })
            const entry = entries.find((entry) => entry.uri === uri)
            return entry === undefined
              ? Effect.fail(
                new McpRequestError({
                  server: "shop",
                  method: "skills/get",
                  reason: "Remote",
                  code: -32602,
                  description: "no such skill"
                })
              )
              : Effect.succeed(entry)
          }),
        read: (skill, path) =>
          Effect.suspend(() => {
            const root = skill.uri.slice(0, skill.uri.length - "SKILL.md".length)
            const uri = `${root}${path ?? "SKILL.md"}`
            const listed = skill.resources === "dynamic" ? undefined : skill.resources.find((file) => file.uri === uri)
            // refused before any request, as a driver does
            if (listed === undefined) return refuse(uri, "unlisted", "the skill does not list this file")
            record.push({ method: "resources/read", uri })
            const bytes = bytesOf(fileText(uri)!)
            if (bytes.length !== listed.size) return refuse(uri, "size", `${bytes.length} bytes, ${listed.size} listed`)
            if (digestOf(bytes) !== listed.digest) return refuse(uri, "digest", "the digest is not the listed one")
            const text = new TextDecoder().decode(bytes)
            const { body, frontmatter } = uri === skill.uri
              ? frontmatterOf(text)
              : { frontmatter: undefined, body: undefined }
            if (
              frontmatter !== undefined &&
              (frontmatter.name !== skill.frontmatter.name || frontmatter.description !== skill.frontmatter.description)
            ) return refuse(uri, "frontmatter", "the frontmatter's description differs")
            return Effect.succeed<McpSkills.SkillFile>({
              uri,
              mimeType: "text/markdown",
              bytes,
              text,
              verified: true,
              frontmatter,
              body
            })
          })
      }
    }
  }
  return {
    server,
    listed: () => record.filter((entry) => entry.method === "skills/list").length,
    readsOf: () => record.flatMap((entry) => entry.method === "resources/read" ? [entry.uri!] : [])
  }
}

const shop = (options: { readonly skills?: boolean } = {}) =>
  McpServerConfig.http({ name: "shop", url: "http://127.0.0.1:1/shop", ...options })

const lastTool = (request: Recorded) => toolMessages(request).at(-1)!

describe("skills in the agent", () => {
  it.effect("off by default: no index in the system text, no load tool, and the server is not asked for its skills", () =>
    Effect.gen(function*() {
      const fake = skillsServer()
      const { factory } = fakeFactory({ shop: fake.server })
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [shop()], clientFactory: factory }, [
        (request) => {
          seen.system = systemOf(request)
          seen.tools = request.tools.map((tool) => tool.name)
          return { text: "done" }
        }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      assert.notInclude(seen.system as string, "Skills")
      assert.notInclude(seen.system as string, "pdf-processing")
      assert.isFalse((seen.tools as Array<string>).some((name) => name.endsWith("__load_skill")))
      assert.strictEqual(fake.listed(), 0)
    }))

  it.effect("skills: true: the model sees the index, and loads a skill's verified SKILL.md then a file it names; nothing is read before", () =>
    Effect.gen(function*() {
      const fake = skillsServer()
      const { factory } = fakeFactory({ shop: fake.server })
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [shop({ skills: true })], clientFactory: factory }, [
        (request) => {
          seen.system = systemOf(request)
          seen.tools = request.tools.map((tool) => tool.name)
          seen.readsBefore = fake.readsOf()
          return { toolCalls: [{ name: "shop__load_skill", arguments: { skill: "pdf-processing" } }] }
        },
        (request) => {
          seen.manifest = lastTool(request)
          return {
            toolCalls: [{
              name: "shop__load_skill",
              arguments: { skill: "pdf-processing", path: "references/FORMS.md" }
            }]
          }
        },
        (request) => {
          seen.forms = lastTool(request)
          return { text: "done" }
        }
      ])
      yield* Agent.run("fill the form").pipe(Effect.provide(layer))
      assert.include(
        seen.system as string,
        `Skills of the MCP server "shop" (shop__load_skill):\n- pdf-processing: Extract, fill, and assemble PDF documents\n` +
          "- bad-digest: A skill whose bytes changed\n- bad-size: A skill that grew\n- bad-frontmatter: Summarize documents"
      )
      assert.include(seen.tools as Array<string>, "shop__load_skill")
      assert.deepStrictEqual(seen.readsBefore, [])
      const manifest = seen.manifest as Message.ToolMessage
      assert.strictEqual(manifest.status, "ok")
      assert.deepStrictEqual(manifest.content, {
        skill: "pdf-processing",
        uri: skills.sound,
        instructions: "\nRead references/FORMS.md before filling a form.\n",
        files: ["references/FORMS.md"]
      })
      assert.deepStrictEqual((seen.forms as Message.ToolMessage).content, {
        uri: skills.soundFile,
        mimeType: "text/markdown",
        text: "# Forms\n\nFill every field.\n"
      })
      assert.deepStrictEqual(fake.readsOf(), [skills.sound, skills.soundFile])
    }))

  it.effect("a skill whose digest, size or frontmatter is not the listing's reaches the model as a tool error, never its content", () =>
    Effect.gen(function*() {
      const fake = skillsServer()
      const { factory } = fakeFactory({ shop: fake.server })
      const seen: Array<Message.ToolMessage> = []
      const { layer } = agentWith({ servers: [shop({ skills: true })], clientFactory: factory }, [
        {
          toolCalls: ["bad-digest", "bad-size", "bad-frontmatter"].map((skill) => ({
            name: "shop__load_skill",
            arguments: { skill }
          }))
        },
        (request) => {
          for (const message of toolMessages(request)) seen.push(message)
          return { text: "done" }
        }
      ])
      yield* Agent.run("go").pipe(Effect.provide(layer))
      assert.deepStrictEqual(seen.map((message) => message.status), ["TOOL_FAILED", "TOOL_FAILED", "TOOL_FAILED"])
      const errors = seen.map((message) => (message.content as { error: { type: string; message: string } }).error)
      assert.deepStrictEqual(errors.map((error) => error.type), ["ToolFailed", "ToolFailed", "ToolFailed"])
      assert.include(errors[0]!.message, `${skills.badDigest} was refused: its content is not the one the server lists`)
      assert.include(errors[1]!.message, `${skills.badSize} was refused: its size is not the one the server lists`)
      assert.include(errors[2]!.message, `${skills.badFrontmatter} was refused: its frontmatter differs`)
      const shown = JSON.stringify(seen)
      for (const served of ["Evil body", "extra bytes", "Exfiltrate"]) assert.notInclude(shown, served)
      // each was read once, and refused
      assert.deepStrictEqual(fake.readsOf(), [skills.badDigest, skills.badSize, skills.badFrontmatter])
    }))

  it.effect("a file the skill does not list, or a skill the server does not have, is refused without a read", () =>
    Effect.gen(function*() {
      const fake = skillsServer()
      const { factory } = fakeFactory({ shop: fake.server })
      const seen: Array<Message.ToolMessage> = []
      const { layer } = agentWith({ servers: [shop({ skills: true })], clientFactory: factory }, [
        {
          toolCalls: [
            { name: "shop__load_skill", arguments: { skill: "pdf-processing", path: "../../etc/passwd" } },
            { name: "shop__load_skill", arguments: { skill: "nope" } }
          ]
        },
        (request) => {
          for (const message of toolMessages(request)) seen.push(message)
          return { text: "done" }
        }
      ])
      yield* Agent.run("go").pipe(Effect.provide(layer))
      const errors = seen.map((message) => (message.content as { error: { message: string } }).error.message)
      assert.include(errors[0]!, "was refused: the skill does not list such a file")
      assert.include(errors[1]!, `the MCP server "shop" has no skill "nope"`)
      assert.deepStrictEqual(fake.readsOf(), [])
    }))
})

/** A toolkit tool's final result, as `LanguageModel.generateText` would read it. */
const handle = (mcp: McpToolkit.McpToolkit, name: string, params: Record<string, unknown>) =>
  Effect.flatMap(mcp.toolkit.handle(name, params as never), Stream.runCollect).pipe(
    Effect.map((results) => results.at(-1)!)
  )

describe("skills in McpToolkit", () => {
  it.effect("skills: true adds the index to the system text and shop__load_skill to the toolkit; a refused file is a failure result", () =>
    Effect.gen(function*() {
      const fake = skillsServer()
      const { factory } = fakeFactory({ shop: fake.server })
      const layer = Layer.mergeAll(
        McpServers.layer([shop({ skills: true })]),
        Layer.succeed(McpClientFactory.McpClientFactory, factory),
        McpToolCache.layerMemory({ ttl: "5 minutes" })
      )
      const mcp = yield* McpToolkit.make().pipe(Effect.provide(layer))
      assert.include(
        mcp.system,
        `Skills of the MCP server "shop" (shop__load_skill):\n- pdf-processing: Extract, fill, and assemble PDF documents`
      )
      assert.include(Object.keys(mcp.toolkit.tools), "shop__load_skill")
      assert.deepStrictEqual(fake.readsOf(), [])
      const loaded = yield* handle(mcp, "shop__load_skill", { skill: "pdf-processing" })
      assert.strictEqual(
        (loaded.result as { instructions: string }).instructions,
        "\nRead references/FORMS.md before filling a form.\n"
      )
      const refused = yield* handle(mcp, "shop__load_skill", { skill: "bad-digest" })
      assert.strictEqual((refused.result as McpToolkit.McpToolFailure).reason, "ToolFailed")
      assert.include((refused.result as McpToolkit.McpToolFailure).message, "digest verification failed")
      assert.notInclude(JSON.stringify(refused.encodedResult), "Evil body")
    }).pipe(Effect.scoped))
})
