import { assert, describe, it } from "@effect/vitest"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { McpError, McpTool, McpToolResult } from "@zett/mcp"
import * as FastCheck from "effect/FastCheck"
import { pipe } from "effect/Function"

const valid = /^[A-Za-z0-9_-]{1,64}$/

describe("McpTool.exposedName", () => {
  it("a tool search on server catalog is exposed as catalog__search (E1)", () => {
    assert.strictEqual(McpTool.exposedName("catalog", "search", { namespace: true }), "catalog__search")
  })

  it("namespaceTools false keeps the bare tool name (E1)", () => {
    assert.strictEqual(McpTool.exposedName("catalog", "search", { namespace: false }), "search")
  })

  it("names that are already valid are unchanged (E2)", () => {
    for (const tool of ["get-weather", "list_items_v2", "A-z_0-9", "x"]) {
      assert.strictEqual(McpTool.exposedName("srv", tool, { namespace: false }), tool)
      assert.strictEqual(McpTool.exposedName("srv", tool, { namespace: true }), `srv__${tool}`)
    }
    const exactly64 = "a".repeat(59)
    assert.strictEqual(McpTool.exposedName("srv", exactly64, { namespace: true }), `srv__${exactly64}`)
    assert.strictEqual(`srv__${exactly64}`.length, 64)
  })

  // The expected values were computed once (sha256 of the original name, first 8 hex digits) and are
  // hard-coded: any process, any machine, any later version must produce exactly these names.
  it("characters outside [A-Za-z0-9_-] are replaced and a stable hash of the original name is added (E2)", () => {
    assert.strictEqual(
      McpTool.exposedName("catalog", "find items", { namespace: true }),
      "catalog__find_items_0a8ce407"
    )
    assert.strictEqual(
      McpTool.exposedName("catalog", "héllo wörld 🚀", { namespace: true }),
      "catalog__h_llo_w_rld___2d88b6e1"
    )
  })

  it("a 200-character name is shortened to 64 characters with a stable hash (E2)", () => {
    const name = McpTool.exposedName("catalog", "a".repeat(200), { namespace: true })
    assert.strictEqual(name.length, 64)
    assert.strictEqual(name, `catalog__${"a".repeat(46)}_38a0c36e`)
    assert.match(name, valid)
  })

  it("the same input gives the same name in a new process (E2)", async () => {
    const { execFileSync } = await import("node:child_process")
    // An independent computation in a fresh node process (no shared state with this one) agrees with the
    // library on the hash suffix.
    const script = `const c = require("node:crypto");` +
      `process.stdout.write(c.createHash("sha256").update(process.argv[1], "utf8").digest("hex").slice(0, 8))`
    const original = `docs__${"long name ".repeat(20)}`
    const hash = execFileSync(process.execPath, ["-e", script, original], { encoding: "utf8" })
    const name = McpTool.exposedName("docs", "long name ".repeat(20), { namespace: true })
    assert.strictEqual(name.slice(-9), `_${hash}`)
    assert.strictEqual(name, McpTool.exposedName("docs", "long name ".repeat(20), { namespace: true }))
  })

  it("two long names with the same 64-character prefix get different names (E2)", () => {
    const common = "x".repeat(70)
    const a = McpTool.exposedName("docs", `${common}_alpha`, { namespace: true })
    const b = McpTool.exposedName("docs", `${common}_beta`, { namespace: true })
    assert.notStrictEqual(a, b)
    assert.match(a, valid)
    assert.match(b, valid)
    // differing only at character 65 of the full name
    const c = McpTool.exposedName("docs", `${"x".repeat(58)}y`, { namespace: true })
    const d = McpTool.exposedName("docs", `${"x".repeat(58)}z`, { namespace: true })
    assert.strictEqual(c, `docs__${"x".repeat(49)}_7fd27fd9`)
    assert.strictEqual(d, `docs__${"x".repeat(49)}_f5e29060`)
  })

  it("names that sanitise alike stay distinct (E2)", () => {
    const names = ["a b", "a.b", "a/b", "a:b", "a_b"].map((tool) =>
      McpTool.exposedName("s", tool, { namespace: false })
    )
    assert.strictEqual(new Set(names).size, names.length)
    assert.strictEqual(names[4], "a_b")
  })

  it("an empty tool name gives a valid name (E2)", () => {
    const bare = McpTool.exposedName("catalog", "", { namespace: false })
    assert.strictEqual(bare, "_e3b0c442")
    assert.match(McpTool.exposedName("catalog", "", { namespace: true }), valid)
  })

  it("any input gives a valid, deterministic name (E2)", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.string({ maxLength: 20 }),
        FastCheck.oneof(FastCheck.string({ maxLength: 300 }), FastCheck.string({ unit: "grapheme", maxLength: 80 })),
        FastCheck.boolean(),
        (server, tool, namespace) => {
          const name = McpTool.exposedName(server, tool, { namespace })
          return valid.test(name) && McpTool.isValidName(name) &&
            name === McpTool.exposedName(server, tool, { namespace })
        }
      ),
      { numRuns: 500 }
    )
  })
})

