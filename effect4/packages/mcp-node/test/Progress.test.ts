/**
 * Every call asks for progress (`progressToken`); `notifications/progress`
 * becomes a `ToolProgress` event for `onEvent`; a progress report starts `callTimeout` afresh, never past
 * `maxCallTimeout`; a call cut short is cancelled on the server. Timeouts are driven by `TestClock`.
 * Here over the Node driver and real servers; the extension's timing on fake servers is in
 * packages/mcp/test/Progress.test.ts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Client, InMemoryTransport } from "@modelcontextprotocol/client"
import type { JSONRPCMessage } from "@modelcontextprotocol/client"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import type { Extension } from "@zett/agent"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClient, NodeMcpClientFactory } from "@zett/mcp-node"
import { toolMessages } from "@zett/testing-core/FakeAgent"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import * as Crypto from "node:crypto"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { z } from "zod"
import { withMarker } from "./utils/faults.js"
import * as McpLayers from "./utils/mcpLayers.js"
import * as Processes from "./utils/processes.js"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

/** Waits in real time (the test's clock is a `TestClock`) until `check` holds. */
const until = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2_000 && !check(); i++) {
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
    }
    assert.isTrue(check(), "the condition never held")
  })

/** An extension that records the events it is published, and when a tool's result is appended. */
const recorder = () => {
  const log: Array<string> = []
  const events: Array<Extension.AgentEvent> = []
  const extension: Extension.Extension = {
    name: "recorder",
    onEvent: (_context, event) =>
      Effect.sync(() => {
        events.push(event)
        if (event._tag === "ToolProgress") log.push(`progress ${event.progress}/${event.total} ${event.message ?? ""}`)
      }),
    afterTool: (_context, call, result) => Effect.sync(() => void log.push(`result of ${call.name}: ${result.status}`))
  }
  return { log, events, extension }
}

/**
 * An SDK server whose `build` tool reports one step each time the test opens a gate, and records the progress
 * token it was sent and whether it was cancelled.
 */
const jobs = () => {
  const seen = { tokens: [] as Array<unknown>, cancelled: 0, gates: [] as Array<() => void> }
  const make = () => {
    const server = new SdkMcpServer({ name: "jobs", version: "1.0.0" })
    server.registerTool(
      "build",
      { description: "builds in steps", inputSchema: { steps: z.number() } },
      async ({ steps }, extra) => {
        const token = extra._meta?.progressToken
        seen.tokens.push(token)
        extra.signal.addEventListener("abort", () => void seen.cancelled++)
        for (let step = 1; step <= steps; step++) {
          await new Promise<void>((resolve) => seen.gates.push(resolve))
          if (extra.signal.aborted) break
          if (token !== undefined) {
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken: token, progress: step, total: steps, message: `step ${step}` }
            })
          }
        }
        return { content: [{ type: "text", text: "built" }] }
      }
    )
    return server
  }
  return { seen, make }
}

const jobsAgent = (
  make: () => SdkMcpServer,
  steps: ReadonlyArray<ScriptedModel.Step>,
  options: Partial<McpLayers.Options>,
  extensions: ReadonlyArray<Extension.Any> = []
) =>
  Agent.layer({ extensions: [McpExtension.McpExtension, ...extensions] }).pipe(
    Layer.provide(
      McpLayers.layer({ servers: [http("jobs")], ...options }).pipe(
        Layer.provide(NodeMcpClientFactory.layerInMemory({ jobs: make })),
        Layer.provide(NodeServices.layer)
      )
    ),
    Layer.provide(ScriptedModel.layer(steps))
  )

/** Opens the server's next step after `seconds` of test time, and waits until its report was published. */
const step = (seen: ReturnType<typeof jobs>["seen"], seconds: number, published: () => boolean) =>
  Effect.gen(function*() {
    yield* until(() => seen.gates.length === 1)
    yield* TestClock.adjust(`${seconds} seconds`)
    seen.gates.shift()!()
    yield* until(published)
  })

