import { McpElicitation } from "@zett/common"
import { assert, describe, it } from "vitest"

const schema = {
  properties: {
    name: { type: "string", title: "Your name", description: "as written", minLength: 1 },
    size: { type: "string", enum: ["s", "m"], enumNames: ["Small", "Medium"], default: "m" },
    tags: { type: "array", items: { anyOf: [{ const: "a", title: "A" }, { const: "b" }] } },
    count: { type: "integer", minimum: 1, maximum: 9 },
    ok: { type: "boolean", default: false }
  },
  required: ["name"]
}

describe("McpElicitation", () => {
  it("fields: in the schema's order, with titles, choices, bounds and defaults", () => {
    const fields = McpElicitation.fields(schema)
    assert.deepStrictEqual(fields.map((field) => field.name), ["name", "size", "tags", "count", "ok"])
    assert.deepStrictEqual(
      [fields[0]!.title, fields[0]!.description, fields[0]!.required, fields[0]!.choices],
      ["Your name", "as written", true, undefined]
    )
    assert.deepStrictEqual(fields[1]!.choices, [{ value: "s", title: "Small" }, { value: "m", title: "Medium" }])
    assert.strictEqual(fields[1]!.default, "m")
    assert.deepStrictEqual(fields[2]!.choices, [{ value: "a", title: "A" }, { value: "b", title: "b" }])
    assert.deepStrictEqual([fields[3]!.minimum, fields[3]!.maximum, fields[3]!.required], [1, 9, false])
  })

  it("applyDefaults fills in what the content leaves out, and keeps what it gives", () => {
    assert.deepStrictEqual(McpElicitation.applyDefaults(schema, { name: "x", size: "s" }), {
      name: "x",
      size: "s",
      ok: false
    })
  })
})