describe("McpTool.cleanSchema", () => {
  it("removes title at every schema position and $schema below the root (the root's names the dialect), keeps everything else (E4)", () => {
    const input = {
      $schema: "http://json-schema.org/draft-07/schema#",
      title: "SearchArgs",
      type: "object",
      description: "Search the catalog",
      properties: {
        query: { title: "Query", $schema: "https://json-schema.org/draft/2020-12/schema", type: "string", minLength: 1, description: "What to look for" },
        limit: { title: "Limit", type: "integer", minimum: 1, maximum: 100, default: 10 },
        filters: {
          title: "Filters",
          type: "array",
          items: { title: "Filter", type: "object", properties: { field: { title: "Field", type: "string" } } }
        },
        tuple: {
          type: "array",
          prefixItems: [{ title: "First", type: "string" }],
          items: [{ title: "Old", type: "number" }]
        },
        choice: {
          anyOf: [{ title: "A", type: "string" }, { $ref: "#/$defs/Item" }],
          oneOf: [{ title: "O" }],
          allOf: [{ title: "L" }]
        },
        cond: { if: { title: "If" }, then: { title: "Then" }, else: { title: "Else" }, not: { title: "Not" } },
        map: {
          type: "object",
          additionalProperties: { title: "Value", type: "number" },
          patternProperties: { "^x-": { title: "Ext" } },
          propertyNames: { title: "Names", pattern: "^[a-z]" },
          unevaluatedProperties: { title: "Rest" },
          dependentSchemas: { a: { title: "DepA" } },
          dependencies: { b: { title: "DepB" }, c: ["a"] }
        },
        list: {
          type: "array",
          contains: { title: "Has" },
          unevaluatedItems: { title: "More" },
          additionalItems: { title: "Add" }
        }
      },
      required: ["query"],
      $defs: { Item: { title: "Item", type: "object", properties: { id: { type: "string" } } } },
      definitions: { Legacy: { title: "Legacy", type: "string" } }
    }
    assert.deepStrictEqual(McpTool.cleanSchema(input), {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      description: "Search the catalog",
      properties: {
        query: { type: "string", minLength: 1, description: "What to look for" },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
        filters: { type: "array", items: { type: "object", properties: { field: { type: "string" } } } },
        tuple: { type: "array", prefixItems: [{ type: "string" }], items: [{ type: "number" }] },
        choice: { anyOf: [{ type: "string" }, { $ref: "#/$defs/Item" }], oneOf: [{}], allOf: [{}] },
        cond: { if: {}, then: {}, else: {}, not: {} },
        map: {
          type: "object",
          additionalProperties: { type: "number" },
          patternProperties: { "^x-": {} },
          propertyNames: { pattern: "^[a-z]" },
          unevaluatedProperties: {},
          dependentSchemas: { a: {} },
          dependencies: { b: {}, c: ["a"] }
        },
        list: { type: "array", contains: {}, unevaluatedItems: {}, additionalItems: {} }
      },
      required: ["query"],
      $defs: { Item: { type: "object", properties: { id: { type: "string" } } } },
      definitions: { Legacy: { type: "string" } }
    })
  })

  it("a property called title stays, with its own annotations removed (E4)", () => {
    const cleaned = McpTool.cleanSchema({
      type: "object",
      title: "Book",
      properties: {
        title: { title: "Title", type: "string", description: "the book's title", maxLength: 200 },
        $schema: { type: "string" }
      },
      patternProperties: { "^title$": { type: "string", title: "T" } },
      $defs: { title: { title: "TitleDef", type: "string" } },
      required: ["title", "$schema"]
    })
    assert.deepStrictEqual(cleaned, {
      type: "object",
      properties: {
        title: { type: "string", description: "the book's title", maxLength: 200 },
        $schema: { type: "string" }
      },
      patternProperties: { "^title$": { type: "string" } },
      $defs: { title: { type: "string" } },
      required: ["title", "$schema"]
    })
  })

  it("enum, const, default and examples are data and are not touched (E4)", () => {
    const input = {
      type: "object",
      properties: {
        book: {
          type: "object",
          title: "Book",
          default: { title: "Dune", $schema: "kept" },
          examples: [{ title: "Emma" }],
          const: { title: "Only" },
          enum: [{ title: "A" }, { title: "B" }]
        }
      }
    }
    assert.deepStrictEqual(McpTool.cleanSchema(input), {
      type: "object",
      properties: {
        book: {
          type: "object",
          default: { title: "Dune", $schema: "kept" },
          examples: [{ title: "Emma" }],
          const: { title: "Only" },
          enum: [{ title: "A" }, { title: "B" }]
        }
      }
    })
  })

  it("boolean and unknown keywords pass through unchanged (E4)", () => {
    const input = {
      type: "object",
      properties: {
        free: true,
        never: false,
        x: { type: "string", "x-vendor": { title: "kept: not a schema position" } }
      },
      additionalProperties: false
    }
    assert.deepStrictEqual(McpTool.cleanSchema(input), input)
  })

  it("the input schema is not mutated (E4)", () => {
    const input = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: "T",
      properties: { a: { title: "A", type: "string" }, b: { type: "array", items: { title: "I" } } },
      anyOf: [{ title: "X" }]
    }
    const before = structuredClone(input)
    const cleaned = McpTool.cleanSchema(input)
    assert.deepStrictEqual(input, before)
    assert.notStrictEqual(cleaned, input)
    assert.notStrictEqual(cleaned.properties, input.properties)
  })

  it("a schema that needs no change is returned as it is, not copied", () => {
    const input = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "array", items: { type: "number" } } },
      anyOf: [{ required: ["a"] }],
      $defs: { d: { type: "string" } },
      dependencies: { a: ["b"] }
    }
    const before = structuredClone(input)
    assert.strictEqual(McpTool.cleanSchema(input), input)
    assert.deepStrictEqual(input, before)
  })

  it("a cleaned schema shares the parts that needed no change with the input", () => {
    const a = { type: "string", description: "a" }
    const items = [{ type: "string" }, { type: "number" }]
    const d = { type: "integer" }
    const input = {
      type: "object",
      properties: { a, b: { type: "object", title: "B", properties: { c: { type: "boolean" } } }, e: { type: "null" } },
      prefixItems: [{ type: "string" }, { title: "second" }, { type: "number" }],
      allOf: [{ title: "1" }, { type: "string" }, { title: "3", type: "string" }],
      items,
      $defs: { d, f: { title: "F" } }
    }
    const cleaned = McpTool.cleanSchema(input) as {
      readonly properties: Record<string, unknown>
      readonly prefixItems: ReadonlyArray<unknown>
      readonly items: unknown
      readonly $defs: Record<string, unknown>
    }
    assert.deepStrictEqual(cleaned as unknown, {
      type: "object",
      properties: { a, b: { type: "object", properties: { c: { type: "boolean" } } }, e: { type: "null" } },
      prefixItems: [{ type: "string" }, {}, { type: "number" }],
      allOf: [{}, { type: "string" }, { type: "string" }],
      items,
      $defs: { d, f: {} }
    })
    assert.notStrictEqual(cleaned, input)
    assert.notStrictEqual(cleaned.properties, input.properties)
    assert.strictEqual(cleaned.properties.a, a)
    assert.strictEqual(cleaned.properties.e, input.properties.e)
    assert.strictEqual((cleaned.properties.b as { properties: unknown }).properties, input.properties.b.properties)
    assert.notStrictEqual(cleaned.prefixItems, input.prefixItems)
    assert.strictEqual(cleaned.prefixItems[0], input.prefixItems[0])
    assert.strictEqual(cleaned.prefixItems[2], input.prefixItems[2])
    assert.strictEqual(cleaned.items, items)
    assert.strictEqual(cleaned.$defs.d, d)
  })

  it("the filled-in type and properties never change the input", () => {
    const bare = { type: "object" }
    assert.deepStrictEqual(McpTool.cleanSchema(bare), { type: "object", properties: {} })
    assert.deepStrictEqual(bare, { type: "object" })
    const untyped = { properties: { a: { type: "string" } } }
    const cleaned = McpTool.cleanSchema(untyped)
    assert.deepStrictEqual(cleaned, { type: "object", properties: { a: { type: "string" } } })
    assert.deepStrictEqual(untyped, { properties: { a: { type: "string" } } })
    assert.strictEqual(cleaned.properties, untyped.properties)
    const other = { type: "string" }
    assert.strictEqual(McpTool.cleanSchema(other), other)
  })

  it("the result is always an object schema (E4)", () => {
    assert.deepStrictEqual(McpTool.cleanSchema({ properties: { a: { type: "string" } } }), {
      type: "object",
      properties: { a: { type: "string" } }
    })
    assert.deepStrictEqual(McpTool.cleanSchema({ type: "object" }), { type: "object", properties: {} })
    assert.deepStrictEqual(McpTool.cleanSchema({ title: "Empty" }), { type: "object", properties: {} })
    for (const nonSchema of [undefined, null, true, false, [], "object", 42]) {
      assert.deepStrictEqual(McpTool.cleanSchema(nonSchema), { type: "object", properties: {} })
    }
  })

  it("a property named __proto__ stays an ordinary property (E4)", () => {
    const input = JSON.parse(`{"type":"object","properties":{"__proto__":{"title":"P","type":"string"}}}`)
    const cleaned = McpTool.cleanSchema(input)
    const properties = cleaned.properties as Record<string, unknown>
    assert.isTrue(Object.hasOwn(properties, "__proto__"))
    assert.strictEqual(Object.getPrototypeOf(properties), Object.prototype)
    assert.strictEqual(JSON.stringify(cleaned), `{"type":"object","properties":{"__proto__":{"type":"string"}}}`)
  })

  it("a hostile, very deep or cyclic schema neither overflows nor hangs (E4)", () => {
    let deep: Record<string, unknown> = { type: "string", title: "leaf" }
    for (let i = 0; i < 100_000; i++) deep = { not: deep, title: `level ${i}` }
    const cleaned = McpTool.cleanSchema({ type: "object", properties: { d: deep } })
    assert.isFalse(Object.hasOwn((cleaned.properties as any).d, "title"))

    const cyclic: Record<string, unknown> = { type: "object", title: "Loop" }
    cyclic.properties = { self: cyclic }
    assert.isFalse(Object.hasOwn(McpTool.cleanSchema(cyclic), "title"))
  })
})

