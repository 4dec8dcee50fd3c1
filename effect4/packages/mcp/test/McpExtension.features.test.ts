/**
 * What the mutation run of the 3 line's `McpExtension.ts` found untested in the MCP features (progress events,
 * tool list changes, resources as tools), checked through the agent as the model and the extensions see it, on fake
 * servers.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Extension } from "@zett/agent"
import { Agent } from "@zett/agent"
import { McpClientFactory, McpError, McpServerConfig } from "@zett/mcp"
import * as McpClient from "@zett/mcp/McpClient"
import { agentWith, systemOf, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, text, tool } from "@zett/testing-core/FakeMcp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as TestClock from "effect/testing/TestClock"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

/** An extension that records the events it is published and when a tool's result is appended; `slow` yields in onEvent. */
const recorder = (slow = false) => {
  const log: Array<string> = []
  const events: Array<Extension.AgentEvent> = []
  const extension: Extension.Extension = {
    name: "recorder",
    onEvent: (_context, event) =>
      Effect.gen(function*() {
        // an earlier report takes longer: reports published at once would come out of order
        if (slow) {
          const ms = event._tag === "ToolProgress" ? 20 - 5 * event.progress : 0
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))
        }
        events.push(event)
        if (event._tag === "ToolProgress") log.push(`progress ${event.progress}`)
      }),
    afterTool: (_context, call, result) => Effect.sync(() => void log.push(`result of ${call.name}: ${result.status}`))
  }
  return { log, events, extension }
}

describe("progress events", () => {
  it.effect("a call that reports nothing, with an extension reading events, gives its result and no event", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({ s: { tools: [tool("job")] } })
      const { events, extension, log } = recorder()
      const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory }, [
        { toolCalls: [{ name: "s__job" }] },
        { text: "ok" }
      ], { extensions: [extension] })
      yield* Agent.run("go").pipe(Effect.provide(layer))
      assert.deepStrictEqual(toolMessages(requests[1]!)[0]!.content, [{ type: "text", text: "job called" }])
      assert.deepStrictEqual(events.filter((event) => event._tag === "ToolProgress"), [])
      assert.deepStrictEqual(log, ["result of s__job: ok"])
    }))

  it.effect("a report without total or message becomes an event without them", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        s: {
          tools: [tool("job")],
          call: (_name, _args, options) =>
            Effect.sync(() => {
              options?.onProgress?.({ progress: 1 })
              options?.onProgress?.({ progress: 2, total: 2, message: "half" })
              return text("done")
            })
        }
      })
      const { events, extension } = recorder()
      const { layer } = agentWith({ servers: [http("s")], clientFactory: factory }, [
        { toolCalls: [{ id: "c1", name: "s__job" }] },
        { text: "ok" }
      ], { extensions: [extension] })
      yield* Agent.run("go").pipe(Effect.provide(layer))
      const progress = events.filter((event) => event._tag === "ToolProgress").map(({ runId: _, ...rest }) => rest)
      assert.deepStrictEqual(progress, [
        { _tag: "ToolProgress", toolCallId: "c1", tool: "s__job", progress: 1 },
        { _tag: "ToolProgress", toolCallId: "c1", tool: "s__job", progress: 2, total: 2, message: "half" }
      ])
      assert.isFalse("total" in progress[0]!)
      assert.isFalse("message" in progress[0]!)
    }))

  it.effect("reports sent right before the result reach a slow onEvent, in order, before the result", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        s: {
          tools: [tool("job")],
          call: (_name, _args, options) =>
            Effect.sync(() => {
              for (const progress of [1, 2, 3]) options?.onProgress?.({ progress })
              return text("done")
            })
        }
      })
      const { extension, log } = recorder(true)
      const { layer } = agentWith({ servers: [http("s")], clientFactory: factory }, [
        { toolCalls: [{ name: "s__job" }] },
        { text: "ok" }
      ], { extensions: [extension] })
      yield* Agent.run("go").pipe(Effect.provide(layer))
      assert.deepStrictEqual(log, ["progress 1", "progress 2", "progress 3", "result of s__job: ok"])
    }))
})

