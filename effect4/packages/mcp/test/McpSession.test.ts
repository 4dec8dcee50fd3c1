import { assert, describe, it } from "@effect/vitest"
import type { Tool } from "@zett/agent"
import { McpConnections, McpServerConfig, McpToolCache, McpToolResult } from "@zett/mcp"
import { fakeFactory, type FakeServer, text, tool } from "@zett/testing-core/FakeMcp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/testing/TestClock"
import * as Session from "../src/internal/session.js"

// What the MCP extension runs a request with (the 3 line's McpExtension tests of these parts, ported ahead of the
// extension itself): settings, discovery of every server, one call, the system text.

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

/** A request's state over fake servers: its connections, the tool cache, the servers resolved. */
const requestWith = (fakes: Record<string, FakeServer>, options: Session.Options = {}) =>
  Effect.gen(function*() {
    const { factory, stats } = fakeFactory(fakes)
    const settings = Session.settings(options)
    const scope = yield* Scope.make()
    const connections = yield* McpConnections.make({ source: McpConnections.direct(factory), scope })
    const cache = yield* McpToolCache.makeMemory()
    const servers = Object.keys(fakes).map(http)
    const resolved = Session.resolver(settings, (entry) => entry)({ path: undefined, servers, skipped: [] })
    const unavailable: Array<Session.Unavailable> = []
    const discover = Session.discoverAll(settings, cache, connections, resolved, unavailable, (entry, tools) =>
      tools.filter((t) =>
        Session.allows(settings, entry.server, t)
      ).map((t) => ({ entry, tool: t })))
    return { settings, connections, cache, resolved, unavailable, discover, stats, scope }
  })

const failureOf = <A>(exit: Exit.Exit<A, Tool.ToolError>): Tool.ToolError => {
  assert.isTrue(Exit.isFailure(exit))
  const error = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail") : undefined
  assert.isDefined(error)
  return (error as { readonly error: Tool.ToolError }).error
}

