/**
 * An MCP configuration file before its entries are decoded: the text read as VS Code and Zed write it (comments,
 * trailing commas), measured before it is parsed, its duplicate keys and its keys' order kept; its root checked
 * (one server mapping); its entries listed in file order, with the names given twice and the entries holding a key
 * twice refused. `JSON.parse` would not do: it silently keeps the last of two equal keys (a duplicated server name
 * must be refused, not resolved by order) and its error messages quote the text around the error, which may hold a
 * secret. Syntax errors are told by line, column and the parser's error name, never with the text.
 *
 * The parser is `jsonc-parser`, handed in by the caller (this package depends on none): the configuration reader
 * (`@zett/mcp-config`) of either Effect line passes its own import of it.
 *
 * @since 0.1.0
 */
import { got, has, isObject, segment } from "./McpConfigWording.js"
import * as McpTool from "./McpTool.js"

/**
 * What is read of `jsonc-parser`'s scanner.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsoncScanner {
  scan(): number
  getTokenValue(): string
  getTokenOffset(): number
  getTokenStartLine(): number
  getTokenStartCharacter(): number
}

/**
 * What is handed to `jsonc-parser`'s `visit`.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsoncVisitor {
  readonly onObjectBegin: () => void
  readonly onObjectProperty: (property: string) => void
  readonly onObjectEnd: () => void
  readonly onArrayBegin: () => void
  readonly onArrayEnd: () => void
  readonly onLiteralValue: (value: unknown) => void
  readonly onError: (error: number, offset: number, length: number, startLine: number, startCharacter: number) => void
}

/**
 * The part of `jsonc-parser` this module uses: pass `import * as Jsonc from "jsonc-parser"` itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface JsoncParser {
  readonly createScanner: (text: string, ignoreTrivia?: boolean) => JsoncScanner
  readonly visit: (
    text: string,
    visitor: JsoncVisitor,
    options?: {
      readonly allowTrailingComma?: boolean
      readonly disallowComments?: boolean
      readonly allowEmptyContent?: boolean
    }
  ) => unknown
  readonly printParseErrorCode: (code: never) => string
}

/**
 * A parsed file.
 *
 * @since 0.1.0
 * @category models
 */
export interface Parsed {
  readonly value: unknown
  /** Paths (from the root: keys, and indexes of arrays) of every key that appears more than once in its object. */
  readonly duplicates: ReadonlyArray<ReadonlyArray<string | number>>
  /** The keys of every object in the order written (JavaScript objects list integer-like keys first). */
  readonly keyOrder: ReadonlyMap<object, ReadonlyArray<string>>
}

/**
 * Why a text is not a file that can be read: by line and column, never with the text.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyntaxIssue {
  readonly line: number
  readonly column: number
  readonly reason: string
  /** For a value nested too deep: the keys and indexes from the root to it. */
  readonly path?: ReadonlyArray<string | number> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export type ParseResult =
  | { readonly _tag: "Ok"; readonly parsed: Parsed }
  | { readonly _tag: "Error"; readonly issue: SyntaxIssue }

