/**
 * The tool-name rules, `@zett/common`'s (the `McpTool` module both Effect lines share), under the names this
 * package's modules use.
 *
 * @since 0.1.0
 * @internal
 */
export { isValidName as isValid, maxNameLength, sanitizeName as sanitize } from "@zett/common/McpTool"
