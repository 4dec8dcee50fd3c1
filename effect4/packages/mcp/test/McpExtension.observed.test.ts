/**
 * What the MCP extension shows of itself beyond the model's tools (found by mutation testing of the 3 line's
 * McpExtension.ts): a call to a server gone since discovery, which request errors drop a connection, the tool cache
 * shared by extensions that name tools differently, and its metrics, spans and log lines.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpClientFactory, McpError, McpExtension, McpServerConfig, McpServers, McpToolCache } from "@zett/mcp"
import { agentWith, servers, systemOf, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, tool } from "@zett/testing-core/FakeMcp"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"

/** JSON-RPC's code for invalid parameters: a server's answer, the connection intact. */
const invalidParams = -32602

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

/** Every span's name and attributes (but a failure's `code.stacktrace`). */
const recordingTracer = Effect.sync(() => {
  const spans: Array<{ readonly name: string; readonly attributes: Record<string, unknown> }> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = Tracer.nativeTracer.span(options)
      spans.push({
        name: span.name,
        get attributes() {
          return Object.fromEntries([...span.attributes].filter(([key]) => key !== "code.stacktrace"))
        }
      })
      return span
    }
  })
  return { spans, tracer }
})

/** Every log line's level, message and annotations. */
const recordingLogger = () => {
  const lines: Array<
    { readonly level: string; readonly message: unknown; readonly annotations: Record<string, unknown> }
  > = []
  const logger = Logger.make(({ fiber, logLevel, message }) =>
    void lines.push({
      level: logLevel.toUpperCase(),
      message: Array.isArray(message) && message.length === 1 ? message[0] : message,
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    })
  )
  return { lines, layer: Logger.layer([logger]) }
}

