/**
 * This client (the 2025-11-25 revision) against servers of the 2026-07-28 revision written on SDK v2
 * (@zett/testing/ModernServers): a dual-era server serves it on the legacy era, over stdio and Streamable HTTP;
 * a modern-only one refuses it, and the reason says which revisions the server speaks. What the servers
 * received is read from their record.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { ProtocolError as SdkMcpError } from "@modelcontextprotocol/client"
import { ScriptedModel } from "@zett/agent"
import type { McpError } from "@zett/mcp"
import { McpClient, McpClientFactory, McpElicitation, McpSampling, McpServerConfig, McpToolResult } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as TempDir from "@zett/testing-core/TempDir"
import * as FaultyServer from "@zett/testing/Faults"
import * as ModernServers from "@zett/testing/ModernServers"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Path from "node:path"
import * as Errors from "../src/internal/errors.js"

/** Connects to each of `servers` in turn through one factory (its verdicts kept), listing and calling `echo`. */
const connectAndCall = (...servers: ReadonlyArray<McpServerConfig.McpServerConfig>) =>
  connectAndCallWith({}, ...servers)

const connectAndCallWith = (
  options: NodeMcpClientFactory.Options,
  ...servers: ReadonlyArray<McpServerConfig.McpServerConfig>
) =>
  Effect.gen(function*() {
    const factory = yield* McpClientFactory.McpClientFactory
    const outcomes = []
    for (const server of servers) {
      outcomes.push(
        yield* Effect.scoped(Effect.gen(function*() {
          const client = yield* factory.connect(server)
          const tools = yield* McpClient.listAll(client)
          const result = yield* client.callTool("echo", { text: "hi" })
          return {
            tools: tools.map((tool) => tool.name),
            result,
            protocolVersion: client.protocolVersion,
            transport: client.transport
          }
        }))
      )
    }
    return outcomes
  }).pipe(Effect.provide(NodeMcpClientFactory.layer(options)), Effect.provide(NodeContext.layer))

const refusal = (server: McpServerConfig.McpServerConfig) => Effect.flip(connectAndCall(server))

const record = Effect.map(TempDir.make("zett-eras-"), (dir) => Path.join(dir, "record.jsonl"))

const messages = (file: string) => ModernServers.readRecord(file).filter((entry) => entry.event === "message")

const modernMeta = [
  "io.modelcontextprotocol/clientCapabilities",
  "io.modelcontextprotocol/clientInfo",
  "io.modelcontextprotocol/protocolVersion"
]

describe("servers of the 2026-07-28 revision (SDK v2)", () => {
  for (const transport of ["stdio", "http"] as const) {
    const serve = (
      era: ModernServers.Era,
      file: string,
      protocol?: McpServerConfig.Protocol
    ): Effect.Effect<McpServerConfig.McpServerConfig, Error, Scope.Scope> =>
      Effect.map(
        transport === "stdio"
          ? Effect.succeed<McpServerConfig.McpServerConfig>(ModernServers.stdio("modern", era, file))
          : ModernServers.http("modern", era, file),
        (server): McpServerConfig.McpServerConfig =>
          protocol === undefined
            ? server
            : server._tag === "McpStdioServer"
            ? new McpServerConfig.McpStdioServer({ ...server, protocol })
            : new McpServerConfig.McpHttpServer({ ...server, protocol })
      )

    for (const era of ["dual", "modern-only"] as const) {
      it.scopedLive(
        `a ${era} server (${transport}) is spoken to on 2026-07-28: server/discover, no initialize, the 2026 _meta on every request`,
        () =>
          Effect.gen(function*() {
            const file = yield* record
            const [outcome] = yield* connectAndCall(yield* serve(era, file))
            assert.deepStrictEqual(outcome!.tools, ["echo", "wait", "confirm", "region", "cut", "write", "grow"])
            assert.deepStrictEqual(outcome!.result.content, [{ type: "text", text: "modern echo: hi" }])
            assert.deepStrictEqual([outcome!.protocolVersion, outcome!.transport], [
              "2026-07-28",
              transport === "http" ? "streamable-http" : "stdio"
            ])
            const seen = messages(file)
            assert.deepStrictEqual(seen.map((entry) => entry.method), ["server/discover", "tools/list", "tools/call"])
            for (const entry of seen) {
              assert.strictEqual(entry.protocolVersion, "2026-07-28", entry.method)
              assert.includeMembers([...entry.meta ?? []], modernMeta, entry.method)
            }
            if (transport === "http") {
              const call = seen.at(-1)!
              assert.deepStrictEqual(
                [call.headers?.["mcp-protocol-version"], call.headers?.["mcp-method"], call.headers?.["mcp-name"]],
                ["2026-07-28", "tools/call", "echo"]
              )
            }
            // one process for the stdio server: the question was asked on the connection's own
            assert.strictEqual(ModernServers.readRecord(file).filter((entry) => entry.event === "ready").length, 1)
          })
      )
    }

    it.scopedLive(
      `pinned to 2025-11-25, a dual-era server (${transport}) is spoken to the 2025 way: initialize, no question, no 2026 _meta`,
      () =>
        Effect.gen(function*() {
          const file = yield* record
          const [outcome] = yield* connectAndCall(yield* serve("dual", file, "2025-11-25"))
          assert.strictEqual(outcome!.protocolVersion, "2025-11-25")
          assert.deepStrictEqual(messages(file).map((entry) => entry.method), [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
          ])
          assert.isTrue(
            messages(file).every((entry) => entry.protocolVersion === undefined),
            "no request carried the 2026 _meta protocol version"
          )
        })
    )

    it.scopedLive(
      `pinned to 2025-11-25, a modern-only server (${transport}) is refused with a reason that names the revision it speaks and the pin`,
      () =>
        Effect.gen(function*() {
          const file = yield* record
          const error = yield* refusal(yield* serve("modern-only", file, "2025-11-25"))
          assert.strictEqual(error._tag, "McpConnectError")
          const connect = error as McpError.McpConnectError
          assert.deepStrictEqual([connect.reason, connect.code], ["ProtocolVersion", -32022])
          const reason =
            "the server supports only protocol 2026-07-28, and this client asked for 2025-11-25; the definition pins protocol 2025-11-25"
          assert.strictEqual(connect.description, transport === "http" ? `HTTP 400 Bad Request: ${reason}` : reason)
          assert.strictEqual(connect.httpStatus, transport === "http" ? 400 : undefined)
          assert.deepStrictEqual(messages(file).map((entry) => entry.method), ["initialize"])
        })
    )
  }
})

