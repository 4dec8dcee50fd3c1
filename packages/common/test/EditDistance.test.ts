import { EditDistance } from "@zett/common"
import { assert, describe, it } from "vitest"

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

describe("EditDistance.nearest", () => {
  it("names the candidate a misspelling meant, case aside, and none when every candidate is a different name", () => {
    assert.strictEqual(EditDistance.nearest("comand", ["command", "args", "env"]), "command")
    assert.strictEqual(EditDistance.nearest("ENVFILE", ["env", "envFile"]), "envFile")
    assert.isUndefined(EditDistance.nearest("x", ["a", "b"]))
    assert.isUndefined(EditDistance.nearest("transport", ["command", "args"]))
  })
})

describe("EditDistance.closest", () => {
  it("puts names that contain the name first, then the nearest, ties in the order given, at most limit", () => {
    assert.deepStrictEqual(EditDistance.closest("add", ["math__subtract", "math__add"]), [
      "math__add",
      "math__subtract"
    ])
    assert.deepStrictEqual(EditDistance.closest("ADD", ["sub", "mul", "math__add", "div"], 2), ["math__add", "sub"])
    assert.deepStrictEqual(EditDistance.closest("search", []), [])
    assert.deepStrictEqual(EditDistance.closest("", ["b", "a"]), ["b", "a"])
  })
})
