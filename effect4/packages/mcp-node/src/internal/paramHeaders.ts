/**
 * The rules of the 2026-07-28 revision for `x-mcp-header`: `@zett/common`'s `McpParamHeaders`, which the driver of
 * both Effect lines uses.
 *
 * @internal
 */
export { scan } from "@zett/common/McpParamHeaders"