/** Calls `confirm` on `server`, each question answered by an McpElicitation that records it and accepts. */
const confirm = (server: McpServerConfig.McpServerConfig) =>
  Effect.gen(function*() {
    const asked: Array<McpElicitation.Request> = []
    const elicitation = McpElicitation.layer((request) =>
      Effect.sync(() => {
        asked.push(request)
        return { action: "accept", content: { confirm: true } } as const
      })
    )
    const result = yield* Effect.scoped(Effect.gen(function*() {
      const client = yield* (yield* McpClientFactory.McpClientFactory).connect(server)
      return { result: yield* client.callTool("confirm", {}), protocolVersion: client.protocolVersion }
    })).pipe(
      Effect.provide(NodeMcpClientFactory.layer()),
      Effect.provide(elicitation),
      Effect.provide(NodeContext.layer)
    )
    return { ...result, asked }
  })

describe("a server that needs input during a call", () => {
  for (const transport of ["stdio", "http"] as const) {
    // an SDK v2 server serves 2025 clients over HTTP statelessly: it has no way to send them a request
    for (const protocol of transport === "stdio" ? ["auto", "2025-11-25"] as const : ["auto"] as const) {
      it.scopedLive(
        `${transport}, ${protocol}: the server's question is answered by McpElicitation and the call gets its result`,
        () =>
          Effect.gen(function*() {
            const file = yield* record
            const base = transport === "stdio"
              ? ModernServers.stdio("modern", "dual", file)
              : yield* ModernServers.http("modern", "dual", file)
            const server = base._tag === "McpStdioServer"
              ? new McpServerConfig.McpStdioServer({ ...base, protocol })
              : new McpServerConfig.McpHttpServer({ ...base, protocol })
            const { asked, protocolVersion, result } = yield* confirm(server)
            assert.strictEqual(protocolVersion, protocol === "auto" ? "2026-07-28" : "2025-11-25")
            assert.deepStrictEqual(result.content, [{
              type: "text",
              text: "answer: {\"action\":\"accept\",\"content\":{\"confirm\":true}}"
            }])
            assert.deepStrictEqual(asked.map((request) => [request._tag, request.server, request.message]), [[
              "Form",
              "modern",
              "Go ahead?"
            ]])
            // on 2026-07-28 the question came inside the result: the call was sent again, with a new id
            const calls = messages(file).filter((entry) => entry.method === "tools/call")
            assert.strictEqual(calls.length, protocol === "auto" ? 2 : 1)
            if (calls.length === 2) assert.notStrictEqual(calls[0]!.id, calls[1]!.id)
          })
      )
    }
  }
})