describe("progress", () => {
  it.effect("a call reporting every 20 s outlives callTimeout (30 s); its reports reach onEvent before its result", () =>
    Effect.gen(function*() {
      const { make, seen } = jobs()
      const { extension, log } = recorder()
      let result: unknown
      const layer = jobsAgent(
        make,
        [
          { toolCalls: [{ id: "c1", name: "jobs__build", arguments: { steps: 3 } }] },
          (request) => (result = toolMessages(request)[0]!.content, { text: "ok" })
        ],
        { callTimeout: "30 seconds" },
        [extension]
      )
      const fiber = yield* Effect.forkChild(Agent.run("build").pipe(Effect.provide(layer)))
      for (let n = 1; n <= 3; n++) yield* step(seen, 20, () => log.length >= n)
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(result, [{ type: "text", text: "built" }])
      assert.deepStrictEqual(log, [
        "progress 1/3 step 1",
        "progress 2/3 step 2",
        "progress 3/3 step 3",
        "result of jobs__build: ok"
      ])
      assert.strictEqual(seen.tokens.length, 1)
      assert.isDefined(seen.tokens[0])
      assert.strictEqual(seen.cancelled, 0)
    }))

  it.effect("ToolProgress events name the run, the call and the tool as the model called it", () =>
    Effect.gen(function*() {
      const { make, seen } = jobs()
      const { events, extension } = recorder()
      const layer = jobsAgent(
        make,
        [{ toolCalls: [{ id: "c7", name: "jobs__build", arguments: { steps: 1 } }] }, {
          text: "ok"
        }],
        {},
        [extension]
      )
      const fiber = yield* Effect.forkChild(Agent.run("build").pipe(Effect.provide(layer)))
      yield* step(seen, 1, () => events.length === 1)
      yield* Fiber.join(fiber)
      const event = events[0]!
      assert.strictEqual(event._tag, "ToolProgress")
      const { runId, ...rest } = event as Extension.ToolProgressEvent
      assert.isNumber(runId)
      assert.deepStrictEqual(rest, {
        _tag: "ToolProgress",
        toolCallId: "c7",
        tool: "jobs__build",
        progress: 1,
        total: 1,
        message: "step 1"
      })
    }))

  it.effect("maxCallTimeout cuts a call that keeps reporting, and the server is sent notifications/cancelled", () =>
    Effect.gen(function*() {
      const { make, seen } = jobs()
      const { extension, log } = recorder()
      let result: unknown
      const layer = jobsAgent(
        make,
        [
          { toolCalls: [{ name: "jobs__build", arguments: { steps: 100 } }] },
          (request) => (result = toolMessages(request)[0]!.content, { text: "ok" })
        ],
        { callTimeout: "30 seconds", maxCallTimeout: "90 seconds" },
        [extension]
      )
      const fiber = yield* Effect.forkChild(Agent.run("build").pipe(Effect.provide(layer)))
      // reports at 20, 40, 60 and 80 s; the cap comes at 90 s, before the report due at 100 s
      for (let n = 1; n <= 4; n++) yield* step(seen, 20, () => log.length >= n)
      yield* until(() => seen.gates.length === 1)
      yield* TestClock.adjust("20 seconds")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(result, {
        error: { type: "Timeout", message: "jobs__build did not finish within 1m 30s" }
      })
      assert.strictEqual(log.length, 5)
      yield* until(() => seen.cancelled === 1)
      seen.gates.shift()?.()
    }))

  it.effect("without the listener's onEvent hook, calls still send a progressToken", () =>
    Effect.gen(function*() {
      const { make, seen } = jobs()
      const layer = jobsAgent(
        make,
        [{ toolCalls: [{ name: "jobs__build", arguments: { steps: 1 } }] }, { text: "ok" }],
        {}
      )
      const fiber = yield* Effect.forkChild(Agent.run("build").pipe(Effect.provide(layer)))
      yield* until(() => seen.gates.length === 1)
      seen.gates.shift()!()
      yield* Fiber.join(fiber)
      assert.strictEqual(seen.tokens.length, 1)
      assert.isDefined(seen.tokens[0])
    }))
})

