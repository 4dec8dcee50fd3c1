/**
 * Skills in the agent: off unless a server's definition (or its mcp.json entry) says `skills: true`; then the
 * model sees the server's skills (name and description) in the system text and loads one with
 * `<server>__load_skill`: the verified SKILL.md, or a file it names. A file whose digest, size or frontmatter is
 * not the server's listing reaches the model as a tool error, never as content. What the server read is taken
 * from its record. The core's own helpers (finding a skill, its files, the index) are checked on plain entries in
 * packages/mcp/test/Skills.test.ts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Agent, type Message } from "@zett/agent"
import { McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import { systemOf, toolMessages } from "@zett/testing-core/FakeAgent"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as Handled from "./utils/handled.js"
import { agentWith } from "./utils/mcpLayers.js"
import * as ModernServers from "./utils/modernServers.js"

const { skills } = ModernServers

const record = Effect.map(TempDir.make("zett-skills-"), (dir) => ({ dir, file: Path.join(dir, "record.jsonl") }))

const skillsServer = (file: string, options: { readonly skills?: boolean } = {}) => {
  const server = ModernServers.stdio("shop", "dual", file, undefined, ["--skills"])
  return options.skills === undefined
    ? server
    : new McpServerConfig.McpStdioServer({ ...server, skills: options.skills })
}

const listed = (file: string) => ModernServers.readRecord(file).filter((entry) => entry.method === "skills/list").length

const lastTool = (request: { messages: ReadonlyArray<Message.Message> }) => toolMessages(request as never).at(-1)!

describe("skills in the agent", () => {
  it.live("off by default: no index in the system text, no load tool, and the server is not asked for its skills", () =>
    Effect.gen(function*() {
      const { file } = yield* record
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [skillsServer(file)] }, [
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
      assert.strictEqual(listed(file), 0)
    }))

  it.live("skills: true: the model sees the index, and loads a skill's verified SKILL.md then a file it names; nothing is read before", () =>
    Effect.gen(function*() {
      const { file } = yield* record
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ servers: [skillsServer(file, { skills: true })] }, [
        (request) => {
          seen.system = systemOf(request)
          seen.tools = request.tools.map((tool) => tool.name)
          seen.readsBefore = ModernServers.readsOf(file)
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
      assert.deepStrictEqual(ModernServers.readsOf(file), [skills.sound, skills.soundFile])
    }))

  it.live("a skill whose digest, size or frontmatter is not the listing's reaches the model as a tool error, never its content", () =>
    Effect.gen(function*() {
      const { file } = yield* record
      const seen: Array<Message.ToolMessage> = []
      const { layer } = agentWith({ servers: [skillsServer(file, { skills: true })] }, [
        {
          toolCalls: ["bad-digest", "bad-size", "bad-frontmatter"].map((skill) => ({
            name: "shop__load_skill",
            arguments: { skill }
          }))
        },
        (request) => {
          for (const message of toolMessages(request as never)) seen.push(message)
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
      assert.deepStrictEqual(ModernServers.readsOf(file), [skills.badDigest, skills.badSize, skills.badFrontmatter])
    }))

  it.live("a file the skill does not list, or a skill the server does not have, is refused without a read", () =>
    Effect.gen(function*() {
      const { file } = yield* record
      const seen: Array<Message.ToolMessage> = []
      const { layer } = agentWith({ servers: [skillsServer(file, { skills: true })] }, [
        {
          toolCalls: [
            { name: "shop__load_skill", arguments: { skill: "pdf-processing", path: "../../etc/passwd" } },
            { name: "shop__load_skill", arguments: { skill: "nope" } }
          ]
        },
        (request) => {
          for (const message of toolMessages(request as never)) seen.push(message)
          return { text: "done" }
        }
      ])
      yield* Agent.run("go").pipe(Effect.provide(layer))
      const errors = seen.map((message) => (message.content as { error: { message: string } }).error.message)
      assert.include(errors[0]!, "was refused: the skill does not list such a file")
      assert.include(errors[1]!, `the MCP server "shop" has no skill "nope"`)
      assert.deepStrictEqual(ModernServers.readsOf(file), [])
    }))

  it.live("mcp.json's skills: true turns them on for that server; another value is refused naming the file and entry", () =>
    Effect.gen(function*() {
      const { dir, file } = yield* record
      const command = (name: string) => ({
        command: process.execPath,
        args: [ModernServers.script, `--name=${name}`, "--skills", `--record=${file}`]
      })
      Fs.writeFileSync(
        Path.join(dir, "mcp.json"),
        JSON.stringify({ mcpServers: { shop: { ...command("shop"), skills: true }, plain: command("plain") } })
      )
      Fs.writeFileSync(
        Path.join(dir, "bad.json"),
        JSON.stringify({ mcpServers: { shop: { ...command("shop"), skills: "yes" } } })
      )
      const seen: Record<string, unknown> = {}
      const { layer } = agentWith({ configPath: Path.join(dir, "mcp.json") }, [
        (request) => {
          seen.system = systemOf(request)
          seen.tools = request.tools.map((tool) => tool.name).filter((name) => name.endsWith("__load_skill"))
          return { text: "done" }
        }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      assert.deepStrictEqual(seen.tools, ["shop__load_skill"])
      assert.include(seen.system as string, `Skills of the MCP server "shop"`)
      assert.notInclude(seen.system as string, `Skills of the MCP server "plain"`)
      const bad = agentWith({ configPath: Path.join(dir, "bad.json") }, [{ text: "done" }])
      const error = yield* Effect.flip(Agent.run("hi").pipe(Effect.provide(bad.layer)))
      assert.strictEqual(
        (error as { message: string }).message,
        `${Path.join(dir, "bad.json")}: mcpServers.shop.skills: expected true or false, got a string`
      )
    }))
})

describe("skills in McpToolkit", () => {
  it.live("skills: true adds the index to the system text and shop__load_skill to the toolkit; a refused file is a failure result", () =>
    Effect.gen(function*() {
      const { file } = yield* record
      const layer = Layer.mergeAll(
        McpServers.layer([skillsServer(file, { skills: true })]).pipe(Layer.orDie),
        NodeMcpClientFactory.layer().pipe(Layer.provide(NodeServices.layer)),
        McpToolCache.layerMemory({ ttl: "5 minutes" })
      )
      const mcp = yield* McpToolkit.make().pipe(Effect.provide(layer))
      assert.include(
        mcp.system,
        `Skills of the MCP server "shop" (shop__load_skill):\n- pdf-processing: Extract, fill, and assemble PDF documents`
      )
      assert.include(Object.keys(mcp.toolkit.tools), "shop__load_skill")
      assert.deepStrictEqual(ModernServers.readsOf(file), [])
      const loaded = yield* Handled.last(mcp.toolkit.handle("shop__load_skill", { skill: "pdf-processing" }))
      assert.strictEqual(
        (loaded.result as { instructions: string }).instructions,
        "\nRead references/FORMS.md before filling a form.\n"
      )
      const refused = yield* Handled.last(mcp.toolkit.handle("shop__load_skill", { skill: "bad-digest" }))
      assert.strictEqual((refused.result as McpToolkit.McpToolFailure).reason, "ToolFailed")
      assert.include((refused.result as McpToolkit.McpToolFailure).message, "digest verification failed")
      assert.notInclude(JSON.stringify(refused.encodedResult), "Evil body")
    }))
})