describe("a call whose input ends it", () => {
  const inputTools = (file: string) => {
    const base = ModernServers.stdio("modern", "modern-only", file)
    return new McpServerConfig.McpStdioServer({ ...base, args: [...base.args, "--input-tools"] })
  }
  const modelText = (error: McpError.McpRequestError) =>
    McpToolResult.describeFailure(
      McpToolResult.RemoteFailure.RequestError({ error }),
      McpToolResult.ErrorTextPolicy.toolText
    )
  const callWith = (server: McpServerConfig.McpServerConfig, tool: string, handlers: Layer.Layer<never>) =>
    Effect.scoped(Effect.gen(function*() {
      const client = yield* (yield* McpClientFactory.McpClientFactory).connect(server)
      return yield* Effect.flip(client.callTool(tool, {}))
    })).pipe(Effect.provide(NodeMcpClientFactory.layer()), Effect.provide(handlers), Effect.provide(NodeContext.layer))

  it.scopedLive(
    "a server that asks for input without end: the call stops after the client's rounds and says so, to the model too",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        let asked = 0
        const elicitation = McpElicitation.layer(() =>
          Effect.sync(() => (asked++, { action: "accept", content: { confirm: true } } as const))
        )
        const error = yield* callWith(inputTools(file), "nag", elicitation)
        assert.strictEqual(error._tag, "McpRequestError")
        const failure = error as McpError.McpRequestError
        assert.strictEqual(failure.reason, "TooManyRounds")
        assert.strictEqual(failure.description, "the server asked for input 10 times without finishing")
        assert.strictEqual(asked, 10)
        assert.strictEqual(
          modelText(failure),
          "the server failed to run the tool (the server asked for input 10 times without finishing)"
        )
      })
  )

  it.scopedLive(
    "a sampling request refused inside a call (over its limit): the call fails saying why, to the model too",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const sampling = McpSampling.layer({
          model: ScriptedModel.layer([{ text: "never" }]),
          maxTokens: 100,
          maxCallsPerRequest: 0
        })
        const error = yield* callWith(inputTools(file), "summarize", sampling)
        const failure = error as McpError.McpRequestError
        assert.strictEqual(failure.reason, "Refused")
        const why =
          "sampling request of MCP server modern refused: more than 0 sampling requests in one request (sampling.maxCallsPerRequest)"
        assert.strictEqual(failure.description, `the client refused a request the server made during the call: ${why}`)
        assert.strictEqual(
          modelText(failure),
          `the server failed to run the tool (the client refused a request the server made during the call: ${why})`
        )
      })
  )
})

describe("a result of the 2026-07-28 revision without resultType", () => {
  // a bare server of the revision over stdio: its `plain` tool answers without `resultType`, `odd` with one unknown
  const script = `
    const lines = require("node:readline").createInterface({ input: process.stdin })
    lines.on("line", (line) => {
      const m = JSON.parse(line)
      if (m.id === undefined) return
      const send = (body) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, ...body }) + "\\n")
      if (m.method === "server/discover") send({ result: { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": { name: "raw", version: "1" } } } })
      else if (m.method === "tools/list") send({ result: { tools: [{ name: "plain", inputSchema: { type: "object" } }, { name: "odd", inputSchema: { type: "object" } }], ttlMs: 0, cacheScope: "private" } })
      else if (m.method === "tools/call" && m.params.name === "plain") send({ result: { content: [{ type: "text", text: "answered" }] } })
      else if (m.method === "tools/call") send({ result: { content: [], resultType: "weird" } })
      else send({ error: { code: -32601, message: "no" } })
    })`
  const raw = McpServerConfig.stdio({
    name: "raw",
    command: process.execPath,
    args: ["-e", script],
    protocol: "2026-07-28"
  })

  it.scopedLive(
    "is complete: the listing and the call go through; an unknown resultType stays an error",
    () =>
      Effect.gen(function*() {
        const client = yield* (yield* McpClientFactory.McpClientFactory).connect(raw)
        assert.deepStrictEqual((yield* McpClient.listAll(client)).map((tool) => tool.name), ["plain", "odd"])
        assert.deepStrictEqual((yield* client.callTool("plain", {})).content, [{ type: "text", text: "answered" }])
        const odd = yield* Effect.flip(client.callTool("odd", {}))
        assert.strictEqual((odd as McpError.McpRequestError).reason, "InvalidResponse")
        assert.include(odd.message, "weird")
      }).pipe(Effect.provide(NodeMcpClientFactory.layer()), Effect.provide(NodeContext.layer))
  )
})

/** A server of the 2025 revisions on SDK v1 (the fault server), recording the methods it receives and its starts. */
const legacy = (file: string, faults: ReadonlyArray<string> = [], protocol?: McpServerConfig.Protocol) =>
  McpServerConfig.stdio({
    name: "legacy",
    command: process.execPath,
    args: [
      FaultyServer.faultyServer,
      ...faults.map((fault) => `--fault=${fault}`),
      `--record=${file}`,
      "--record-messages"
    ],
    ...(protocol !== undefined ? { protocol } : {})
  })