describe("progress ordering", () => {
  it.effect("a call's last progress report, read in the same tick as its result, still reaches onProgress", () =>
    Effect.gen(function*() {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      // a bare JSON-RPC peer: it sends a call's two reports and its result back to back, in one tick
      serverSide.onmessage = (message: JSONRPCMessage) => {
        if (!("id" in message) || !("method" in message)) return
        const reply = (result: Record<string, unknown>) =>
          void serverSide.send({ jsonrpc: "2.0", id: message.id, result })
        if (message.method === "initialize") {
          reply({
            protocolVersion: "2025-06-18",
            capabilities: { tools: {} },
            serverInfo: { name: "burst", version: "1" }
          })
        } else if (message.method === "tools/call") {
          const progressToken = (message.params as { _meta: { progressToken: number } })._meta.progressToken
          for (const progress of [1, 2]) {
            void serverSide.send({
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progressToken, progress, total: 2 }
            })
          }
          reply({ content: [{ type: "text", text: "done" }] })
        }
      }
      yield* Effect.promise(() => serverSide.start())
      const sdk = new Client({ name: "t", version: "1" })
      yield* Effect.promise(() => sdk.connect(clientSide))
      const client = NodeMcpClient.fromSdkClient(sdk, { server: "burst" })
      const seen: Array<number> = []
      const result = yield* client.callTool("x", {}, { onProgress: (p) => void seen.push(p.progress) })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "done" }])
      assert.deepStrictEqual(seen, [1, 2])
      yield* Effect.promise(() => sdk.close())
    }))
})

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)

/** The agent calls trigger-long-running-operation (1 s, 4 steps) and records its events and result. */
const longRun = (server: McpServerConfig.McpServerConfig) =>
  Effect.gen(function*() {
    const { events, extension, log } = recorder()
    let result: unknown
    const layer = Agent.layer({ extensions: [McpExtension.McpExtension, extension] }).pipe(
      Layer.provide(McpLayers.layerNode({ servers: [server] })),
      Layer.provide(ScriptedModel.layer([
        {
          toolCalls: [{
            id: "long",
            name: `${server.name}__trigger-long-running-operation`,
            arguments: { duration: 1, steps: 4 }
          }]
        },
        (request) => (result = toolMessages(request)[0]!.content, { text: "ok" })
      ]))
    )
    yield* Agent.run("run it").pipe(Effect.provide(layer))
    assert.deepStrictEqual(result, [{
      type: "text",
      text: "Long running operation completed. Duration: 1 seconds, Steps: 4."
    }])
    assert.deepStrictEqual(
      events.map((event) =>
        event._tag === "ToolProgress" ? [event.tool, event.toolCallId, event.progress, event.total] : event._tag
      ),
      [1, 2, 3, 4].map((n) => [`${server.name}__trigger-long-running-operation`, "long", n, 4])
    )
    assert.strictEqual(log.at(-1), `result of ${server.name}__trigger-long-running-operation: ok`)
  })

describe("progress from server-everything", { concurrent: false }, () => {
  it.live(
    "trigger-long-running-operation over stdio drives ToolProgress events; nothing is left running",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        yield* longRun(
          McpServerConfig.stdio({
            name: "everything",
            command: process.execPath,
            args: [everything, "stdio"],
            env: { ZETT_TEST_MARKER: marker }
          })
        )
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )

  it.live(
    "trigger-long-running-operation over Streamable HTTP drives ToolProgress events",
    () =>
      Effect.gen(function*() {
        const port = yield* Processes.freePort
        const pid = yield* Effect.gen(function*() {
          const server = yield* Processes.spawnScoped({
            command: process.execPath,
            args: [everything, "streamableHttp"],
            env: { PORT: String(port) },
            ready: /listening on port/
          })
          yield* longRun(McpServerConfig.http({ name: "everything", url: `http://127.0.0.1:${port}/mcp` }))
          return server.pid
        }).pipe(Effect.scoped)
        assert.deepStrictEqual([...Processes.livePids([pid]), ...Processes.liveInGroup(pid)], [])
      })
  )
})
