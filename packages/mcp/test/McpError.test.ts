/**
 * The error family: every public error of the MCP packages carries `McpError.TypeId`, says its kind in a literal
 * `reason` and its text in `description`, and words its message from the description. The errors of the drivers'
 * packages are checked beside them: packages/mcp-config/test/McpError.test.ts, packages/mcp-auth/test/McpError.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpError, McpRoots, McpSampling, McpTaskStore } from "@zett/mcp"
import * as McpToolkit from "@zett/mcp/McpToolkit"
import * as Duration from "effect/Duration"

describe("McpError", () => {
  it("every error of the family carries the TypeId, a literal reason and its description in the message", () => {
    const errors: ReadonlyArray<readonly [McpError.McpError, string, string]> = [
      [
        new McpError.McpConfigError({
          path: "mcp.json",
          entry: "servers.a",
          reason: "InvalidEntry",
          description: "missing"
        }),
        "InvalidEntry",
        "mcp.json: servers.a: missing"
      ],
      [
        new McpError.McpConnectError({ server: "s", reason: "Protocol", description: "bad", code: -32600 }),
        "Protocol",
        "s: bad (code -32600)"
      ],
      [
        new McpError.McpRequestError({
          server: "s",
          method: "tools/list",
          reason: "Remote",
          description: "no",
          code: -1
        }),
        "Remote",
        "s: tools/list failed: no (code -1)"
      ],
      [
        new McpSampling.SamplingRefused({ server: "s", reason: "Declined", description: "the user declined it" }),
        "Declined",
        "sampling request of MCP server s refused: the user declined it"
      ],
      [
        new McpRoots.InvalidRoot({ root: "", reason: "Empty", description: "an empty path" }),
        "Empty",
        "roots: \"\": an empty path"
      ],
      [
        new McpTaskStore.McpTaskStoreError({ reason: "NotFound", description: "no task of that id is kept" }),
        "NotFound",
        "task store: no task of that id is kept"
      ],
      [
        new McpError.McpTimeoutError({ server: "s", operation: "call", timeout: Duration.seconds(2) }),
        "Elapsed",
        "s: call timed out after 2s"
      ],
      [
        new McpError.McpTimeoutError({
          server: "s",
          operation: "call",
          reason: "Stalled",
          timeout: Duration.seconds(2)
        }),
        "Stalled",
        "s: call timed out after 2s without progress"
      ],
      [
        new McpToolkit.McpToolFailure({ reason: "RequestFailed", message: "s__t: the server failed the call" }),
        "RequestFailed",
        "s__t: the server failed the call"
      ]
    ]
    for (const [error, reason, message] of errors) {
      assert.isTrue(McpError.isMcpError(error), error._tag)
      assert.strictEqual(error[McpError.TypeId], McpError.TypeId, error._tag)
      assert.strictEqual("reason" in error ? error.reason : undefined, reason, error._tag)
      assert.strictEqual(error.message, message, error._tag)
    }
    assert.isFalse(McpError.isMcpError(new Error("s: bad")))
  })

  it("reasonOf words a failure from its description", () => {
    assert.strictEqual(
      McpError.reasonOf(
        new McpError.McpConnectError({ server: "s", reason: "Http", description: "HTTP 500 Internal Server Error" })
      ),
      "HTTP 500 Internal Server Error"
    )
    assert.strictEqual(
      McpError.reasonOf(
        new McpError.McpRequestError({
          server: "s",
          method: "tools/list",
          reason: "Transport",
          description: "Connection closed"
        })
      ),
      "tools/list failed: Connection closed"
    )
    assert.strictEqual(
      McpError.reasonOf(
        new McpError.McpTimeoutError({ server: "s", operation: "connect", timeout: Duration.seconds(30) })
      ),
      "timed out after 30s"
    )
    assert.strictEqual(
      McpError.reasonOf(
        new McpError.McpTimeoutError({
          server: "s",
          operation: "call",
          reason: "Stalled",
          timeout: Duration.seconds(30)
        })
      ),
      "timed out after 30s without progress"
    )
  })
})