const starts = (file: string) => ModernServers.readRecord(file).filter((entry) => entry.event === "ready").length

describe("servers of the 2025 revisions, asked first", () => {
  it.scopedLive(
    "a 2025 stdio server is asked server/discover on its own process, then initialized there: one process; the next connect asks nothing",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const [first, second] = yield* connectAndCall(legacy(file), legacy(file))
        assert.deepStrictEqual([first!.protocolVersion, second!.protocolVersion], ["2025-11-25", "2025-11-25"])
        const methods = messages(file).map((entry) => entry.method)
        assert.deepStrictEqual(methods, [
          "server/discover",
          "initialize",
          "notifications/initialized",
          "tools/list",
          "tools/call",
          "initialize",
          "notifications/initialized",
          "tools/list",
          "tools/call"
        ])
        assert.strictEqual(starts(file), 2)
      })
  )

  it.scopedLive(
    "a 2025 stdio server that exits when asked is started again the 2025 way, and from then on started once",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const [first, second] = yield* connectAndCall(
          legacy(file, ["exit-on-discover"]),
          legacy(file, ["exit-on-discover"])
        )
        assert.deepStrictEqual(first!.result.content, second!.result.content)
        assert.deepStrictEqual(
          messages(file).map((entry) => entry.method).filter((method) => method !== "notifications/initialized"),
          [
            "server/discover",
            "initialize",
            "tools/list",
            "tools/call",
            "initialize",
            "tools/list",
            "tools/call"
          ]
        )
        // the first connect started it twice (it exited on the question), the second once
        assert.strictEqual(starts(file), 3)
      })
  )

  it.scopedLive(
    "a 2025 stdio server that does not answer the question is taken for a 2025 one when the probe time is up",
    () =>
      Effect.gen(function*() {
        const file = yield* record
        const [outcome] = yield* connectAndCallWith({ probeTimeout: "300 millis" }, legacy(file, ["silent-discover"]))
        assert.strictEqual(outcome!.protocolVersion, "2025-11-25")
        assert.deepStrictEqual(messages(file).map((entry) => entry.method).slice(0, 2), [
          "server/discover",
          "initialize"
        ])
        assert.strictEqual(starts(file), 1)
      })
  )

  it.scopedLive("pinned to 2026-07-28, a 2025 server is refused, saying so", () =>
    Effect.gen(function*() {
      const file = yield* record
      const error = (yield* refusal(legacy(file, [], "2026-07-28"))) as McpError.McpConnectError
      assert.strictEqual(error.reason, "ProtocolVersion")
      assert.include(error.description, "2026-07-28")
      assert.include(error.description, "the definition pins protocol 2026-07-28")
      assert.deepStrictEqual(messages(file).map((entry) => entry.method), ["server/discover"])
    }))
})

describe("the negotiation errors of the 2026-07-28 revision", () => {
  const classify = (code: number, data: unknown) =>
    Errors.connectError({ server: "s", cause: new SdkMcpError(code, "refused", data) })

  it("a version refusal keeps only what has a revision's shape from the server's data", () => {
    const error = classify(-32022, {
      supported: ["2026-07-28", "<b>2027</b>", 7, "2027-03-01"],
      requested: "x".repeat(500)
    })
    assert.deepStrictEqual([error.reason, error.code, error.description], [
      "ProtocolVersion",
      -32022,
      "the server supports only protocol 2026-07-28, 2027-03-01, and this client asked for a revision it does not speak"
    ])
    assert.strictEqual(
      classify(-32022, undefined).description,
      "the server does not support protocol a revision it does not speak"
    )
  })

  it("a missing client capability is named; a header mismatch says so", () => {
    assert.deepStrictEqual(
      [
        classify(-32021, { requiredCapabilities: { sampling: {} } }).reason,
        classify(-32021, { requiredCapabilities: { sampling: {} } }).description
      ],
      ["ClientCapability", "the server needs the client capability sampling"]
    )
    assert.strictEqual(
      classify(-32021, { requiredCapabilities: ["sampling", "elicitation", "a b"] }).description,
      "the server needs the client capabilities sampling, elicitation"
    )
    assert.strictEqual(
      classify(-32021, {}).description,
      "the server needs a client capability this client did not declare"
    )
    const mismatch = classify(-32020, { header: "Mcp-Method" })
    assert.deepStrictEqual([mismatch.reason, mismatch.code], ["HeaderMismatch", -32020])
    assert.include(mismatch.description, "header mismatch")
  })

  it("another JSON-RPC error of initialize stays a Protocol failure with its own text", () => {
    const error = classify(-32602, undefined)
    assert.deepStrictEqual([error.reason, error.code, error.description], ["Protocol", -32602, "refused"])
  })
})
