/**
 * The error family: every public error of the MCP packages carries `McpError.TypeId`, says its kind in a literal
 * `reason` and its text in `description`, and words its message from the description. The errors of the drivers'
 * packages are checked beside them. The Effect 3 line's packages/mcp/test/McpError.test.ts, on Effect 4.
 */
import { assert, describe, it } from "@effect/vitest"
import { McpError, McpRoots, McpSampling } from "@zett/mcp"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"

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
        new McpError.McpToolFailure({ reason: "RequestFailed", message: "s__t: the server failed the call" }),
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

  it.effect("within fails with McpTimeoutError when the limit passes, on the test clock; none is no limit", () =>
    Effect.gen(function*() {
      const limited = Effect.never.pipe(
        McpError.within({ server: "s", operation: "call", limit: Option.some(Duration.seconds(5)) }),
        Effect.flip,
        Effect.forkChild
      )
      const fiber = yield* limited
      yield* TestClock.adjust(Duration.seconds(5))
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpTimeoutError")
      assert.strictEqual(error.message, "s: call timed out after 5s")
      const unlimited = yield* Effect.succeed(1).pipe(
        Effect.delay(Duration.hours(1)),
        McpError.within({ server: "s", operation: "call", limit: Option.none() }),
        Effect.forkChild
      )
      yield* TestClock.adjust(Duration.hours(1))
      assert.strictEqual(yield* Fiber.join(unlimited), 1)
    }))
})
