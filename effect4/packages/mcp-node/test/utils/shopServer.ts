/**
 * An in-process SDK server whose tool list changes while it runs: its `rotate` tool removes `old` and adds
 * `fresh`, and the SDK server announces each change with `notifications/tools/list_changed`. Every connection
 * gets a server of its own (`make`); `stats` counts them and keeps the last.
 */
import { McpServer as SdkMcpServer } from "@modelcontextprotocol/sdk/server/mcp.js"

export const shop = () => {
  const stats = { created: 0, last: undefined as SdkMcpServer | undefined }
  const make = () => {
    stats.created++
    const server = new SdkMcpServer({ name: "shop", version: "1.0.0" })
    const old = server.registerTool(
      "old",
      { description: "the old tool" },
      async () => ({ content: [{ type: "text", text: "old" }] })
    )
    server.registerTool("rotate", { description: "replaces old with fresh" }, async () => {
      old.remove()
      server.registerTool(
        "fresh",
        { description: "the fresh tool" },
        async () => ({ content: [{ type: "text", text: "fresh" }] })
      )
      return { content: [{ type: "text", text: "rotated" }] }
    })
    stats.last = server
    return server
  }
  return { make, stats }
}
