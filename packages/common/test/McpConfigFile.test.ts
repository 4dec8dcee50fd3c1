/**
 * A configuration file before its entries are decoded: read with jsonc-parser (handed in), measured before it is
 * parsed, its root checked and its entries listed in file order.
 */
import { McpConfigFile } from "@zett/common"
import * as Jsonc from "jsonc-parser"
import { assert, describe, it } from "vitest"

const parse = (text: string) => McpConfigFile.parse(text, Jsonc)
const ok = (text: string) => {
  const result = parse(text)
  if (result._tag === "Error") assert.fail(`not parsed: ${result.issue.reason}`)
  return result.parsed
}
const readRoot = (text: string, keys: ReadonlyArray<string> = ["servers", "mcpServers", "context_servers"]) =>
  McpConfigFile.readRoot(text, keys, Jsonc)

describe("McpConfigFile.parse", () => {
  it("reads comments, trailing commas and a byte order mark, as VS Code and Zed write files", () => {
    const parsed = ok("\ufeff{\n  // the docs server\n  \"servers\": { \"a\": { \"command\": \"x\", }, }, /* end */\n}")
    assert.deepStrictEqual(parsed.value, { servers: { a: { command: "x" } } })
    assert.deepStrictEqual(parsed.duplicates, [])
  })

  it("keeps every key given twice, by its path, and the keys' order as written (integer-like keys too)", () => {
    const parsed = ok("{ \"s\": { \"b\": 1, \"2\": [ { \"k\": 1, \"k\": 2 } ], \"a\": 3, \"b\": 4 } }")
    assert.deepStrictEqual(parsed.duplicates, [["s", "2", 0, "k"], ["s", "b"]])
    const s = (parsed.value as { s: object }).s
    assert.deepStrictEqual(parsed.keyOrder.get(s), ["b", "2", "a"])
    assert.deepStrictEqual(Object.keys(s), ["2", "b", "a"])
  })

  it("a key named __proto__ stays an own key of its object", () => {
    const value = ok("{ \"__proto__\": { \"command\": \"x\" } }").value as object
    assert.deepStrictEqual(Object.keys(value), ["__proto__"])
    assert.strictEqual(Object.getPrototypeOf(value), Object.prototype)
  })

  it("a syntax error is told by line, column and reason, never with the text around it", () => {
    const secret = "sk-live-0123456789"
    const result = parse(`{\n  "headers": { "Authorization": "${secret}" "x": 1 }\n}`)
    assert.deepStrictEqual(result, { _tag: "Error", issue: { line: 2, column: 54, reason: "expected ','" } })
    assert.notInclude(JSON.stringify(result), secret)
    assert.deepStrictEqual(parse("{ \"a\": \"unterminated }"), {
      _tag: "Error",
      issue: { line: 1, column: 8, reason: "unterminated string" }
    })
  })

  it("a blank file, or one of comments only, is empty", () => {
    for (const text of ["", "  \n", "// nothing\n/* here */"]) {
      assert.deepStrictEqual(parse(text), {
        _tag: "Error",
        issue: { line: 1, column: 1, reason: "the file is empty" }
      })
    }
  })

  it("a value nested past maxDepth is refused before the parser recurses, at 100,000 levels too, with its path", () => {
    const depth = McpConfigFile.maxDepth
    const inner = "[".repeat(depth) + "]".repeat(depth)
    assert.strictEqual(parse(`{ "s": { "a": ${inner} } }`)._tag, "Error")
    // maxDepth levels in all pass
    const fits = "[".repeat(depth - 1) + "]".repeat(depth - 1)
    assert.strictEqual(parse(`{ "a": ${fits} }`)._tag, "Ok")
    const huge = "[".repeat(100_000) + "]".repeat(100_000)
    const result = parse(`{\n "mcpServers": { "s": { "args": ${huge} } } }`)
    if (result._tag !== "Error") return assert.fail("parsed")
    assert.strictEqual(result.issue.reason, `nested deeper than ${depth} levels`)
    assert.strictEqual(result.issue.line, 2)
    assert.deepStrictEqual(result.issue.path?.slice(0, 4), ["mcpServers", "s", "args", 0])
    assert.strictEqual(result.issue.path?.length, depth)
  })

  it("a syntax error before the cut is still the first problem told", () => {
    const deep = "[".repeat(100) + "]".repeat(100)
    assert.deepStrictEqual(parse(`{ "a" 1, "b": ${deep} }`), {
      _tag: "Error",
      issue: { line: 1, column: 7, reason: "expected ':' after a property name" }
    })
  })
})

