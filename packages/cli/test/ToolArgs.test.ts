/**
 * `zett call … --arg key=value`: arguments built from the tool's input schema, as the MCP Inspector's `--tool-arg`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as ToolArgs from "../src/internal/toolArgs.js"

const schema = {
  type: "object",
  properties: {
    a: { type: "number" },
    n: { type: "integer" },
    flag: { type: "boolean" },
    tags: { type: "array", items: { type: "string" } },
    ids: { type: "array", items: { type: "integer" } },
    filter: { type: "object" },
    name: { type: "string" },
    maybe: { type: ["string", "null"] },
    any: {}
  },
  required: ["a"]
}

const build = (...pairs: ReadonlyArray<string>) => ToolArgs.build("demo__t", schema, pairs, {})

describe("ToolArgs.build", () => {
  it("reads each value as its property's type says", () => {
    assert.deepStrictEqual(
      build(
        "a=2.5",
        "n=40",
        "flag=true",
        "tags=x,y",
        "ids=[1,2]",
        "filter={\"k\":1}",
        "name=42",
        "maybe=hi",
        "any=[1]"
      ),
      Either.right({
        a: 2.5,
        n: 40,
        flag: true,
        tags: ["x", "y"],
        ids: [1, 2],
        filter: { k: 1 },
        name: "42",
        maybe: "hi",
        any: [1]
      })
    )
    assert.deepStrictEqual(build("ids=3, 4"), Either.right({ ids: [3, 4] }))
    assert.deepStrictEqual(build("any=plain text", "name="), Either.right({ any: "plain text", name: "" }))
  })

  it("a value the type cannot read is one line naming the key and what it expects", () => {
    assert.deepStrictEqual(build("a=two"), Either.left("--arg a expects a number, got 'two'"))
    assert.deepStrictEqual(build("n=1.5"), Either.left("--arg n expects a whole number, got '1.5'"))
    assert.deepStrictEqual(build("flag=yes"), Either.left("--arg flag expects true or false, got 'yes'"))
    assert.deepStrictEqual(
      build("ids=1,x"),
      Either.left("--arg ids expects values separated by commas, each a whole number, got '1,x'")
    )
    assert.deepStrictEqual(build("filter=[1]"), Either.left("--arg filter expects a JSON object, got '[1]'"))
  })

  it("an unknown key is refused with the nearest name and the ones the tool takes; a key given twice, or no '=', too", () => {
    assert.deepStrictEqual(
      build("nmae=x"),
      Either.left(
        "demo__t has no argument 'nmae' (did you mean name?); it takes a, n, flag, tags, ids, filter, name, maybe, any"
      )
    )
    assert.deepStrictEqual(build("a=1", "a=2"), Either.left("--arg a is given twice"))
    assert.deepStrictEqual(build("a"), Either.left("--arg expects key=value, got 'a'"))
  })

  it("a schema that takes any other property, or lists none, takes any key as JSON or text; JSON arguments are the base", () => {
    assert.deepStrictEqual(
      ToolArgs.build("t", { type: "object", properties: { a: { type: "number" } }, additionalProperties: true }, [
        "b=[1]",
        "a=1"
      ], { c: 3 }),
      Either.right({ c: 3, b: [1], a: 1 })
    )
    assert.deepStrictEqual(
      ToolArgs.build("t", { type: "object" }, ["x=true", "y=word"], {}),
      Either.right({ x: true, y: "word" })
    )
  })

  it("a key named __proto__ is an own property, not the prototype", () => {
    const built = Either.getOrThrow(ToolArgs.build("t", { type: "object" }, ["__proto__={\"polluted\":1}"], {}))
    assert.isTrue(Object.hasOwn(built, "__proto__"))
    assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
  })
})
