import { assert, describe, it } from "@effect/vitest"
import { Agent, type Extension, Message, ScriptedModel, type Tool, ToolGuidelines } from "@zett/agent"
import {
  McpClient,
  McpClientFactory,
  McpError,
  McpExtension,
  McpServerConfig,
  McpServers,
  McpTool,
  McpToolCache,
  McpToolResult
} from "@zett/mcp"
import { agentWith, servers, systemOf, toolMessages } from "@zett/testing-core/FakeAgent"
import { fakeFactory, text, tool } from "@zett/testing-core/FakeMcp"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as TestClock from "effect/testing/TestClock"

// The 3 line's McpExtension tests of an agent over plain MCP tools (no tool search, resource, skill or task tools:
// those options are not ported yet), every assertion kept, on what the model was given.

const http = (name: string, headers?: Record<string, string>) =>
  McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}`, ...(headers ? { headers } : {}) })

/** A log line's text (Effect 4 logs a message as the list of what was logged). */
const messageOf = (message: unknown): string => Array.isArray(message) ? message.map(String).join(" ") : String(message)

describe("McpExtension", () => {
  it.effect("a tool search on server catalog is exposed as catalog__search and dispatched to its server (E1)", () => {
    const { factory, stats } = fakeFactory({ catalog: { tools: [tool("search")] } })
    const { layer, requests } = agentWith({ servers: [http("catalog")], clientFactory: factory }, [
      { toolCalls: [{ name: "catalog__search", arguments: { q: "lamp" } }] },
      { text: "found" }
    ])
    return Effect.gen(function*() {
      yield* Agent.run("find a lamp")
      assert.deepStrictEqual(requests[0]!.tools.map((t) => t.name), ["catalog__search"])
      assert.deepStrictEqual(stats.calls, [{ server: "catalog", name: "search", args: { q: "lamp" } }])
      assert.deepStrictEqual(toolMessages(requests[1]!)[0]!.content, [{ type: "text", text: "search called" }])
    }).pipe(Effect.provide(layer))
  })

  it.effect("namespaceTools false keeps the remote name (E1)", () => {
    const { factory } = fakeFactory({ catalog: { tools: [tool("search")] } })
    const { layer, requests } = agentWith(
      { servers: [http("catalog")], clientFactory: factory, namespaceTools: false },
      [
        { text: "ok" }
      ]
    )
    return Effect.gen(function*() {
      yield* Agent.run("hi")
      assert.deepStrictEqual(requests[0]!.tools.map((t) => t.name), ["search"])
      assert.notInclude(systemOf(requests[0]!), "<server>__<tool>")
    }).pipe(Effect.provide(layer))
  })

  it.effect("exposed names are valid and stable; long names are hashed and still dispatch to the remote name (E2)", () => {
    const long = "x".repeat(100)
    const { factory, stats } = fakeFactory({ srv: { tools: [tool(long), tool("has space")] } })
    const exposed = McpTool.exposedName("srv", long, { namespace: true })
    const { layer, requests } = agentWith({ servers: [http("srv")], clientFactory: factory }, [
      { toolCalls: [{ name: exposed }] },
      { text: "ok" }
    ])
    return Effect.gen(function*() {
      yield* Agent.run("go")
      for (const t of requests[0]!.tools) assert.match(t.name, /^[A-Za-z0-9_-]{1,64}$/)
      assert.strictEqual(exposed.length, 64)
      assert.strictEqual(stats.calls[0]!.name, long)
    }).pipe(Effect.provide(layer))
  })

  it.effect("a tool whose exposed name is already registered is skipped with a warning; the request goes on (E3)", () => {
    const logs: Array<string> = []
    const { factory } = fakeFactory({
      a: { tools: [tool("same", {}, "from a")] },
      b: { tools: [tool("same", {}, "from b"), tool("other")] }
    })
    const { layer, requests } = agentWith({
      servers: [http("a"), http("b")],
      clientFactory: factory,
      namespaceTools: false
    }, [
      { text: "ok" }
    ])
    return Effect.gen(function*() {
      yield* Agent.run("hi")
      assert.deepStrictEqual(requests[0]!.tools.map((t) => [t.name, (t as any).description]), [
        ["same", "from a"],
        ["other", "the other tool"]
      ])
      assert.isTrue(logs.some((line) => line.includes("same") && line.includes("already registered")))
    }).pipe(
      Effect.provide(
        layer.pipe(
          Layer.provideMerge(Logger.layer([Logger.make(({ message }) => void logs.push(messageOf(message)))]))
        )
      )
    )
  })

  it.effect("input schemas reach the model without title, with the root's $schema, and a property named title stays (E4)", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      title: "Args",
      properties: { title: { type: "string", title: "Title", description: "the title", minLength: 1 } },
      required: ["title"]
    }
    const { factory } = fakeFactory({ docs: { tools: [tool("create", schema)] } })
    const { layer, requests } = agentWith({ servers: [http("docs")], clientFactory: factory }, [{ text: "ok" }])
    return Effect.gen(function*() {
      yield* Agent.run("hi")
      assert.deepStrictEqual(requests[0]!.tools[0]!.parameters, {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { title: { type: "string", description: "the title", minLength: 1 } },
        required: ["title"]
      })
    }).pipe(Effect.provide(layer))
  })

  it.effect("MCP tools carry no per-tool guidelines; the naming rule is stated once (E5)", () => {
    const { factory } = fakeFactory({ docs: { tools: [tool("a"), tool("b"), tool("c")] } })
    const { layer, requests } = agentWith({ servers: [http("docs")], clientFactory: factory }, [{ text: "ok" }], {
      extensions: [ToolGuidelines.make()]
    })
    return Effect.gen(function*() {
      yield* Agent.run("hi")
      const system = systemOf(requests[0]!)
      assert.strictEqual(system.split("<server>__<tool>").length - 1, 1)
      assert.notInclude(system, "Tool guidelines")
      assert.notInclude(system, "docs__a")
    }).pipe(Effect.provide(layer))
  })

  it.effect("MCP tools skip local validation: invalid arguments reach the server, which validates (E6)", () => {
    const strict = {
      type: "object",
      properties: { n: { type: "number" } },
      required: ["n"],
      additionalProperties: false
    }
    const { factory, stats } = fakeFactory({
      calc: {
        tools: [tool("square", strict)],
        call: (_name, args) =>
          Effect.succeed(
            typeof args.n === "number"
              ? text(String(args.n * args.n))
              : { content: [{ type: "text", text: "n must be a number" }], isError: true }
          )
      }
    })
    const { layer, requests } = agentWith({ servers: [http("calc")], clientFactory: factory }, [
      { toolCalls: [{ name: "calc__square", arguments: { n: "seven", extra: true } }] },
      { text: "ok" }
    ])
    return Effect.gen(function*() {
      yield* Agent.run("hi")
      assert.deepStrictEqual(stats.calls[0]!.args, { n: "seven", extra: true })
      const result = toolMessages(requests[1]!)[0]!
      assert.strictEqual(result.status, "TOOL_FAILED")
      assert.deepStrictEqual(result.content, { error: { type: "ToolFailed", message: "n must be a number" } })
    }).pipe(Effect.provide(layer))
  })

  it.effect("structuredContent is returned as the structured value; content blocks as JSON data; isError is a failure (E7)", () => {
    const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" } as const
    const { factory } = fakeFactory({
      s: {
        tools: [tool("structured"), tool("blocks"), tool("broken")],
        call: (name) =>
          Effect.succeed(
            name === "structured"
              ? { content: [{ type: "text", text: "{\"answer\":42}" }], structuredContent: { answer: 42 } }
              : name === "blocks"
              ? { content: [{ type: "text", text: "a picture" }, image] }
              : { content: [{ type: "text", text: "disk full" }], isError: true }
          )
      }
    })
    const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory }, [
      { toolCalls: [{ name: "s__structured" }, { name: "s__blocks" }, { name: "s__broken" }] },
      { text: "ok" }
    ])
    return Effect.gen(function*() {
      yield* Agent.run("hi")
      const [structured, blocks, broken] = toolMessages(requests[1]!)
      assert.deepStrictEqual(structured!.content, { answer: 42 })
      assert.deepStrictEqual(blocks!.content, [{ type: "text", text: "a picture" }, image])
      assert.deepStrictEqual(requests[1]!.messages.map((m) => m._tag).filter((t) => t === "UserMessage").length, 1)
      assert.deepStrictEqual([broken!.status, broken!.content], ["TOOL_FAILED", {
        error: { type: "ToolFailed", message: "disk full" }
      }])
    }).pipe(Effect.provide(layer))
  })

  it.effect("the system message names where the servers are configured, the naming rule and unavailable servers (E8)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({ up: { tools: [tool("t")] }, down: { connectError: "connection refused" } })
      const path = "/etc/zett/mcp.json"
      const { layer, requests } = agentWith({
        servers: servers([http("up"), http("down")], path).layer,
        clientFactory: factory
      }, [
        { text: "ok" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      const system = systemOf(requests[0]!)
      assert.include(system, `MCP servers are configured in ${path}.`)
      assert.include(system, "Tools named <server>__<tool> belong to the MCP server <server>.")
      assert.include(system, "down (connection refused)")
      assert.notInclude(system, "up (")
    }))

  it.effect("every connection a request opens is closed when it succeeds, fails, is interrupted, or compacts (D1)", () =>
    Effect.gen(function*() {
      const servers = { a: { tools: [tool("t")] }, b: { tools: [tool("t")] } }
      const defs = [http("a"), http("b")]
      const calls = { toolCalls: [{ name: "a__t" }, { name: "b__t" }] }

      const ok = fakeFactory(servers)
      yield* Agent.run("hi").pipe(
        Effect.provide(agentWith({ servers: defs, clientFactory: ok.factory }, [calls, { text: "ok" }]).layer)
      )
      assert.deepStrictEqual([ok.stats.connects, ok.stats.open()], [{ a: 1, b: 1 }, 0])

      const failing = fakeFactory(servers)
      const failed = yield* Effect.flip(
        Agent.run("hi").pipe(
          Effect.provide(agentWith({ servers: defs, clientFactory: failing.factory }, [calls]).layer)
        )
      )
      assert.strictEqual(failed._tag, "ModelError")
      assert.deepStrictEqual([failing.stats.connects, failing.stats.open()], [{ a: 1, b: 1 }, 0])

      const hanging = fakeFactory({ ...servers, b: { tools: [tool("t")], call: () => Effect.never } })
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        Agent.run("hi").pipe(
          Effect.provide(
            agentWith({ servers: defs, clientFactory: hanging.factory }, [calls], {
              extensions: [{
                name: "spy",
                beforeTool: (_c, call) => call.name === "b__t" ? Deferred.succeed(started, undefined) : Effect.void
              }]
            }).layer
          )
        )
      )
      yield* Deferred.await(started)
      yield* Effect.yieldNow
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual([hanging.stats.connects, hanging.stats.open()], [{ a: 1, b: 1 }, 0])

      const compacting = fakeFactory(servers)
      const { layer } = agentWith({ servers: defs, clientFactory: compacting.factory }, [calls, { text: "ok" }], {
        compaction: { shouldCompact: (ms) => ms.length > 3, compact: (ms) => Effect.succeed(ms.slice(-1)) }
      })
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("hi")
        yield* agent.compact
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual([compacting.stats.connects, compacting.stats.open()], [{ a: 1, b: 1 }, 0])
    }))

  it.effect("discovery is concurrent: servers listing in 1 s, 2 s and 3 s are all discovered after 3 s (D2)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        one: { tools: [tool("t")], listDelay: "1 second" },
        two: { tools: [tool("t")], listDelay: "2 seconds" },
        three: { tools: [tool("t")], listDelay: "3 seconds" }
      })
      const asked = yield* Deferred.make<void>()
      const { layer, requests } = agentWith({
        servers: [http("one"), http("two"), http("three")],
        clientFactory: factory
      }, [
        () => Effect.as(Deferred.succeed(asked, undefined), { text: "ok" })
      ])
      const fiber = yield* Effect.forkChild(Agent.run("hi").pipe(Effect.provide(layer)))
      yield* TestClock.adjust("2999 millis")
      assert.isFalse(yield* Deferred.isDone(asked))
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(requests[0]!.tools.map((t) => t.name), ["one__t", "two__t", "three__t"])
    }))

  it.effect("discovery is concurrent but bounded: 40 servers of 1 s each, 16 at a time by default, or discoveryConcurrency (D2)", () =>
    Effect.gen(function*() {
      const names = Array.from({ length: 40 }, (_, i) => `s${i}`)
      for (const [concurrency, seconds] of [[undefined, 3], [8, 5], [40, 1]] as const) {
        const { factory, stats } = fakeFactory(
          Object.fromEntries(names.map((n) => [n, { tools: [tool("t")], listDelay: "1 second" }]))
        )
        const asked = yield* Deferred.make<void>()
        const { layer, requests } = agentWith({
          servers: names.map((name) => http(name)),
          clientFactory: factory,
          ...(concurrency !== undefined ? { discoveryConcurrency: concurrency } : {})
        }, [() => Effect.as(Deferred.succeed(asked, undefined), { text: "ok" })])
        const fiber = yield* Effect.forkChild(Agent.run("hi").pipe(Effect.provide(layer)))
        yield* TestClock.adjust("1 millis")
        // connects begin in waves of the bound: no more are open at once
        assert.strictEqual(stats.open(), concurrency ?? McpExtension.defaultDiscoveryConcurrency)
        yield* TestClock.adjust(`${seconds * 1000 - 2} millis`)
        assert.isFalse(yield* Deferred.isDone(asked), `concurrency ${concurrency}`)
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(fiber)
        assert.strictEqual(requests[0]!.tools.length, 40)
      }
    }))

  it.effect("tool lists are cached per server configuration for toolsCacheTtl; a changed server is a new entry (D3)", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ docs: { tools: [tool("t")] } })
      // one agent (one cache) over two runs, then past the TTL
      const { layer } = agentWith({ servers: [http("docs")], clientFactory: factory, cache: { ttl: "1 minute" } }, [
        { text: "1" },
        { text: "2" },
        { text: "3" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
        assert.strictEqual(stats.connects.docs, 1)
        yield* TestClock.adjust("61 seconds")
        yield* agent.run("c")
        assert.strictEqual(stats.connects.docs, 2)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a changed server definition (a header value) is a different cache entry; ttl 0 disables the cache (D3)", () =>
    Effect.gen(function*() {
      assert.notStrictEqual(
        McpServerConfig.cacheKey(http("docs", { Authorization: "Bearer one" })),
        McpServerConfig.cacheKey(http("docs", { Authorization: "Bearer two" }))
      )
      const { factory, stats } = fakeFactory({ docs: { tools: [tool("t")] } })
      const { layer } = agentWith({ servers: [http("docs")], clientFactory: factory, cache: { ttl: 0 } }, [{
        text: "1"
      }, { text: "2" }])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
      }).pipe(Effect.provide(layer))
      assert.strictEqual(stats.connects.docs, 2)
    }))

  it.effect("a server whose definition changes under the same name is discovered again (the cache is keyed by the definition) (D3)", () =>
    Effect.gen(function*() {
      const at = (url: string) => McpServerConfig.http({ name: "docs", url })
      const configured = servers([at("http://127.0.0.1:9/alpha")])
      // a factory whose tool is named after the URL it was given: what the model sees tells which definition ran
      const connects: Array<string> = []
      const factory = McpClientFactory.of((server) =>
        Effect.sync(() => {
          const url = server._tag === "McpHttpServer" ? server.url : ""
          connects.push(url)
          const name = url.split("/").at(-1)!
          return McpClient.make({
            server: server.name,
            listTools: () => Effect.succeed({ tools: [tool(name)], nextCursor: undefined }),
            callTool: () => Effect.succeed(text(name))
          })
        })
      )
      const { layer, requests } = agentWith({ servers: configured.layer, clientFactory: factory }, [
        { text: "1" },
        { text: "2" },
        { text: "3" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
        // the same name, another definition
        configured.set([at("http://127.0.0.1:9/beta-version-two")])
        yield* agent.run("c")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(requests.map((r) => r.tools.map((t) => t.name)), [["docs__alpha"], ["docs__alpha"], [
        "docs__beta-version-two"
      ]])
      assert.deepStrictEqual(connects, ["http://127.0.0.1:9/alpha", "http://127.0.0.1:9/beta-version-two"])
    }))

  it.effect("a fault in one server's bookkeeping (a defect while it connects) loses that server only, with a reason", () =>
    Effect.gen(function*() {
      const factory = McpClientFactory.of((server) =>
        server.name === "broken"
          ? Effect.die(new URIError("URI malformed"))
          : Effect.succeed(McpClient.make({
            server: server.name,
            listTools: () => Effect.succeed({ tools: [tool("t")], nextCursor: undefined }),
            callTool: () => Effect.succeed(text("ok"))
          }))
      )
      const { layer, requests } = agentWith({ servers: [http("broken"), http("fine")], clientFactory: factory }, [{
        text: "done"
      }])
      const reply = yield* Effect.flatMap(Agent.Agent, (agent) => agent.run("hi")).pipe(Effect.provide(layer))
      assert.strictEqual(reply.content, "done")
      assert.deepStrictEqual(requests[0]!.tools.map((t) => t.name), ["fine__t"])
      assert.include(systemOf(requests[0]!), "broken (internal error: URI malformed)")
    }))

  it.effect("with a warm cache a request connects nothing until a tool is called, and then only that server (D4)", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({
        a: { tools: [tool("t")] },
        b: { tools: [tool("t")] },
        c: { tools: [tool("t")] }
      })
      let connectsAtModelCall = -1
      const { layer } = agentWith({ servers: [http("a"), http("b"), http("c")], clientFactory: factory }, [
        { text: "warm-up" },
        () => (connectsAtModelCall = Object.values(stats.connects).reduce((a, b) => a + b, 0),
          { toolCalls: [{ name: "b__t" }, { name: "b__t" }] }),
        { text: "done" }
      ], { toolConcurrency: 2 })
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("cold")
        assert.deepStrictEqual(stats.connects, { a: 1, b: 1, c: 1 })
        yield* agent.run("warm")
      }).pipe(Effect.provide(layer))
      assert.strictEqual(connectsAtModelCall, 3)
      assert.deepStrictEqual(stats.connects, { a: 1, b: 2, c: 1 })
      assert.strictEqual(stats.open(), 0)
    }))

  it.effect("a server that fails or exceeds connectTimeout is skipped and named; the others work; the run succeeds (D5)", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({
        good: { tools: [tool("t")] },
        refused: { connectError: "connection refused" },
        slow: { tools: [tool("t")], connectDelay: "1 minute" }
      })
      const { layer, requests } = agentWith(
        { servers: [http("good"), http("refused"), http("slow")], clientFactory: factory, connectTimeout: "5 seconds" },
        [{ toolCalls: [{ name: "good__t" }] }, { text: "fine" }]
      )
      const fiber = yield* Effect.forkChild(Agent.run("hi").pipe(Effect.provide(layer)))
      yield* TestClock.adjust("5 seconds")
      const reply = yield* Fiber.join(fiber)
      assert.strictEqual(reply.content, "fine")
      assert.deepStrictEqual(requests[0]!.tools.map((t) => t.name), ["good__t"])
      const system = systemOf(requests[0]!)
      assert.include(system, "refused (connection refused)")
      assert.include(system, "slow (timed out after 5s)")
      assert.strictEqual(toolMessages(requests[1]!)[0]!.status, "ok")
      assert.strictEqual(stats.open(), 0)
    }))

  it.effect("a call longer than callTimeout fails with a TimeoutError the model sees (D6)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        s: { tools: [tool("slow")], call: () => Effect.as(Effect.sleep("10 minutes"), text("late")) }
      })
      const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory, callTimeout: "1 minute" }, [
        { toolCalls: [{ name: "s__slow" }] },
        { text: "ok" }
      ])
      const fiber = yield* Effect.forkChild(Agent.run("hi").pipe(Effect.provide(layer)))
      yield* TestClock.adjust("1 minute")
      yield* Fiber.join(fiber)
      const result = toolMessages(requests[1]!)[0]!
      assert.deepStrictEqual([result.status, result.content], [
        "TOOL_FAILED",
        { error: { type: "Timeout", message: "s__slow did not finish within 1m" } }
      ])
    }))

  it.effect("the agent's toolTimeout bounds a call within callTimeout, timed once: by the call's limits, not a race of the agent's (D6)", () =>
    Effect.gen(function*() {
      let interrupted = 0
      const slow = () =>
        Effect.as(Effect.sleep("10 minutes"), text("late")).pipe(
          Effect.onInterrupt(() => Effect.sync(() => void interrupted++))
        )
      const { factory } = fakeFactory({ s: { tools: [tool("slow")], call: slow } })
      const { layer, requests } = agentWith(
        { servers: [http("s")], clientFactory: factory, callTimeout: "1 minute" },
        [{ toolCalls: [{ name: "s__slow" }] }, { toolCalls: [{ name: "s__slow" }] }, { text: "ok" }],
        { toolTimeout: "5 seconds" }
      )
      const fiber = yield* Effect.forkChild(Agent.run("hi").pipe(Effect.provide(layer)))
      yield* TestClock.adjust("5 seconds")
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(fiber)
      // the extension's words, from the call's own limits: the agent did not race the call
      assert.deepStrictEqual(toolMessages(requests[2]!).map((m) => m.content), [
        { error: { type: "Timeout", message: "s__slow did not finish within 5s" } },
        { error: { type: "Timeout", message: "s__slow did not finish within 5s" } }
      ])
      assert.strictEqual(interrupted, 2)
    }))

  it.effect("with resetTimeoutOnProgress, the agent's toolTimeout still caps a call that keeps reporting progress (D6)", () =>
    Effect.gen(function*() {
      // reports every second, never ends: each report starts callTimeout (2 s) afresh
      const reporting = (_name: string, _args: unknown, options?: McpClient.CallOptions) =>
        Effect.forever(
          Effect.andThen(Effect.sleep("1 second"), Effect.sync(() => options?.onProgress?.({ progress: 1 })))
        )
      const { factory } = fakeFactory({ s: { tools: [tool("busy")], call: reporting } })
      const { layer, requests } = agentWith(
        {
          servers: [http("s")],
          clientFactory: factory,
          callTimeout: "2 seconds",
          resetTimeoutOnProgress: true,
          maxCallTimeout: null
        },
        [{ toolCalls: [{ name: "s__busy" }] }, { text: "ok" }],
        { toolTimeout: "5 seconds" }
      )
      const fiber = yield* Effect.forkChild(Agent.run("hi").pipe(Effect.provide(layer)))
      for (let i = 0; i < 5; i++) yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(toolMessages(requests[1]!).map((m) => m.content), [
        { error: { type: "Timeout", message: "s__busy did not finish within 5s" } }
      ])
    }))

  it.effect("a server's own timeout overrides callTimeout, for that server only (D6)", () =>
    Effect.gen(function*() {
      const slow = () => Effect.as(Effect.sleep("10 minutes"), text("late"))
      const { factory } = fakeFactory({
        quick: { tools: [tool("slow")], call: slow },
        patient: { tools: [tool("slow")], call: slow }
      })
      const quick = McpServerConfig.http({
        name: "quick",
        url: "http://127.0.0.1:1/quick",
        timeout: Duration.seconds(2)
      })
      const { layer, requests } = agentWith({
        servers: [quick, http("patient")],
        clientFactory: factory,
        callTimeout: "1 hour"
      }, [
        { toolCalls: [{ name: "quick__slow" }, { name: "patient__slow" }] },
        { text: "ok" }
      ])
      const fiber = yield* Effect.forkChild(Agent.run("hi").pipe(Effect.provide(layer)))
      // the calls run one after the other: the first is cut at 2 s, the second gets its 10 minutes
      yield* TestClock.adjust("2 seconds")
      yield* TestClock.adjust("10 minutes")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(toolMessages(requests[1]!).map((m) => m.content), [
        { error: { type: "Timeout", message: "quick__slow did not finish within 2s" } },
        [{ type: "text", text: "late" }]
      ])
    }))

  it.effect("includeTools, excludeTools and toolFilter keep tools from the model; a call to one is refused (E1)", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("a"), tool("b"), tool("c"), tool("d")] } })
      const server = McpServerConfig.http({
        name: "s",
        url: "http://127.0.0.1:1/s",
        includeTools: ["a", "b", "c"],
        excludeTools: ["b"]
      })
      const { layer, requests } = agentWith(
        { servers: [server], clientFactory: factory, toolFilter: (_server, t) => t.remoteName !== "c" },
        [{ toolCalls: [{ name: "s__a" }, { name: "s__b" }, { name: "s__d" }] }, { text: "ok" }]
      )
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      assert.deepStrictEqual(requests[0]!.tools.map((t) => t.name), ["s__a"])
      assert.deepStrictEqual(toolMessages(requests[1]!).map((m) => [m.name, m.status]), [
        ["s__a", "ok"],
        ["s__b", "TOOL_FAILED"],
        ["s__d", "TOOL_FAILED"]
      ])
      assert.deepStrictEqual(stats.calls.map((c) => c.name), ["a"])
    }))

  it.effect("names not usable as a prefix get one by the E2 rules; two on one prefix are told apart with a warning (E2)", () =>
    Effect.gen(function*() {
      const dotted = McpServerConfig.http({ name: "a.b", url: "http://127.0.0.1:1/x" })
      const taken = McpServerConfig.toolPrefix(dotted)
      const { factory } = fakeFactory({ "a.b": { tools: [tool("t")] }, [taken]: { tools: [tool("t")] } })
      const clash = McpServerConfig.http({ name: taken, url: "http://127.0.0.1:1/y" })
      const warnings: Array<string> = []
      const { layer, requests } = agentWith({ servers: [dotted, clash], clientFactory: factory }, [{ text: "ok" }])
      yield* Agent.run("hi").pipe(
        Effect.provide(
          layer.pipe(
            Layer.provideMerge(Logger.layer([Logger.make(({ message }) => void warnings.push(messageOf(message)))]))
          )
        )
      )
      const names = requests[0]!.tools.map((t) => t.name)
      assert.strictEqual(names[0], `${taken}__t`)
      assert.match(names[1]!, new RegExp(`^${taken.slice(0, 20)}.*_[0-9a-f]{8}__t$`))
      assert.notStrictEqual(names[0], names[1])
      assert.isTrue(warnings.some((w) => w.includes("map to one tool prefix")), warnings.join("\n"))
      assert.include(systemOf(requests[0]!), `Tools named ${taken}__<tool> belong to the MCP server "a.b".`)
    }))

  it.effect("either timeout can be disabled with null (D6)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        s: {
          tools: [tool("slow")],
          connectDelay: "2 hours",
          call: () => Effect.as(Effect.sleep("10 hours"), text("late"))
        }
      })
      const { layer, requests } = agentWith(
        { servers: [http("s")], clientFactory: factory, callTimeout: null, connectTimeout: null },
        [{ toolCalls: [{ name: "s__slow" }] }, { text: "ok" }]
      )
      const fiber = yield* Effect.forkChild(Agent.run("hi").pipe(Effect.provide(layer)))
      yield* TestClock.adjust("2 hours")
      yield* TestClock.adjust("10 hours")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(toolMessages(requests[1]!)[0]!.content, [{ type: "text", text: "late" }])
    }))

  it.effect("an ordinary call failure is TOOL_FAILED without transport internals; the model continues (D7) (D8)", () =>
    Effect.gen(function*() {
      const failure = new McpError.McpRequestError({
        server: "s",
        method: "tools/call",
        code: -32603,
        reason: "Remote",
        description: "Error: ECONNRESET at http://user:pw@10.0.0.1/mcp\n    at Socket.onread (node:net:1)"
      })
      const { factory } = fakeFactory({ s: { tools: [tool("t")], call: () => Effect.fail(failure) } })
      const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory }, [
        { toolCalls: [{ name: "s__t" }] },
        { text: "continuing" }
      ])
      const reply = yield* Agent.run("hi").pipe(Effect.provide(layer))
      assert.strictEqual(reply.content, "continuing")
      const result = toolMessages(requests[1]!)[0]!
      assert.strictEqual(result.status, "TOOL_FAILED")
      const shown = JSON.stringify(result.content)
      assert.include(shown, "RequestFailed")
      for (const secret of ["ECONNRESET", "10.0.0.1", "pw@", "node:net"]) assert.notInclude(shown, secret)
    }))

  it.effect("the errorText policy decides which remote error text the model sees (D8)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        s: {
          tools: [tool("t")],
          call: () =>
            Effect.succeed({ content: [{ type: "text", text: "internal: db password wrong" }], isError: true })
        }
      })
      const run = (errorText?: McpToolResult.ErrorTextPolicy) => {
        const { layer, requests } = agentWith({
          servers: [http("s")],
          clientFactory: factory,
          ...(errorText ? { errorText } : {})
        }, [
          { toolCalls: [{ name: "s__t" }] },
          { text: "ok" }
        ])
        return Effect.as(Agent.run("hi").pipe(Effect.provide(layer)), requests)
      }
      const byDefault = yield* run()
      assert.include(JSON.stringify(toolMessages(byDefault[1]!)[0]!.content), "db password wrong")
      const generic = yield* run(McpToolResult.ErrorTextPolicy.generic)
      assert.notInclude(JSON.stringify(toolMessages(generic[1]!)[0]!.content), "db password")
      const custom = yield* run(() => "the tool failed; ask the operator")
      assert.deepStrictEqual(toolMessages(custom[1]!)[0]!.content, {
        error: { type: "ToolFailed", message: "the tool failed; ask the operator" }
      })
    }))

  it.effect("a server that repeats a pagination cursor, or returns more than 100 pages, is unavailable (D9)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({
        loop: { pages: (cursor) => ({ tools: [tool(`t${cursor ?? 0}`)], nextCursor: cursor === "1" ? "1" : "1" }) },
        endless: {
          pages: (cursor) => ({ tools: [tool(`t${cursor ?? 0}`)], nextCursor: String(Number(cursor ?? 0) + 1) })
        },
        hundred: {
          pages: (cursor) => {
            const n = Number(cursor ?? 0)
            return n < 99 ? { tools: [tool(`t${n}`)], nextCursor: String(n + 1) } : { tools: [tool(`t${n}`)] }
          }
        }
      })
      // every tool offered, not searched: the test counts them
      const { layer, requests } = agentWith({
        servers: [http("loop"), http("endless"), http("hundred")],
        clientFactory: factory,
        toolSearch: { mode: "off" }
      }, [
        { text: "ok" }
      ])
      yield* Agent.run("hi").pipe(Effect.provide(layer))
      const system = systemOf(requests[0]!)
      assert.include(system, "loop (tools/list failed: the server repeated a pagination cursor)")
      assert.include(system, "endless (tools/list failed: more than 100 pages of tools)")
      assert.strictEqual(requests[0]!.tools.length, 100)
      assert.isTrue(requests[0]!.tools.every((t) => t.name.startsWith("hundred__")))
    }))

  it.effect("defaults: namespaced names, connectTimeout 30 s, callTimeout 300 s, toolsCacheTtl 300 s (C1)", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({
        fast: { tools: [tool("slow")], call: () => Effect.as(Effect.sleep("301 seconds"), text("late")) },
        slow: { tools: [tool("t")], connectDelay: "31 seconds" }
      })
      const { layer, requests } = agentWith({ servers: [http("fast"), http("slow")], clientFactory: factory }, [
        { toolCalls: [{ name: "fast__slow" }] },
        { text: "1" },
        { text: "2" },
        { text: "3" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        const fiber = yield* Effect.forkChild(agent.run("a"))
        yield* TestClock.adjust("29 seconds")
        assert.strictEqual(requests.length, 0)
        yield* TestClock.adjust("1 second")
        assert.strictEqual(requests.length, 1)
        assert.deepStrictEqual(requests[0]!.tools.map((t) => t.name), ["fast__slow"])
        assert.include(systemOf(requests[0]!), "slow (timed out after 30s)")
        yield* TestClock.adjust("300 seconds")
        yield* Fiber.join(fiber)
        assert.deepStrictEqual((toolMessages(requests[1]!)[0]!.content as any).error.type, "Timeout")
        // the tool list of `fast` was cached at t=0 (30 s of discovery, 300 s of call since): 330 s > 300 s
        const before = stats.connects.fast
        const second = yield* Effect.forkChild(agent.run("b"))
        yield* TestClock.adjust("30 seconds")
        yield* Fiber.join(second)
        assert.strictEqual(stats.connects.fast, before! + 1)
        // and within 300 s it is reused
        const third = yield* Effect.forkChild(agent.run("c"))
        yield* TestClock.adjust("30 seconds")
        yield* Fiber.join(third)
        assert.strictEqual(stats.connects.fast, before! + 1)
      }).pipe(Effect.provide(layer))
    }))

  it.effect("a warm request registers the agent tools built for the request before; each call uses its own request's connection", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const seen: Array<Tool.Tool | undefined> = []
      const probe: Extension.Extension = {
        name: "probe",
        onState: (context) => Effect.sync(() => void seen.push(context.tools.get("s__t")))
      }
      const callOrAnswer: ScriptedModel.Step = (request) =>
        request.messages.at(-1)?._tag === "ToolMessage" ? { text: "done" } : { toolCalls: [{ name: "s__t" }] }
      const { layer, requests } = agentWith(
        { servers: [http("s")], clientFactory: factory },
        Array.from({ length: 6 }, () => callOrAnswer),
        { extensions: [probe] }
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        // two requests at once: each call goes through the connection of its own request
        yield* Effect.all([agent.run("b"), agent.run("c")], { concurrency: "unbounded" })
      }).pipe(Effect.provide(layer))
      assert.strictEqual(seen.length, 6)
      assert.isDefined(seen[0])
      for (const found of seen) assert.strictEqual(found, seen[0])
      assert.deepStrictEqual([stats.connects, stats.closes, stats.calls.length], [{ s: 3 }, { s: 3 }, 3])
      const answered = requests.filter((request) => request.messages.at(-1)?._tag === "ToolMessage")
      assert.deepStrictEqual(answered.map((request) => toolMessages(request).at(-1)?.status), ["ok", "ok", "ok"])
    }))

  it.effect("two MCP extensions of one agent, under their own names, each call their own servers with their own request state (A4)", () =>
    Effect.gen(function*() {
      const one = fakeFactory({ a: { tools: [tool("t")] } })
      const two = fakeFactory({ b: { tools: [tool("t")] } })
      const extensionOf = (name: string, server: string, factory: McpClientFactory.McpClientFactory["Service"]) =>
        McpExtension.make({ name }).pipe(
          Effect.provide(Layer.mergeAll(
            McpServers.layer([http(server)]),
            Layer.succeed(McpClientFactory.McpClientFactory, factory),
            McpToolCache.layerMemory({ ttl: "5 minutes" })
          ))
        )
      const first = yield* extensionOf("first", "a", one.factory)
      const second = yield* extensionOf("second", "b", two.factory)
      const agent = yield* Agent.make({ extensions: [first, second] }).pipe(
        Effect.provide(ScriptedModel.layer([
          { toolCalls: [{ name: "a__t", arguments: { n: 1 } }, { name: "b__t", arguments: { n: 2 } }] },
          (request) => ({
            text: toolMessages(request).map((m) => `${m.status}:${JSON.stringify(m.content)}`).join(" ")
          })
        ]))
      )
      const reply = yield* agent.run("both")
      assert.deepStrictEqual(one.stats.calls, [{ server: "a", name: "t", args: { n: 1 } }])
      assert.deepStrictEqual(two.stats.calls, [{ server: "b", name: "t", args: { n: 2 } }])
      const called = JSON.stringify([{ type: "text", text: "t called" }])
      assert.strictEqual(reply.content, `ok:${called} ok:${called}`)
    }))

  it.effect("an MCP tool's handler called outside a request of its extension fails as ServerUnavailable", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      let found: Tool.Tool | undefined
      const probe: Extension.Extension = {
        name: "probe",
        onState: (context) => Effect.sync(() => void (found = context.tools.get("s__t")))
      }
      const { layer } = agentWith({ servers: [http("s")], clientFactory: factory }, [{ text: "1" }, { text: "2" }], {
        extensions: [probe]
      })
      let other: Extension.RunContext | undefined
      const outsider: Extension.Extension = {
        name: "outsider",
        onTool: (context) => Effect.sync(() => void (other = context))
      }
      yield* Agent.run("a").pipe(Effect.provide(layer))
      yield* Agent.run("b").pipe(
        Effect.provide(
          Agent.layer({ extensions: [outsider] }).pipe(Layer.provideMerge(ScriptedModel.layer([{ text: "3" }])))
        )
      )
      const error = (yield* Effect.flip(
        found!.handle({}, new Message.ToolCall({ id: "x", name: "s__t", arguments: {} }), other!)
      )) as Tool.ToolError
      assert.deepStrictEqual([error.reason, error.message], [
        "Unavailable",
        "s: called outside the request that registered s__t"
      ])
      assert.strictEqual(stats.calls.length, 0)
    }))

  it.effect("metrics count cache hits and misses and tool calls per server, with no secret in their tags", () =>
    Effect.gen(function*() {
      const name = `metrics${Date.now()}`
      const { factory } = fakeFactory({ [name]: { tools: [tool("t")] } })
      const { layer } = agentWith({
        servers: [http(name, { Authorization: "Bearer metric-secret" })],
        clientFactory: factory
      }, [
        { toolCalls: [{ name: `${name}__t` }] },
        { text: "1" },
        { text: "2" }
      ])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
      }).pipe(Effect.provide(layer))
      const hits = yield* Metric.value(Metric.withAttributes(McpToolCache.hits, { "mcp.server": name }))
      const misses = yield* Metric.value(Metric.withAttributes(McpToolCache.misses, { "mcp.server": name }))
      const calls = yield* Metric.value(
        Metric.withAttributes(McpExtension.toolCalls, { "mcp.server": name, outcome: "ok" })
      )
      assert.deepStrictEqual([hits.count, misses.count, calls.count], [1, 1, 1])
      const snapshot = JSON.stringify(yield* Metric.snapshot)
      assert.notInclude(snapshot, "metric-secret")
    }))

  it.effect("a connect interrupted by a caller is not remembered: the next call of the request connects again (D1)", () =>
    Effect.gen(function*() {
      let connectDelay: Duration.Input | undefined = "10 seconds"
      const { factory, stats } = fakeFactory({
        s: {
          tools: [tool("t")],
          get connectDelay() {
            return connectDelay
          }
        }
      })
      const { layer, requests } = agentWith({ servers: [http("s")], clientFactory: factory }, [
        { text: "warm-up" },
        () => (connectDelay = "10 seconds", { toolCalls: [{ id: "1", name: "s__t" }] }),
        () => (connectDelay = undefined, { toolCalls: [{ id: "2", name: "s__t" }] }),
        { text: "done" }
      ], {
        extensions: [{
          name: "impatient",
          onToolCall: (_context, call, next) =>
            call.id === "1"
              ? Effect.timeoutOrElse(next(call), { duration: "1 second", orElse: () => Effect.fail("impatient") })
              : next(call)
        }]
      })
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        connectDelay = undefined
        yield* agent.run("warm the cache")
        const fiber = yield* Effect.forkChild(agent.run("call twice"))
        yield* TestClock.adjust("1 second")
        yield* Fiber.join(fiber)
      }).pipe(Effect.provide(layer))
      const results = toolMessages(requests[3]!)
      assert.deepStrictEqual(results.map((m) => m.status), ["TOOL_FAILED", "ok"])
      assert.strictEqual(stats.connects.s, 3)
      assert.strictEqual(stats.open(), 0)
    }))

  it.effect("the extension is pending only while a request uses it (A9) (D1)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith({ servers: [http("s")], clientFactory: factory }, [{ text: "ok" }])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        const mcp = agent.extensions[0]!
        assert.strictEqual(mcp.name, "mcp")
        assert.isFalse(yield* agent.pending(mcp))
        yield* agent.run("hi")
        assert.isFalse(yield* agent.pending(mcp))
      }).pipe(Effect.provide(layer))
    }))
})
