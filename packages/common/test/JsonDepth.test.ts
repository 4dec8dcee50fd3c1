import { JsonDepth } from "@zett/common"
import { assert, describe, it } from "vitest"

const nestedText = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

const nestedValue = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value }
  return value
}

describe("JsonDepth.deeperThan", () => {
  it("counts the arrays and objects a text opens, and is deeper only past the limit", () => {
    assert.isFalse(JsonDepth.deeperThan(nestedText(3), 3))
    assert.isTrue(JsonDepth.deeperThan(nestedText(4), 3))
    assert.isTrue(JsonDepth.deeperThan("{\"a\":[{\"b\":{}}]}", 3))
    assert.isFalse(JsonDepth.deeperThan("{\"a\":[1,2],\"b\":{\"c\":3}}", 2))
    assert.isFalse(JsonDepth.deeperThan("42", 0))
    // closed levels do not add up
    assert.isFalse(JsonDepth.deeperThan("[[1]] [[2]] [[3]]", 2))
  })

  it("does not count brackets inside strings, escaped quotes included", () => {
    assert.isFalse(JsonDepth.deeperThan("[\"[[[[{{{{\"]", 1))
    assert.isFalse(JsonDepth.deeperThan("[\"a \\\" [[[[ \\\\\"]", 1))
    assert.isTrue(JsonDepth.deeperThan("[\"\\\\\", [[1]]]", 2))
  })

  it("measures a hostile depth without overflowing the stack", () => {
    assert.isTrue(JsonDepth.deeperThan(nestedText(100_000), 128))
  })
})

describe("JsonDepth.valueDeeperThan", () => {
  it("counts the arrays and objects a value nests, and is deeper only past the limit", () => {
    assert.isFalse(JsonDepth.valueDeeperThan(nestedValue(5), 5))
    assert.isTrue(JsonDepth.valueDeeperThan(nestedValue(6), 5))
    assert.isFalse(JsonDepth.valueDeeperThan({ a: [1, 2], b: { c: 3 } }, 2))
    assert.isFalse(JsonDepth.valueDeeperThan(null, 0))
    assert.isFalse(JsonDepth.valueDeeperThan("text", 0))
  })

  it("walks a hostile depth without overflowing the stack", () => {
    assert.isTrue(JsonDepth.valueDeeperThan(nestedValue(100_000), 128))
  })
})
