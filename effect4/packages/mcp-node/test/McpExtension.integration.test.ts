/**
 * The extension end to end against real servers: SDK servers in this process, and servers from npm started
 * as stdio child processes (with `node`, never npx). Processes are found by a marker in their environment.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import { systemOf, toolMessages } from "@zett/testing-core/FakeAgent"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Crypto from "node:crypto"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { z } from "zod"
import { withMarker } from "./utils/faults.js"
import * as McpLayers from "./utils/mcpLayers.js"

const require = createRequire(import.meta.url)
const entry = (name: string) => Path.join(Path.dirname(require.resolve(`${name}/package.json`)), "dist", "index.js")

const stdio = (name: string, pkg: string, marker: string, args: ReadonlyArray<string> = []) =>
  McpServerConfig.stdio({
    name,
    command: process.execPath,
    args: [entry(pkg), ...args],
    env: { ZETT_TEST_MARKER: marker }
  })

const agentLayer = (mcp: Layer.Layer<McpExtension.McpExtension, unknown>, steps: ReadonlyArray<ScriptedModel.Step>) =>
  Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
    Layer.provide(mcp),
    Layer.provide(ScriptedModel.layer(steps))
  )

describe("McpExtension with real servers", { concurrent: false }, () => {
  it.live(
    "with a warm cache no process starts until a tool is called, and then only that server's (D4)",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const servers = [
          stdio("everything", "@modelcontextprotocol/server-everything", marker, ["stdio"]),
          stdio("memory", "@modelcontextprotocol/server-memory", marker)
        ]
        const seen: Record<string, number> = {}
        const layer = agentLayer(McpLayers.layerNode({ servers }), [
          () => (seen.coldAtModel = withMarker(marker).length, { text: "cold" }),
          () => (seen.warmAtModel = withMarker(marker).length,
            { toolCalls: [{ name: "memory__read_graph", arguments: {} }] }),
          (request) => {
            seen.warmAfterCall = withMarker(marker).length
            seen.memoryAfterCall = withMarker(marker).filter((p) => p.command.includes("server-memory")).length
            return { text: JSON.stringify(toolMessages(request).at(-1)?.status) }
          }
        ])
        yield* Effect.gen(function*() {
          const agent = yield* Agent.Agent
          yield* agent.run("discover")
          assert.strictEqual(withMarker(marker).length, 0)
          const reply = yield* agent.run("use memory")
          assert.strictEqual(reply.content, "\"ok\"")
        }).pipe(Effect.provide(layer))
        assert.deepStrictEqual(seen, { coldAtModel: 2, warmAtModel: 0, warmAfterCall: 1, memoryAfterCall: 1 })
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )

  it.live(
    "a real stdio server: structured content, image as JSON data, isError, an unavailable server named (D1) (D5, E7)",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const servers = [
          stdio("everything", "@modelcontextprotocol/server-everything", marker, ["stdio"]),
          McpServerConfig.stdio({
            name: "broken",
            command: Path.join("/nonexistent", marker),
            env: { ZETT_TEST_MARKER: marker }
          })
        ]
        const requests: Array<Parameters<Extract<ScriptedModel.Step, Function>>[0]> = []
        const layer = agentLayer(McpLayers.layerNode({ servers }), [
          (r) => (requests.push(r), {
            toolCalls: [
              { name: "everything__get-structured-content", arguments: { location: "Chicago" } },
              { name: "everything__get-tiny-image", arguments: {} },
              { name: "everything__echo", arguments: {} }
            ]
          }),
          (r) => (requests.push(r), { text: "done" })
        ])
        yield* Agent.run("tour").pipe(Effect.provide(layer))
        assert.include(systemOf(requests[0]!), "broken (")
        const [weather, image, echo] = toolMessages(requests[1]!)
        assert.deepStrictEqual(weather!.content, { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 })
        const blocks = image!.content as Array<{ type: string; mimeType?: string }>
        assert.isTrue(blocks.some((b) => b.type === "image" && b.mimeType === "image/png"))
        assert.strictEqual(echo!.status, "TOOL_FAILED")
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )

  it.live(
    "trigger-long-running-operation against callTimeout gives the model a TimeoutError; nothing is left (D6)",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        let result: unknown
        const layer = agentLayer(
          McpLayers.layerNode({
            servers: [stdio("everything", "@modelcontextprotocol/server-everything", marker, ["stdio"])],
            callTimeout: "500 millis"
          }),
          [
            {
              toolCalls: [{ name: "everything__trigger-long-running-operation", arguments: { duration: 30, steps: 5 } }]
            },
            (r) => (result = toolMessages(r).at(-1)?.content, { text: "ok" })
          ]
        )
        yield* Agent.run("slow").pipe(Effect.provide(layer))
        assert.deepStrictEqual(result, {
          error: { type: "Timeout", message: "everything__trigger-long-running-operation did not finish within 500ms" }
        })
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )

  it.live("the extension grants remote servers no extra authority: no sampling, roots or elicitation for them (D10)", () =>
    Effect.gen(function*() {
      let capabilities: unknown = "unset"
      const probe = () => {
        const server = new SdkMcpServer({ name: "probe", version: "1.0.0" })
        server.registerTool("ask", { description: "asks the client to sample" }, async () => {
          capabilities = server.server.getClientCapabilities()
          const sampled = await server.server.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "hi" } }],
            maxTokens: 10
          }).then(() => "granted", (e: Error) => `refused: ${e.message}`)
          return { content: [{ type: "text", text: sampled }] }
        })
        return server
      }
      let seen: unknown
      const layer = agentLayer(
        McpLayers.layer({ servers: [McpServerConfig.http({ name: "probe", url: "http://127.0.0.1:9/mcp" })] }).pipe(
          Layer.provide(NodeMcpClientFactory.layerInMemory({ probe })),
          Layer.provide(NodeServices.layer)
        ),
        [{ toolCalls: [{ name: "probe__ask" }] }, (r) => (seen = toolMessages(r)[0]!.content, { text: "ok" })]
      )
      yield* Agent.run("go").pipe(Effect.provide(layer))
      assert.deepStrictEqual(capabilities, {})
      assert.match(JSON.stringify(seen), /refused/)
    }))

  it.live("interrupting a run during a slow call cancels it on the server, closes the transport, ends promptly (D1)", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const events: Array<string> = []
      const slow = () => {
        const server = new SdkMcpServer({ name: "slow", version: "1.0.0" })
        server.registerTool(
          "wait",
          { description: "waits", inputSchema: { ms: z.number().optional() } },
          (_args, extra) =>
            new Promise((resolve) => {
              Effect.runSync(Deferred.succeed(started, undefined))
              extra.signal.addEventListener("abort", () => {
                events.push("cancelled")
                resolve({ content: [{ type: "text", text: "cancelled" }] })
              })
            })
        )
        server.server.onclose = () => void events.push("closed")
        return server
      }
      const layer = agentLayer(
        McpLayers.layer({ servers: [McpServerConfig.http({ name: "slow", url: "http://127.0.0.1:9/mcp" })] }).pipe(
          Layer.provide(NodeMcpClientFactory.layerInMemory({ slow })),
          Layer.provide(NodeServices.layer)
        ),
        [{ toolCalls: [{ name: "slow__wait" }] }]
      )
      const fiber = yield* Effect.forkChild(Agent.run("go").pipe(Effect.provide(layer)))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      yield* Effect.sleep("50 millis")
      assert.deepStrictEqual(events, ["cancelled", "closed"])
    }))
})
