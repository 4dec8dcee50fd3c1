/**
 * The configuration reader, on `jsonc-parser`: files may hold comments and trailing commas, as VS Code and Zed write
 * them. `JSON.parse` would not do in any case: it silently keeps the last of two equal keys (a duplicated server name
 * must be rejected, not resolved by order) and its error messages quote the text around the error, which may hold a
 * secret. Duplicate keys are reported by path; syntax errors by line, column and the parser's error name, never with
 * the text.
 *
 * @internal
 */
import * as McpTool from "@zett/mcp/McpTool"
import * as Jsonc from "jsonc-parser"

/** @internal */
export interface Parsed {
  readonly value: unknown
  /** Paths (from the root: keys, and indexes of arrays) of every key that appears more than once in its object. */
  readonly duplicates: ReadonlyArray<ReadonlyArray<string | number>>
  /** The keys of every object in the order written (JavaScript objects list integer-like keys first). */
  readonly keyOrder: WeakMap<object, ReadonlyArray<string>>
}

/** @internal */
export interface SyntaxIssue {
  readonly line: number
  readonly column: number
  readonly reason: string
  /** For a value nested too deep: the keys and indexes from the root to it. */
  readonly path?: ReadonlyArray<string | number> | undefined
}

/** @internal */
export type ParseResult =
  | { readonly _tag: "Ok"; readonly parsed: Parsed }
  | { readonly _tag: "Error"; readonly issue: SyntaxIssue }

// Deep enough for any real configuration (they nest fewer than 10 levels), shallow enough that nothing
// downstream recurses into trouble: the limit of a tool's input schema.
const maxDepth: number = McpTool.schemaLimits.depth

// Token kinds of `createScanner` (an ambient const enum in jsonc-parser's types, so not read by name).
const OpenBrace = 1
const CloseBrace = 2
const OpenBracket = 3
const CloseBracket = 4
const Comma = 5
const StringLiteral = 10
const EOF = 17

interface Level {
  readonly array: boolean
  /** The key or index this container stands under in its parent. */
  readonly segment: string | number | undefined
  index: number
  key: string | undefined
  expectKey: boolean
}

/**
 * The first value nested deeper than `maxDepth`, found by one pass of jsonc-parser's scanner (iterative, and it
 * knows strings, escapes and both kinds of comment) before `visit`, which recurses once per level and would
 * overflow the stack on a file nested some thousands of levels deep. A closing bracket closes a level only if
 * it matches the innermost one, as it does for the parser (which skips a mismatched one), so the depth
 * counted here is never below the parser's.
 */
const tooDeep = (text: string): { readonly offset: number; readonly issue: SyntaxIssue } | undefined => {
  const scanner = Jsonc.createScanner(text, true)
  const levels: Array<Level> = []
  for (let kind: number = scanner.scan(); kind !== EOF; kind = scanner.scan()) {
    const top = levels.at(-1)
    switch (kind) {
      case OpenBrace:
      case OpenBracket: {
        const segment = top === undefined ? undefined : top.array ? top.index : top.key
        if (levels.length >= maxDepth) {
          // up to a container without a key (`{{`, a syntax error the parser would report)
          const path: Array<string | number> = []
          for (const level of [...levels.slice(1), { segment }]) {
            if (level.segment === undefined) break
            path.push(level.segment)
          }
          return {
            offset: scanner.getTokenOffset(),
            issue: {
              line: scanner.getTokenStartLine() + 1,
              column: scanner.getTokenStartCharacter() + 1,
              reason: `nested deeper than ${maxDepth} levels`,
              path
            }
          }
        }
        levels.push({ array: kind === OpenBracket, segment, index: 0, key: undefined, expectKey: true })
        break
      }
      case CloseBrace:
      case CloseBracket:
        if (top !== undefined && top.array === (kind === CloseBracket)) levels.pop()
        break
      case Comma:
        if (top?.array === true) top.index++
        else if (top !== undefined) top.expectKey = true
        break
      case StringLiteral:
        if (top !== undefined && !top.array && top.expectKey) {
          top.key = scanner.getTokenValue()
          top.expectKey = false
        }
    }
  }
  return undefined
}

