import { assert, describe, it } from "@effect/vitest"
import { Tool } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

// made in each test, not at import: a mutation tool attributes what a test runs to that test
const makeAdd = () =>
  Tool.make("add", {
    description: "Adds two numbers",
    parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
    handler: ({ a, b }) => Effect.succeed(a + b)
  })

// what the handler is given besides its arguments: unused by `add`
const call = { id: "c1", name: "add", arguments: {} } as unknown as Parameters<Tool.Tool["handle"]>[1]
const context = {} as Parameters<Tool.Tool["handle"]>[2]

describe("Tool.make", () => {
  it.effect("every invalid argument is reported, and an unknown one is invalid too (A11)", () =>
    Effect.gen(function*() {
      const add = makeAdd()
      assert.strictEqual(yield* add.handle({ a: 40, b: 2 }, call, context), 42)
      const both = (yield* Effect.flip(add.handle({ a: "x", b: "y" }, call, context))) as Tool.ToolError
      assert.instanceOf(both, Tool.ToolError)
      assert.strictEqual(both.reason, "InvalidArguments")
      // Schema 4's wording: each issue and where it is
      assert.strictEqual(
        both.message,
        [
          "invalid arguments for add: Expected number",
          "  at [\"a\"]",
          "Expected number",
          "  at [\"b\"]"
        ].join("\n")
      )
      const extra = (yield* Effect.flip(add.handle({ a: 1, b: 2, c: 3 }, call, context))) as Tool.ToolError
      assert.strictEqual(
        extra.message,
        [
          "invalid arguments for add: Expected no excess property",
          "  at [\"c\"]"
        ].join("\n")
      )
    }))
})
