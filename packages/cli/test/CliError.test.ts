/**
 * The errors of `zett`: each carries `CliError.TypeId` and says its kind in a literal `reason`; the kind does not
 * change the exit code (2 for bad usage, 1 for a run that failed) nor the one line shown.
 */
import { assert, describe, it } from "@effect/vitest"
import { CliError } from "@zett/cli"
import * as Cause from "effect/Cause"

describe("CliError", () => {
  it("a usage error and a failed run carry the family's TypeId and their kind; exit codes 2 and 1", () => {
    const usage = new CliError.UsageError({ reason: "NotFound", message: "no tool named x; available: a, b" })
    const failed = new CliError.RunFailed({ reason: "Unavailable", message: "1 of 1 MCP server unavailable: s" })
    for (const [error, reason, code] of [[usage, "NotFound", 2], [failed, "Unavailable", 1]] as const) {
      assert.isTrue(CliError.isCliError(error), error._tag)
      assert.strictEqual(error[CliError.TypeId], CliError.TypeId)
      assert.strictEqual(error.reason, reason)
      assert.deepStrictEqual(CliError.fromCause(Cause.fail(error)), { code, message: error.message })
    }
    assert.isFalse(CliError.isCliError(new Error("x")))
    assert.isFalse(CliError.isCliError({ _tag: "UsageError", reason: "NotFound", message: "x" }))
  })
})