/**
 * How deep a file may nest: deep enough for any real configuration (they nest fewer than 10 levels), shallow
 * enough that nothing downstream recurses into trouble (the limit of a tool's input schema).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxDepth: number = McpTool.schemaLimits.depth

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
const tooDeep = (
  jsonc: JsoncParser,
  text: string
): { readonly offset: number; readonly issue: SyntaxIssue } | undefined => {
  const scanner = jsonc.createScanner(text, true)
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

/**
 * Reads a file's text with `jsonc-parser` (`jsonc`): comments and trailing commas allowed, a UTF-8 byte order mark
 * skipped, a value nested deeper than `maxDepth` refused before the parser recurses into it.
 *
 * @example
 * ```ts
 * import { McpConfigFile } from "@zett/common"
 * import * as Jsonc from "jsonc-parser"
 *
 * const read = McpConfigFile.parse("{ \"servers\": {}, \"servers\": {}, // twice\n }", Jsonc)
 * if (read._tag === "Ok") console.log(read.parsed.duplicates) // [ [ 'servers' ] ]
 * console.log(McpConfigFile.parse("{ \"a\": 1 \"b\": 2 }", Jsonc))
 * // { _tag: 'Error', issue: { line: 1, column: 10, reason: "expected ','" } }
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (input: string, jsonc: JsoncParser): ParseResult => {
  // A UTF-8 byte order mark is common in files written by Windows editors.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input
  const deep = tooDeep(jsonc, text)
  const tree = new TreeBuilder()
  let failure: SyntaxIssue | undefined
  let failureOffset = 0

  // Only what comes before a value nested too deep is parsed: a syntax error there is still the first problem
  // told, and the parser never goes deeper than the limit. Tokens never straddle the cut (it is at a bracket).
  jsonc.visit(deep === undefined ? text : text.slice(0, deep.offset), {
    // after the first error nothing more is built
    onObjectBegin: () => {
      if (failure === undefined) tree.open({})
    },
    onObjectProperty: (property) => {
      if (failure === undefined) tree.property(property)
    },
    // each end follows its begin, which opened a container while there was no failure
    onObjectEnd: () => {
      if (failure === undefined) tree.close()
    },
    onArrayBegin: () => {
      if (failure === undefined) tree.open([])
    },
    onArrayEnd: () => {
      if (failure === undefined) tree.close()
    },
    onLiteralValue: (value) => {
      if (failure === undefined) tree.add(value)
    },
    onError: (error, offset, _length, line, character) => {
      if (failure !== undefined) return
      const name = jsonc.printParseErrorCode(error as never)
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
  if (tree.root === undefined) return { _tag: "Error", issue: { line: 1, column: 1, reason: "the file is empty" } }
  return { _tag: "Ok", parsed: { value: tree.root, duplicates: tree.duplicates, keyOrder: tree.keyOrder } }
}

// what is being built: each open object or array, with the key the next value goes under
interface Frame {
  readonly container: Record<string, unknown> | Array<unknown>
  readonly path: ReadonlyArray<string | number>
  readonly keys: Array<string>
  readonly seen: Set<string>
  key: string | undefined
}

/** The value jsonc-parser's visitor walks through, with the keys seen twice and each object's key order. */
class TreeBuilder {
  root: unknown = undefined
  readonly duplicates: Array<ReadonlyArray<string | number>> = []
  // one per file read, dropped with it
  readonly keyOrder = new Map<object, ReadonlyArray<string>>()
  private readonly stack: Array<Frame> = []

  add(value: unknown): void {
    const frame = this.stack.at(-1)
    if (frame === undefined) {
      this.root = value
    } else if (Array.isArray(frame.container)) {
      frame.container.push(value)
    } else {
      // jsonc-parser visits a value in an object only after its key
      setKey(frame.container, frame.key!, value)
    }
  }

  open(container: Record<string, unknown> | Array<unknown>): void {
    const parent = this.stack.at(-1)
    const path = parent === undefined
      ? []
      : [...parent.path, Array.isArray(parent.container) ? parent.container.length : parent.key!]
    this.add(container)
    this.stack.push({ container, path, keys: [], seen: new Set(), key: undefined })
  }

  property(name: string): void {
    const frame = this.stack.at(-1)!
    if (frame.seen.has(name)) this.duplicates.push([...frame.path, name])
    else frame.keys.push(name)
    frame.seen.add(name)
    frame.key = name
  }

  close(): void {
    const frame = this.stack.pop()!
    // an array's list is empty, and never looked up
    if (!Array.isArray(frame.container)) this.keyOrder.set(frame.container, frame.keys)
  }
}

/**
 * A problem with the file as a whole: `entry` says where (`mcpServers`, `inputs[0].id`), when it is not the whole
 * file.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileIssue {
  readonly _tag: "FileIssue"
  readonly entry: string | undefined
  readonly reason: string
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const fileIssue = (reason: string, entry?: string): FileIssue => ({ _tag: "FileIssue", entry, reason })

/**
 * A file's root, checked: one server mapping, under `rootKey`, with no key twice at its own level; `inputs` as
 * written (each line decodes it with its Schema), undefined when the file has none.
 *
 * @since 0.1.0
 * @category models
 */
export interface Root {
  readonly _tag: "Root"
  readonly rootKey: string
  readonly mapping: Readonly<Record<string, unknown>>
  /** The duplicate keys under the mapping (paths from the root). */
  readonly duplicates: ReadonlyArray<ReadonlyArray<string | number>>
  /** The mapping's names in file order. */
  readonly names: ReadonlyArray<string>
  readonly inputs: unknown
}

