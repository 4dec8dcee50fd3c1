import { assert, describe, it } from "@effect/vitest"
import { Client, InMemoryTransport, ProtocolError } from "@modelcontextprotocol/client"
import type { JSONRPCMessage } from "@modelcontextprotocol/client"
import { NodeMcpClient } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Errors from "../src/internal/errors.js"

/**
 * A bare JSON-RPC peer in this process: `answers` gives the result of each method it knows (what a real server
 * may send, valid or not); any other method is refused.
 */
const peer = (answers: Readonly<Record<string, unknown>>, options?: ConstructorParameters<typeof Client>[1]) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      serverSide.onmessage = (message: JSONRPCMessage) => {
        if (!("id" in message) || !("method" in message)) return
        void serverSide.send(
          (Object.hasOwn(answers, message.method)
            ? { jsonrpc: "2.0", id: message.id, result: answers[message.method] }
            : { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no" } }) as JSONRPCMessage
        )
      }
      await serverSide.start()
      const sdk = new Client({ name: "t", version: "1" }, options)
      await sdk.connect(clientSide)
      return sdk
    }),
    (sdk) => Effect.promise(() => sdk.close())
  )

// on the 2025-11-25 revision (the client's default negotiation): every tools/call is answered with `result`
const connect = (result: unknown) =>
  peer({
    initialize: {
      protocolVersion: "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "raw", version: "1" }
    },
    "tools/call": result
  })

// on the 2026-07-28 revision (pinned): `server/discover`, and every `tools/list` and `tools/call` with the body given
const connectModern = (answers: { readonly list?: unknown; readonly call?: unknown }) =>
  peer({
    "server/discover": {
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "raw", version: "1" } }
    },
    "tools/list": { tools: [], resultType: "complete", ...answers.list as object },
    "tools/call": { resultType: "complete", ...answers.call as object }
  }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })

const results: ReadonlyArray<readonly [string, unknown]> = [
  ["text", { content: [{ type: "text", text: "hi" }] }],
  ["texts, structured content, isError", {
    content: [{ type: "text", text: "a" }, { type: "text", text: "" }],
    structuredContent: { n: 1 },
    isError: false
  }],
  ["a tool error", { content: [{ type: "text", text: "no" }], isError: true }],
  ["no content", {}],
  ["empty content", { content: [] }],
  ["annotations and _meta on a block", {
    content: [{ type: "text", text: "a", annotations: { audience: ["user"], priority: 0.5 }, _meta: { k: 1 } }]
  }],
  ["a key the schema does not know, on a block", { content: [{ type: "text", text: "a", extra: 1 }] }],
  ["a key the schema does not know, on the result", { content: [{ type: "text", text: "a" }], extra: { deep: [1] } }],
  ["result _meta", { content: [], _meta: { progressToken: 3, other: "x" } }],
  ["an image", { content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] }],
  ["an image that is not base64", { content: [{ type: "image", data: "!!", mimeType: "image/png" }] }],
  ["a resource link", { content: [{ type: "resource_link", uri: "file:///a", name: "a" }] }],
  ["an embedded resource", { content: [{ type: "resource", resource: { uri: "file:///a", text: "t" } }] }],
  ["a block of an unknown type", { content: [{ type: "video", url: "x" }] }],
  ["a text that is not a string", { content: [{ type: "text", text: 5 }] }],
  ["content that is not an array", { content: "hi" }],
  ["isError that is not a boolean", { content: [], isError: "yes" }],
  ["structured content that is not an object", { content: [], structuredContent: "x" }],
  ["a legacy toolResult", { toolResult: { n: 1 } }],
  ["a task without content", { task: { taskId: "t" } }]
]

