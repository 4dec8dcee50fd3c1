/**
 * Adds per-tool usage guidelines to the system message, so the model reads how to use each tool. Tools that opt out
 * (`guidelines: false`, as MCP tools do) are left out; a tool without guidelines falls back to its description.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type { Extension } from "./Extension.js"

/**
 * @since 1.0.0
 * @category constructors
 */
export const make = (options?: { readonly name?: string | undefined }): Extension => ({
  name: options?.name ?? "tool-guidelines",
  onState: (context) =>
    Effect.flatMap(context.tools.list, (tools) => {
      const lines = tools
        .filter((tool) => tool.guidelines !== false)
        .map((tool) => `- ${tool.name}: ${typeof tool.guidelines === "string" ? tool.guidelines : tool.description}`)
      return lines.length === 0 ? Effect.void : context.addState(`Tool guidelines:\n${lines.join("\n")}`)
    })
})
