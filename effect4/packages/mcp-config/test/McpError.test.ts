/**
 * The errors of `@zett/mcp-config` belong to the MCP error family (packages/mcp/test/McpError.test.ts): each carries
 * `McpError.TypeId`, says its kind in a literal `reason` and words its message from its description.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpError } from "@zett/mcp"
import { McpInputs } from "@zett/mcp-config"

describe("McpError", () => {
  it("every error of the family carries the TypeId, a literal reason and its description in the message", () => {
    const errors: ReadonlyArray<readonly [McpError.McpError, string, string]> = [
      [
        new McpInputs.InputError({ id: "key", reason: "Cancelled", description: "the prompt was cancelled" }),
        "Cancelled",
        "the input \"key\" has no value: the prompt was cancelled"
      ]
    ]
    for (const [error, reason, message] of errors) {
      assert.isTrue(McpError.isMcpError(error), error._tag)
      assert.strictEqual(error[McpError.TypeId], McpError.TypeId, error._tag)
      assert.strictEqual("reason" in error ? error.reason : undefined, reason, error._tag)
      assert.strictEqual(error.message, message, error._tag)
    }
  })
})
