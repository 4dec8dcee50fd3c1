/**
 * How the configuration reader words a value without echoing it.
 */
import { McpConfigWording } from "@zett/common"
import { assert, describe, it } from "vitest"

describe("McpConfigWording", () => {
  it("says what a value is: never a string's content, numbers and booleans only when the field is no secret", () => {
    const { got } = McpConfigWording
    assert.deepStrictEqual(
      [got("sk-secret"), got(""), got(null), got([1]), got({ a: "sk" }), got(42), got(true), got(undefined)],
      ["a string", "an empty string", "null", "an array", "an object", "42", "true", "undefined"]
    )
    assert.deepStrictEqual([got(42, true), got(false, true)], ["a number", "a boolean"])
  })

  it("quotes a name cut at 40 characters, and writes a path's keys readably", () => {
    assert.strictEqual(McpConfigWording.quote("x".repeat(41)), JSON.stringify(`${"x".repeat(40)}...`))
    assert.strictEqual(McpConfigWording.quote("x".repeat(40)), JSON.stringify("x".repeat(40)))
    assert.strictEqual(
      ["mcpServers", "my server", "args", 1, "a-b_$9"].map(McpConfigWording.segment).join(""),
      ".mcpServers[\"my server\"].args[1].a-b_$9"
    )
    assert.strictEqual(McpConfigWording.segment("k".repeat(65)), `[${JSON.stringify(`${"k".repeat(40)}...`)}]`)
  })

  it("setOwn makes __proto__ an own key, not the prototype; has sees own keys only", () => {
    const record: Record<string, number> = {}
    McpConfigWording.setOwn(record, "__proto__", 1)
    assert.deepStrictEqual(Object.keys(record), ["__proto__"])
    assert.strictEqual(Object.getPrototypeOf(record), Object.prototype)
    assert.isTrue(McpConfigWording.has(record, "__proto__"))
    assert.isFalse(McpConfigWording.has({}, "toString"))
    assert.isTrue(McpConfigWording.isObject({}))
    assert.isFalse(McpConfigWording.isObject([]))
    assert.isFalse(McpConfigWording.isObject(null))
  })

  it("the port of a redirect URI, none for the scheme's own or a text that is no URL", () => {
    assert.strictEqual(McpConfigWording.portOf("http://localhost:7777/oauth/callback"), 7777)
    assert.strictEqual(McpConfigWording.portOf("http://localhost/oauth/callback"), undefined)
    assert.strictEqual(McpConfigWording.portOf("https://localhost:443/cb"), undefined)
    assert.strictEqual(McpConfigWording.portOf("not a url"), undefined)
    assert.strictEqual(McpConfigWording.portOf(undefined), undefined)
  })
})
