/**
 * McpToolkit through `effect/ai`'s own `LanguageModel.generateText`, with a language model made by
 * `LanguageModel.make` that answers from a script and records what the provider would be sent, over fake
 * servers (every delay on TestClock).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory, McpError, McpServerConfig, McpServers, McpToolCache, McpToolkit } from "@zett/mcp"
import { captureLogs } from "@zett/testing-core/CapturedLogs"
import { fakeFactory, type FakeServer, text, tool } from "@zett/testing-core/FakeMcp"
import { LanguageModel, Prompt, type Response, Tool as AiTool } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"

const http = (name: string) => McpServerConfig.http({ name, url: `http://127.0.0.1:1/${name}` })

interface Seen {
  readonly tools: ReadonlyArray<
    { readonly name: string; readonly description: string | undefined; readonly parameters: unknown }
  >
  readonly prompt: Prompt.Prompt
}

/** A language model that answers the n-th request with the n-th step, and records each request. */
export const scriptedModel = (steps: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>) => {
  const seen: Array<Seen> = []
  const layer = Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync(() => {
          seen.push({
            prompt: options.prompt,
            tools: options.tools.map((t) => ({
              name: t.name,
              description: t.description,
              parameters: AiTool.getJsonSchema(t)
            }))
          })
          return [...steps[Math.min(seen.length - 1, steps.length - 1)]!]
        }),
      streamText: () => Stream.die("not streamed")
    })
  )
  return { seen, layer }
}

export const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
export const callStep = (name: string, params: unknown, id = "call_1"): ReadonlyArray<Response.PartEncoded> => [
  { type: "tool-call", id, name, params },
  { type: "finish", reason: "tool-calls", usage }
]
export const textStep = (value: string): ReadonlyArray<Response.PartEncoded> => [
  { type: "text", text: value },
  { type: "finish", reason: "stop", usage }
]

const layers = (
  servers: Record<string, FakeServer>,
  definitions: ReadonlyArray<McpServerConfig.McpServerConfig>,
  steps: ReadonlyArray<ReadonlyArray<Response.PartEncoded>>,
  ttl: "5 minutes" | "1 minute" = "5 minutes"
) => {
  const { factory, stats } = fakeFactory(servers)
  const model = scriptedModel(steps)
  const layer = Layer.mergeAll(
    McpServers.layer(definitions),
    Layer.succeed(McpClientFactory.McpClientFactory, factory),
    McpToolCache.layerMemory({ ttl }),
    model.layer
  )
  return { layer, stats, seen: model.seen }
}

/** One turn: the model's answer to the question with the toolkit's tools. */
const turn = (mcp: McpToolkit.McpToolkit, question = "go") =>
  LanguageModel.generateText({ prompt: Prompt.make(question), toolkit: mcp.toolkit })