describe("task events", () => {
  it.effect("a call its server answers with a task publishes the task's states as ToolTask events, in order, before the result", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        s: {
          tools: [tool("job")],
          call: (_name, _args, options) =>
            Effect.sync(() => {
              options?.onTask?.({ server: "s", taskId: "t1", status: "working" })
              options?.onTask?.({ server: "s", taskId: "t1", status: "working", statusMessage: "half way" })
              options?.onTask?.({ server: "s", taskId: "t1", status: "completed" })
              return text("done")
            })
        }
      })
      const events: Array<Extension.AgentEvent> = []
      const log: Array<string> = []
      const extension: Extension.Extension = {
        name: "tasks",
        onEvent: (_context, event) =>
          Effect.sync(() => {
            events.push(event)
            if (event._tag === "ToolTask") log.push(`task ${event.status}`)
          }),
        afterTool: (_context, call, result) =>
          Effect.sync(() => void log.push(`result of ${call.name}: ${result.status}`))
      }
      const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory }, [
        { toolCalls: [{ id: "c1", name: "s__job" }] },
        { text: "ok" }
      ], { extensions: [extension] })
      yield* Agent.run("go").pipe(Effect.provide(layer))
      assert.deepStrictEqual(
        events.filter((event) => event._tag === "ToolTask").map(({ runId: _, ...rest }) => rest),
        [
          { _tag: "ToolTask", toolCallId: "c1", tool: "s__job", taskId: "t1", status: "working" },
          { _tag: "ToolTask", toolCallId: "c1", tool: "s__job", taskId: "t1", status: "working", message: "half way" },
          { _tag: "ToolTask", toolCallId: "c1", tool: "s__job", taskId: "t1", status: "completed" }
        ]
      )
      assert.deepStrictEqual(log, ["task working", "task working", "task completed", "result of s__job: ok"])
      assert.deepStrictEqual(toolMessages(requests[1]!)[0]!.content, [{ type: "text", text: "done" }])
    }))
})

/** Log lines with their level and `mcp.server` annotation, debug included. */
const capture = () => {
  const lines: Array<{ readonly level: string; readonly message: string; readonly server: unknown }> = []
  const layer = Layer.merge(
    Logger.layer([
      Logger.make(({ fiber, logLevel, message }) =>
        void lines.push({
          level: logLevel.toUpperCase(),
          message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
          server: fiber.getRef(References.CurrentLogAnnotations)["mcp.server"]
        })
      )
    ]),
    Layer.succeed(References.MinimumLogLevel, "Debug")
  )
  return { lines, layer }
}

/**
 * A client of the test's own whose `rotate` call replaces its tool list and announces it (list_changed), and
 * whose listing fails once `failLists` is set; counts its listings.
 */
const announcing = () => {
  const state = {
    lists: 0,
    failLists: false,
    tools: [tool("old"), tool("rotate")],
    listeners: new Set<() => void>(),
    calls: [] as Array<string>
  }
  const factory = McpClientFactory.of((server) =>
    Effect.succeed(McpClient.make({
      server: server.name,
      listTools: () =>
        Effect.suspend(() => {
          state.lists++
          return state.failLists
            ? Effect.fail(
              new McpError.McpRequestError({
                server: server.name,
                method: "tools/list",
                reason: "Remote",
                description: "listing refused"
              })
            )
            : Effect.succeed({ tools: state.tools, nextCursor: undefined })
        }),
      callTool: (name) =>
        Effect.sync(() => {
          state.calls.push(`${server.name}: ${name}`)
          if (name === "rotate") {
            state.tools = [tool("rotate"), tool("fresh")]
            for (const listener of state.listeners) listener()
          }
          return text(`${name} called`)
        }),
      onToolListChanged: (listener) =>
        Effect.acquireRelease(
          Effect.sync(() => void state.listeners.add(listener)),
          () => Effect.sync(() => void state.listeners.delete(listener))
        )
    }))
  )
  return { factory, state }
}

