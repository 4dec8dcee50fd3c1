/**
 * The servers of the extension (`McpServers`) and the skills helpers, as this line exports them: the rules are
 * `@zett/common`'s (tested there once for both lines); here, the Effect wiring around them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Common from "@zett/common"
import { McpClient, McpServerConfig, McpServers, McpSkills } from "@zett/mcp"
import { logged } from "@zett/testing-core/CapturedLogs"
import * as Effect from "effect/Effect"

const http = (name: string, toolPrefix?: string) => {
  const server = McpServerConfig.http({ name, url: "http://127.0.0.1:1/mcp" })
  return toolPrefix === undefined ? server : new McpServerConfig.McpHttpServer({ ...server, toolPrefix })
}

describe("McpServers", () => {
  it.effect("two servers with one tool prefix: the later one gets another, with a warning; one name twice fails", () =>
    Effect.gen(function*() {
      const [servers, lines] = yield* logged(McpServers.make([http("a", "p"), http("b", "p"), http("c")]))
      assert.deepStrictEqual(servers.servers.map(McpServerConfig.toolPrefix), [
        "p",
        Common.McpServerDefinition.toolPrefix({ name: "b#2" }),
        "c"
      ])
      assert.strictEqual(lines.length, 1)
      assert.strictEqual(lines[0]!.level, "WARN")
      assert.include(lines[0]!.text, "servers option: the servers \"a\" and \"b\" map to one tool prefix (p)")
      assert.deepStrictEqual((yield* servers.current).servers, servers.servers)
      const twice = yield* Effect.flip(McpServers.make([http("c"), http("c")]))
      assert.deepStrictEqual([twice._tag, twice.reason, twice.message], [
        "McpConfigError",
        "DuplicateName",
        "servers option: c: duplicate server name"
      ])
    }))
})

describe("McpSkills", () => {
  it("the helpers are the shared module's", () => {
    assert.strictEqual(McpSkills.find, Common.McpSkills.find)
    assert.strictEqual(McpSkills.index, Common.McpSkills.index)
    assert.strictEqual(McpSkills.manifest, "SKILL.md")
  })

  it.effect("list, get and read go through the client's skills; a client without them says Unsupported", () =>
    Effect.gen(function*() {
      const skill: McpSkills.Skill = {
        uri: "skill://a/SKILL.md",
        frontmatter: { name: "a", description: "the a skill" },
        resources: "dynamic"
      }
      const client = McpClient.make({
        server: "s",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [] }),
        skills: {
          list: Effect.succeed([skill]),
          get: () => Effect.succeed(skill),
          read: (entry, path) =>
            Effect.succeed({
              uri: `${entry.uri}#${path ?? McpSkills.manifest}`,
              mimeType: "text/markdown",
              bytes: new Uint8Array(),
              text: "",
              verified: false,
              frontmatter: undefined,
              body: undefined
            })
        }
      })
      assert.deepStrictEqual(yield* McpSkills.list(client), [skill])
      assert.strictEqual(yield* McpSkills.get(client, skill.uri), skill)
      assert.strictEqual((yield* McpSkills.read(client, skill)).uri, "skill://a/SKILL.md#SKILL.md")
      assert.strictEqual((yield* McpSkills.read(skill, "x.md")(client)).uri, "skill://a/SKILL.md#x.md")
      const bare = McpClient.make({
        server: "bare",
        listTools: () => Effect.succeed({ tools: [], nextCursor: undefined }),
        callTool: () => Effect.succeed({ content: [] })
      })
      assert.strictEqual((yield* Effect.flip(McpSkills.list(bare))).reason, "Unsupported")
    }))
})
