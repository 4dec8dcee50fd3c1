/** @internal */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"

// Values shorter than this are not secrets, and replacing them would garble every text.
const MIN_SECRET = 4

/**
 * Replaces every occurrence of a secret value in `text` with `<redacted>`.
 *
 * @internal
 */
export const scrub = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET && out.includes(secret)) out = out.split(secret).join("<redacted>")
  }
  return out
}

const scrubValue = (value: unknown, secrets: ReadonlyArray<string>): unknown => {
  if (typeof value === "string") return scrub(value, secrets)
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, secrets))
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[key] = scrubValue(item, secrets)
    return out
  }
  return value
}

/**
 * An error result is error text that the model and the logs see: a server that repeats its credentials in
 * it (an echoed header, its own environment) must not hand them on. A successful result is data and is left
 * alone.
 *
 * @internal
 */
export const scrubErrorResult = (result: CallToolResult, secrets: ReadonlyArray<string>): CallToolResult => {
  if (result.isError !== true || !secrets.some((secret) => secret.length >= MIN_SECRET)) return result
  return scrubValue(result, secrets) as CallToolResult
}
