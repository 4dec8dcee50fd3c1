/**
 * With `resources: "tools"` (per server, in mcp.json, or for every server) the model
 * gets `<server>__list_resources` and `<server>__read_resource`, and embedded resources and resource links in tool
 * results reach it in a form it can use. A scripted model records what it sees.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Agent, ScriptedModel } from "@zett/agent"
import type { Model } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import { systemOf, toolMessages } from "@zett/testing-core/FakeMcp"
import * as TempDir from "@zett/testing-core/TempDir"
import * as McpLayers from "@zett/testing/McpLayers"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { withMarker } from "./utils/faults.js"

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)

const agentLayer = (mcp: Layer.Layer<McpExtension.McpExtension, unknown>, steps: ReadonlyArray<ScriptedModel.Step>) =>
  Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
    Layer.provide(mcp),
    Layer.provide(ScriptedModel.layer(steps))
  )

const lastTool = (request: Model.ModelRequest) => toolMessages(request).at(-1)!

describe("resources as tools", () => {
  it.live(
    "server-everything over stdio: the model lists and reads resources, and reads embedded resources and links",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const server = McpServerConfig.stdio({
          name: "everything",
          command: process.execPath,
          args: [everything, "stdio"],
          env: { ZETT_TEST_MARKER: marker },
          resources: "tools"
        })
        const seen: Record<string, unknown> = {}
        const layer = agentLayer(McpLayers.layerNode({ servers: [server] }), [
          (request) => {
            seen.tools = request.tools.map((tool) => tool.name).filter((name) => name.includes("resource"))
            seen.readParameters = request.tools.find((tool) => tool.name === "everything__read_resource")?.parameters
            seen.system = systemOf(request)
            return { toolCalls: [{ name: "everything__list_resources" }] }
          },
          (request) => {
            seen.list = lastTool(request)
            return {
              toolCalls: [{ name: "everything__read_resource", arguments: { uri: "demo://resource/dynamic/blob/7" } }]
            }
          },
          (request) => {
            seen.read = lastTool(request)
            return {
              toolCalls: [
                { name: "everything__get-resource-reference", arguments: { resourceType: "Blob", resourceId: 5 } },
                { name: "everything__get-resource-links", arguments: { count: 1 } }
              ]
            }
          },
          (request) => {
            seen.embedded = toolMessages(request).at(-2)
            seen.links = toolMessages(request).at(-1)
            return { toolCalls: [{ name: "everything__read_resource", arguments: { uri: "demo://nowhere" } }] }
          },
          (request) => {
            seen.failed = lastTool(request)
            return { text: "done" }
          }
        ])
        const reply = yield* Agent.run("resources?").pipe(Effect.provide(layer))
        assert.strictEqual(reply.content, "done")

        assert.includeMembers(seen.tools as Array<string>, ["everything__list_resources", "everything__read_resource"])
        assert.deepStrictEqual((seen.readParameters as { required: Array<string> }).required, ["uri"])
        assert.include(
          seen.system as string,
          "Resources (documents and data) of MCP servers, and the resource links in their tool results, are listed with " +
            "<server>__list_resources and read with <server>__read_resource (for everything)."
        )

        const list = seen.list as {
          status: string
          content: { resources: Array<Record<string, unknown>>; resourceTemplates: Array<Record<string, unknown>> }
        }
        assert.strictEqual(list.status, "ok")
        assert.deepInclude(list.content.resources, {
          uri: "demo://resource/static/document/architecture.md",
          name: "architecture.md",
          description: "Static document file exposed from /docs: architecture.md",
          mimeType: "text/markdown"
        })
        assert.deepStrictEqual(list.content.resourceTemplates.map((t) => t.uriTemplate).sort(), [
          "demo://resource/dynamic/blob/{resourceId}",
          "demo://resource/dynamic/text/{resourceId}"
        ])

        // a text/plain blob reaches the model as text
        const read = seen.read as { status: string; content: { contents: Array<Record<string, unknown>> } }
        assert.strictEqual(read.status, "ok")
        assert.strictEqual(read.content.contents.length, 1)
        assert.strictEqual(read.content.contents[0]!.uri, "demo://resource/dynamic/blob/7")
        assert.strictEqual(read.content.contents[0]!.mimeType, "text/plain")
        assert.match(String(read.content.contents[0]!.text), /^Resource 7: This is a base64 blob created at /)
        assert.notProperty(read.content.contents[0]!, "blob")

        // an embedded resource in a tool result: its text/plain blob as text too
        const embedded = seen.embedded as { status: string; content: Array<Record<string, unknown>> }
        assert.strictEqual(embedded.status, "ok")
        const block = embedded.content.find((b) => b.type === "resource") as { resource: Record<string, unknown> }
        assert.strictEqual(block.resource.uri, "demo://resource/dynamic/blob/5")
        assert.match(String(block.resource.text), /^Resource 5: This is a base64 blob/)

        // a resource link names the URI the model can pass to read_resource
        const links = seen.links as { content: Array<Record<string, unknown>> }
        const link = links.content.find((b) => b.type === "resource_link")!
        assert.match(String(link.uri), /^demo:\/\/resource\/dynamic\/(text|blob)\/1$/)

        // an unknown resource is an ordinary tool failure the model reads
        const failed = seen.failed as { status: string; content: { error: { type: string; message: string } } }
        assert.strictEqual(failed.status, "TOOL_FAILED")
        assert.strictEqual(failed.content.error.type, "RequestFailed")
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )

  const notes = () => {
    const server = new SdkMcpServer({ name: "notes", version: "1.0.0" })
    server.registerResource("todo", "note:///todo", { mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/plain", text: "buy milk" }]
    }))
    server.registerTool("ping", { description: "ping" }, async () => ({ content: [{ type: "text", text: "pong" }] }))
    return server
  }
  const plain = () => {
    const server = new SdkMcpServer({ name: "plain", version: "1.0.0" })
    server.registerTool("ping", { description: "ping" }, async () => ({ content: [{ type: "text", text: "pong" }] }))
    return server
  }

  const toolsSeen = (mcp: Layer.Layer<McpExtension.McpExtension, unknown>) =>
    Effect.gen(function*() {
      let names: ReadonlyArray<string> = []
      let system = ""
      const layer = agentLayer(mcp, [(request) => {
        names = request.tools.map((tool) => tool.name)
        system = systemOf(request)
        return { text: "ok" }
      }])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      return { names, system }
    })

  it.live("off by default; the extension's resources option turns it on for every server", () =>
    Effect.gen(function*() {
      const factory = NodeMcpClientFactory.layerInMemory({ notes, plain })
      const servers = [
        McpServerConfig.http({ name: "notes", url: "http://127.0.0.1:1/unused" }),
        McpServerConfig.http({ name: "plain", url: "http://127.0.0.1:1/unused" })
      ]
      const off = yield* toolsSeen(
        McpLayers.layer({ servers }).pipe(Layer.provide(factory), Layer.provide(NodeContext.layer))
      )
      assert.deepStrictEqual(off.names, ["notes__ping", "plain__ping"])
      assert.notInclude(off.system, "list_resources")
      const on = yield* toolsSeen(
        McpLayers.layer({ servers, resources: "tools" }).pipe(Layer.provide(factory), Layer.provide(NodeContext.layer))
      )
      assert.deepStrictEqual(on.names, [
        "notes__ping",
        "notes__list_resources",
        "notes__read_resource",
        "plain__ping",
        "plain__list_resources",
        "plain__read_resource"
      ])
      assert.include(on.system, "(for notes, plain).")
    }))

  it.live("mcp.json's resources: \"tools\" turns it on for that server alone; another value is refused naming the entry", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make("zett-resources-")
      Fs.writeFileSync(
        Path.join(dir, "mcp.json"),
        JSON.stringify({
          mcpServers: {
            notes: { url: "http://127.0.0.1:1/notes", resources: "tools" },
            plain: { url: "http://127.0.0.1:1/plain" }
          }
        })
      )
      Fs.writeFileSync(
        Path.join(dir, "bad.json"),
        JSON.stringify({ mcpServers: { notes: { url: "http://127.0.0.1:1/notes", resources: "all" } } })
      )
      const factory = NodeMcpClientFactory.layerInMemory({ notes, plain })
      const mcp = (file: string) =>
        McpLayers.layer({ configPath: Path.join(dir, file) }).pipe(
          Layer.provide(factory),
          Layer.provide(NodeContext.layer)
        )
      const seen = yield* toolsSeen(mcp("mcp.json"))
      assert.deepStrictEqual(seen.names, [
        "notes__ping",
        "notes__list_resources",
        "notes__read_resource",
        "plain__ping"
      ])
      const error = yield* Effect.flip(toolsSeen(mcp("bad.json")))
      assert.strictEqual(
        (error as { message: string }).message,
        `${Path.join(dir, "bad.json")}: mcpServers.notes.resources: expected "tools", got a string`
      )
    }).pipe(Effect.scoped))

  it.live("read_resource through the agent: text of an in-process server, and a missing uri refused", () =>
    Effect.gen(function*() {
      const factory = NodeMcpClientFactory.layerInMemory({ notes })
      const servers = [McpServerConfig.http({ name: "notes", url: "http://127.0.0.1:1/unused", resources: "tools" })]
      const seen: Array<unknown> = []
      const layer = agentLayer(
        McpLayers.layer({ servers }).pipe(Layer.provide(factory), Layer.provide(NodeContext.layer)),
        [
          {
            toolCalls: [{ name: "notes__read_resource", arguments: { uri: "note:///todo" } }, {
              name: "notes__read_resource",
              arguments: {}
            }]
          },
          (request) => (toolMessages(request).forEach((m) => seen.push([m.status, m.content])), { text: "ok" })
        ]
      )
      yield* Agent.run("todo?").pipe(Effect.provide(layer))
      assert.deepStrictEqual(seen, [
        ["ok", { contents: [{ uri: "note:///todo", mimeType: "text/plain", text: "buy milk" }] }],
        ["TOOL_FAILED", { error: { type: "InvalidArguments", message: "notes__read_resource needs a uri (a string)" } }]
      ])
    }))
})
