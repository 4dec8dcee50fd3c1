/**
 * The two eras against real servers from npm, started with `node`, never npx: `@modelcontextprotocol/server-filesystem`
 * 2.0.1 (on SDK v2: dual-era) and server-everything (on SDK v1: the 2025 revisions only), over stdio.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { McpClient, McpClientFactory, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Processes from "@zett/testing/Processes"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"

const require = createRequire(import.meta.url)
const entry = (name: string) => Path.join(Path.dirname(require.resolve(`${name}/package.json`)), "dist", "index.js")
const filesystem2 = entry("server-filesystem-2")
const everything = entry("@modelcontextprotocol/server-everything")

const textOf = (result: { readonly content: ReadonlyArray<{ readonly type: string; readonly text?: unknown }> }) =>
  result.content.map((block) => (block.type === "text" ? String(block.text) : "")).join("\n")

/** Connects, lists every tool and calls `tool`; what the client settled on, the tool names and the text. */
const session = (server: McpServerConfig.McpServerConfig, tool: string, args: Record<string, unknown>) =>
  Effect.scoped(Effect.gen(function*() {
    const client = yield* (yield* McpClientFactory.McpClientFactory).connect(server)
    const tools = yield* McpClient.listAll(client)
    const result = yield* client.callTool(tool, args)
    return { protocolVersion: client.protocolVersion, tools: tools.map((t) => t.name), text: textOf(result) }
  })).pipe(Effect.provide(NodeMcpClientFactory.layer()), Effect.provide(NodeContext.layer))

describe("real servers of both eras", () => {
  it.scopedLive(
    "server-filesystem 2.0.1 is spoken to on 2026-07-28; pinned to 2025-11-25 it is served the 2025 way; no process is left",
    () =>
      Effect.gen(function*() {
        const dir = yield* TempDir.make("zett-fs2-")
        Fs.writeFileSync(Path.join(dir, "hello.txt"), "hi")
        const fs = (protocol?: McpServerConfig.Protocol) =>
          McpServerConfig.stdio({
            name: "files",
            command: process.execPath,
            args: [filesystem2, dir],
            ...(protocol ? { protocol } : {})
          })
        const modern = yield* session(fs(), "list_directory", { path: dir })
        assert.strictEqual(modern.protocolVersion, "2026-07-28")
        assert.includeMembers(modern.tools, ["read_text_file", "list_directory", "write_file"])
        assert.include(modern.text, "hello.txt")
        const legacy = yield* session(fs("2025-11-25"), "list_directory", { path: dir })
        assert.strictEqual(legacy.protocolVersion, "2025-11-25")
        assert.deepStrictEqual(legacy.tools, modern.tools)
        assert.strictEqual(legacy.text, modern.text)
        assert.isTrue(yield* Processes.eventually(() => Processes.liveWithCommand(filesystem2).length === 0))
      })
  )

  it.scopedLive(
    "server-everything (the 2025 revisions only) is asked server/discover, falls back to initialize and works; no process is left",
    () =>
      Effect.gen(function*() {
        const outcome = yield* session(
          McpServerConfig.stdio({ name: "everything", command: process.execPath, args: [everything, "stdio"] }),
          "echo",
          { message: "hi" }
        )
        assert.strictEqual(outcome.protocolVersion, "2025-11-25")
        assert.include(outcome.text, "hi")
        assert.isTrue(yield* Processes.eventually(() => Processes.liveWithCommand(everything).length === 0))
      })
  )
})
