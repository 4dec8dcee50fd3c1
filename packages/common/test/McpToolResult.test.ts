/**
 * The mapping and the policies are tested through each line's `McpToolResult` (packages/mcp/test/McpTool.test.ts,
 * effect4/packages/mcp/test/McpToolResult.test.ts). Here: what this module does without any Effect, and that its
 * base64 reading is Node's (the 3 line read blobs with `Buffer`, which this package cannot use).
 */
import { McpToolResult } from "@zett/common"
import { assert, describe, it } from "vitest"

describe("McpToolResult", () => {
  it("blobText reads what Buffer reads: padded, unpadded, wrapped and URL-safe base64; not invalid UTF-8", () => {
    const texts = ["hello", "héllo wörld", "a", "ab", "abc", "{\"a\":1}", "🙂 emoji", ""]
    for (const text of texts) {
      const base64 = Buffer.from(text).toString("base64")
      assert.strictEqual(McpToolResult.blobText(base64), text, base64)
      assert.strictEqual(McpToolResult.blobText(base64.replace(/=+$/, "")), text, `${base64} unpadded`)
      assert.strictEqual(McpToolResult.blobText(Buffer.from(text).toString("base64url")), text, `${base64} url`)
    }
    assert.strictEqual(McpToolResult.blobText("aGVs\nbG8="), "hello")
    assert.isUndefined(McpToolResult.blobText(Buffer.from([0xff, 0xfe, 0x41]).toString("base64")))
    assert.isUndefined(McpToolResult.blobText("not base64!"))
  })

  it("isTextMime: text types, JSON, XML, YAML and their suffixes; parameters ignored", () => {
    for (const mime of ["text/plain", "text/markdown; charset=utf-8", "application/json", "application/ld+json"]) {
      assert.isTrue(McpToolResult.isTextMime(mime), mime)
    }
    for (const mime of ["application/vnd.api+json", "image/svg+xml", "application/x-yaml"]) {
      assert.isTrue(McpToolResult.isTextMime(mime), mime)
    }
    for (const mime of [undefined, "image/png", "application/octet-stream", "application/pdf"]) {
      assert.isFalse(McpToolResult.isTextMime(mime), String(mime))
    }
  })

  it("outcome gives plain tagged values and asks for the failure text with the result itself", () => {
    const failed = { isError: true, content: [{ type: "text", text: "boom" }] }
    const seen: Array<unknown> = []
    const outcome = McpToolResult.outcome(failed, (result) => {
      seen.push(result)
      return "text"
    })
    assert.deepStrictEqual(outcome, { _tag: "Failure", message: "text" })
    assert.strictEqual(seen[0], failed)
    assert.deepStrictEqual(McpToolResult.outcome({ toolResult: 3 }, () => "x"), { _tag: "Success", value: 3 })
    assert.strictEqual(
      McpToolResult.ErrorTextPolicy.toolText({ _tag: "ToolError", result: failed }),
      "boom"
    )
  })
})
