import { assert, describe, it } from "@effect/vitest"
import { EditDistance } from "@zett/agent"

describe("EditDistance.levenshtein", () => {
  it("counts the fewest insertions, deletions and substitutions", () => {
    assert.strictEqual(EditDistance.levenshtein("", ""), 0)
    assert.strictEqual(EditDistance.levenshtein("", "args"), 4)
    assert.strictEqual(EditDistance.levenshtein("args", ""), 4)
    assert.strictEqual(EditDistance.levenshtein("args", "args"), 0)
    assert.strictEqual(EditDistance.levenshtein("arg", "args"), 1)
    assert.strictEqual(EditDistance.levenshtein("argz", "args"), 1)
    assert.strictEqual(EditDistance.levenshtein("envFil", "envFile"), 1)
    assert.strictEqual(EditDistance.levenshtein("kitten", "sitting"), 3)
    // symmetric
    assert.strictEqual(EditDistance.levenshtein("sitting", "kitten"), 3)
  })

  it("tells case apart unless ignoreCase", () => {
    assert.strictEqual(EditDistance.levenshtein("ENV", "env"), 3)
    assert.strictEqual(EditDistance.levenshtein("ENV", "env", { ignoreCase: false }), 3)
    assert.strictEqual(EditDistance.levenshtein("ENV", "env", { ignoreCase: true }), 0)
    assert.strictEqual(EditDistance.levenshtein("Read_File", "readfile", { ignoreCase: true }), 1)
  })
})
