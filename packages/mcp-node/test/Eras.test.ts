/**
 * This client (the 2025-11-25 revision) against servers of the 2026-07-28 revision written on SDK v2
 * (@zett/testing/ModernServers): a dual-era server serves it on the legacy era, over stdio and Streamable HTTP;
 * a modern-only one refuses it, and the reason says which revisions the server speaks. What the servers
 * received is read from their record.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { ProtocolError as SdkMcpError } from "@modelcontextprotocol/client"
import { McpClient, McpClientFactory, McpError, type McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as ModernServers from "@zett/testing/ModernServers"
import * as TempDir from "@zett/testing/TempDir"
import * as Effect from "effect/Effect"
import * as Path from "node:path"
import * as Errors from "../src/internal/errors.js"

const connectAndCall = (server: McpServerConfig.McpServerConfig) =>
  Effect.scoped(Effect.gen(function*() {
    const factory = yield* McpClientFactory.McpClientFactory
    const client = yield* factory.connect(server)
    const tools = yield* McpClient.listAll(client)
    const result = yield* client.callTool("echo", { text: "hi" })
    return { tools: tools.map((tool) => tool.name), result }
  })).pipe(Effect.provide(NodeMcpClientFactory.layer()), Effect.provide(NodeContext.layer))

const refusal = (server: McpServerConfig.McpServerConfig) =>
  Effect.flip(connectAndCall(server))

const record = Effect.map(TempDir.make("zett-eras-"), (dir) => Path.join(dir, "record.jsonl"))

describe("servers of the 2026-07-28 revision (SDK v2)", () => {
  for (const transport of ["stdio", "http"] as const) {
    const serve = (era: ModernServers.Era, file: string) =>
      transport === "stdio" ? Effect.succeed(ModernServers.stdio("modern", era, file)) : ModernServers.http("modern", era, file)

    it.scopedLive(`a dual-era server (${transport}) serves this client on the 2025-11-25 era: initialize, then requests without the 2026 _meta`, () =>
      Effect.gen(function*() {
        const file = yield* record
        const { result, tools } = yield* connectAndCall(yield* serve("dual", file))
        assert.deepStrictEqual(tools, ["echo", "wait", "confirm", "region", "grow"])
        assert.deepStrictEqual(result.content, [{ type: "text", text: "modern echo: hi" }])
        const messages = ModernServers.readRecord(file).filter((entry) => entry.event === "message")
        assert.deepStrictEqual(messages.map((entry) => entry.method), ["initialize", "notifications/initialized", "tools/list", "tools/call"])
        assert.isTrue(messages.every((entry) => entry.protocolVersion === undefined), "no request carried the 2026 _meta protocol version")
      }), 30_000)

    it.scopedLive(`a modern-only server (${transport}) is refused with a reason that names the revision it speaks`, () =>
      Effect.gen(function*() {
        const file = yield* record
        const error = yield* refusal(yield* serve("modern-only", file))
        assert.strictEqual(error._tag, "McpConnectError")
        const connect = error as McpError.McpConnectError
        assert.deepStrictEqual([connect.reason, connect.code], ["ProtocolVersion", -32022])
        const reason = "the server supports only protocol 2026-07-28, and this client asked for 2025-11-25"
        assert.strictEqual(connect.description, transport === "http" ? `HTTP 400 Bad Request: ${reason}` : reason)
        assert.strictEqual(connect.httpStatus, transport === "http" ? 400 : undefined)
        assert.strictEqual(McpError.reasonOf(connect), connect.description)
        const methods = ModernServers.readRecord(file).filter((entry) => entry.event === "message").map((entry) => entry.method)
        assert.deepStrictEqual(methods, ["initialize"])
      }), 30_000)
  }
})

describe("the negotiation errors of the 2026-07-28 revision", () => {
  const classify = (code: number, data: unknown) =>
    Errors.connectError({ server: "s", cause: new SdkMcpError(code, "refused", data) })

  it("a version refusal keeps only what has a revision's shape from the server's data", () => {
    const error = classify(-32022, { supported: ["2026-07-28", "<b>2027</b>", 7, "2027-03-01"], requested: "x".repeat(500) })
    assert.deepStrictEqual([error.reason, error.code, error.description], [
      "ProtocolVersion",
      -32022,
      "the server supports only protocol 2026-07-28, 2027-03-01, and this client asked for a revision it does not speak"
    ])
    assert.strictEqual(classify(-32022, undefined).description, "the server does not support protocol a revision it does not speak")
  })

  it("a missing client capability is named; a header mismatch says so", () => {
    assert.deepStrictEqual(
      [classify(-32021, { requiredCapabilities: { sampling: {} } }).reason, classify(-32021, { requiredCapabilities: { sampling: {} } }).description],
      ["ClientCapability", "the server needs the client capability sampling"]
    )
    assert.strictEqual(
      classify(-32021, { requiredCapabilities: ["sampling", "elicitation", "a b"] }).description,
      "the server needs the client capabilities sampling, elicitation"
    )
    assert.strictEqual(classify(-32021, {}).description, "the server needs a client capability this client did not declare")
    const mismatch = classify(-32020, { header: "Mcp-Method" })
    assert.deepStrictEqual([mismatch.reason, mismatch.code], ["HeaderMismatch", -32020])
    assert.include(mismatch.description, "header mismatch")
  })

  it("another JSON-RPC error of initialize stays a Protocol failure with its own text", () => {
    const error = classify(-32602, undefined)
    assert.deepStrictEqual([error.reason, error.code, error.description], ["Protocol", -32602, "refused"])
  })
})
