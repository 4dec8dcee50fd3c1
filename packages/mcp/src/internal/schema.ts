/**
 * The input-schema cleanup and limits, `@zett/common`'s (the `McpTool` module both Effect lines share), under the
 * names this package's modules use.
 *
 * @since 0.1.0
 * @internal
 */
export { checkSchema as refusal, cleanSchema as cleanInputSchema, schemaLimits as limits } from "@zett/common/McpTool"
