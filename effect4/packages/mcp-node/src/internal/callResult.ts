/**
 * The schema a `tools/call` result is read with. Without one, the SDK's `request` first parses `undefined` against the
 * era's result schema (to learn whether the method is in the era, building a zod error each time), then parses the
 * result with zod: a sizeable share of a warm raw call over stdio (docs/benchmarks.md, section 13). Most results are
 * plain text blocks; those are checked here, key by key, as the SDK's schema checks them, and returned as they came.
 * Any other result goes through the SDK's published `CallToolResult` schema, after the one rule the SDK's 2025-11-25
 * wire adds to it. On the 2026-07-28 revision the SDK has checked the result against that revision's wire schema before
 * a result schema sees it.
 *
 * @internal
 */
import type { CallToolResult, StandardSchemaV1 } from "@modelcontextprotocol/client"
import { specTypeSchemas } from "@modelcontextprotocol/client"
import { isObject as isRecord } from "effect/Predicate"

// `{ type: "text", text }` and nothing else: what the SDK's parse would return unchanged
const isBareText = (block: unknown): boolean => {
  if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") return false
  let keys = 0
  for (const _ in block) keys++
  return keys === 2
}

const common = (value: unknown): value is CallToolResult => {
  if (!isRecord(value) || Object.getPrototypeOf(value) !== Object.prototype) return false
  for (const key in value) {
    const field = value[key]
    switch (key) {
      case "content":
        if (!Array.isArray(field) || !field.every(isBareText)) return false
        break
      case "structuredContent":
        if (field !== undefined && !isRecord(field)) return false
        break
      case "isError":
        if (field !== undefined && typeof field !== "boolean") return false
        break
      default:
        return false
    }
  }
  return Array.isArray(value.content)
}

// As the SDK's 2025-11-25 wire has it: a body of another result family cannot default into an empty success.
const foreignKeys = ["task", "inputRequests", "requestState"] as const

const foreign = (value: unknown): StandardSchemaV1.FailureResult | undefined => {
  if (!isRecord(value) || value.content !== undefined) return undefined
  const key = foreignKeys.find((candidate) => candidate in value)
  return key === undefined
    ? undefined
    : { issues: [{ message: `content is required when the body carries '${key}'` }] }
}

const published = specTypeSchemas.CallToolResult["~standard"] as StandardSchemaV1<unknown, CallToolResult>["~standard"]

/** @internal */
export const schema: StandardSchemaV1<unknown, CallToolResult> = {
  "~standard": {
    version: 1,
    vendor: "zett",
    validate: (value) => common(value) ? { value } : foreign(value) ?? published.validate(value)
  }
}