describe("McpTool.cleanSchema, exactly", () => {
  it("an explicit non-object type is kept as sent, without properties; a present type keeps its place (E4)", () => {
    assert.deepStrictEqual(McpTool.cleanSchema({ type: "string", title: "S" }), { type: "string" })
    // what the model reads is the JSON text: the server's key order stays
    const cleaned = McpTool.cleanSchema({ properties: { a: { type: "string" } }, required: ["a"], type: "object" })
    assert.strictEqual(
      JSON.stringify(cleaned),
      `{"properties":{"a":{"type":"string"}},"required":["a"],"type":"object"}`
    )
  })

  it("a property named __proto__ is an ordinary writable, configurable, enumerable property (E4)", () => {
    const input = JSON.parse(`{"type":"object","properties":{"__proto__":{"title":"P","type":"string"}}}`)
    const properties = McpTool.cleanSchema(input).properties as Record<string, unknown>
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(properties, "__proto__"), {
      value: { type: "string" },
      writable: true,
      enumerable: true,
      configurable: true
    })
  })

  it("schema levels are cleaned down to depth 256 and copied unchanged below (E4)", () => {
    let deep: Record<string, unknown> = { type: "string", title: "leaf" }
    for (let i = 0; i < 300; i++) deep = { not: deep, title: `level ${i}` }
    // the root is at depth 0 and its property `d` at depth 1
    let node = (McpTool.cleanSchema({ type: "object", properties: { d: deep } }).properties as any).d
    let cleanedLevels = 0
    while (!Object.hasOwn(node, "title")) {
      node = node.not
      cleanedLevels++
    }
    assert.strictEqual(cleanedLevels, 255)
    assert.strictEqual(node.title, "level 44")
  })
})

