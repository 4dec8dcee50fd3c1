/** @internal */
import type * as McpServerConfig from "@zett/mcp/McpServerConfig"

/**
 * Where a server is, as OpenTelemetry's MCP conventions say it: `network.transport` `pipe` and the command's name
 * (`process.executable.name`, never its arguments or environment) for stdio; `tcp`, `server.address` and
 * `server.port` for HTTP (never the path or query, which may carry a key). Made once per connect.
 *
 * @internal
 */
export const transportAttributes = (server: McpServerConfig.McpServerConfig): Readonly<Record<string, unknown>> => {
  if (server._tag === "McpStdioServer") {
    return {
      "mcp.server": server.name,
      "network.transport": "pipe",
      "process.executable.name": server.command.split(/[\\/]/).pop() ?? server.command
    }
  }
  const url = new URL(server.url)
  return {
    "mcp.server": server.name,
    "network.transport": "tcp",
    "server.address": url.hostname,
    "server.port": url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80
  }
}