describe("McpExtension, observed", () => {
  it.effect("with every server available the system message lists no unavailable servers", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({ a: { tools: [tool("t")] }, b: { tools: [tool("u")] } })
      const { layer, requests } = agentWith({ servers: [http("a"), http("b")], clientFactory: factory }, [{
        text: "ok"
      }])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      const system = systemOf(requests[0]!)
      assert.include(system, "MCP servers are configured in code.")
      assert.notInclude(system, "Unavailable")
    }))

  it.effect("a call to a server that cannot be reached since its tools were cached is ServerUnavailable, with the reason", () =>
    Effect.gen(function*() {
      let connectError: string | undefined
      const { factory, stats } = fakeFactory({
        s: {
          tools: [tool("t")],
          get connectError() {
            return connectError
          }
        }
      })
      const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory }, [
        { text: "warm" },
        () => (connectError = "connection refused", { toolCalls: [{ name: "s__t" }] }),
        { text: "done" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("warm the cache")
        yield* agent.run("call")
      }).pipe(Effect.provide(layer))
      const [result] = toolMessages(requests[2]!)
      assert.strictEqual(result!.status, "TOOL_FAILED")
      assert.deepStrictEqual(result!.content, { error: { type: "Unavailable", message: "s: connection refused" } })
      assert.strictEqual(stats.calls.length, 0)
    }))

  it.effect("a request error keeps the request's connection, unless the connection closed", () =>
    Effect.gen(function*() {
      const connectsAfter = (code: number) =>
        Effect.gen(function*() {
          let calls = 0
          const { factory, stats } = fakeFactory({
            s: {
              tools: [tool("t")],
              call: (name) =>
                ++calls === 1
                  ? Effect.fail(
                    new McpError.McpRequestError({
                      server: "s",
                      method: "tools/call",
                      code,
                      reason: "Remote",
                      description: "no"
                    })
                  )
                  : Effect.succeed({ content: [{ type: "text", text: `${name} called` }] })
            }
          })
          const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory }, [
            { toolCalls: [{ id: "1", name: "s__t" }] },
            { toolCalls: [{ id: "2", name: "s__t" }] },
            { text: "done" }
          ])
          yield* Agent.run("call twice").pipe(Effect.provide(layer))
          assert.deepStrictEqual(
            [toolMessages(requests[1]!).map((m) => m.status), toolMessages(requests[2]!).map((m) => m.status)],
            [["TOOL_FAILED"], ["TOOL_FAILED", "ok"]]
          )
          assert.strictEqual(stats.open(), 0)
          return stats.connects.s
        })
      // discovery's connection serves both calls
      assert.strictEqual(yield* connectsAfter(invalidParams), 1)
      assert.strictEqual(yield* connectsAfter(McpError.connectionClosedCode), 2)
    }))

  it.effect("one tool cache under a namespaced and a plain extension keeps their tool names apart", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const cache = Layer.succeed(McpToolCache.McpToolCache, yield* McpToolCache.makeMemory({ ttl: "5 minutes" }))
      const toolsSeen = (namespaceTools: boolean) =>
        Effect.gen(function*() {
          const names: Array<ReadonlyArray<string>> = []
          const model = ScriptedModel.layer([
            (request) => (names.push(request.tools.map((t) => t.name)), { text: "ok" })
          ])
          const extension = Layer.effect(McpExtension.McpExtension, McpExtension.make({ namespaceTools })).pipe(
            Layer.provide(Layer.mergeAll(
              McpServers.layer([http("s")]),
              cache,
              Layer.succeed(McpClientFactory.McpClientFactory, factory)
            ))
          )
          const agent = Agent.layer({ extensions: [Effect.service(McpExtension.McpExtension)] }).pipe(
            Layer.provide(extension),
            Layer.provide(model)
          )
          yield* Agent.run("hi").pipe(Effect.provide(agent))
          return names[0]
        })
      assert.deepStrictEqual(yield* toolsSeen(true), ["s__t"])
      assert.deepStrictEqual(yield* toolsSeen(false), ["t"])
      // each discovered once; a second namespaced extension finds its list in the cache
      assert.deepStrictEqual(yield* toolsSeen(true), ["s__t"])
      assert.strictEqual(stats.connects.s, 2)
    }))

  it.effect("discovery and calls are timed, counted and traced per server; an unavailable server is logged with its name", () =>
    Effect.gen(function*() {
      const name = `observed${Date.now()}`
      const { factory } = fakeFactory({
        [name]: {
          tools: [tool("t")],
          call: () =>
            Effect.fail(
              new McpError.McpRequestError({
                server: name,
                method: "tools/call",
                code: invalidParams,
                reason: "Remote",
                description: "no"
              })
            )
        },
        down: { connectError: "connection refused" }
      })
      const { layer } = agentWith({ servers: [http(name), http("down")], clientFactory: factory }, [
        { toolCalls: [{ name: `${name}__t` }] },
        { text: "done" }
      ])
      const { spans, tracer } = yield* recordingTracer
      const logs = recordingLogger()
      yield* Agent.run("hi").pipe(Effect.withTracer(tracer), Effect.provide(logs.layer.pipe(Layer.provideMerge(layer))))

      const discovery = yield* Metric.value(
        Metric.withAttributes(McpExtension.discoveryDuration, { "mcp.server": name })
      )
      assert.strictEqual(discovery.count, 1)
      const failed = yield* Metric.value(
        Metric.withAttributes(McpExtension.toolCalls, { "mcp.server": name, outcome: "failed" })
      )
      assert.strictEqual(failed.count, 1)

      const discover = spans.filter((span) => span.name === "McpExtension.discover")
      assert.deepStrictEqual(discover.map((span) => span.attributes), [{ "mcp.server": name }, {
        "mcp.server": "down"
      }])
      const calls = spans.filter((span) => span.name === "McpExtension.call")
      assert.deepStrictEqual(calls.map((span) => span.attributes), [{ "mcp.server": name, "gen_ai.tool.name": "t" }])

      const warning = logs.lines.find((line) => line.level === "WARN" && line.annotations["mcp.server"] === "down")
      assert.deepStrictEqual(warning?.message, "MCP server down is unavailable: connection refused")
    }))

  it.effect("a call to a server unreachable since discovery and a call whose result is an error count as failed", () =>
    Effect.gen(function*() {
      const stamp = Date.now()
      const gone = `gone${stamp}`
      const broken = `broken${stamp}`
      let connectError: string | undefined
      const { factory } = fakeFactory({
        [gone]: {
          tools: [tool("t")],
          get connectError() {
            return connectError
          }
        },
        [broken]: {
          tools: [tool("t")],
          call: () => Effect.succeed({ content: [{ type: "text", text: "disk full" }], isError: true })
        }
      })
      const { layer, requests } = agentWith({ servers: [http(gone), http(broken)], clientFactory: factory }, [
        { text: "warm" },
        () => (connectError = "connection refused", { toolCalls: [{ name: `${gone}__t` }, { name: `${broken}__t` }] }),
        { text: "done" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("warm the cache")
        yield* agent.run("call both")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(toolMessages(requests[2]!).map((m) => (m.content as any).error.type), [
        "Unavailable",
        "ToolFailed"
      ])
      const count = (server: string, outcome: string) =>
        Effect.map(
          Metric.value(
            Metric.withAttributes(McpExtension.toolCalls, { "mcp.server": server, outcome })
          ),
          (state) => state.count
        )
      assert.deepStrictEqual(
        [
          yield* count(gone, "failed"),
          yield* count(gone, "ok"),
          yield* count(broken, "failed"),
          yield* count(broken, "ok")
        ],
        [1, 0, 1, 0]
      )
    }))

  it.effect("the system message names a server's own tool prefix only where it is not the server's name", () =>
    Effect.gen(function*() {
      const dotted = McpServerConfig.http({ name: "a.b", url: "http://127.0.0.1:1/x" })
      const { factory } = fakeFactory({ plain: { tools: [tool("t")] }, "a.b": { tools: [tool("t")] } })
      const { layer, requests } = agentWith({ servers: [http("plain"), dotted], clientFactory: factory }, [{
        text: "ok"
      }])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      assert.deepStrictEqual(systemOf(requests[0]!).split("\n").filter((line) => line.startsWith("Tools named")), [
        "Tools named <server>__<tool> belong to the MCP server <server>.",
        `Tools named ${McpServerConfig.toolPrefix(dotted)}__<tool> belong to the MCP server "a.b".`
      ])
    }))

  it.effect("a server's includeTools changed in its configuration applies while its tool list is still cached", () =>
    Effect.gen(function*() {
      const at = (includeTools: ReadonlyArray<string>) =>
        McpServerConfig.http({ name: "s", url: "http://127.0.0.1:9/s", includeTools })
      const configured = servers([at(["a"])])
      const { factory, stats } = fakeFactory({ s: { tools: [tool("a"), tool("b")] } })
      const { layer, requests } = agentWith({ servers: configured.layer, clientFactory: factory }, [{ text: "1" }, {
        text: "2"
      }])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        configured.set([at(["b"])])
        yield* agent.run("b")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(requests.map((r) => r.tools.map((t) => t.name)), [["s__a"], ["s__b"]])
      // the cache key leaves includeTools out: the second request's list came from the cache
      assert.strictEqual(stats.connects.s, 1)
    }))
})
