/**
 * `zett skills` and `zett skill`, run in-process with the SDK-backed client factory against the SDK v2 server with
 * skills (@zett/testing/ModernServers, `--skills`): the listing reads no file; a skill's SKILL.md, or a file of it,
 * is printed once verified; a file that fails verification is not printed, and the command exits 1.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ModernServers from "@zett/testing/ModernServers"
import * as Effect from "effect/Effect"
import * as Path from "node:path"
import { tempDir, writeFile, zett } from "./utils/zett.js"

const setup = Effect.map(tempDir, (dir) => {
  const record = Path.join(dir, "record.jsonl")
  const config = writeFile(dir, "mcp.json", {
    mcpServers: {
      shop: { command: process.execPath, args: [ModernServers.script, "--name=shop", "--skills", `--record=${record}`] }
    }
  })
  return { config, record }
})

describe("zett skills, skill", () => {
  it.scoped("zett skills lists each skill's name, URI and description, and reads no skill file", () =>
    Effect.gen(function*() {
      const { config, record } = yield* setup
      const result = yield* zett(["skills", "--config", config])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.match(result.stdout, /^SERVER\s+TRANSPORT\s+TIME\s+SKILLS\s+STATUS$/m)
      assert.include(result.stdout, "shop: 4 skills\n")
      assert.match(
        result.stdout,
        /^ {2}pdf-processing\s+skill:\/\/pdf-processing\/SKILL\.md\s+Extract, fill, and assemble PDF documents$/m
      )
      assert.include(result.stdout, "1 server: 1 ok; 4 skills")
      const json = yield* zett(["skills", "shop", "--json", "--config", config])
      const parsed = JSON.parse(json.stdout) as {
        servers: Array<{ skills: Array<{ uri: string; files: Array<string> }> }>
      }
      assert.deepStrictEqual(parsed.servers[0]!.skills[0]!.files, ["references/FORMS.md"])
      assert.deepStrictEqual(ModernServers.readsOf(record), [])
    }))

  it.scoped("zett skill prints a verified SKILL.md, or a file of the skill; one that fails verification is not printed, exit 1", () =>
    Effect.gen(function*() {
      const { config, record } = yield* setup
      const manifest = yield* zett(["skill", "shop", "pdf-processing", "--config", config])
      assert.strictEqual(manifest.code, 0, manifest.stderr)
      assert.strictEqual(
        manifest.stdout,
        "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nRead references/FORMS.md before filling a form.\n"
      )
      const forms = yield* zett(["skill", "shop", "pdf-processing", "references/FORMS.md", "--config", config])
      assert.strictEqual(forms.stdout, "# Forms\n\nFill every field.\n")
      const refused = yield* zett(["skill", "shop", "bad-digest", "--config", config])
      assert.strictEqual(refused.code, 1)
      assert.strictEqual(refused.stdout, "")
      assert.strictEqual(
        refused.stderr,
        "zett: skill bad-digest of shop: skill://bad-digest/SKILL.md failed verification (digest); not printed\n"
      )
      const unknown = yield* zett(["skill", "shop", "nope", "--config", config])
      assert.include(unknown.stderr, "no skill named nope on shop; available: ")
      assert.deepStrictEqual(ModernServers.readsOf(record), [
        ModernServers.skills.sound,
        ModernServers.skills.soundFile,
        ModernServers.skills.badDigest
      ])
    }))
})
