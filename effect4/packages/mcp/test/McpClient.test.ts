import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpClientFactory, McpServerConfig } from "@zett/mcp"
import { logged } from "@zett/testing-core/CapturedLogs"
import type { Tool } from "@zett/testing-core/FakeMcp"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"

describe("McpClient, exactly", () => {
  it("normalizeResult: a current result as it is; a legacy one keeps the content and structure it has (E7)", () => {
    const current = { content: [], isError: true }
    assert.strictEqual(McpClient.normalizeResult(current), current)
    assert.deepStrictEqual(McpClient.normalizeResult({ content: [] }), { content: [] })
    const given = [{ type: "text" as const, text: "given" }]
    assert.deepStrictEqual(McpClient.normalizeResult({ toolResult: { a: 1 }, content: given }), {
      content: given,
      structuredContent: { a: 1 }
    })
    assert.deepStrictEqual(
      McpClient.normalizeResult({ toolResult: { a: 1 }, structuredContent: { b: 2 } } as never),
      { content: [{ type: "text", text: "{\"a\":1}" }], structuredContent: { b: 2 } }
    )
    assert.deepStrictEqual(McpClient.normalizeResult({ toolResult: 5 }), { content: [{ type: "text", text: "5" }] })
    assert.deepStrictEqual(McpClient.normalizeResult({ toolResult: null }), {
      content: [{ type: "text", text: "null" }]
    })
    assert.deepStrictEqual(McpClient.normalizeResult({ toolResult: undefined }), {
      content: [{ type: "text", text: "null" }]
    })
    assert.deepStrictEqual(McpClient.normalizeResult({ toolResult: [1] }), { content: [{ type: "text", text: "[1]" }] })
  })

  it.effect("a client made from only the tool requests fails every other request as Unsupported, and sends no notification", () =>
    Effect.gen(function*() {
      const client = McpClient.make({
        server: "bare",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [] })
      })
      const error = yield* Effect.flip(client.request("resources/list"))
      assert.deepStrictEqual([error._tag, error.server, error.method, error.reason, error.description], [
        "McpRequestError",
        "bare",
        "resources/list",
        "Unsupported",
        "this MCP client does not implement requests other than tools"
      ])
      const queue = yield* client.notifications
      // Effect 4: a queue that has ended fails its takers with Cause.Done
      assert.isTrue(Cause.isDone(yield* Effect.flip(Queue.take(queue))), "the notification queue has ended")
    }))

  it.effect("callWithin without a driver's own passes the call's progress listener on and runs the call with the caller's services, with or without a timeout", () =>
    Effect.gen(function*() {
      const Caller = Context.Service<string>("test/Caller")
      const seen: Array<readonly [boolean, string]> = []
      const client = McpClient.make({
        server: "s",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: (_name, _args, options) =>
          Effect.map(Effect.serviceOption(Caller), (caller) => (
            seen.push([options?.onProgress === onProgress, Option.getOrElse(caller, () => "none")]), { content: [] }
          ))
      })
      const onProgress = () => {}
      const limits = { server: "s", resetOnProgress: false, maxTimeout: Option.none(), onProgress }
      yield* client.callWithin("t", {}, { ...limits, timeout: Option.none() }).pipe(
        Effect.provideService(Caller, "caller")
      )
      yield* client.callWithin("t", {}, { ...limits, timeout: Option.some(Duration.seconds(5)) }).pipe(
        Effect.provideService(Caller, "caller")
      )
      assert.deepStrictEqual(seen, [[true, "caller"], [true, "caller"]])
    }))

  it("clipName shows at most 80 characters of a name, and (unnamed) for a name that is no string", () => {
    assert.strictEqual(McpClient.clipName("x".repeat(80)), "x".repeat(80))
    assert.strictEqual(McpClient.clipName("x".repeat(81)), `${"x".repeat(80)}…`)
    assert.strictEqual(McpClient.clipName(7), "(unnamed)")
    assert.strictEqual(McpClient.clipName(""), "")
  })

  it.effect("discover skips a tool over the schema limits with a warning, and logs nothing when none is", () =>
    Effect.gen(function*() {
      let deep: Record<string, unknown> = { type: "string" }
      for (let i = 0; i < 200; i++) deep = { not: deep }
      const tools: Array<Tool> = [
        { name: "ok", inputSchema: { type: "object", title: "T" } },
        { name: "deep", inputSchema: { type: "object", properties: { d: deep as never } } }
      ]
      const fake = (list: ReadonlyArray<Tool>): McpClient.McpClient => (McpClient.make({
        server: "s",
        listTools: () => Effect.succeed({ tools: list, nextCursor: undefined }),
        callTool: () => Effect.die("unused")
      }))
      const [found, lines] = yield* logged(McpClient.discover(fake(tools), { namespace: true }))
      assert.deepStrictEqual(found.map((tool) => [tool.name, tool.parameters]), [
        ["s__ok", { type: "object", properties: {} }]
      ])
      assert.deepStrictEqual(lines, [{
        level: "WARN",
        text: "MCP server s: tool deep is skipped: its input schema nests deeper than 128 levels",
        server: "s"
      }])
      const [plain, quiet] = yield* logged(McpClient.discover(fake(tools.slice(0, 1)), { namespace: false }))
      assert.deepStrictEqual(plain.map((tool) => tool.name), ["ok"])
      assert.deepStrictEqual(quiet, [])
    }))
})

describe("NodeMcpClientFactory.layerInMemory", () => {
  it.effect("make wraps a user's own connect function", () =>
    Effect.gen(function*() {
      const client = McpClient.make({
        server: "mine",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [{ type: "text", text: "42" }] })
      })
      const factory = McpClientFactory.of(() => Effect.succeed(client))
      const connected = yield* factory.connect(McpServerConfig.stdio({ name: "mine", command: "x" }))
      assert.strictEqual(connected, client)
    }))
})
