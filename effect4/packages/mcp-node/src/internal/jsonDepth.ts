/**
 * The nesting depth of JSON from outside, measured before anything parses or walks it: `@zett/common`'s
 * `JsonDepth`, which the driver and `@zett/mcp-auth` of both Effect lines share.
 *
 * @internal
 */
export { deeperThan, valueDeeperThan } from "@zett/common/JsonDepth"
