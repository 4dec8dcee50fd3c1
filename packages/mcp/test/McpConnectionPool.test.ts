import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpError, McpExtension, McpServer } from "@zett/mcp"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Crypto from "node:crypto"
import * as Faults from "@zett/testing/Faults"
import * as Fs from "node:fs"
import * as Path from "node:path"
import * as TestClock from "effect/TestClock"
import { agentWith, fakeFactory, text, tool, toolMessages } from "./utils/fake.js"
import * as TempDir from "@zett/testing/TempDir"

const http = (name: string) => McpServer.http({ name, url: `http://127.0.0.1:1/${name}` })
const callOnce = { toolCalls: [{ name: "s__t" }] }

describe("connection pool", () => {
  it.effect("D1 by default every request opens and closes its own connection", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith({ servers: [http("s")], clientFactory: factory }, [callOnce, { text: "1" }, callOnce, { text: "2" }])
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        assert.strictEqual(stats.open(), 0)
        yield* agent.run("b")
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(stats.connects, { s: 2 })
    }))

  it.effect("connectionPool keeps a server's connection across requests until it is idle for the TTL", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith(
        { servers: [http("s")], clientFactory: factory, connectionPool: { idleTimeToLive: "1 minute" } },
        [callOnce, { text: "1" }, callOnce, { text: "2" }, callOnce, { text: "3" }]
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
        assert.deepStrictEqual([stats.connects, stats.open()], [{ s: 1 }, 1])
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual(stats.open(), 0)
        yield* agent.run("c")
        assert.deepStrictEqual(stats.connects, { s: 2 })
      }).pipe(Effect.provide(layer))
      assert.strictEqual(stats.calls.length, 3)
    }))

  it.effect("closing the layer closes the pool", () =>
    Effect.gen(function*() {
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith(
        { servers: [http("s")], clientFactory: factory, connectionPool: { idleTimeToLive: "1 hour" } },
        [callOnce, { text: "1" }]
      )
      yield* Agent.run("a").pipe(Effect.provide(layer))
      assert.deepStrictEqual([stats.connects, stats.open()], [{ s: 1 }, 0])
    }))

  it.effect("a pooled connection that closed is not reused", () =>
    Effect.gen(function*() {
      let calls = 0
      const { factory, stats } = fakeFactory({
        s: {
          tools: [tool("t")],
          call: () =>
            ++calls === 1
              ? Effect.fail(new McpError.McpRequestError({ server: "s", method: "tools/call", code: -32000, reason: "Connection closed" }))
              : Effect.succeed(text("fine"))
        }
      })
      const { layer, requests } = agentWith(
        { servers: [http("s")], clientFactory: factory, connectionPool: { idleTimeToLive: "1 hour" } },
        [callOnce, { text: "1" }, callOnce, { text: "2" }]
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
      }).pipe(Effect.provide(layer))
      assert.strictEqual(toolMessages(requests[1]!)[0]!.status, "TOOL_FAILED")
      assert.strictEqual(toolMessages(requests[3]!).at(-1)!.status, "ok")
      assert.deepStrictEqual(stats.connects, { s: 2 })
    }))

  it.scoped("C10 pooled connections are keyed by the whole definition: an edited server gets a new connection", () =>
    Effect.gen(function*() {
      const dir = yield* TempDir.make("zett-pool-")
      const file = Path.join(dir, "mcp.json")
      const write = (url: string) => Fs.writeFileSync(file, JSON.stringify({ servers: { s: { type: "http", url } } }))
      write("http://127.0.0.1:1/a")
      const { factory, stats } = fakeFactory({ s: { tools: [tool("t")] } })
      const { layer } = agentWith(
        { configPath: file, clientFactory: factory, connectionPool: { idleTimeToLive: "1 hour" }, toolsCacheTtl: 0 },
        [callOnce, { text: "1" }, callOnce, { text: "2" }, callOnce, { text: "3" }]
      )
      yield* Effect.gen(function*() {
        const agent = yield* Agent.Agent
        yield* agent.run("a")
        yield* agent.run("b")
        assert.deepStrictEqual(stats.connects, { s: 1 })
        write("http://127.0.0.1:1/a-changed")
        yield* agent.run("c")
        assert.deepStrictEqual(stats.connects, { s: 2 })
      }).pipe(Effect.provide(layer))
    }))
})

/**
 * Five servers that ignore the end of their input (and SIGTERM) discovered in one request, with or without
 * the pool; what each server recorded of its own end once the layer has closed, and what was alive between
 * the request and the layer's close.
 */
const closeFiveStubborn = (pool: boolean) =>
  Effect.gen(function*() {
    const dir = yield* TempDir.make("zett-close-")
    const record = Path.join(dir, "record.jsonl")
    const marker = Crypto.randomUUID()
    const servers = Array.from(
      { length: 5 },
      (_, i) => Faults.stdioFault(`mule${i}`, marker, ["stubborn"], [`--record=${record}`])
    )
    const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(McpExtension.layer({
        servers,
        connectTimeout: "20 seconds",
        ...(pool ? { connectionPool: { idleTimeToLive: "1 hour" } } : {})
      })),
      // each step of the close ladder (end of input, SIGTERM) waits 1 s: one after another, the second server
      // would get its SIGTERM only after the first was SIGKILLed
      Layer.provide(Faults.factoryLayer({}, { closeTimeout: "1 second" })),
      Layer.provide(NodeContext.layer),
      Layer.provide(ScriptedModel.layer([{ text: "done" }]))
    )
    const aliveBetween = yield* Effect.gen(function*() {
      yield* Agent.run("go")
      return Faults.withMarker(marker).length
    }).pipe(Effect.provide(layer))
    return { aliveBetween, entries: Faults.readRecord(record), left: Faults.withMarker(marker) }
  })

/** Every server received its SIGTERM while all five were still running: none was SIGKILLed before. */
const assertClosedAtOnce = (report: Effect.Effect.Success<ReturnType<typeof closeFiveStubborn>>) => {
  const ready = report.entries.filter((e) => e.event === "ready").map((e) => e.pid)
  const terms = report.entries.filter((e) => e.event === "SIGTERM")
  assert.strictEqual(ready.length, 5)
  assert.sameMembers(terms.map((e) => e.pid), ready, "every server received SIGTERM")
  for (const term of terms) assert.sameMembers([...term.alive!], ready, `alive when ${term.pid} got SIGTERM`)
  assert.deepStrictEqual(report.left, [], "no server is left")
}

describe.sequential("closing stubborn servers", () => {
  it.scopedLive("issue 14: closing the layer closes the pool's 5 stubborn servers at once", () =>
    Effect.gen(function*() {
      const report = yield* closeFiveStubborn(true)
      assert.strictEqual(report.aliveBetween, 5, "the pool keeps the connections after the request")
      assertClosedAtOnce(report)
    }), 60_000)

  it.scopedLive("issue 14: the end of a request closes its 5 stubborn servers at once (default mode)", () =>
    Effect.gen(function*() {
      const report = yield* closeFiveStubborn(false)
      assert.strictEqual(report.aliveBetween, 0, "the request closed its connections")
      assertClosedAtOnce(report)
    }), 60_000)
})
