/**
 * Decoding of configuration files into server definitions, in three steps:
 *
 * 1. the text, read with `jsonc-parser` (`configJson.ts`): comments, trailing commas, duplicate keys;
 * 2. each entry's shape (`shape.ts`: which kind) and fields (`entries.ts`: Schema classes whose messages never
 *    echo a value);
 * 3. the entry's variables, expanded in the forms of the file's dialect (`variables.ts`, `dialect.ts`,
 *    `expansion.ts`), with values from the `ConfigProvider` and inputs from `McpInputs`, into a server
 *    (`servers.ts`, `auth.ts`).
 *
 * @internal
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import type { McpServerConfig } from "@zett/mcp/McpServerConfig"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Os from "node:os"
import * as Json from "./configJson.js"
import * as Dialect from "./dialect.js"
import * as Entries from "./entries.js"
import { type Expansion, type FieldIssue, makeResolver, type Resolver } from "./expansion.js"
import * as Servers from "./servers.js"
import { got, has, isObject, segment } from "./wording.js"

/** @internal */
export interface Issue {
  /** Where in the file, e.g. `servers.docs.url`; undefined for the file as a whole. */
  readonly entry: string | undefined
  /** The server whose entry is invalid, when the problem belongs to one entry. */
  readonly server: string | undefined
  readonly reason: string
}

/** @internal */
export interface EntryIssue {
  /** Where in the file, e.g. `servers.docs.url`. */
  readonly entry: string
  readonly server: string
  /** A name given twice in the mapping, or any other invalid entry. */
  readonly kind: "InvalidEntry" | "DuplicateName"
  readonly reason: string
}

/** @internal */
export interface FileEntry {
  readonly entry: string
  readonly server: McpServerConfig
}

/** @internal */
export type DecodeResult =
  | { readonly _tag: "Ok"; readonly file: DecodedFile }
  | { readonly _tag: "Error"; readonly issue: Issue }

/** @internal */
export interface DecodedFile {
  readonly rootKey: string
  readonly dialect: Dialect.Dialect
  readonly servers: ReadonlyArray<FileEntry>
  /** Invalid entries, in file order. */
  readonly invalid: ReadonlyArray<EntryIssue>
  /** Entries with `"disabled": true` (or Zed's `"enabled": false`), left out on purpose. */
  readonly disabled: ReadonlyArray<string>
}

/** @internal */
export interface DecodeOptions {
  /** The file's absolute path: it names the dialect (`.vscode/mcp.json`, ...) and `${workspaceFolder}`. */
  readonly path: string
  readonly serverKeys: ReadonlyArray<string>
  /** Overrides the folder `${workspaceFolder}` stands for. */
  readonly workspaceFolder?: string | undefined
  /** Overrides the dialect told by the path and the root key. */
  readonly dialect?: Dialect.Dialect | undefined
}

type Entry =
  | { readonly _tag: "Server"; readonly server: McpServerConfig }
  | { readonly _tag: "Disabled" }
  | { readonly _tag: "Invalid"; readonly field: string | undefined; readonly reason: string }

const decodeEntry = (
  name: string,
  raw: unknown,
  expansion: Expansion,
  workspace: string
): Effect.Effect<Entry, never, FileSystem.FileSystem | Path.Path> => {
  if (name.length === 0) {
    return Effect.succeed({ _tag: "Invalid", field: undefined, reason: "a server name must not be empty" })
  }
  const shape = Entries.decode(raw)
  if (shape._tag === "Invalid" || shape._tag === "Disabled") return Effect.succeed(shape)
  const built: Effect.Effect<McpServerConfig, FieldIssue, FileSystem.FileSystem | Path.Path> = shape._tag === "Stdio"
    ? Servers.stdio(name, shape.entry, expansion, workspace)
    : Servers.remote(name, shape.entry, expansion)
  return built.pipe(
    Effect.map((server): Entry => ({ _tag: "Server", server })),
    Effect.catchAll((issue) => Effect.succeed<Entry>({ _tag: "Invalid", field: issue.field, reason: issue.reason }))
  )
}

/** The file's root, checked: one server mapping, no duplicate keys at its level, valid `inputs`. */
interface Root {
  readonly rootKey: string
  readonly mapping: Readonly<Record<string, unknown>>
  /** The duplicate keys under the mapping (paths from the root). */
  readonly duplicates: ReadonlyArray<ReadonlyArray<string | number>>
  readonly keyOrder: Json.Parsed["keyOrder"]
  readonly inputs: typeof Entries.Inputs.Type
}

const fileError = (reason: string, entry?: string): Issue => ({ entry, server: undefined, reason })