/**
 * Reads a file's root: a problem with the file as a whole (not JSON, no or two server mappings among
 * `serverKeys`), or its one server mapping.
 *
 * @example
 * ```ts
 * import { McpConfigFile } from "@zett/common"
 * import * as Jsonc from "jsonc-parser"
 *
 * console.log(McpConfigFile.readRoot("{ \"servers\": {}, \"mcpServers\": {} }", ["servers", "mcpServers"], Jsonc))
 * // { _tag: 'FileIssue', entry: undefined, reason: '"servers" and "mcpServers" are both present; use only one' }
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const readRoot = (text: string, serverKeys: ReadonlyArray<string>, jsonc: JsoncParser): Root | FileIssue => {
  const parsed = parse(text, jsonc)
  if (parsed._tag === "Error") {
    const { column, line, path, reason } = parsed.issue
    if (path === undefined) return fileIssue(`not valid JSON (line ${line}, column ${column}: ${reason})`)
    // named down to the field of an entry (`mcpServers.s.args`) or to a key of the root, not to the hundredth level
    const head = path[0]
    const entry = typeof head === "string"
      ? path.slice(0, serverKeys.includes(head) ? 3 : 1).map(segment).join("").replace(/^\./, "")
      : undefined
    return fileIssue(`${reason} (line ${line}, column ${column})`, entry)
  }
  const root = parsed.parsed.value
  if (!isObject(root)) return fileIssue(`expected a JSON object at the root, got ${got(root)}`)
  const present = serverKeys.filter((key) => has(root, key))
  const expectedKeys = serverKeys.map((key) => JSON.stringify(key)).join(" or ")
  if (present.length === 0) return fileIssue(`no server mapping: expected a ${expectedKeys} key`)
  if (present.length > 1) {
    return fileIssue(`${present.map((key) => JSON.stringify(key)).join(" and ")} are both present; use only one`)
  }
  const rootKey = present[0]!
  const duplicates = parsed.parsed.duplicates.filter((path) => path[0] === rootKey)
  if (duplicates.some((path) => path.length === 1)) return fileIssue("duplicate key", rootKey)
  const mapping = root[rootKey]
  if (!isObject(mapping)) {
    return fileIssue(`expected an object mapping server names to entries, got ${got(mapping)}`, rootKey)
  }
  return {
    _tag: "Root",
    rootKey,
    mapping,
    duplicates,
    // file order, which plain objects lose for integer-like keys such as "1"
    names: parsed.parsed.keyOrder.get(mapping) ?? Object.keys(mapping),
    inputs: has(root, "inputs") ? root.inputs : undefined
  }
}

/**
 * One entry of the mapping, named by where it is in the file (`servers.docs`): to decode, or refused already (a
 * name given twice, a key given twice inside it, an empty name).
 *
 * @since 0.1.0
 * @category models
 */
export type Listed =
  | { readonly _tag: "Entry"; readonly name: string; readonly entry: string; readonly value: unknown }
  | {
    readonly _tag: "Refused"
    readonly name: string
    /** Where in the file, down to a key given twice. */
    readonly entry: string
    readonly kind: "InvalidEntry" | "DuplicateName"
    readonly reason: string
  }

/**
 * The entries of a file's mapping, in file order.
 *
 * @since 0.1.0
 * @category parsing
 */
export const entries = (root: Root): ReadonlyArray<Listed> => {
  const { duplicates, mapping, rootKey } = root
  return root.names.map((name): Listed => {
    const entry = `${rootKey}${segment(name)}`
    if (duplicates.some((path) => path.length === 2 && path[1] === name)) {
      return { _tag: "Refused", name, entry, kind: "DuplicateName", reason: "duplicate server name" }
    }
    // A key written twice inside one entry: JSON would keep the last silently, so the entry is ambiguous.
    const repeated = duplicates.find((path) => path.length > 2 && path[1] === name)
    if (repeated !== undefined) {
      const where = `${entry}${repeated.slice(2).map(segment).join("")}`
      return { _tag: "Refused", name, entry: where, kind: "InvalidEntry", reason: "duplicate key" }
    }
    if (name.length === 0) {
      return { _tag: "Refused", name, entry, kind: "InvalidEntry", reason: "a server name must not be empty" }
    }
    return { _tag: "Entry", name, entry, value: mapping[name] }
  })
}
