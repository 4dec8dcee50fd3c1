import { McpServerConfig, McpToolCache } from "@zett/mcp"
import type { McpTool } from "@zett/mcp"

/** The cache key of the one server (`catalog`) of the shared tool cache's tests. */
const server = McpServerConfig.http({ name: "catalog", url: "https://catalog.example/mcp" })
export const key = McpToolCache.key(server, { namespace: true })

/** A tool list of `catalog` with one tool, `name`. */
export const tools = (name: string): ReadonlyArray<McpTool.McpTool> => [{
  name: `catalog__${name}`,
  description: `the ${name} tool`,
  parameters: { type: "object" },
  guidelines: false,
  server: "catalog",
  remoteName: name
}]