/** A problem with the file as a whole, or its root. */
const readRoot = (text: string, serverKeys: ReadonlyArray<string>): Either.Either<Root, Issue> => {
  const parsed = Json.parse(text)
  if (parsed._tag === "Error") {
    const { column, line, path, reason } = parsed.issue
    if (path === undefined) return Either.left(fileError(`not valid JSON (line ${line}, column ${column}: ${reason})`))
    // named down to the field of an entry (`mcpServers.s.args`) or to a key of the root, not to the hundredth level
    const head = path[0]
    const entry = typeof head === "string"
      ? path.slice(0, serverKeys.includes(head) ? 3 : 1).map(segment).join("").replace(/^\./, "")
      : undefined
    return Either.left(fileError(`${reason} (line ${line}, column ${column})`, entry))
  }
  const root = parsed.parsed.value
  if (!isObject(root)) return Either.left(fileError(`expected a JSON object at the root, got ${got(root)}`))
  const present = serverKeys.filter((key) => has(root, key))
  const expectedKeys = serverKeys.map((key) => JSON.stringify(key)).join(" or ")
  if (present.length === 0) return Either.left(fileError(`no server mapping: expected a ${expectedKeys} key`))
  if (present.length > 1) {
    return Either.left(
      fileError(`${present.map((key) => JSON.stringify(key)).join(" and ")} are both present; use only one`)
    )
  }
  const rootKey = present[0]!
  const duplicates = parsed.parsed.duplicates.filter((path) => path[0] === rootKey)
  if (duplicates.some((path) => path.length === 1)) return Either.left(fileError("duplicate key", rootKey))
  const mapping = root[rootKey]
  if (!isObject(mapping)) {
    return Either.left(fileError(`expected an object mapping server names to entries, got ${got(mapping)}`, rootKey))
  }
  const inputs = has(root, "inputs") ? Schema.decodeUnknownEither(Entries.Inputs)(root.inputs) : Either.right([])
  if (Either.isLeft(inputs)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(inputs.left)[0]!
    return Either.left(fileError(issue.message, `inputs${issue.path.map(segment).join("")}`))
  }
  return Either.right({ rootKey, mapping, duplicates, keyOrder: parsed.parsed.keyOrder, inputs: inputs.right })
}

/** Each entry of the mapping, in file order, sorted into servers, invalid entries and disabled ones. */
const decodeEntries = (root: Root, expansion: Expansion, workspace: string) =>
  Effect.gen(function*() {
    const { duplicates, mapping, rootKey } = root
    const servers: Array<FileEntry> = []
    const invalid: Array<EntryIssue> = []
    const disabled: Array<string> = []
    // File order, which plain objects lose for integer-like keys such as "1".
    const order = root.keyOrder.get(mapping) ?? Object.keys(mapping)
    for (const name of new Set(order)) {
      const entry = `${rootKey}${segment(name)}`
      if (duplicates.some((path) => path.length === 2 && path[1] === name)) {
        invalid.push({ entry, server: name, kind: "DuplicateName", reason: "duplicate server name" })
        continue
      }
      // A key written twice inside one entry: JSON would keep the last silently, so the entry is ambiguous.
      const repeated = duplicates.find((path) => path.length > 2 && path[1] === name)
      if (repeated !== undefined) {
        const where = `${entry}${repeated.slice(2).map(segment).join("")}`
        invalid.push({ entry: where, server: name, kind: "InvalidEntry", reason: "duplicate key" })
        continue
      }
      // each entry keeps the secrets of its own values
      const result = yield* decodeEntry(name, mapping[name], { ...expansion, secrets: [] }, workspace)
      switch (result._tag) {
        case "Server":
          servers.push({ entry, server: result.server })
          break
        case "Disabled":
          disabled.push(name)
          break
        case "Invalid":
          invalid.push({
            entry: `${entry}${result.field ?? ""}`,
            server: name,
            kind: "InvalidEntry",
            reason: result.reason
          })
      }
    }
    return { servers, invalid, disabled }
  })

/**
 * Decodes the text of a configuration file. A result of `Error` is a problem with the file as a whole (not JSON, no or
 * two server mappings), which fails in strict and lenient mode alike, since there is no entry to skip. Variables are
 * read from the `ConfigProvider`; `${input:ID}` from the `McpInputs` in context, if any.
 *
 * @internal
 */
export const decode = (
  text: string,
  options: DecodeOptions
): Effect.Effect<DecodeResult, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const root = readRoot(text, options.serverKeys)
    if (Either.isLeft(root)) return { _tag: "Error", issue: root.left } as const
    const { rootKey } = root.right
    const path = yield* Path.Path
    const dialect = options.dialect ?? Dialect.detect(options.path, rootKey)
    const workspace = options.workspaceFolder ?? Dialect.workspaceFolder(options.path, path.dirname)
    const resolver: Resolver = yield* makeResolver({
      workspace,
      home: yield* homeDirectory,
      inputs: new Map(root.right.inputs.map((input) => [input.id, input]))
    })
    const expansion: Expansion = {
      dialect,
      forms: Dialect.forms[dialect],
      fields: Dialect.expandedFields(dialect),
      resolver,
      secrets: []
    }
    const entries = yield* decodeEntries(root.right, expansion, workspace)
    return { _tag: "Ok", file: { rootKey, dialect, ...entries } } as const
  })

/**
 * The home directory: `HOME` (or `USERPROFILE`) from the `ConfigProvider`, falling back to the operating
 * system's answer.
 *
 * @internal
 */
export const homeDirectory: Effect.Effect<string> = Config.nonEmptyString("HOME").pipe(
  Config.orElse(() => Config.nonEmptyString("USERPROFILE")),
  Effect.orElseSucceed(() => Os.homedir())
)