describe("tool list changes", () => {
  it.effect("a change is listed again once, at the next model turn, and logged at debug level", () =>
    Effect.gen(function*() {
      const { factory, state } = announcing()
      const logs = capture()
      const { layer, requests } = agentWith({ servers: [http("shop")], clientFactory: factory }, [
        { toolCalls: [{ name: "shop__rotate" }] },
        { toolCalls: [{ name: "shop__fresh" }] },
        { toolCalls: [{ name: "shop__fresh" }] },
        { text: "done" }
      ])
      yield* Agent.run("go").pipe(Effect.provide(layer.pipe(Layer.provideMerge(logs.layer))))
      assert.deepStrictEqual(requests.map((request) => request.tools.map((t) => t.name)), [
        ["shop__old", "shop__rotate"],
        ["shop__rotate", "shop__fresh"],
        ["shop__rotate", "shop__fresh"],
        ["shop__rotate", "shop__fresh"]
      ])
      // the discovery, and one listing after the announced change: not one per turn
      assert.strictEqual(state.lists, 2)
      const changed = logs.lines.filter((line) => line.message.includes("changed its tools"))
      assert.deepStrictEqual(changed, [{
        level: "DEBUG",
        message: "MCP server shop changed its tools: 2 now",
        server: "shop"
      }])
    }))

  it.effect("with several servers, a change is listed again under each changed server's own names", () =>
    Effect.gen(function*() {
      // one tool list behind both servers: the call on shop changes it, and both connections announce it
      const { factory, state } = announcing()
      const { layer, requests } = agentWith({ servers: [http("quiet"), http("shop")], clientFactory: factory }, [
        { toolCalls: [{ name: "shop__rotate" }] },
        { toolCalls: [{ name: "shop__fresh" }, { name: "quiet__fresh" }] },
        { text: "done" }
      ])
      yield* Agent.run("go").pipe(Effect.provide(layer))
      assert.deepStrictEqual(requests.map((request) => request.tools.map((t) => t.name).sort()), [
        ["quiet__old", "quiet__rotate", "shop__old", "shop__rotate"],
        ["quiet__fresh", "quiet__rotate", "shop__fresh", "shop__rotate"],
        ["quiet__fresh", "quiet__rotate", "shop__fresh", "shop__rotate"]
      ])
      // the tools listed again call their own server
      assert.deepStrictEqual(state.calls, ["shop: rotate", "shop: fresh", "quiet: fresh"])
    }))

  it.effect("a change whose listing fails keeps the tools listed before, with a warning naming the server", () =>
    Effect.gen(function*() {
      const { factory, state } = announcing()
      const logs = capture()
      const { layer, requests } = agentWith({ servers: [http("shop")], clientFactory: factory }, [
        () => {
          state.failLists = true
          return { toolCalls: [{ name: "shop__rotate" }] }
        },
        { toolCalls: [{ name: "shop__old" }] },
        { text: "done" }
      ])
      yield* Agent.run("go").pipe(Effect.provide(layer.pipe(Layer.provideMerge(logs.layer))))
      assert.deepStrictEqual(requests[1]!.tools.map((t) => t.name), ["shop__old", "shop__rotate"])
      const warnings = logs.lines.filter((line) => line.level === "WARN")
      assert.deepStrictEqual(warnings, [{
        level: "WARN",
        message:
          "MCP server shop changed its tools, but listing them failed (tools/list failed: listing refused); its tools listed before stay",
        server: "shop"
      }])
    }))
})

/** A client with one tool whose resource reads never answer. */
const silentReads = McpClientFactory.of((server) =>
  Effect.succeed(McpClient.make({
    server: server.name,
    listTools: () => Effect.succeed({ tools: [tool("ping")], nextCursor: undefined }),
    callTool: (name) => Effect.succeed(text(`${name} called`)),
    request: () => Effect.never
  }))
)

describe("resources as tools", () => {
  it.effect("read_resource runs under the server's own timeout, else the extension's callTimeout", () =>
    Effect.gen(function*() {
      const { layer, requests } = agentWith({
        servers: [
          McpServerConfig.http({ name: "own", url: "http://127.0.0.1:1/own", timeout: Duration.seconds(2) }),
          http("plain")
        ],
        clientFactory: silentReads,
        callTimeout: "7 seconds",
        resources: "tools"
      }, [
        {
          toolCalls: [
            { name: "own__read_resource", arguments: { uri: "note:///a" } },
            { name: "plain__read_resource", arguments: { uri: "note:///b" } }
          ]
        },
        { text: "done" }
      ])
      const fiber = yield* Effect.forkChild(Agent.run("read").pipe(Effect.provide(layer)))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(toolMessages(requests[1]!).map((m) => m.content), [
        { error: { type: "Timeout", message: "own__read_resource did not finish within 2s" } },
        { error: { type: "Timeout", message: "plain__read_resource did not finish within 7s" } }
      ])
    }))

  it.effect("a resource tool of a server that cannot be reached since its tools were cached is ServerUnavailable", () =>
    Effect.gen(function*() {
      let connectError: string | undefined
      const { factory } = fakeFactory({
        s: {
          tools: [tool("t")],
          get connectError() {
            return connectError
          }
        }
      })
      const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory, resources: "tools" }, [
        { text: "warm" },
        () => (connectError = "connection refused", { toolCalls: [{ name: "s__list_resources" }] }),
        { text: "done" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("warm the cache")
        yield* agent.run("list")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(toolMessages(requests[2]!)[0]!.content, {
        error: { type: "Unavailable", message: "s: connection refused" }
      })
    }))

  it.effect("the system message names how to list and read resources, for the servers that are up", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({ up: { tools: [tool("t")] }, down: { connectError: "refused" } })
      const { layer, requests } = agentWith({
        servers: [http("up"), http("down")],
        clientFactory: factory,
        resources: "tools"
      }, [
        { text: "done" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      const lines = systemOf(requests[0]!).split("\n")
      assert.include(
        lines,
        "Resources (documents and data) of MCP servers, and the resource links in their tool results, are listed with " +
          "<server>__list_resources and read with <server>__read_resource (for up)."
      )
    }))
})
