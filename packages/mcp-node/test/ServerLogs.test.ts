/**
 * A server's own log messages (`notifications/message`) reach the Effect logger at the mapped
 * level, annotated with the server, scrubbed of its secrets; `serverLogLevel` is asked with `logging/setLevel`.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory, ProcessGroups } from "@zett/mcp-node"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { createRequire } from "node:module"
import * as Path from "node:path"

const secret = "server-log-secret-7d1e"

const chatty = () => {
  const server = new SdkMcpServer({ name: "chatty", version: "1.0.0" }, { capabilities: { logging: {} } })
  server.registerTool("work", { description: "logs while it works", inputSchema: {} }, async (_args, extra) => {
    await server.sendLoggingMessage(
      { level: "warning", logger: "db", data: `token ${secret} is stale` },
      extra.sessionId
    )
    await server.sendLoggingMessage({ level: "debug", data: { step: 1 } }, extra.sessionId)
    return { content: [{ type: "text", text: "done" }] }
  })
  return server
}

interface Line {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

const capture = () => {
  const lines: Array<Line> = []
  const layer = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, logLevel, message }) =>
      void lines.push({
        level: logLevel.label,
        message: String(Array.isArray(message) ? message[0] : message),
        annotations: Object.fromEntries(HashMap.toEntries(annotations))
      })
    )
  )
  return { lines, layer }
}

const definition = McpServerConfig.http({
  name: "chatty",
  url: "http://127.0.0.1:1/mcp",
  headers: { Authorization: `Bearer ${secret}` }
})

const work = (options?: { readonly serverLogLevel?: "debug" | "error" }) => {
  const logs = capture()
  return Effect.gen(function*() {
    const factory = yield* NodeMcpClientFactory.makeInMemory({ chatty }, options)
    const client = yield* factory.connect(definition)
    yield* client.callTool("work", {})
    // the notifications came before the result; their log lines are written by fibers of their own
    yield* Processes.eventually(() => logs.lines.length > 1, 1_000)
    return logs.lines.filter((line) => line.message.startsWith("MCP server chatty:"))
  }).pipe(Effect.scoped, Effect.provide(logs.layer), Logger.withMinimumLogLevel(LogLevel.All))
}

describe("a server's own log messages", () => {
  it.live("reach the Effect logger at the mapped level, annotated with the server and its logger, scrubbed", () =>
    Effect.gen(function*() {
      const lines = yield* work({ serverLogLevel: "debug" })
      assert.deepStrictEqual(lines, [
        {
          level: "WARN",
          message: "MCP server chatty: token <redacted> is stale",
          annotations: { "mcp.server": "chatty", "mcp.stream": "log", "mcp.logger": "db" }
        },
        {
          level: "DEBUG",
          message: "MCP server chatty: {\"step\":1}",
          annotations: { "mcp.server": "chatty", "mcp.stream": "log" }
        }
      ])
    }))

  it.live("serverLogLevel is asked of the server: at error, it sends neither the warning nor the debug line", () =>
    Effect.gen(function*() {
      const lines = yield* work({ serverLogLevel: "error" })
      assert.deepStrictEqual(lines, [])
    }))

  it.live("server-everything's simulated logging reaches the logger over stdio", () =>
    Effect.gen(function*() {
      const require = createRequire(import.meta.url)
      const everything = Path.join(
        Path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
        "dist",
        "index.js"
      )
      const logs = capture()
      yield* Effect.gen(function*() {
        const factory = yield* NodeMcpClientFactory.make({ closeTimeout: "300 millis", serverLogLevel: "debug" }).pipe(
          Effect.provide(ProcessGroups.layerNone)
        )
        const client = yield* factory.connect(
          McpServerConfig.stdio({ name: "everything", command: process.execPath, args: [everything, "stdio"] })
        )
        yield* client.callTool("toggle-simulated-logging", {})
        const seen = yield* Processes.eventually(
          () =>
            logs.lines.some((l) =>
              l.annotations["mcp.server"] === "everything" && l.message.startsWith("MCP server everything:")
            ),
          15_000
        )
        assert.isTrue(seen, JSON.stringify(logs.lines.slice(-5)))
      }).pipe(Effect.scoped, Effect.provide(logs.layer), Logger.withMinimumLogLevel(LogLevel.All))
    }).pipe(Effect.provide(NodeContext.layer)))
})
