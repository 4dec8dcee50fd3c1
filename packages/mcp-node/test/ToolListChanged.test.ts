/**
 * `notifications/tools/list_changed` drops the server's cached tool list, and while
 * the connection is alive (within a request, or pooled) the next model turn sees the server's new tools.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpExtension, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import { toolMessages } from "@zett/testing-core/FakeMcp"
import * as McpLayers from "@zett/testing/McpLayers"
import * as Processes from "@zett/testing/Processes"
import { shop } from "@zett/testing/ShopServer"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import { createRequire } from "node:module"
import type * as Net from "node:net"
import * as Path from "node:path"
import { withMarker } from "./utils/faults.js"

type Request = Parameters<Extract<ScriptedModel.Step, Function>>[0]

const definition = McpServerConfig.http({ name: "shop", url: "http://127.0.0.1:1/shop" })

const agentLayer = (
  make: () => SdkMcpServer,
  steps: ReadonlyArray<ScriptedModel.Step>,
  options: Partial<McpLayers.Options> = {}
) =>
  Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
    Layer.provide(
      McpLayers.layer({ servers: [definition], ...options }).pipe(
        Layer.provide(NodeMcpClientFactory.layerInMemory({ shop: make })),
        Layer.provide(NodeContext.layer)
      )
    ),
    Layer.provide(ScriptedModel.layer(steps, { loop: true }))
  )

const names = (request: Request) => request.tools.map((tool) => tool.name)

describe("tool list changes", () => {
  it.live("a list_changed during a call: the next model turn sees the server's new tools, and can call them", () =>
    Effect.gen(function*() {
      const { make } = shop()
      const requests: Array<Request> = []
      const layer = agentLayer(make, [
        (r) => (requests.push(r), { toolCalls: [{ name: "shop__rotate" }] }),
        (r) => (requests.push(r), { toolCalls: [{ name: "shop__fresh" }, { name: "shop__old" }] }),
        (r) => (requests.push(r), { text: "done" })
      ])
      yield* Agent.run("rotate").pipe(Effect.provide(layer))
      assert.deepStrictEqual(names(requests[0]!), ["shop__old", "shop__rotate"])
      assert.deepStrictEqual(names(requests[1]!), ["shop__rotate", "shop__fresh"])
      assert.deepStrictEqual(toolMessages(requests[2]!).slice(1).map((m) => [m.name, m.status, m.content]), [
        ["shop__fresh", "ok", [{ type: "text", text: "fresh" }]],
        ["shop__old", "TOOL_FAILED", {
          error: {
            type: "UnknownTool",
            message: "there is no tool named \"shop__old\"; the closest names are shop__rotate, shop__fresh"
          }
        }]
      ])
    }))

  it.live("the refreshed list is the cache's: the next request sees it without listing again", () =>
    Effect.gen(function*() {
      const { make, stats } = shop()
      const requests: Array<Request> = []
      const layer = agentLayer(make, [
        (r) => (requests.push(r),
          r.tools.some((t) => t.name === "shop__rotate") && requests.length === 1
            ? { toolCalls: [{ name: "shop__rotate" }] }
            : { text: "done" })
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("rotate")
        yield* agent.run("again")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(names(requests.at(-1)!), ["shop__rotate", "shop__fresh"])
      // one connection for the first request; the second used the cache and connected to nothing
      assert.strictEqual(stats.created, 1)
    }))

  it.live("a list_changed on a pooled connection between requests drops the cached list; the next request lists through the pool", () =>
    Effect.gen(function*() {
      const { make, stats } = shop()
      const requests: Array<Request> = []
      const layer = agentLayer(make, [(r) => (requests.push(r), { text: "done" })], {
        connectionPool: { idleTimeToLive: "1 minute" }
      })
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("first")
        // no request is running: the pooled connection alone hears the change
        stats.last!.registerTool("late", { description: "added later" }, async () => ({ content: [] }))
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        yield* agent.run("second")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(names(requests[0]!), ["shop__old", "shop__rotate"])
      assert.deepStrictEqual(names(requests[1]!), ["shop__old", "shop__rotate", "shop__late"])
      assert.strictEqual(stats.created, 1)
    }))

  it.live("when a server's list changes, a name another server holds stays the other server's", () =>
    Effect.gen(function*() {
      const { make, stats } = shop()
      const other = () => {
        const server = new SdkMcpServer({ name: "other", version: "1.0.0" })
        server.registerTool(
          "rotate",
          { description: "the other rotate" },
          async () => ({ content: [{ type: "text", text: "other" }] })
        )
        return server
      }
      const requests: Array<Request> = []
      const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
        Layer.provide(
          McpLayers.layer({
            servers: [McpServerConfig.http({ name: "other", url: "http://127.0.0.1:1/o" }), definition],
            namespaceTools: false
          }).pipe(
            Layer.provide(NodeMcpClientFactory.layerInMemory({ shop: make, other })),
            Layer.provide(NodeContext.layer)
          )
        ),
        Layer.provide(ScriptedModel.layer([
          (r) => {
            requests.push(r)
            // shop changes while the model's first call runs
            stats.last!.registerTool("late", { description: "added later" }, async () => ({ content: [] }))
            return { toolCalls: [{ name: "old" }] }
          },
          (r) => (requests.push(r), { toolCalls: [{ name: "rotate" }] }),
          (r) => (requests.push(r), { text: "done" })
        ]))
      )
      yield* Agent.run("go").pipe(Effect.provide(layer))
      assert.deepStrictEqual(names(requests[0]!), ["rotate", "old"])
      assert.deepStrictEqual(names(requests[1]!), ["rotate", "old", "late"])
      assert.deepStrictEqual(toolMessages(requests[2]!).at(-1)!.content, [{ type: "text", text: "other" }])
    }))
})

const require = createRequire(import.meta.url)
const everything = Path.join(
  Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js"
)

const capture = () => {
  const lines: Array<{ message: string; server: unknown }> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, message }) =>
      void lines.push({
        message: String(Array.isArray(message) ? message[0] : message),
        server: HashMap.get(annotations, "mcp.server").pipe((o) => (o._tag === "Some" ? o.value : undefined))
      })
    )
  )
  return { lines, layer }
}

/** `make`'s server behind a stateful Streamable HTTP endpoint on 127.0.0.1, closed with the scope. */
const overHttp = (make: () => SdkMcpServer) =>
  Effect.gen(function*() {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => Crypto.randomUUID() })
    const mcp = make()
    yield* Effect.promise(() => mcp.connect(transport))
    const server = Http.createServer((req, res) => void transport.handleRequest(req, res))
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as Net.AddressInfo).port)))
      }),
      () =>
        Effect.async<void>((resume) => {
          void mcp.close()
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return `http://127.0.0.1:${port}/mcp`
  })

