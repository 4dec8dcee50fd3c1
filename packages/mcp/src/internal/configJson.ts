/**
 * A small strict JSON reader for configuration files. `JSON.parse` is not enough here: it silently keeps the
 * last of two equal keys (a duplicated server name must be rejected, C6) and its error messages quote the
 * surrounding text, which may hold a secret. This reader reports duplicate keys by path and syntax errors by
 * line and column only.
 *
 * @internal
 */

/** @internal */
export interface Parsed {
  readonly value: unknown
  /** Key paths (from the root) of every key that appears more than once in its object. */
  readonly duplicates: ReadonlyArray<ReadonlyArray<string>>
  /** The keys of every object in the order written (JavaScript objects list integer-like keys first). */
  readonly keyOrder: WeakMap<object, ReadonlyArray<string>>
}

/** @internal */
export interface SyntaxIssue {
  readonly line: number
  readonly column: number
  readonly reason: string
}

/** @internal */
export type ParseResult =
  | { readonly _tag: "Ok"; readonly parsed: Parsed }
  | { readonly _tag: "Error"; readonly issue: SyntaxIssue }

// Deep enough for any real configuration, shallow enough that recursion cannot overflow the stack.
const maxDepth = 128

// Parsing stops at the first problem: the helpers return this marker and `failure` holds the details.
const Fail: unique symbol = Symbol("Fail")
type Fail = typeof Fail

const numberPattern = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const hexPattern = /^[0-9a-fA-F]{4}$/

const lineAndColumn = (text: string, position: number): { line: number; column: number } => {
  let line = 1
  let start = 0
  for (let i = 0; i < position && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      start = i + 1
    }
  }
  return { line, column: position - start + 1 }
}

/** @internal */
export const parse = (input: string): ParseResult => {
  // A UTF-8 byte order mark is common in files written by Windows editors.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  const duplicates: Array<ReadonlyArray<string>> = []
  const keyOrder = new WeakMap<object, ReadonlyArray<string>>()
  let i = 0
  let failure: { readonly position: number; readonly reason: string } | undefined
  const fail = (position: number, reason: string): Fail => {
    failure = { position, reason }
    return Fail
  }

  const skipWhitespace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i)
      if (c === 32 || c === 9 || c === 10 || c === 13) i++
      else break
    }
  }

  const parseString = (): string | Fail => {
    const start = i
    i++ // opening quote
    while (true) {
      if (i >= text.length) return fail(start, "unterminated string")
      const c = text.charCodeAt(i)
      if (c === 34) break
      if (c < 0x20) return fail(i, "control character in a string")
      if (c === 92) {
        const next = text[i + 1]
        if (next === "u") {
          if (!hexPattern.test(text.slice(i + 2, i + 6))) return fail(i, "invalid \\u escape")
          i += 6
        } else if (next !== undefined && "\"\\/bfnrt".includes(next)) {
          i += 2
        } else {
          return fail(i, "invalid escape in a string")
        }
      } else {
        i++
      }
    }
    i++ // closing quote
    // The literal was checked above, so JSON.parse only decodes escapes here.
    return JSON.parse(text.slice(start, i)) as string
  }

  const parseValue = (path: Array<string>, depth: number): unknown => {
    if (depth > maxDepth) return fail(i, `nested deeper than ${maxDepth} levels`)
    skipWhitespace()
    if (i >= text.length) return fail(i, "unexpected end of input")
    const c = text[i]
    if (c === "{") {
      i++
      const object: Record<string, unknown> = {}
      const seen = new Set<string>()
      const keys: Array<string> = []
      keyOrder.set(object, keys)
      skipWhitespace()
      if (text[i] === "}") {
        i++
        return object
      }
      while (true) {
        skipWhitespace()
        if (text[i] !== "\"") return fail(i, "expected a property name in double quotes")
        const key = parseString()
        if (key === Fail) return Fail
        skipWhitespace()
        if (text[i] !== ":") return fail(i, "expected ':' after a property name")
        i++
        path.push(key)
        const value = parseValue(path, depth + 1)
        if (value === Fail) return Fail
        if (seen.has(key)) duplicates.push([...path])
        path.pop()
        seen.add(key)
        keys.push(key)
        // defineProperty, so that a key such as "__proto__" stays a plain data property.
        Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
        skipWhitespace()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "}") {
          i++
          return object
        }
        return fail(i, "expected ',' or '}' in an object")
      }
    }
    if (c === "[") {
      i++
      const array: Array<unknown> = []
      skipWhitespace()
      if (text[i] === "]") {
        i++
        return array
      }
      while (true) {
        path.push(String(array.length))
        const value = parseValue(path, depth + 1)
        if (value === Fail) return Fail
        array.push(value)
        path.pop()
        skipWhitespace()
        if (text[i] === ",") {
          i++
          continue
        }
        if (text[i] === "]") {
          i++
          return array
        }
        return fail(i, "expected ',' or ']' in an array")
      }
    }
    if (c === "\"") return parseString()
    if (text.startsWith("true", i)) {
      i += 4
      return true
    }
    if (text.startsWith("false", i)) {
      i += 5
      return false
    }
    if (text.startsWith("null", i)) {
      i += 4
      return null
    }
    numberPattern.lastIndex = i
    const match = numberPattern.exec(text)
    if (match !== null && match[0].length > 0 && match[0] !== "-") {
      i += match[0].length
      return Number(match[0])
    }
    return fail(i, "unexpected character")
  }

  const value = parseValue([], 0)
  if (value !== Fail) {
    skipWhitespace()
    if (i >= text.length) return { _tag: "Ok", parsed: { value, duplicates, keyOrder } }
    fail(i, "unexpected text after the end of the JSON value")
  }
  const { position, reason } = failure ?? { position: i, reason: "unreadable JSON" }
  return { _tag: "Error", issue: { ...lineAndColumn(text, position), reason } }
}