// by the names of `printParseErrorCode` (the codes are an ambient const enum)
const reasons: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected character",
  // not reached: jsonc-parser's scanner yields only numbers that `Number` reads
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected ':' after a property name",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}' at the end of an object",
  CloseBracketExpected: "expected ']' at the end of an array",
  EndOfFileExpected: "unexpected text after the end of the JSON value",
  // not reached: comments are allowed
  InvalidCommentToken: "invalid comment",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "unexpected end of a number",
  InvalidUnicode: "invalid \\u escape",
  InvalidEscapeCharacter: "invalid escape in a string",
  InvalidCharacter: "control character in a string"
}

// A plain assignment of "__proto__" would set the prototype instead of an own key.
const setKey = (target: Record<string, unknown>, key: string, value: unknown) => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** @internal */
export const parse = (input: string): ParseResult => {
  // A UTF-8 byte order mark is common in files written by Windows editors.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  const deep = tooDeep(text)
  const duplicates: Array<ReadonlyArray<string | number>> = []
  const keyOrder = new WeakMap<object, ReadonlyArray<string>>()
  let failure: SyntaxIssue | undefined
  let failureOffset = 0
  let root: unknown = undefined

  // what is being built: each open object or array, with the key the next value goes under
  interface Frame {
    readonly container: Record<string, unknown> | Array<unknown>
    readonly path: ReadonlyArray<string | number>
    readonly keys: Array<string>
    readonly seen: Set<string>
    key: string | undefined
  }
  const stack: Array<Frame> = []
  const add = (value: unknown) => {
    const frame = stack.at(-1)
    if (frame === undefined) {
      root = value
    } else if (Array.isArray(frame.container)) {
      frame.container.push(value)
    } else {
      // jsonc-parser visits a value in an object only after its key
      setKey(frame.container, frame.key!, value)
    }
  }
  const open = (container: Record<string, unknown> | Array<unknown>) => {
    if (failure !== undefined) return
    const parent = stack.at(-1)
    const path = parent === undefined
      ? []
      : [...parent.path, Array.isArray(parent.container) ? parent.container.length : parent.key!]
    add(container)
    stack.push({ container, path, keys: [], seen: new Set(), key: undefined })
  }
  const close = () => {
    if (failure !== undefined) return
    // each end follows its begin, which pushed a frame while there was no failure
    const frame = stack.pop()!
    // an array's list is empty, and never looked up
    keyOrder.set(frame.container, frame.keys)
  }

  // Only what comes before a value nested too deep is parsed: a syntax error there is still the first problem
  // told, and the parser never goes deeper than the limit. Tokens never straddle the cut (it is at a bracket).
  Jsonc.visit(deep === undefined ? text : text.slice(0, deep.offset), {
    onObjectBegin: () => open({}),
    onObjectProperty: (property) => {
      if (failure !== undefined) return
      const frame = stack.at(-1)!
      if (frame.seen.has(property)) duplicates.push([...frame.path, property])
      else frame.keys.push(property)
      frame.seen.add(property)
      frame.key = property
    },
    onObjectEnd: close,
    onArrayBegin: () => open([]),
    onArrayEnd: close,
    onLiteralValue: (value) => {
      if (failure === undefined) add(value)
    },
    onError: (error, offset, _length, line, character) => {
      if (failure !== undefined) return
      const name = Jsonc.printParseErrorCode(error)
      failure = { line: line + 1, column: character + 1, reason: reasons[name] ?? name }
      failureOffset = offset
    }
  }, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true })

  // an error at the cut is the cut's own (an array or object left open)
  if (failure !== undefined && (deep === undefined || failureOffset < deep.offset)) {
    return { _tag: "Error", issue: failure }
  }
  if (deep !== undefined) return { _tag: "Error", issue: deep.issue }
  // blank, or comments only
  if (root === undefined) return { _tag: "Error", issue: { line: 1, column: 1, reason: "the file is empty" } }
  return { _tag: "Ok", parsed: { value: root, duplicates, keyOrder } }
}