describe("McpTool.checkSchema", () => {
  // `depth` objects, each inside the next
  const nested = (depth: number): unknown => {
    let schema: unknown = { type: "string" }
    for (let i = 1; i < depth; i++) schema = { not: schema }
    return schema
  }

  it("a schema may nest 128 JSON levels, not 129 (E4)", () => {
    assert.strictEqual(McpTool.schemaLimits.depth, 128)
    assert.isUndefined(McpTool.checkSchema(nested(128)))
    assert.strictEqual(McpTool.checkSchema(nested(129)), "its input schema nests deeper than 128 levels")
    // nesting within arrays counts too, and plain values are no level of their own
    let inArrays: unknown = ["leaf", 1, null]
    for (let i = 1; i < 129; i++) inArrays = [inArrays]
    assert.strictEqual(McpTool.checkSchema(inArrays), "its input schema nests deeper than 128 levels")
    assert.isUndefined(McpTool.checkSchema({ anyOf: [nested(126)] }))
    assert.strictEqual(McpTool.checkSchema({ anyOf: [nested(127)] }), "its input schema nests deeper than 128 levels")
    // a million levels are measured without overflowing the stack
    let deep: unknown = {}
    for (let i = 0; i < 1_000_000; i++) deep = { not: deep }
    assert.strictEqual(McpTool.checkSchema(deep), "its input schema nests deeper than 128 levels")
  })

  it("a reference to another document is refused (nothing is fetched); one into the schema, or to its own $id, is not", () => {
    const external = { type: "object", properties: { user: { $ref: "https://schemas.example/user.json" } } }
    assert.strictEqual(
      McpTool.checkSchema(external),
      `its input schema refers to another document ("https://schemas.example/user.json"), which is not fetched`
    )
    assert.include(McpTool.checkSchema({ type: "object", properties: { a: { $ref: "other.json#/$defs/a" } } })!, "other.json#/$defs/a")
    assert.isUndefined(McpTool.checkSchema({
      type: "object",
      $defs: { a: { type: "string" } },
      properties: { a: { $ref: "#/$defs/a" }, b: { $ref: "#" } }
    }))
    // a $ref to an embedded resource of the schema itself
    assert.isUndefined(McpTool.checkSchema({
      type: "object",
      $defs: { user: { $id: "https://schemas.example/user.json", type: "object" } },
      properties: { user: { $ref: "https://schemas.example/user.json" }, name: { $ref: "https://schemas.example/user.json#/properties/x" } }
    }))
    // in a value (a default, an enum member) a $ref is data
    assert.isUndefined(McpTool.checkSchema({
      type: "object",
      properties: { link: { type: "object", default: { $ref: "https://x.example" }, enum: [{ $ref: "y.json" }] } }
    }))
  })

  it("a schema may weigh 1,000,000 characters of keys and values, as its JSON text roughly does (E4)", () => {
    const refused = "its input schema is larger than 1,000,000 characters"
    assert.strictEqual(McpTool.schemaLimits.size, 1_000_000)
    // an object is 2 plus 1 per value, a key its length plus 3, a string its length plus 2: 9 + n
    assert.isUndefined(McpTool.checkSchema({ d: "x".repeat(999_991) }))
    assert.strictEqual(McpTool.checkSchema({ d: "x".repeat(999_992) }), refused)
    // an array is 2 plus 1 per value, any other plain value 5: 34 + n
    assert.isUndefined(McpTool.checkSchema({ d: "x".repeat(999_966), e: [null, 1, true] }))
    assert.strictEqual(McpTool.checkSchema({ d: "x".repeat(999_967), e: [null, 1, true] }), refused)
    assert.isUndefined(McpTool.checkSchema({ type: "object", properties: {} }))
    assert.isUndefined(McpTool.checkSchema(undefined))
  })

  it("the walk names the first limit it meets: reaching the size limit exactly is allowed, passing it at a key or an array ends the walk there (E4)", () => {
    const larger = "its input schema is larger than 1,000,000 characters"
    const deeper = "its input schema nests deeper than 128 levels"
    // { s: "x" * n, a: <127 levels of `wrap`> around a value at depth 129 }
    const chain = (n: number, wrap: (inner: unknown) => unknown, innermost: unknown) => {
      let value = innermost
      for (let depth = 128; depth >= 2; depth--) value = wrap(value)
      return { s: "x".repeat(n), a: value }
    }
    // objects: 2 + 5 + (n + 2) + 5 before the chain, 7 per level (an object and its key "a"), checked at each key:
    // the key of depth 128 brings the size to n + 903, and its value is one level too deep
    const objects = (n: number) => chain(n, (inner) => ({ a: inner }), {})
    assert.strictEqual(McpTool.checkSchema(objects(999_097)), deeper)
    assert.strictEqual(McpTool.checkSchema(objects(999_098)), larger)
    // arrays: 3 per level (an array and its one value), checked at each array's length: n + 395 at depth 128
    const arrays = (n: number) => chain(n, (inner) => [inner], [])
    assert.strictEqual(McpTool.checkSchema(arrays(999_605)), deeper)
    assert.strictEqual(McpTool.checkSchema(arrays(999_606)), larger)
  })
})