describe("McpConfigFile.readRoot", () => {
  it("finds the one server mapping among the keys and keeps inputs as written", () => {
    const root = readRoot("{ \"inputs\": [{ \"id\": \"k\" }], \"servers\": { \"b\": {}, \"1\": {} } }")
    if (root._tag !== "Root") return assert.fail(root.reason)
    assert.strictEqual(root.rootKey, "servers")
    assert.deepStrictEqual(root.names, ["b", "1"])
    assert.deepStrictEqual(root.inputs, [{ id: "k" }])
    const bare = readRoot("{ \"mcpServers\": {} }")
    assert.strictEqual(bare._tag === "Root" && bare.inputs, undefined)
  })

  it("refuses a file with no mapping, two mappings, a mapping that is no object, or its key twice", () => {
    const issue = McpConfigFile.fileIssue
    assert.deepStrictEqual(readRoot("[]"), issue("expected a JSON object at the root, got an array"))
    assert.deepStrictEqual(
      readRoot("{ \"tools\": {} }", ["servers", "mcpServers"]),
      issue("no server mapping: expected a \"servers\" or \"mcpServers\" key")
    )
    assert.deepStrictEqual(
      readRoot("{ \"servers\": {}, \"mcpServers\": {} }"),
      issue("\"servers\" and \"mcpServers\" are both present; use only one")
    )
    assert.deepStrictEqual(
      readRoot("{ \"servers\": \"sk-x\" }"),
      issue("expected an object mapping server names to entries, got a string", "servers")
    )
    assert.deepStrictEqual(readRoot("{ \"servers\": {}, \"servers\": {} }"), issue("duplicate key", "servers"))
    assert.deepStrictEqual(
      readRoot("{ \"servers\": { \"a\": {} "),
      issue("not valid JSON (line 1, column 24: expected '}' at the end of an object)")
    )
  })

  it("a value nested too deep is named down to the field of an entry, or to a key of the root", () => {
    const deep = "[".repeat(200) + "]".repeat(200)
    const inEntry = readRoot(`{ "mcpServers": { "my s": { "args": ${deep} } } }`)
    assert.strictEqual(inEntry._tag === "FileIssue" && inEntry.entry, "mcpServers[\"my s\"].args")
    const inRoot = readRoot(`{ "other": { "x": ${deep} }, "servers": {} }`)
    assert.strictEqual(inRoot._tag === "FileIssue" && inRoot.entry, "other")
    assert.strictEqual(
      inRoot._tag === "FileIssue" && inRoot.reason,
      `nested deeper than ${McpConfigFile.maxDepth} levels (line 1, column ${19 + McpConfigFile.maxDepth - 2})`
    )
  })
})

describe("McpConfigFile.entries", () => {
  it("lists the entries in file order, refusing a name given twice, a key given twice inside one, an empty name", () => {
    const root = readRoot(
      "{ \"mcpServers\": { \"z\": { \"command\": \"a\" }, \"d\": {}, \"d\": {}, \"k\": { \"env\": { \"A\": \"1\", \"A\": \"2\" } }, \"\": {}, \"1\": 5 } }"
    )
    if (root._tag !== "Root") return assert.fail(root.reason)
    assert.deepStrictEqual(McpConfigFile.entries(root), [
      { _tag: "Entry", name: "z", entry: "mcpServers.z", value: { command: "a" } },
      { _tag: "Refused", name: "d", entry: "mcpServers.d", kind: "DuplicateName", reason: "duplicate server name" },
      { _tag: "Refused", name: "k", entry: "mcpServers.k.env.A", kind: "InvalidEntry", reason: "duplicate key" },
      {
        _tag: "Refused",
        name: "",
        entry: "mcpServers[\"\"]",
        kind: "InvalidEntry",
        reason: "a server name must not be empty"
      },
      { _tag: "Entry", name: "1", entry: "mcpServers.1", value: 5 }
    ])
  })
})
