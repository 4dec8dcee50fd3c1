import { McpToolListing } from "@zett/common"
import { assert, describe, it } from "vitest"

const key = { id: "catalog:abc:ns", server: "catalog", namespace: true }
const tool = (fields: Partial<McpToolListing.StoredTool> = {}): McpToolListing.StoredTool => ({
  name: "catalog__find",
  server: "catalog",
  remoteName: "find",
  parameters: { type: "object" },
  ...fields
})

describe("McpToolListing", () => {
  it("a listing's hint: the shortest lifetime, private if any page is, none if a page has none", () => {
    const pub = { ttlMs: 60_000, scope: "public" } as const
    const priv = { ttlMs: 5_000, scope: "private" } as const
    assert.deepStrictEqual(McpToolListing.combineHints(pub, priv), { ttlMs: 5_000, scope: "private" })
    assert.isUndefined(McpToolListing.combineHints(pub, undefined))
    assert.strictEqual(McpToolListing.lifetime(300_000, pub), 60_000)
    assert.strictEqual(McpToolListing.lifetime(300_000, { ttlMs: -1, scope: "public" }), 0)
    assert.strictEqual(McpToolListing.lifetime(300_000, pub, "ignore"), 300_000)
    assert.isFalse(McpToolListing.shareable(key, priv))
    assert.isTrue(McpToolListing.shareable({ ...key, authorizedByDefinition: true }, priv))
  })

  it("a stored entry stands for a key's tools only as this process would have stored it", () => {
    assert.isUndefined(McpToolListing.refusal(key, { key: key.id, tools: [tool()] }))
    assert.strictEqual(
      McpToolListing.refusal(key, { key: "other", tools: [] }),
      "stored for another server definition or naming mode"
    )
    assert.include(McpToolListing.refusal(key, { key: key.id, tools: [tool({ server: "x" })] })!, "of the server")
    assert.include(McpToolListing.refusal(key, { key: key.id, tools: [tool({ name: "evil" })] })!, "not named after")
    assert.include(
      McpToolListing.refusal(key, { key: key.id, tools: [tool({ parameters: { type: "string" } })] })!,
      "not of type object"
    )
  })
})