describe("McpToolResult.toResult", () => {
  const policy = McpToolResult.ErrorTextPolicy.toolText

  it("an embedded resource's blob reaches the model as text only when its MIME type is text and it is UTF-8", () => {
    const base64 = (bytes: string | Uint8Array) => Buffer.from(bytes).toString("base64")
    const resources = [
      { uri: "r://text", mimeType: "text/plain; charset=utf-8", blob: base64("hello") },
      { uri: "r://json", mimeType: "application/json", blob: base64("{\"a\":1}"), _meta: { dropped: true } },
      { uri: "r://image", mimeType: "image/png", blob: base64("not text to a model") },
      { uri: "r://untyped", blob: base64("no MIME type") },
      { uri: "r://invalid", mimeType: "text/plain", blob: base64(new Uint8Array([0xff, 0xfe, 0x41])) },
      { uri: "r://already", mimeType: "text/plain", text: "a text resource" },
      { uri: "r://odd", mimeType: 7, blob: base64("a MIME type that is no string") },
      { uri: "r://bytes", mimeType: "text/plain", blob: [104, 105] }
    ]
    const outcome = McpToolResult.toResult(
      { content: resources.map((resource) => ({ type: "resource", resource })) } as unknown as CallToolResult,
      policy
    )
    assert.strictEqual(outcome._tag, "Success")
    assert.deepStrictEqual(outcome._tag === "Success" && outcome.value, [
      { type: "resource", resource: { uri: "r://text", mimeType: "text/plain; charset=utf-8", text: "hello" } },
      { type: "resource", resource: { uri: "r://json", mimeType: "application/json", text: "{\"a\":1}" } },
      { type: "resource", resource: { uri: "r://image", mimeType: "image/png", blob: base64("not text to a model") } },
      { type: "resource", resource: { uri: "r://untyped", blob: base64("no MIME type") } },
      { type: "resource", resource: { uri: "r://invalid", mimeType: "text/plain", blob: base64(new Uint8Array([0xff, 0xfe, 0x41])) } },
      { type: "resource", resource: { uri: "r://already", mimeType: "text/plain", text: "a text resource" } },
      { type: "resource", resource: { uri: "r://odd", mimeType: 7, blob: base64("a MIME type that is no string") } },
      // a blob that is no string is not decoded (Buffer.from would read an array as bytes)
      { type: "resource", resource: { uri: "r://bytes", mimeType: "text/plain", blob: [104, 105] } }
    ])
  })

  it("a result with structuredContent returns that structured value (E7)", () => {
    const result: CallToolResult = {
      content: [{ type: "text", text: "{\"answer\":42,\"unit\":\"items\"}" }],
      structuredContent: { answer: 42, unit: "items", nested: { title: "kept" } }
    }
    const outcome = McpToolResult.toResult(result, policy)
    assert.strictEqual(outcome._tag, "Success")
    assert.deepStrictEqual(outcome._tag === "Success" && outcome.value, {
      answer: 42,
      unit: "items",
      nested: { title: "kept" }
    })
  })

  it("text and image content are returned as JSON data, not vision messages (E7)", () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    const result: CallToolResult = {
      content: [
        { type: "text", text: "Here is the chart", annotations: { audience: ["assistant"], priority: 0.5 } },
        { type: "image", data: png, mimeType: "image/png", _meta: { "example.com/trace": "t-1" } }
      ],
      _meta: { "example.com/request": "r-1" }
    }
    const outcome = McpToolResult.toResult(result, policy)
    assert.deepStrictEqual(outcome, McpToolResult.ToolOutcome.Success({
      value: [
        { type: "text", text: "Here is the chart" },
        { type: "image", data: png, mimeType: "image/png" }
      ]
    }))
    // plain JSON, losslessly serialisable
    assert.strictEqual(
      JSON.stringify(outcome._tag === "Success" && outcome.value),
      `[{"type":"text","text":"Here is the chart"},{"type":"image","data":"${png}","mimeType":"image/png"}]`
    )
  })

  it("audio, embedded resources and resource links are serialised as JSON data (E7)", () => {
    const result: CallToolResult = {
      content: [
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        {
          type: "resource",
          resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes", _meta: { x: 1 } },
          annotations: { priority: 1 }
        },
        { type: "resource_link", uri: "https://example.com/r/1", name: "report", mimeType: "application/pdf" }
      ]
    }
    assert.deepStrictEqual(McpToolResult.toResult(result, policy), McpToolResult.ToolOutcome.Success({
      value: [
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" } },
        { type: "resource_link", uri: "https://example.com/r/1", name: "report", mimeType: "application/pdf" }
      ]
    }))
  })

  it("an empty result is an empty list, and the input result is not mutated (E7)", () => {
    const result: CallToolResult = { content: [{ type: "text", text: "ok", _meta: { a: 1 } }] }
    const before = structuredClone(result)
    McpToolResult.toResult(result, policy)
    assert.deepStrictEqual(result, before)
    assert.deepStrictEqual(McpToolResult.toResult({ content: [] }, policy), McpToolResult.ToolOutcome.Success({ value: [] }))
  })

  it("a 2024-10-07 compatibility result returns its toolResult (E7)", () => {
    assert.deepStrictEqual(
      McpToolResult.toResult({ toolResult: { rows: 3 } }, policy),
      McpToolResult.ToolOutcome.Success({ value: { rows: 3 } })
    )
  })

  it("a remote isError result is a failure carrying the tool's own text by default (E7) (D8)", () => {
    const result: CallToolResult = {
      isError: true,
      content: [
        { type: "text", text: "Invalid date: '2024-13-01'." },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "text", text: "Use YYYY-MM-DD." }
      ],
      structuredContent: { error: "ignored for the default text" }
    }
    assert.deepStrictEqual(
      McpToolResult.toResult(result, policy),
      McpToolResult.ToolOutcome.Failure({ message: "Invalid date: '2024-13-01'.\nUse YYYY-MM-DD." })
    )
  })

  it("long isError text is truncated to a sane length (D8)", () => {
    const outcome = McpToolResult.toResult({ isError: true, content: [{ type: "text", text: "e".repeat(50_000) }] }, policy)
    assert.strictEqual(outcome._tag, "Failure")
    const message = outcome._tag === "Failure" ? outcome.message : ""
    assert.isTrue(message.startsWith("e".repeat(McpToolResult.maxErrorTextLength)))
    assert.isTrue(message.endsWith("… (truncated)"))
    assert.isBelow(message.length, McpToolResult.maxErrorTextLength + 20)
  })

  it("an isError result without text gets a fixed line (D8)", () => {
    assert.deepStrictEqual(
      McpToolResult.toResult({ isError: true, content: [] }, policy),
      McpToolResult.ToolOutcome.Failure({ message: "the tool failed without an error message" })
    )
  })

  it("the generic policy never shows remote text (D8)", () => {
    const result: CallToolResult = {
      isError: true,
      content: [{ type: "text", text: "db password rejected for admin" }]
    }
    assert.deepStrictEqual(
      McpToolResult.toResult(result, McpToolResult.ErrorTextPolicy.generic),
      McpToolResult.ToolOutcome.Failure({ message: "the tool failed" })
    )
  })

  it("the application's own policy decides the text, in both call styles (D8)", () => {
    const mine: McpToolResult.ErrorTextPolicy = (failure) =>
      failure._tag === "ToolError" ? `tool said: ${failure.result.content.length} blocks` : "request failed"
    const result: CallToolResult = { isError: true, content: [{ type: "text", text: "x" }] }
    const expected = McpToolResult.ToolOutcome.Failure({ message: "tool said: 1 blocks" })
    assert.deepStrictEqual(McpToolResult.toResult(result, mine), expected)
    assert.deepStrictEqual(pipe(result, McpToolResult.toResult(mine)), expected)
  })
})