describe("McpSession", () => {
  it("defaults: namespaced names, connectTimeout 30 s, callTimeout 300 s; null disables a timeout (C1) (D6)", () => {
    const settings = Session.settings({})
    assert.isTrue(settings.namespace)
    assert.deepStrictEqual(settings.connectTimeout, Option.some(Duration.seconds(30)))
    assert.deepStrictEqual(settings.callTimeout, Option.some(Duration.seconds(300)))
    assert.deepStrictEqual(settings.maxCallTimeout, Option.some(Duration.hours(1)))
    assert.isTrue(settings.resetOnProgress)
    assert.strictEqual(settings.discoveryConcurrency, 16)
    assert.strictEqual(settings.tasks, "wait")
    const off = Session.settings({ connectTimeout: null, callTimeout: null, namespaceTools: false })
    assert.isTrue(Option.isNone(off.connectTimeout))
    assert.isTrue(Option.isNone(off.callTimeout))
    assert.isFalse(off.namespace)
  })

  it("the unavailable servers of a huge configuration are one readable line (D2)", () => {
    const unavailable = [
      ...Array.from({ length: 9_999 }, (_, i) => ({ server: `s${i}`, reason: "connect ECONNREFUSED" })),
      { server: "odd", reason: "HTTP 500 Internal Server Error" }
    ]
    assert.strictEqual(
      Session.summarizeUnavailable(unavailable),
      "s0 (connect ECONNREFUSED); s1 (connect ECONNREFUSED); s2 (connect ECONNREFUSED); 9,996 more servers failed the " +
        "same way; odd (HTTP 500 Internal Server Error)"
    )
    assert.strictEqual(
      Session.summarizeUnavailable([{ server: "a", reason: "x" }, { server: "b", reason: "y" }]),
      "a (x); b (y)"
    )
    const many = Array.from({ length: 30 }, (_, i) => ({ server: `r${i}`, reason: `reason ${i}` }))
    assert.match(
      Session.summarizeUnavailable(many),
      /; r9 \(reason 9\); 20 more servers failed for other reasons$/
    )
  })

  it("the unavailable line counts the rest of a group and the other groups, one server in the singular", () => {
    const group = (reason: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ server: `${reason}${i}`, reason }))
    // exactly as many as are named: nothing more to count
    assert.strictEqual(Session.summarizeUnavailable(group("x", 3)), "x0 (x); x1 (x); x2 (x)")
    assert.strictEqual(
      Session.summarizeUnavailable(group("x", 4)),
      "x0 (x); x1 (x); x2 (x); 1 more server failed the same way"
    )
    const eleven = Array.from({ length: 11 }, (_, i) => group(`r${i}-`, 1)).flat()
    const line = Session.summarizeUnavailable(eleven)
    assert.isTrue(line.startsWith("r0-0 (r0-); r1-0 (r1-); "), line)
    assert.isTrue(line.endsWith("; r9-0 (r9-); 1 more server failed for other reasons"), line)
    assert.strictEqual(
      Session.summarizeUnavailable(Array.from({ length: 10 }, (_, i) => group(`r${i}-`, 1)).flat()).split("; ")
        .length,
      10
    )
  })

  it.effect("the system text names where the servers are configured, the naming rule and unavailable servers (E8)", () =>
    Effect.gen(function*() {
      const path = "/etc/zett/mcp.json"
      const { discover, settings, unavailable } = yield* requestWith({
        up: { tools: [tool("t")] },
        down: { connectError: "connection refused" }
      })
      const tools = yield* discover
      assert.deepStrictEqual(tools.map(({ tool }) => tool.name), ["up__t"])
      const system = Session.describe(
        settings,
        { path, servers: [http("up"), http("down")], skipped: [] },
        unavailable,
        () => false
      )
      assert.include(system, `MCP servers are configured in ${path}.`)
      assert.include(system, "Tools named <server>__<tool> belong to the MCP server <server>.")
      assert.include(system, "down (connection refused)")
      assert.notInclude(system, "up (")
    }))

  it("without namespaced tools the system text states no naming rule; with every server available it lists none (E1)", () => {
    const system = Session.describe(
      Session.settings({ namespaceTools: false }),
      { path: undefined, servers: [http("catalog")], skipped: [] },
      [],
      () => false
    )
    assert.strictEqual(system, "MCP servers are configured in code.")
  })

  it.effect("discovery is concurrent: servers listing in 1 s, 2 s and 3 s are all discovered after 3 s (D2)", () =>
    Effect.gen(function*() {
      const { discover } = yield* requestWith({
        a: { tools: [tool("a")], listDelay: "1 second" },
        b: { tools: [tool("b")], listDelay: "2 seconds" },
        c: { tools: [tool("c")], listDelay: "3 seconds" }
      })
      const fiber = yield* Effect.forkChild(discover)
      yield* TestClock.adjust("3 seconds")
      const tools = yield* Fiber.join(fiber)
      // in configuration order whatever order discovery finished in
      assert.deepStrictEqual(tools.map(({ tool }) => tool.name), ["a__a", "b__b", "c__c"])
    }))

  it.effect("a server that fails or exceeds connectTimeout is unavailable and named; the others are discovered (D5)", () =>
    Effect.gen(function*() {
      const { discover, unavailable } = yield* requestWith({
        ok: { tools: [tool("t")] },
        slow: { tools: [tool("t")], connectDelay: "1 minute" },
        broken: { connectError: "boom" }
      })
      const fiber = yield* Effect.forkChild(discover)
      yield* TestClock.adjust("30 seconds")
      const tools = yield* Fiber.join(fiber)
      assert.deepStrictEqual(tools.map(({ tool }) => tool.name), ["ok__t"])
      assert.deepStrictEqual(unavailable.map(({ server }) => server).sort(), ["broken", "slow"])
      assert.include(unavailable.find(({ server }) => server === "broken")!.reason, "boom")
    }))

  it.effect("tool lists are cached per server: a second discovery lists nothing and connects nothing (D3) (D4)", () =>
    Effect.gen(function*() {
      const { discover, stats } = yield* requestWith({ a: { tools: [tool("t")] } })
      yield* discover
      assert.strictEqual(stats.connects["a"], 1)
      const again = yield* discover
      assert.deepStrictEqual(again.map(({ tool }) => tool.name), ["a__t"])
      assert.strictEqual(stats.connects["a"], 1)
    }))

  it.effect("includeTools, excludeTools and toolFilter keep tools from the model (E1)", () =>
    Effect.gen(function*() {
      const { discover } = yield* requestWith(
        { a: { tools: [tool("keep"), tool("drop"), tool("hidden")] } },
        { toolFilter: (_, t) => t.remoteName !== "hidden" }
      )
      const tools = yield* discover
      assert.deepStrictEqual(tools.map(({ tool }) => tool.name), ["a__keep", "a__drop"])
      const server = McpServerConfig.http({ name: "a", url: "http://127.0.0.1:1/a", excludeTools: ["drop"] })
      assert.isFalse(Session.allows(Session.settings({}), server, tools[1]!.tool))
      assert.isTrue(Session.allows(Session.settings({}), server, tools[0]!.tool))
    }))

  it.effect("a call reaches its server under the remote name; its result is what the model reads (E1) (E7)", () =>
    Effect.gen(function*() {
      const { connections, discover, settings, stats } = yield* requestWith({
        catalog: {
          tools: [tool("search")],
          call: (_, args) => Effect.succeed({ content: [], structuredContent: { found: args["q"] } })
        }
      })
      const [{ entry, tool: search }] = yield* discover
      const value = yield* Session.callTool(settings, connections, entry!, search!, { q: "lamp" })
      assert.deepStrictEqual(value, { found: "lamp" })
      assert.deepStrictEqual(stats.calls, [{ server: "catalog", name: "search", args: { q: "lamp" } }])
    }))

  it.effect("an isError result is a ToolFailed failure with the tool's text (E7) (D8)", () =>
    Effect.gen(function*() {
      const { connections, discover, settings } = yield* requestWith({
        a: { tools: [tool("t")], call: () => Effect.succeed({ ...text("no such lamp"), isError: true }) }
      })
      const [{ entry, tool: t }] = yield* discover
      const error = failureOf(yield* Effect.exit(Session.callTool(settings, connections, entry!, t!, {})))
      assert.strictEqual(error.reason, "ToolFailed")
      assert.strictEqual(error.message, "no such lamp")
      // the generic policy hides the server's text
      const generic = Session.settings({ errorText: McpToolResult.ErrorTextPolicy.generic })
      const hidden = failureOf(yield* Effect.exit(Session.callTool(generic, connections, entry!, t!, {})))
      assert.notInclude(hidden.message, "no such lamp")
    }))

  it.effect("a call longer than callTimeout fails with a Timeout the model sees; a server's own timeout wins (D6)", () =>
    Effect.gen(function*() {
      const { connections, discover, settings } = yield* requestWith(
        { a: { tools: [tool("t")], call: () => Effect.as(Effect.sleep("10 seconds"), text("late")) } },
        { callTimeout: "5 seconds" }
      )
      const [{ entry, tool: t }] = yield* discover
      const fiber = yield* Effect.forkChild(Effect.exit(Session.callTool(settings, connections, entry!, t!, {})))
      yield* TestClock.adjust("5 seconds")
      const error = failureOf(yield* Fiber.join(fiber))
      assert.strictEqual(error.reason, "Timeout")
      assert.include(error.message, "did not finish within 5s")
      const patient = {
        ...entry!,
        server: McpServerConfig.http({ name: "a", url: "http://127.0.0.1:1/a", timeout: Duration.seconds(20) })
      }
      const late = yield* Effect.forkChild(Session.callTool(settings, connections, patient, t!, {}))
      yield* TestClock.adjust("10 seconds")
      assert.deepStrictEqual(yield* Fiber.join(late), [{ type: "text", text: "late" }])
    }))

  it.effect("the agent's toolTimeout bounds a call within callTimeout (D6)", () =>
    Effect.gen(function*() {
      const { connections, discover, settings } = yield* requestWith({
        a: { tools: [tool("t")], call: () => Effect.as(Effect.sleep("1 minute"), text("late")) }
      })
      const [{ entry, tool: t }] = yield* discover
      const fiber = yield* Effect.forkChild(
        Effect.exit(Session.callTool(settings, connections, entry!, t!, {}, undefined, Duration.seconds(2)))
      )
      yield* TestClock.adjust("2 seconds")
      const error = failureOf(yield* Fiber.join(fiber))
      assert.strictEqual(error.reason, "Timeout")
    }))

  it.effect("a call to an unavailable server fails as Unavailable, naming the server (D5)", () =>
    Effect.gen(function*() {
      const { connections, resolved, settings } = yield* requestWith({ down: { connectError: "connection refused" } })
      const error = failureOf(
        yield* Effect.exit(
          Session.callTool(settings, connections, resolved[0]!, { name: "down__t", remoteName: "t" } as never, {})
        )
      )
      assert.strictEqual(error.reason, "Unavailable")
      assert.include(error.message, "down: ")
    }))
})