describe("tool list changes over Streamable HTTP", () => {
  it.live(
    "a list_changed during a call, on the session's event stream: a later model turn sees the new tools",
    () =>
      Effect.gen(function*() {
        const { make } = shop()
        const url = yield* overHttp(make)
        const requests: Array<Request> = []
        // The notification comes on the session's event stream, not with the call's result: it may land a turn
        // later. Until it has, the model waits a moment and asks for a turn again (by calling the old tool).
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension], maxTurns: 500 }).pipe(
          Layer.provide(McpLayers.layerNode({ servers: [McpServerConfig.http({ name: "shop", url })] })),
          Layer.provide(ScriptedModel.layer([
            (r) => {
              requests.push(r)
              if (requests.length === 1) return { toolCalls: [{ name: "shop__rotate" }] }
              if (names(r).includes("shop__fresh")) {
                return toolMessages(r).at(-1)?.name === "shop__fresh"
                  ? { text: "done" }
                  : { toolCalls: [{ name: "shop__fresh" }] }
              }
              return Effect.as(Effect.sleep("10 millis"), { toolCalls: [{ name: "shop__old" }] })
            }
          ], { loop: true }))
        )
        yield* Agent.run("rotate").pipe(Effect.provide(layer))
        assert.deepStrictEqual(names(requests[0]!), ["shop__old", "shop__rotate"])
        assert.deepStrictEqual(names(requests.at(-1)!), ["shop__rotate", "shop__fresh"])
        assert.deepStrictEqual(toolMessages(requests.at(-1)!).at(-1)!.content, [{ type: "text", text: "fresh" }])
      }).pipe(Effect.scoped)
  )
})

describe.sequential("tool list changes of server-everything", () => {
  // server-everything registers its task tool once initialized, and says so with notifications/tools/list_changed
  const announces = (server: McpServerConfig.McpServerConfig) =>
    Effect.gen(function*() {
      const factory = yield* NodeMcpClientFactory.make({ closeTimeout: "300 millis" }).pipe(
        Effect.provide(ProcessGroups.layerNone)
      )
      const client = yield* factory.connect(server)
      let changes = 0
      yield* client.onToolListChanged!(() => void changes++)
      assert.isTrue(yield* Processes.eventually(() => changes > 0, 10_000))
    }).pipe(Effect.scoped, Effect.provide(NodeContext.layer))

  it.live("its list_changed reaches the connection's listeners over stdio", () =>
    Effect.gen(function*() {
      const marker = Crypto.randomUUID()
      yield* announces(
        McpServerConfig.stdio({
          name: "everything",
          command: process.execPath,
          args: [everything, "stdio"],
          env: { ZETT_TEST_MARKER: marker }
        })
      )
      assert.deepStrictEqual(withMarker(marker), [])
    }))

  // Over Streamable HTTP, server-everything sends that notification before the client has opened its event
  // stream (GET), and it is dropped on the server's side; an SDK server over HTTP stands in (below).

  it.live(
    "in a request, its announced change is listed again before a later model turn; nothing is left running",
    () =>
      Effect.gen(function*() {
        const marker = Crypto.randomUUID()
        const logs = capture()
        const requests: Array<Request> = []
        const server = McpServerConfig.stdio({
          name: "everything",
          command: process.execPath,
          args: [everything, "stdio"],
          env: { ZETT_TEST_MARKER: marker }
        })
        const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
          Layer.provide(McpLayers.layerNode({ servers: [server] })),
          Layer.provide(ScriptedModel.layer([
            (r) => (requests.push(r), { toolCalls: [{ name: "everything__echo", arguments: { message: "hi" } }] }),
            (r) => (requests.push(r), { text: "done" })
          ]))
        )
        yield* Agent.run("go").pipe(
          Effect.provide(layer),
          Effect.provide(logs.layer),
          Logger.withMinimumLogLevel(LogLevel.All)
        )
        assert.isTrue(
          logs.lines.some((l) =>
            l.server === "everything" && /^MCP server everything changed its tools: \d+ now$/.test(l.message)
          ),
          JSON.stringify(logs.lines)
        )
        assert.include(names(requests[1]!), "everything__echo")
        assert.deepStrictEqual(withMarker(marker), [])
      })
  )
})