describe("McpToolResult.describeFailure", () => {
  const leaky = new McpError.McpRequestError({
    server: "catalog",
    method: "tools/call",
    code: -32603,
    reason: "Remote",
    description: "fetch failed: connect ECONNREFUSED https://internal.example.corp:8443/mcp?token=abc123\n" +
      "    at TLSSocket.onConnectEnd (node:_tls_wrap:1727:19)\n    at Object.onceWrapper (node:events:634:28)"
  })
  const failure = McpToolResult.RemoteFailure.RequestError({ error: leaky })

  it("by default a request error shows no description, stack trace or URL (D8)", () => {
    const text = McpToolResult.describeFailure(failure, McpToolResult.ErrorTextPolicy.toolText)
    assert.strictEqual(text, "the server failed to run the tool (internal error)")
    for (const secret of ["internal.example.corp", "abc123", "ECONNREFUSED", "node:_tls_wrap", " at ", "catalog"]) {
      assert.notInclude(text, secret)
    }
  })

  it("the default names well-known protocol codes and nothing else (D8)", () => {
    const line = (code?: number) =>
      McpToolResult.describeFailure(
        McpToolResult.RemoteFailure.RequestError({
          error: new McpError.McpRequestError({
            server: "s",
            method: "tools/call",
            reason: "Remote",
            description: "MCP error: secret detail",
            ...(code === undefined ? {} : { code })
          })
        }),
        McpToolResult.ErrorTextPolicy.toolText
      )
    assert.strictEqual(line(-32000), "the server failed to run the tool (connection closed)")
    assert.strictEqual(line(-32001), "the server failed to run the tool (request timed out or was cancelled)")
    assert.strictEqual(line(-32602), "the server failed to run the tool (invalid params)")
    assert.strictEqual(line(12345), "the server failed to run the tool")
    assert.strictEqual(line(), "the server failed to run the tool")
  })

  it("a response that never arrived is described in Zett's own words by the default and the generic policy (D8)", () => {
    const own = (reason: "StreamClosed" | "MessageTooLarge" | "Unsupported" | "Remote", description: string) =>
      McpToolResult.RemoteFailure.RequestError({
        error: new McpError.McpRequestError({ server: "s", method: "tools/call", reason, description })
      })
    for (const policy of [McpToolResult.ErrorTextPolicy.toolText, McpToolResult.ErrorTextPolicy.generic]) {
      assert.strictEqual(
        McpToolResult.describeFailure(own("StreamClosed", "the server closed the response stream"), policy),
        "the server failed to run the tool (the server closed the response stream)"
      )
      assert.strictEqual(
        McpToolResult.describeFailure(own("MessageTooLarge", "the response is over 8 MiB"), policy),
        "the server failed to run the tool (the response is over 8 MiB)"
      )
      assert.strictEqual(
        McpToolResult.describeFailure(own("Unsupported", "not implemented here"), policy),
        "the server failed to run the tool (not implemented here)"
      )
      assert.strictEqual(McpToolResult.describeFailure(own("Remote", "remote secret text"), policy), "the server failed to run the tool")
    }
  })

  it("the generic policy shows one fixed line for request errors (D8)", () => {
    assert.strictEqual(
      pipe(failure, McpToolResult.describeFailure(McpToolResult.ErrorTextPolicy.generic)),
      "the server failed to run the tool"
    )
  })

  it("the verbose policy shows transport details for development (D8)", () => {
    const text = McpToolResult.describeFailure(failure, McpToolResult.ErrorTextPolicy.verbose)
    assert.include(text, "catalog: tools/call failed (code -32603): fetch failed")
    assert.include(text, "https://internal.example.corp:8443/mcp")
    const toolError = McpToolResult.RemoteFailure.ToolError({
      result: { isError: true, content: [], structuredContent: { code: "E42" } }
    })
    assert.strictEqual(
      McpToolResult.describeFailure(toolError, McpToolResult.ErrorTextPolicy.verbose),
      `the tool failed: {"code":"E42"}`
    )
  })
})

