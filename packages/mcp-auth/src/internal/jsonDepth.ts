/**
 * The nesting depth of a JSON text, measured by one pass over its characters before anything parses or walks
 * it. `JSON.parse` itself is iterative in V8, but `JSON.stringify`, schema decoders and our own walks recurse
 * once per level: a document from outside (an authorization server's answer, a stored entry another writer
 * put there) nested ten thousand levels deep overflows the stack in them. (The driver, `@zett/mcp-node`, keeps
 * the same measure for what servers send it: the two packages share no internal module.)
 *
 * @internal
 */

/**
 * Whether `text` nests arrays and objects deeper than `max` levels (brackets inside strings do not count).
 * Text that is not JSON is measured all the same: whatever reads it next refuses it.
 *
 * @internal
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
