/**
 * What a call gives the model (`McpToolResult`) on Effect 4: the mapping and the policies are `@zett/common`'s and
 * tested there (packages/common/test/McpToolResult.test.ts); here only how this line wraps them in its own data types,
 * as the Effect 3 line's packages/mcp/test/McpTool.test.ts does.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpError, McpToolResult } from "@zett/mcp"
import type { CallToolResult } from "@zett/testing-core/FakeMcp"
import * as Equal from "effect/Equal"
import { pipe } from "effect/Function"

const { ErrorTextPolicy, RemoteFailure, ToolOutcome } = McpToolResult

describe("McpToolResult", () => {
  it("toResult gives the mapped value as ToolOutcome.Success and the policy's text as ToolOutcome.Failure", () => {
    const content: CallToolResult = { content: [{ type: "text", text: "ok", _meta: { a: 1 } }] }
    assert.deepStrictEqual(
      McpToolResult.toResult(content, ErrorTextPolicy.toolText),
      ToolOutcome.Success({ value: [{ type: "text", text: "ok" }] })
    )
    const structured: CallToolResult = { content: [], structuredContent: { rows: 3 } }
    assert.deepStrictEqual(
      McpToolResult.toResult(structured, ErrorTextPolicy.toolText),
      ToolOutcome.Success({ value: { rows: 3 } })
    )
    const compatibility = McpToolResult.toResult({ toolResult: 3 }, ErrorTextPolicy.toolText)
    assert.isTrue(Equal.equals(compatibility, ToolOutcome.Success({ value: 3 })))
    const failed: CallToolResult = { isError: true, content: [{ type: "text", text: "boom" }] }
    const failure = McpToolResult.toResult(failed, ErrorTextPolicy.toolText)
    assert.isTrue(ToolOutcome.$is("Failure")(failure))
    assert.isTrue(Equal.equals(failure, ToolOutcome.Failure({ message: "boom" })))
    assert.deepStrictEqual(
      McpToolResult.toResult(failed, ErrorTextPolicy.generic),
      ToolOutcome.Failure({ message: "the tool failed" })
    )
  })

  it("the policy gets the result itself as a RemoteFailure.ToolError, in both call styles (D8)", () => {
    const result: CallToolResult = { isError: true, content: [{ type: "text", text: "x" }] }
    const seen: Array<McpToolResult.RemoteFailure> = []
    const mine: McpToolResult.ErrorTextPolicy = (failure) => {
      seen.push(failure)
      return failure._tag === "ToolError" ? `tool said: ${failure.result.content.length} blocks` : "request failed"
    }
    const expected = ToolOutcome.Failure({ message: "tool said: 1 blocks" })
    assert.deepStrictEqual(McpToolResult.toResult(result, mine), expected)
    assert.deepStrictEqual(pipe(result, McpToolResult.toResult(mine)), expected)
    assert.strictEqual(seen.length, 2)
    for (const failure of seen) {
      assert.isTrue(Equal.equals(failure, RemoteFailure.ToolError({ result })))
    }
  })

  it("describeFailure reads this line's McpRequestError with the ready-made policies, in both call styles (D8)", () => {
    const failure = RemoteFailure.RequestError({
      error: new McpError.McpRequestError({
        server: "catalog",
        method: "tools/call",
        code: -32603,
        reason: "Remote",
        description: "fetch failed: https://internal.example.corp:8443/mcp?token=abc123"
      })
    })
    assert.strictEqual(
      McpToolResult.describeFailure(failure, ErrorTextPolicy.toolText),
      "the server failed to run the tool (internal error)"
    )
    assert.strictEqual(
      pipe(failure, McpToolResult.describeFailure(ErrorTextPolicy.verbose)),
      "catalog: tools/call failed (code -32603): fetch failed: https://internal.example.corp:8443/mcp?token=abc123"
    )
    const closed = RemoteFailure.RequestError({
      error: new McpError.McpRequestError({
        server: "s",
        method: "tools/call",
        reason: "StreamClosed",
        description: "the server closed the response stream"
      })
    })
    assert.strictEqual(
      McpToolResult.describeFailure(closed, ErrorTextPolicy.generic),
      "the server failed to run the tool (the server closed the response stream)"
    )
  })
})