describe("McpToolResult, exactly", () => {
  const { ErrorTextPolicy, RemoteFailure, ToolOutcome } = McpToolResult
  const toolError = (result: Partial<CallToolResult>) =>
    RemoteFailure.ToolError({ result: { isError: true, content: [], ...result } as CallToolResult })
  const requestError = (fields: Partial<ConstructorParameters<typeof McpError.McpRequestError>[0]>) =>
    RemoteFailure.RequestError({
      error: new McpError.McpRequestError({ server: "s", method: "tools/call", reason: "Remote", description: "secret detail", ...fields })
    })

  it("text of exactly the maximum length is kept whole; a cut never splits a surrogate pair (D8)", () => {
    const max = McpToolResult.maxErrorTextLength
    const exact = "e".repeat(max)
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content: [{ type: "text", text: exact }] })), exact)
    const over = "e".repeat(max + 1)
    const cut = ErrorTextPolicy.toolText(toolError({ content: [{ type: "text", text: over }] }))
    assert.strictEqual(cut, `${exact}… (truncated)`)
    // an emoji whose first half is the last character that fits goes as a whole
    const emoji = `${"e".repeat(max - 1)}\u{1F600}tail`
    assert.strictEqual(
      ErrorTextPolicy.toolText(toolError({ content: [{ type: "text", text: emoji }] })),
      `${"e".repeat(max - 1)}… (truncated)`
    )
  })

  it("only text blocks with string text count as the tool's text, trimmed (D8)", () => {
    const content = [
      { type: "text", text: "  first" },
      { type: "text", text: 42 },
      { type: "image", data: "AAAA", mimeType: "image/png", text: "not a text block" },
      { type: "text", text: "last \n" }
    ] as unknown as CallToolResult["content"]
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content })), "first\nlast")
    assert.strictEqual(ErrorTextPolicy.verbose(toolError({ content })), "first\nlast")
    const blank = [{ type: "text", text: " \n " }] as CallToolResult["content"]
    const none = "the tool failed without an error message"
    assert.strictEqual(ErrorTextPolicy.toolText(toolError({ content: blank })), none)
    // content that is not a list has no text
    const notAList = { content: "text" } as unknown as Partial<CallToolResult>
    assert.strictEqual(ErrorTextPolicy.toolText(toolError(notAList)), none)
  })

  it("request errors: the named codes, and Zett's own description when the response never arrived (D8)", () => {
    const notFound = ErrorTextPolicy.toolText(requestError({ code: -32601 }))
    assert.strictEqual(notFound, "the server failed to run the tool (method not found)")
    assert.strictEqual(ErrorTextPolicy.toolText(requestError({ code: 32601 })), "the server failed to run the tool")
    const closed = requestError({ reason: "StreamClosed", description: "the server closed the stream before answering" })
    const expected = "the server failed to run the tool (the server closed the stream before answering)"
    assert.strictEqual(ErrorTextPolicy.toolText(closed), expected)
    assert.strictEqual(ErrorTextPolicy.generic(closed), expected)
    assert.strictEqual(ErrorTextPolicy.generic(requestError({ code: -32601 })), "the server failed to run the tool")
  })

  it("verbose: the tool's text first, a fixed line without text or structure, no code when none (D8)", () => {
    const withText = toolError({ content: [{ type: "text", text: "boom" }], structuredContent: { code: "E42" } })
    assert.strictEqual(ErrorTextPolicy.verbose(withText), "boom")
    assert.strictEqual(ErrorTextPolicy.verbose(toolError({})), "the tool failed without an error message")
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    const unprintable = ErrorTextPolicy.verbose(toolError({ structuredContent: cyclic }))
    assert.strictEqual(unprintable, "the tool failed: [object Object]")
    assert.strictEqual(ErrorTextPolicy.verbose(requestError({})), "s: tools/call failed: secret detail")
  })

  it("blocks that are not objects stay as they are; only a resource object loses its _meta (E7)", () => {
    const content = [
      "plain",
      null,
      [1, 2],
      7,
      { type: "resource", resource: "not an object" },
      { type: "resource", resource: null },
      { type: "resource", resource: [{ _meta: 1 }] },
      { type: "x-data", data: { _meta: { kept: true }, a: 1 } }
    ] as unknown as CallToolResult["content"]
    assert.deepStrictEqual(McpToolResult.toResult({ content }, ErrorTextPolicy.toolText), ToolOutcome.Success({
      value: [
        "plain",
        null,
        [1, 2],
        7,
        { type: "resource", resource: "not an object" },
        { type: "resource", resource: null },
        { type: "resource", resource: [{ _meta: 1 }] },
        { type: "x-data", data: { _meta: { kept: true }, a: 1 } }
      ]
    }))
  })

  it("a block key named __proto__ stays an ordinary property (E7)", () => {
    const block = JSON.parse(`{"type":"text","text":"a","__proto__":{"x":1}}`)
    const outcome = McpToolResult.toResult({ content: [block] }, ErrorTextPolicy.toolText)
    const out = (outcome._tag === "Success" ? outcome.value : []) as Array<Record<string, unknown>>
    assert.strictEqual(Object.getPrototypeOf(out[0]), Object.prototype)
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(out[0], "__proto__"), {
      value: { x: 1 },
      writable: true,
      enumerable: true,
      configurable: true
    })
    assert.strictEqual(JSON.stringify(out), `[{"type":"text","text":"a","__proto__":{"x":1}}]`)
  })

  it("the compatibility shape only without content; a result without content is an empty list (E7)", () => {
    const both = { content: [{ type: "text", text: "new" }], toolResult: "old" } as unknown as CallToolResult
    assert.deepStrictEqual(
      McpToolResult.toResult(both, ErrorTextPolicy.toolText),
      ToolOutcome.Success({ value: [{ type: "text", text: "new" }] })
    )
    const bare = {} as CallToolResult
    assert.deepStrictEqual(McpToolResult.toResult(bare, ErrorTextPolicy.toolText), ToolOutcome.Success({ value: [] }))
    const failed = { isError: true } as CallToolResult
    assert.deepStrictEqual(
      McpToolResult.toResult(failed, ErrorTextPolicy.toolText),
      ToolOutcome.Failure({ message: "the tool failed without an error message" })
    )
  })
})

describe("McpTool.fromTool", () => {
  it("a listed tool becomes a definition with exposed name, clean schema and no guidelines (E1) (E4, E5)", () => {
    const tool = {
      name: "search",
      title: "Search",
      description: "Search the catalog",
      inputSchema: { type: "object" as const, $schema: "x", properties: { title: { type: "string", title: "Title" } } }
    }
    assert.deepStrictEqual(McpTool.fromTool("catalog", tool, { namespace: true }), {
      name: "catalog__search",
      description: "Search the catalog",
      parameters: { type: "object", $schema: "x", properties: { title: { type: "string" } } },
      guidelines: false,
      server: "catalog",
      remoteName: "search"
    })
    const bare = McpTool.fromTool("catalog", { name: "x", inputSchema: {} }, { namespace: false })
    assert.strictEqual(bare.description, "")
  })
})
