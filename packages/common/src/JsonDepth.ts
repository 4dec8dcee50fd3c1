/**
 * The nesting depth of JSON, measured before anything parses or walks it. `JSON.parse` itself is iterative in V8,
 * but `JSON.stringify`, schema decoders and our own walks recurse once per level: a document from outside (a tool's
 * input schema, a verdict another process stored, an authorization server's answer, a stored token entry) nested
 * ten thousand levels deep overflows the stack in them. The driver (`@zett/mcp-node`) and `@zett/mcp-auth` of
 * either Effect line use this one module.
 *
 * @since 0.1.0
 */

/**
 * Whether `text` nests arrays and objects deeper than `max` levels (brackets inside strings do not count), in
 * one pass over its characters. Text that is not JSON is measured all the same: whatever reads it next refuses it.
 *
 * @example
 * ```ts
 * import { JsonDepth } from "@zett/common"
 *
 * JsonDepth.deeperThan("[[1]]", 1) // true
 * JsonDepth.deeperThan("[\"[[[\"]", 1) // false: the brackets are in a string
 * ```
 *
 * @since 0.1.0
 * @category utils
 */
export const deeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      // a backslash escapes the next character, a quote among them
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

/**
 * Whether a parsed JSON value nests arrays and objects deeper than `max` levels, by a walk that keeps its own
 * stack (a recursive one would overflow on the values it is there to find).
 *
 * @since 0.1.0
 * @category utils
 */
export const valueDeeperThan = (value: unknown, max: number): boolean => {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  while (stack.length > 0) {
    const next = stack.pop()!
    if (typeof next.value !== "object" || next.value === null) continue
    const depth = next.depth + 1
    if (depth > max) return true
    for (const child of Array.isArray(next.value) ? next.value : Object.values(next.value)) {
      stack.push({ value: child, depth })
    }
  }
  return false
}