describe("tools/call results", () => {
  it.effect("each result is read as the SDK's own callTool reads it: the same value, or a failure where it fails", () =>
    Effect.gen(function*() {
      for (const [label, result] of results) {
        const sdk = yield* connect(result)
        const expected = yield* Effect.result(Effect.tryPromise(() => sdk.callTool({ name: "x", arguments: {} })))
        const client = NodeMcpClient.fromSdkClient(sdk, { server: "raw" })
        const actual = yield* Effect.result(client.callTool("x", {}))
        if (Result.isSuccess(expected)) {
          assert.isTrue(Result.isSuccess(actual), `${label}: ${Result.isFailure(actual) ? actual.failure.message : ""}`)
          // the driver's own reading of a legacy toolResult (McpClient.normalizeResult) aside
          if (label !== "a legacy toolResult") {
            assert.deepStrictEqual(Result.getOrThrow(actual), expected.success, label)
          }
        } else if (label === "structured content that is not an object") {
          // the published schema is the revisions' superset: a non-object value is kept, as 2026-07-28 allows it
          assert.deepStrictEqual(Result.getOrThrow(actual).structuredContent, "x")
        } else {
          assert.isTrue(Result.isFailure(actual), label)
          if (Result.isFailure(actual)) {
            assert.strictEqual(actual.failure._tag, "McpRequestError", label)
            assert.strictEqual((actual.failure as { reason?: string }).reason, "InvalidResponse", label)
          }
        }
      }
    }))

  it.effect("a malformed result fails with a description of what is wrong, where", () =>
    Effect.gen(function*() {
      const sdk = yield* connect({ content: [{ type: "image", data: "!!", mimeType: "image/png" }] })
      const client = NodeMcpClient.fromSdkClient(sdk, { server: "raw" })
      const error = yield* Effect.flip(client.callTool("x", {}))
      assert.strictEqual(error._tag, "McpRequestError")
      assert.match(error.message, /invalid response: .*Base64/)
      const sdk2 = yield* connect({ task: { taskId: "t" } })
      const error2 = yield* Effect.flip(NodeMcpClient.fromSdkClient(sdk2, { server: "raw" }).callTool("x", {}))
      assert.match(error2.message, /content is required when the body carries 'task'/)
    }))

  it.effect("on 2026-07-28 too, a malformed result or listing fails with one line: the field and what was expected", () =>
    Effect.gen(function*() {
      const sdk = yield* connectModern({ call: { content: [{ type: "text", text: 5 }] }, list: { ttlMs: -5 } })
      const client = NodeMcpClient.fromSdkClient(sdk, { server: "raw" })
      const call = yield* Effect.flip(client.callTool("x", {}))
      assert.strictEqual(
        call.message,
        "raw: tools/call failed: invalid response: content.0.text: Invalid input: expected string, received number"
      )
      assert.strictEqual((call as { reason?: string }).reason, "InvalidResponse")
      const list = yield* Effect.flip(client.listTools())
      assert.notInclude(list.message, "\n")
      assert.match(list.message, /^raw: tools\/list failed: invalid response: ttlMs: .{1,80}$/)
    }))

  it("every failure is described in one line: a remote error over several lines, a server's schema dump, a local error", () => {
    const dump = `Invalid tools/call result: ${
      JSON.stringify(
        [{
          code: "invalid_union",
          path: ["content", 0],
          message: "Invalid input",
          errors: [[{
            code: "invalid_type",
            path: ["text"],
            message: "Invalid input: expected string, received number"
          }]]
        }],
        null,
        2
      )
    }`
    const causes: ReadonlyArray<readonly [unknown, string]> = [
      [
        new ProtocolError(-32602, dump),
        "Invalid tools/call result: content.0.text: Invalid input: expected string, received number"
      ],
      [
        new ProtocolError(-32603, "boom\n    at handler (server.js:1:1)\n    at next"),
        "boom at handler (server.js:1:1) at next"
      ],
      [new Error("first line\nsecond line"), "first line second line"]
    ]
    for (const [cause, expected] of causes) {
      assert.strictEqual(Errors.requestError({ server: "s", method: "tools/call", cause }).description, expected)
      assert.strictEqual(Errors.connectError({ server: "s", cause }).description, expected)
    }
  })

  it.effect("a legacy toolResult reaches the caller as text content and structured content", () =>
    Effect.gen(function*() {
      const sdk = yield* connect({ toolResult: { n: 1 } })
      const result = yield* NodeMcpClient.fromSdkClient(sdk, { server: "raw" }).callTool("x", {})
      assert.deepStrictEqual(result.content, [{ type: "text", text: "{\"n\":1}" }])
      assert.deepStrictEqual(result.structuredContent, { n: 1 })
    }))
})
