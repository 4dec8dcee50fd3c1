import { McpSkills } from "@zett/common"
import { assert, describe, it } from "vitest"

const skill = (uri: string, name: string, description: string, resources: McpSkills.Skill["resources"] = []) => ({
  uri,
  frontmatter: { name, description },
  resources
})

describe("McpSkills", () => {
  const pdf = skill("skill://pdf/SKILL.md", "pdf", "Fill PDF forms.\n  Also   merges.", [
    { uri: "skill://pdf/SKILL.md", digest: "sha256:00", size: 1 },
    { uri: "skill://pdf/references/FORMS.md", digest: "sha256:01", size: 2 },
    { uri: "skill://other/x.md", digest: "sha256:02", size: 3 }
  ])
  const pdf2 = skill("skill://pdf2/SKILL.md", "pdf", "Another.")
  const live = skill("skill://live/SKILL.md", "live", "x".repeat(400), "dynamic")

  it("find: by the URI of its SKILL.md first, else every skill of the name", () => {
    assert.deepStrictEqual(McpSkills.find([pdf, pdf2], "skill://pdf2/SKILL.md"), [pdf2])
    assert.deepStrictEqual(McpSkills.find([pdf, pdf2], "pdf"), [pdf, pdf2])
    assert.deepStrictEqual(McpSkills.find([pdf, pdf2], "none"), [])
  })

  it("files: the other files under the skill's root, relative to it; none for a dynamic skill", () => {
    assert.deepStrictEqual(McpSkills.files(pdf), ["references/FORMS.md"])
    assert.deepStrictEqual(McpSkills.files(live), [])
  })

  it("index: one line each, the URI where names are shared, descriptions on one line of at most 300 characters", () => {
    assert.deepStrictEqual(McpSkills.index([pdf, pdf2, live]), [
      "pdf (skill://pdf/SKILL.md): Fill PDF forms. Also merges.",
      "pdf (skill://pdf2/SKILL.md): Another.",
      `live: ${"x".repeat(300)}…`
    ])
  })
})