describe("McpToolkit", () => {
  it.effect("a tool reaches the provider with its server's JSON Schema, and the model's call runs on its server", () => {
    const schema = {
      type: "object",
      properties: { q: { type: "string", description: "what to find" } },
      required: ["q"]
    }
    const { layer, seen, stats } = layers({ catalog: { tools: [tool("search", schema)] } }, [http("catalog")], [
      callStep("catalog__search", { q: "lamp" })
    ])
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make()
      const response = yield* turn(mcp)
      assert.deepStrictEqual(seen[0]!.tools, [{
        name: "catalog__search",
        description: "the search tool",
        parameters: schema
      }])
      assert.deepStrictEqual(stats.calls, [{ server: "catalog", name: "search", args: { q: "lamp" } }])
      assert.deepStrictEqual(response.toolResults.map((r) => [r.name, r.isFailure, r.result]), [
        ["catalog__search", false, [{ type: "text", text: "search called" }]]
      ])
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("a generateText loop of the app's own: the model calls an MCP tool, reads its result in the next request, and answers", () => {
    const { layer, seen, stats } = layers(
      {
        calc: {
          tools: [tool("add")],
          call: (_name, args) => Effect.succeed(text(String(Number(args.a) + Number(args.b))))
        }
      },
      [http("calc")],
      [callStep("calc__add", { a: 2, b: 3 }), textStep("2 + 3 is 5")]
    )
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make()
      let prompt = Prompt.concat(Prompt.make([{ role: "system", content: mcp.system }]), Prompt.make("What is 2 + 3?"))
      let response = yield* LanguageModel.generateText({ prompt, toolkit: mcp.toolkit })
      let turns = 1
      while (response.finishReason === "tool-calls" && turns < 5) {
        prompt = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
        response = yield* LanguageModel.generateText({ prompt, toolkit: mcp.toolkit })
        turns++
      }
      assert.deepStrictEqual([turns, response.text], [2, "2 + 3 is 5"])
      assert.deepStrictEqual(stats.calls, [{ server: "calc", name: "add", args: { a: 2, b: 3 } }])
      // what the model was given: the tool, the system text, and the call's result in the second request
      assert.deepStrictEqual(seen.map((request) => request.tools.map((t) => t.name)), [["calc__add"], ["calc__add"]])
      const system = seen[0]!.prompt.content.find((message) => message.role === "system")
      assert.include(system?.content, "Tools named <server>__<tool> belong to the MCP server <server>.")
      const results = seen[1]!.prompt.content.flatMap((message) => message.role === "tool" ? message.content : [])
      assert.deepStrictEqual(
        results.map((part) => part.type === "tool-result" ? [part.name, part.isFailure, part.result] : part),
        [["calc__add", false, [{ type: "text", text: "5" }]]]
      )
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("an MCP tool is offered as not strict: a server's JSON Schema need not meet a provider's strict subset", () => {
    const { layer } = layers({ a: { tools: [tool("x")] } }, [http("a")], [textStep("ok")])
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make()
      assert.deepStrictEqual(Object.values(mcp.toolkit.tools).map((t) => AiTool.getStrictMode(t)), [false])
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("a structured result is the value the model gets, as the agent's tools give it", () => {
    const { layer } = layers(
      {
        weather: {
          tools: [tool("now")],
          call: () => Effect.succeed({ content: [text("12 C").content[0]!], structuredContent: { celsius: 12 } })
        }
      },
      [http("weather")],
      [callStep("weather__now", {})]
    )
    return Effect.gen(function*() {
      const response = yield* turn(yield* McpToolkit.make())
      assert.deepStrictEqual(response.toolResults[0]!.result, { celsius: 12 })
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("a call that runs out of time is a failure result the model reads (TimeoutError), not a defect", () => {
    const { layer, seen, stats } = layers(
      { slow: { tools: [tool("wait")], call: () => Effect.never } },
      [http("slow")],
      [
        callStep("slow__wait", {}),
        textStep("gave up")
      ]
    )
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make({ callTimeout: "1 second" })
      const fiber = yield* Effect.forkChild(turn(mcp))
      // the call's timer starts with the call
      for (let i = 0; i < 100 && stats.calls.length === 0; i++) yield* Effect.yieldNow
      yield* TestClock.adjust("1 second")
      const response = yield* Fiber.join(fiber)
      const result = response.toolResults[0]!
      assert.isTrue(result.isFailure)
      assert.instanceOf(result.result, McpToolkit.McpToolFailure)
      const failure = result.result as McpToolkit.McpToolFailure
      assert.deepStrictEqual([failure.reason, failure.message], ["Timeout", "slow__wait did not finish within 1s"])
      // the failure goes back to the model in the next prompt, encoded
      yield* LanguageModel.generateText({
        prompt: Prompt.concat(Prompt.make("go"), Prompt.fromResponseParts(response.content)),
        toolkit: mcp.toolkit
      })
      const sent = seen[1]!.prompt.content.flatMap((message) => message.role === "tool" ? message.content : [])
      assert.deepStrictEqual(sent.map((part) => part.type === "tool-result" ? part.result : part), [{
        _tag: "McpToolFailure",
        reason: "Timeout",
        message: "slow__wait did not finish within 1s"
      }])
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("an isError result and a failed request are failures with the agent's reasons (ToolFailed, RequestFailed)", () => {
    const { layer } = layers(
      {
        s: {
          tools: [tool("bad"), tool("broken")],
          call: (name) =>
            name === "bad"
              ? Effect.succeed({ content: [{ type: "text", text: "no such file" }], isError: true })
              : Effect.fail(
                new McpError.McpRequestError({
                  server: "s",
                  method: "tools/call",
                  reason: "Remote",
                  code: -32603,
                  description: "internal error"
                })
              )
        }
      },
      [http("s")],
      [[
        { type: "tool-call", id: "1", name: "s__bad", params: {} },
        { type: "tool-call", id: "2", name: "s__broken", params: {} },
        { type: "finish", reason: "tool-calls", usage }
      ]]
    )
    return Effect.gen(function*() {
      const response = yield* turn(yield* McpToolkit.make())
      const failures = response.toolResults.map((r) => [r.isFailure, (r.result as McpToolkit.McpToolFailure).reason])
      assert.deepStrictEqual(failures, [[true, "ToolFailed"], [true, "RequestFailed"]])
      assert.strictEqual((response.toolResults[0]!.result as McpToolkit.McpToolFailure).message, "no such file")
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("a server that cannot be reached is left out and named in the system text; the others' tools are there", () => {
    const { layer } = layers(
      { up: { tools: [tool("ping")] }, down: { connectError: "connection refused" } },
      [http("down"), http("up")],
      [textStep("ok")]
    )
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make()
      assert.deepStrictEqual(Object.keys(mcp.toolkit.tools), ["up__ping"])
      assert.deepStrictEqual(mcp.unavailable.map((u) => u.server), ["down"])
      assert.include(mcp.system, "Tools named <server>__<tool> belong to the MCP server <server>.")
      assert.include(mcp.system, "Unavailable MCP servers (their tools are missing): down (")
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("a server that cannot be reached when a cached tool is called is a failure result the model reads (Unavailable)", () => {
    let reachable = true
    const { factory } = fakeFactory({ s: { tools: [tool("x")] } })
    const flaky = McpClientFactory.of((server, options) =>
      reachable
        ? factory.connect(server, options)
        : Effect.fail(
          new McpError.McpConnectError({ server: server.name, reason: "Network", description: "connection refused" })
        )
    )
    const model = scriptedModel([callStep("s__x", {})])
    const layer = Layer.mergeAll(
      McpServers.layer([http("s")]),
      Layer.succeed(McpClientFactory.McpClientFactory, flaky),
      McpToolCache.layerMemory({ ttl: "5 minutes" }),
      model.layer
    )
    return Effect.gen(function*() {
      yield* Effect.scoped(McpToolkit.make())
      reachable = false
      const response = yield* Effect.scoped(Effect.flatMap(McpToolkit.make(), turn))
      const failure = response.toolResults[0]!.result as McpToolkit.McpToolFailure
      assert.deepStrictEqual([response.toolResults[0]!.isFailure, failure.reason, failure.message], [
        true,
        "Unavailable",
        "s: connection refused"
      ])
    }).pipe(Effect.provide(layer))
  })

  it.effect("only the tools the server's includeTools and the toolFilter let through reach the provider; the system text names no resources", () => {
    const { layer, seen } = layers({ a: { tools: [tool("keep"), tool("drop"), tool("hidden")] } }, [
      McpServerConfig.http({ name: "a", url: "http://127.0.0.1:1/a", excludeTools: ["hidden"] })
    ], [textStep("ok")])
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make({ toolFilter: (_server, t) => t.remoteName !== "drop" })
      assert.deepStrictEqual(mcp.tools.map((t) => t.name), ["a__keep"])
      yield* turn(mcp)
      assert.deepStrictEqual(seen[0]!.tools.map((t) => t.name), ["a__keep"])
      assert.notInclude(mcp.system, "Resources")
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("of two tools with one name the first server's wins, with a warning", () => {
    const logs = captureLogs()
    const { layer, stats } = layers(
      { a: { tools: [tool("same", {}, "from a")] }, b: { tools: [tool("same", {}, "from b")] } },
      [http("a"), http("b")],
      [callStep("same", {})]
    )
    return Effect.gen(function*() {
      const mcp = yield* McpToolkit.make({ namespaceTools: false })
      assert.deepStrictEqual(Object.values(mcp.toolkit.tools).map((t) => t.description), ["from a"])
      yield* turn(mcp)
      assert.deepStrictEqual(stats.calls.map((c) => c.server), ["a"])
      assert.deepStrictEqual(
        logs.lines.map((line) =>
          `${line.message} (${Object.entries(line.annotations).map(([k, v]) => `${k}=${String(v)}`).join(", ")})`
        ),
        ["tool same is already registered; the later one is skipped (tool=same)"]
      )
    }).pipe(Effect.scoped, Effect.provide(layer.pipe(Layer.provideMerge(logs.layer))))
  })

  it.effect("closing the scope closes every connection the toolkit opened, after success and after failure", () => {
    const { layer, stats } = layers({ a: { tools: [tool("x")] }, b: { tools: [tool("y")] } }, [http("a"), http("b")], [
      callStep("a__x", {})
    ])
    return Effect.gen(function*() {
      yield* Effect.scoped(Effect.flatMap(McpToolkit.make(), turn))
      assert.deepStrictEqual([stats.connects, stats.open()], [{ a: 1, b: 1 }, 0])
      const failed = yield* Effect.exit(
        Effect.scoped(Effect.andThen(Effect.flatMap(McpToolkit.make(), turn), Effect.fail("app error")))
      )
      assert.isTrue(Exit.isFailure(failed))
      assert.strictEqual(stats.open(), 0)
    }).pipe(Effect.provide(layer))
  })

  it.effect("interrupting a conversation mid-call interrupts the call and closes its connection", () => {
    let interrupted = 0
    const { layer, stats } = layers(
      {
        s: {
          tools: [tool("wait")],
          call: () => Effect.onInterrupt(Effect.never, () => Effect.sync(() => void interrupted++))
        }
      },
      [http("s")],
      [callStep("s__wait", {})]
    )
    return Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Effect.scoped(Effect.flatMap(McpToolkit.make(), turn)))
      for (let i = 0; i < 100 && stats.calls.length === 0; i++) yield* Effect.yieldNow
      assert.strictEqual(stats.calls.length, 1, "the call started")
      assert.strictEqual(stats.open(), 1)
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual([interrupted, stats.open()], [1, 0])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a cached tool list opens no connection: a second conversation connects only when a tool is called", () => {
    const { layer, stats } = layers({ a: { tools: [tool("x")] } }, [http("a")], [callStep("a__x", {})])
    return Effect.gen(function*() {
      yield* Effect.scoped(McpToolkit.make())
      assert.deepStrictEqual(stats.connects, { a: 1 })
      yield* Effect.scoped(Effect.gen(function*() {
        const mcp = yield* McpToolkit.make()
        assert.deepStrictEqual(Object.keys(mcp.toolkit.tools), ["a__x"])
        assert.deepStrictEqual(stats.connects, { a: 1 }, "no connect for a cached list")
        yield* turn(mcp)
        assert.deepStrictEqual(stats.connects, { a: 2 }, "the call connects")
      }))
    }).pipe(Effect.provide(layer))
  })

  it.effect("refresh reuses a list that is still fresh and lists again one whose time to live has passed", () => {
    let listed = 0
    let version = 1
    const { layer } = layers(
      {
        a: {
          pages: () => {
            listed++
            return { tools: version === 1 ? [tool("x")] : [tool("x"), tool("z")] }
          }
        }
      },
      [http("a")],
      [textStep("ok")],
      "1 minute"
    )
    return Effect.gen(function*() {
      const first = yield* McpToolkit.make()
      version = 2
      const fresh = yield* first.refresh
      assert.deepStrictEqual([listed, Object.keys(fresh.toolkit.tools)], [1, ["a__x"]])
      yield* TestClock.adjust("61 seconds")
      const later = yield* fresh.refresh
      assert.deepStrictEqual([listed, Object.keys(later.toolkit.tools)], [2, ["a__x", "a__z"]])
    }).pipe(Effect.scoped, Effect.provide(layer))
  })

  it.effect("a toolkit's connections belong to the scope it was made in, not to the turn that used them", () => {
    const { layer, stats } = layers({ a: { tools: [tool("x")] } }, [http("a")], [callStep("a__x", {})])
    return Effect.gen(function*() {
      const scope = yield* Scope.make()
      const mcp = yield* McpToolkit.make().pipe(Scope.provide(scope))
      yield* turn(mcp)
      yield* turn(mcp)
      assert.deepStrictEqual([stats.connects, stats.open()], [{ a: 1 }, 1])
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(stats.open(), 0)
    }).pipe(Effect.provide(layer))
  })
})
