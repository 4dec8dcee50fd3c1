/**
 * The core's own skills helpers (finding a skill, its files, the index), checked on plain entries. Skills in the
 * agent: Skills.agent.test.ts (on a fake server; the 3 line's over a real server is its
 * packages/mcp-node/test/Skills.agent.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import { McpSkills } from "@zett/mcp"

describe("McpSkills helpers", () => {
  const entry = (uri: string, name: string, files: ReadonlyArray<string> = []): McpSkills.Skill => ({
    uri,
    frontmatter: { name, description: `the  ${name}\nskill` },
    resources: [uri, ...files].map((file) => ({ uri: file, digest: `sha256:${"0".repeat(64)}`, size: 1 }))
  })
  const a = entry("skill://a/refunds/SKILL.md", "refunds", ["skill://a/refunds/references/POLICY.md"])
  const b = entry("skill://b/refunds/SKILL.md", "refunds")
  const c = entry("skill://c/SKILL.md", "c")

  it("find gives a skill by URI, or every skill of a name", () => {
    assert.deepStrictEqual(McpSkills.find([a, b, c], "skill://b/refunds/SKILL.md"), [b])
    assert.deepStrictEqual(McpSkills.find([a, b, c], "refunds"), [a, b])
    assert.deepStrictEqual(McpSkills.find([a, b, c], "d"), [])
  })

  it("files are the skill's other files relative to its root; a dynamic skill lists none", () => {
    assert.deepStrictEqual(McpSkills.files(a), ["references/POLICY.md"])
    assert.deepStrictEqual(McpSkills.files({ ...c, resources: "dynamic" }), [])
  })

  it("the index is one line a skill, with the URI where a name is shared", () => {
    assert.deepStrictEqual(McpSkills.index([a, b, c]), [
      "refunds (skill://a/refunds/SKILL.md): the refunds skill",
      "refunds (skill://b/refunds/SKILL.md): the refunds skill",
      "c: the c skill"
    ])
  })
})
