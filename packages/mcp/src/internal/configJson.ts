/**
 * The configuration reader, on `jsonc-parser`: files may hold comments and trailing commas, as VS Code and Zed
 * write them. `JSON.parse` would not do in any case: it silently keeps the last of two equal keys (a
 * duplicated server name must be rejected, C6) and its error messages quote the text around the error, which
 * may hold a secret. Duplicate keys are reported by path; syntax errors by line, column and the parser's error
 * name, never with the text.
 *
 * @internal
 */
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
}

/** @internal */
export type ParseResult =
  | { readonly _tag: "Ok"; readonly parsed: Parsed }
  | { readonly _tag: "Error"; readonly issue: SyntaxIssue }

// Deep enough for any real configuration, shallow enough that nothing downstream recurses into trouble.
const maxDepth = 128

// by the names of `printParseErrorCode` (the codes are an ambient const enum)
const reasons: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected character",
  // Stryker disable next-line StringLiteral: not reached, jsonc-parser's scanner only yields numbers `Number` reads
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name in double quotes",
  ValueExpected: "expected a value",
  ColonExpected: "expected ':' after a property name",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}' at the end of an object",
  CloseBracketExpected: "expected ']' at the end of an array",
  EndOfFileExpected: "unexpected text after the end of the JSON value",
  // Stryker disable next-line StringLiteral: not reached, comments are allowed
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
  // Stryker disable next-line BooleanLiteral: nothing writes a parsed object again; a repeated key is defined anew
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** @internal */
export const parse = (input: string): ParseResult => {
  // A UTF-8 byte order mark is common in files written by Windows editors.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  const duplicates: Array<ReadonlyArray<string | number>> = []
  const keyOrder = new WeakMap<object, ReadonlyArray<string>>()
  let failure: SyntaxIssue | undefined
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
  const open = (container: Record<string, unknown> | Array<unknown>, line: number, character: number) => {
    if (failure !== undefined) return
    if (stack.length >= maxDepth) {
      failure = { line: line + 1, column: character + 1, reason: `nested deeper than ${maxDepth} levels` }
      return
    }
    const parent = stack.at(-1)
    const path = parent === undefined
      ? []
      : [...parent.path, Array.isArray(parent.container) ? parent.container.length : parent.key!]
    add(container)
    stack.push({ container, path, keys: [], seen: new Set(), key: undefined })
  }
  const close = () => {
    // Stryker disable next-line ConditionalExpression: after a failure nothing opens, and what was built is dropped
    if (failure !== undefined) return
    // each end follows its begin, which pushed a frame while there was no failure
    const frame = stack.pop()!
    // an array's list is empty, and never looked up
    keyOrder.set(frame.container, frame.keys)
  }

  Jsonc.visit(text, {
    onObjectBegin: (_offset, _length, line, character) => open({}, line, character),
    onObjectProperty: (property) => {
      if (failure !== undefined) return
      const frame = stack.at(-1)!
      if (frame.seen.has(property)) duplicates.push([...frame.path, property])
      else frame.keys.push(property)
      frame.seen.add(property)
      frame.key = property
    },
    onObjectEnd: close,
    onArrayBegin: (_offset, _length, line, character) => open([], line, character),
    onArrayEnd: close,
    onLiteralValue: (value) => {
      // Stryker disable next-line ConditionalExpression: a value added after a failure is dropped with the rest
      if (failure === undefined) add(value)
    },
    onError: (error, _offset, _length, line, character) => {
      const name = Jsonc.printParseErrorCode(error)
      failure ??= { line: line + 1, column: character + 1, reason: reasons[name] ?? name }
    }
  }, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true })

  if (failure !== undefined) return { _tag: "Error", issue: failure }
  // blank, or comments only
  if (root === undefined) return { _tag: "Error", issue: { line: 1, column: 1, reason: "the file is empty" } }
  // Stryker disable next-line StringLiteral: the reader tells the two results apart by "Error"
  return { _tag: "Ok", parsed: { value: root, duplicates, keyOrder } }
}
