/**
 * The `x-mcp-header` rules of the 2026-07-28 revision: a tool that breaks one is left out of an HTTP listing.
 */
import { McpParamHeaders } from "@zett/common"
import { assert, describe, it } from "vitest"

const tool = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra
})

describe("McpParamHeaders.scan", () => {
  it("a schema without x-mcp-header declares none; one with valid headers declares them and breaks nothing", () => {
    assert.deepStrictEqual(McpParamHeaders.scan(tool({ q: { type: "string" } })), { declares: false })
    assert.deepStrictEqual(McpParamHeaders.scan(undefined), { declares: false })
    assert.deepStrictEqual(
      McpParamHeaders.scan(tool({
        region: { type: "string", "x-mcp-header": "Region" },
        count: { type: "integer", "x-mcp-header": "Count" },
        flag: { type: "boolean", "x-mcp-header": "X-Flag_1.ok" },
        nested: { type: "object", properties: { id: { type: "string", "x-mcp-header": "Nested-Id" } } }
      })),
      { declares: true }
    )
  })

  it("the header must be a non-empty HTTP token", () => {
    assert.deepStrictEqual(McpParamHeaders.scan(tool({ a: { type: "string", "x-mcp-header": "" } })), {
      declares: true,
      broken: "property a: x-mcp-header must be a non-empty string"
    })
    assert.deepStrictEqual(McpParamHeaders.scan(tool({ a: { type: "string", "x-mcp-header": 7 } })), {
      declares: true,
      broken: "property a: x-mcp-header must be a non-empty string"
    })
    assert.deepStrictEqual(McpParamHeaders.scan(tool({ a: { type: "string", "x-mcp-header": "Has Space" } })), {
      declares: true,
      broken: "property a: x-mcp-header is not an HTTP token"
    })
  })

  it("only on a string, integer or boolean property", () => {
    for (const type of ["number", "object", "array", undefined]) {
      assert.deepStrictEqual(McpParamHeaders.scan(tool({ a: { type, "x-mcp-header": "A" } })), {
        declares: true,
        broken: "property a: x-mcp-header is allowed only on a string, integer or boolean"
      }, String(type))
    }
  })

  it("unique whatever its case", () => {
    assert.deepStrictEqual(
      McpParamHeaders.scan(
        tool({ a: { type: "string", "x-mcp-header": "Region" }, b: { type: "string", "x-mcp-header": "region" } })
      ),
      { declares: true, broken: "property a: x-mcp-header repeats b's" }
    )
  })

  it("only on a property reached through properties alone, not on the schema itself nor under items, anyOf, $defs ...", () => {
    assert.deepStrictEqual(McpParamHeaders.scan(tool({}, { "x-mcp-header": "Root" })), {
      declares: true,
      broken: "the input schema: x-mcp-header is allowed only on a property reached through properties alone"
    })
    const under = {
      items: { a: { type: "array", items: { type: "string", "x-mcp-header": "A" } } },
      anyOf: { a: { anyOf: [{ type: "string", "x-mcp-header": "A" }] } },
      $defs: { a: { type: "object", $defs: { d: { type: "string", "x-mcp-header": "A" } } } },
      additionalProperties: { a: { type: "object", additionalProperties: { type: "string", "x-mcp-header": "A" } } }
    }
    for (const [keyword, properties] of Object.entries(under)) {
      const result = McpParamHeaders.scan(tool(properties))
      assert.isTrue(result.declares, keyword)
      assert.include(
        result.broken,
        `<${keyword}>: x-mcp-header is allowed only on a property reached through properties alone`,
        keyword
      )
    }
  })

  it("walks a hostile depth without overflowing the stack", () => {
    let schema: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 50_000; i++) schema = { type: "object", properties: { p: schema } }
    assert.deepStrictEqual(McpParamHeaders.scan(schema), { declares: false })
  })
})
