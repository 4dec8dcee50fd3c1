/**
 * The agent's EditDistance is `@zett/common`'s (tested there, once for both lines): the same functions.
 */
import { assert, describe, it } from "@effect/vitest"
import { EditDistance } from "@zett/agent"
import * as Common from "@zett/common"

describe("EditDistance", () => {
  it("is the shared module's levenshtein and nearest", () => {
    assert.strictEqual(EditDistance.levenshtein, Common.EditDistance.levenshtein)
    assert.strictEqual(EditDistance.nearest, Common.EditDistance.nearest)
    assert.strictEqual(EditDistance.nearest("comand", ["command", "args"]), "command")
  })
})
