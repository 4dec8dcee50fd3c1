/**
 * `McpTool`: the name the model calls a server's tool by, and the input schema it reads. Both Effect lines of
 * `@zett/mcp` export this module; its tests are here, once.
 */
import { McpTool } from "@zett/common"
import * as FastCheck from "fast-check"
import { assert, describe, it } from "vitest"

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
        query: {
          title: "Query",
          $schema: "https://json-schema.org/draft/2020-12/schema",
          type: "string",
          minLength: 1,
          description: "What to look for"
        },
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
    assert.include(
      McpTool.checkSchema({ type: "object", properties: { a: { $ref: "other.json#/$defs/a" } } })!,
      "other.json#/$defs/a"
    )
    assert.isUndefined(McpTool.checkSchema({
      type: "object",
      $defs: { a: { type: "string" } },
      properties: { a: { $ref: "#/$defs/a" }, b: { $ref: "#" } }
    }))
    // a $ref to an embedded resource of the schema itself
    assert.isUndefined(McpTool.checkSchema({
      type: "object",
      $defs: { user: { $id: "https://schemas.example/user.json", type: "object" } },
      properties: {
        user: { $ref: "https://schemas.example/user.json" },
        name: { $ref: "https://schemas.example/user.json#/properties/x" }
      }
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

  it("keeps a tool's execution.taskSupport when it runs as a task (required, optional); forbidden or unknown is left out", () => {
    const withSupport = (taskSupport: unknown) =>
      McpTool.fromTool("s", { name: "t", inputSchema: {}, execution: { taskSupport } }, { namespace: false })
    assert.strictEqual(withSupport("required").taskSupport, "required")
    assert.strictEqual(withSupport("optional").taskSupport, "optional")
    assert.isFalse("taskSupport" in withSupport("forbidden"))
    assert.isFalse("taskSupport" in withSupport("sometimes"))
    assert.isFalse("taskSupport" in McpTool.fromTool("s", { name: "t", inputSchema: {} }, { namespace: false }))
  })
})

describe("McpTool's name hash", () => {
  it("is SHA-256 of the name's UTF-8 bytes, as node:crypto computes it, at every length around a block's edge", async () => {
    const { createHash } = await import("node:crypto")
    const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex").slice(0, 8)
    for (const length of [0, 1, 54, 55, 56, 63, 64, 65, 119, 120, 200, 1000]) {
      for (const unit of ["a", "é", "🚀"]) {
        const name = `${unit.repeat(length)} `
        assert.strictEqual(McpTool.sanitizeName(name).slice(-8), sha(name), `${length} × ${unit}`)
      }
    }
  })
})
