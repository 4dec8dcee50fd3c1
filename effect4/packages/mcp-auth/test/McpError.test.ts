/**
 * The errors of `@zett/mcp-auth` belong to the MCP error family (packages/mcp/test/McpError.test.ts): each carries
 * `McpError.TypeId`, says its kind in a literal `reason` and words its message from its description.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpError } from "@zett/mcp"
import { McpAuthorization, McpTokenStore } from "@zett/mcp-auth"

describe("McpError", () => {
  it("every error of the family carries the TypeId, a literal reason and its description in the message", () => {
    const errors: ReadonlyArray<readonly [McpError.McpError, string, string]> = [
      [
        new McpTokenStore.McpTokenStoreError({
          key: "k",
          reason: "Timeout",
          description: "cannot read in Redis: no answer in time"
        }),
        "Timeout",
        "token store: k: cannot read in Redis: no answer in time"
      ],
      [
        new McpAuthorization.McpAuthorizationError({
          server: "s",
          reason: "Denied",
          description: "the authorization server answered access_denied"
        }),
        "Denied",
        "s: authorization failed: the authorization server answered access_denied"
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
