/**
 * `McpResources` and `McpPrompts` on the core alone: a client without `request` (made with `McpClient.make`),
 * and prompt content as a model reads it. Against server-everything and SDK servers over the Node driver:
 * packages/mcp-node/test/McpResources.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { Message } from "@zett/agent"
import { McpClient, McpPrompts, McpResources } from "@zett/mcp"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

describe("McpResources and McpPrompts", () => {
  it.effect("a client of your own without `request` fails with a typed Unsupported error", () =>
    Effect.gen(function*() {
      const client = McpClient.make({
        server: "mine",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [] })
      })
      const error = yield* Effect.flip(McpResources.list(client))
      assert.strictEqual(error.reason, "Unsupported")
      assert.strictEqual(
        error.message,
        "mine: resources/list failed: this MCP client does not implement requests other than tools"
      )
      const prompt = yield* Effect.flip(McpPrompts.get(client, "p"))
      assert.strictEqual(prompt.method, "prompts/get")
      // no notifications: the stream of changes is empty, not a failure
      assert.deepStrictEqual(yield* Stream.runCollect(McpResources.changes(client)), [])
    }))

  it("prompt content a model cannot read as such is described in a line; a binary blob stays base64", () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]).toString("base64")
    assert.strictEqual(
      McpPrompts.contentText({ type: "image", data: png, mimeType: "image/png" }),
      "[image image/png, 6 bytes]"
    )
    assert.strictEqual(
      McpPrompts.contentText({
        type: "resource",
        resource: { uri: "file:///x.png", mimeType: "image/png", blob: png }
      }),
      "[resource file:///x.png (image/png), 6 bytes]"
    )
    assert.strictEqual(
      McpPrompts.contentText({
        type: "resource_link",
        uri: "file:///a.md",
        name: "a",
        mimeType: "text/markdown",
        description: "notes"
      }),
      "[resource link file:///a.md (a, text/markdown): notes]"
    )
    // a blob that claims to be text but is not UTF-8 stays a blob
    assert.deepStrictEqual(McpResources.forModel({ uri: "file:///b", mimeType: "text/plain", blob: png }), {
      uri: "file:///b",
      mimeType: "text/plain",
      blob: png
    })
    assert.deepStrictEqual(
      McpPrompts.toMessages([
        { role: "user", content: { type: "text", text: "hi" } },
        { role: "assistant", content: { type: "text", text: "hello" } }
      ]),
      [Message.user("hi"), Message.assistant("hello")]
    )
    // Effect 4's lenient base64 reads the blob's bytes, as Buffer did on the 3 line
    assert.deepStrictEqual(
      Array.from(McpResources.bytesOf({ uri: "file:///b", blob: png })),
      [0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]
    )
  })
})
