/**
 * Server requests against server-everything over stdio, through the agent: its conditional tools appear once
 * elicitation, sampling and roots are declared, and its elicitation, sampling and roots tools work.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import type { Message, Model } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import type { McpElicitation } from "@zett/mcp"
import { toolMessages } from "@zett/testing-core/FakeAgent"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Crypto from "node:crypto"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { withMarker } from "./utils/faults.js"
import * as McpLayers from "./utils/mcpLayers.js"
import * as Processes from "./utils/processes.js"

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)

const server = (marker: string) =>
  McpServerConfig.stdio({
    name: "everything",
    command: process.execPath,
    args: [everything, "stdio"],
    env: { ZETT_TEST_MARKER: marker }
  })

const conditional = [
  "everything__get-roots-list",
  "everything__trigger-elicitation-request",
  "everything__trigger-sampling-request",
  "everything__trigger-url-elicitation"
]

const toolNames = (request: Model.ModelRequest) => request.tools.map((tool) => tool.name)

const lastText = (request: Model.ModelRequest) => {
  const content = toolMessages(request).at(-1)?.content
  return JSON.stringify(content)
}

describe("server-everything through the agent", { concurrent: false }, () => {
  it.live("without handlers its conditional tools are missing", () =>
    Effect.gen(function*() {
      const marker = Crypto.randomUUID()
      let names: ReadonlyArray<string> = []
      const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
        Layer.provide(McpLayers.layerNode({ servers: [server(marker)] })),
        Layer.provide(ScriptedModel.layer([(request) => (names = toolNames(request), { text: "done" })]))
      )
      yield* Agent.run("list").pipe(Effect.provide(layer))
      assert.include(names, "everything__echo")
      for (const name of conditional) assert.notInclude(names, name)
      assert.deepStrictEqual(withMarker(marker), [])
    }))

  it.live(
    "with elicitation, sampling and roots: the tools appear, and elicitation, sampling (through the agent's model) and roots work",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const asked: Array<McpElicitation.Request> = []
        const seen: Record<string, unknown> = {}
        const samplingPrompts: Array<ReadonlyArray<Message.Message>> = []
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(McpLayers.layerNode({
            servers: [server(marker)],
            elicitation: (request) => {
              asked.push(request)
              return Effect.succeed({ action: "accept", content: { name: "Ada Lovelace", check: true, integer: 7 } })
            },
            sampling: { maxTokens: 500, maxCallsPerRequest: 1 },
            roots: ["/srv/zett-project"]
          })),
          Layer.provide(ScriptedModel.layer([
            (request) => {
              seen.tools = toolNames(request).filter((name) => conditional.includes(name)).sort()
              return { toolCalls: [{ name: "everything__trigger-elicitation-request", arguments: {} }] }
            },
            (request) => {
              seen.elicitation = lastText(request)
              return {
                toolCalls: [{
                  name: "everything__trigger-sampling-request",
                  arguments: { prompt: "say hi", maxTokens: 100 }
                }]
              }
            },
            // the server's sampling request, run through this (the agent's) model during the tool call
            (request) => {
              samplingPrompts.push(request.messages)
              return { text: "hi from the agent's model" }
            },
            (request) => {
              seen.sampling = lastText(request)
              return {
                toolCalls: [{
                  name: "everything__trigger-sampling-request",
                  arguments: { prompt: "again", maxTokens: 100 }
                }]
              }
            },
            (request) => {
              seen.overLimit = lastText(request)
              return { toolCalls: [{ name: "everything__get-roots-list", arguments: {} }] }
            },
            (request) => {
              seen.roots = lastText(request)
              return { text: "done" }
            }
          ]))
        )
        const reply = yield* Agent.run("go").pipe(Effect.provide(layer))
        assert.strictEqual(reply.content, "done")
        assert.deepStrictEqual(seen.tools, [...conditional].sort())

        assert.strictEqual(asked.length, 1)
        assert.strictEqual(asked[0]!._tag, "Form")
        assert.strictEqual(asked[0]!.server, "everything")
        // what the server got back: the handler's content with the schema's defaults added
        assert.include(seen.elicitation as string, "Name: Ada Lovelace")
        assert.include(seen.elicitation as string, "Favorite Integer: 7")
        assert.include(seen.elicitation as string, "It was a dark and stormy night.")
        assert.include(seen.elicitation as string, "Favorite Number: 3.14")

        assert.deepStrictEqual(samplingPrompts[0]!.map((m) => [m._tag, m.content]), [
          ["SystemMessage", "You are a helpful test server."],
          ["UserMessage", "Resource trigger-sampling-request context: say hi"]
        ])
        assert.include(seen.sampling as string, "hi from the agent's model")
        // the second sampling request of the same agent request is over maxCallsPerRequest: 1
        assert.include(seen.overLimit as string, "sampling.maxCallsPerRequest")
        assert.include(seen.roots as string, "file:///srv/zett-project")
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )

  it.effect(
    "over Streamable HTTP: elicitation and sampling answered on the call's response stream",
    () =>
      Effect.gen(function*() {
        const port = yield* Processes.freePort
        yield* Processes.spawnScoped({
          command: process.execPath,
          args: [everything, "streamableHttp"],
          env: { PORT: String(port) },
          ready: /listening on port/
        }).pipe(Effect.orDie)
        const asked: Array<McpElicitation.Request> = []
        const seen: Record<string, unknown> = {}
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(McpLayers.layerNode({
            servers: [McpServerConfig.http({ name: "everything", url: `http://127.0.0.1:${port}/mcp` })],
            elicitation: (request) => {
              asked.push(request)
              return Effect.succeed({ action: "accept", content: { name: "Grace Hopper" } })
            },
            sampling: { maxTokens: 500, maxCallsPerRequest: 1 }
          })),
          Layer.provide(ScriptedModel.layer([
            (request) => {
              seen.tools = toolNames(request).filter((name) => conditional.includes(name)).sort()
              return { toolCalls: [{ name: "everything__trigger-elicitation-request", arguments: {} }] }
            },
            (request) => {
              seen.elicitation = lastText(request)
              return {
                toolCalls: [{
                  name: "everything__trigger-sampling-request",
                  arguments: { prompt: "over http", maxTokens: 100 }
                }]
              }
            },
            () => ({ text: "sampled over http" }),
            (request) => {
              seen.sampling = lastText(request)
              return { text: "done" }
            }
          ]))
        )
        const reply = yield* Agent.run("go").pipe(Effect.provide(layer))
        assert.strictEqual(reply.content, "done")
        // no roots declared: get-roots-list stays hidden
        assert.deepStrictEqual(seen.tools, conditional.filter((name) => name !== "everything__get-roots-list").sort())
        assert.strictEqual(asked.length, 1)
        assert.include(seen.elicitation as string, "Name: Grace Hopper")
        assert.include(seen.elicitation as string, "Favorite Integer: 42")
        assert.include(seen.sampling as string, "sampled over http")
      })
  )
})
