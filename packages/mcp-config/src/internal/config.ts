/**
 * Decoding of configuration files into server definitions, in three steps:
 *
 * 1. the text, read with `jsonc-parser` (`@zett/common`'s `McpConfigFile`): comments, trailing commas, duplicate
 *    keys, the root's one server mapping, its entries in file order;
 * 2. each entry's shape (`McpConfigEntry`: which kind) and fields (`entries.ts`: Schema classes whose messages
 *    never echo a value);
 * 3. the entry's variables, expanded in the forms of the file's dialect (`McpConfigVariables`, `McpConfigDialect`,
 *    `expansion.ts`), with values from the `ConfigProvider` and inputs from `McpInputs`, into a server
 *    (`servers.ts`, `auth.ts`).
 *
 * What needs no Effect is `@zett/common`'s, shared with the Effect 4 line; this module is the Effect wiring.
 *
 * @internal
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Dialect from "@zett/common/McpConfigDialect"
import * as McpConfigFile from "@zett/common/McpConfigFile"
import { segment } from "@zett/common/McpConfigWording"
import type { McpServerConfig } from "@zett/mcp/McpServerConfig"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Jsonc from "jsonc-parser"
import * as Os from "node:os"
import * as Entries from "./entries.js"
import { type Expansion, type FieldIssue, makeResolver, type Resolver } from "./expansion.js"
import * as Servers from "./servers.js"

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

/** The file's root (`McpConfigFile.readRoot`) with its `inputs` decoded. */
interface Root {
  readonly root: McpConfigFile.Root
  readonly inputs: typeof Entries.Inputs.Type
}

const fileError = (reason: string, entry?: string): Issue => ({ entry, server: undefined, reason })

/** A problem with the file as a whole, or its root. */
const readRoot = (text: string, serverKeys: ReadonlyArray<string>): Either.Either<Root, Issue> => {
  const root = McpConfigFile.readRoot(text, serverKeys, Jsonc)
  if (root._tag === "FileIssue") return Either.left(fileError(root.reason, root.entry))
  const inputs = root.inputs !== undefined ? Schema.decodeUnknownEither(Entries.Inputs)(root.inputs) : Either.right([])
  if (Either.isLeft(inputs)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(inputs.left)[0]!
    return Either.left(fileError(issue.message, `inputs${issue.path.map(segment).join("")}`))
  }
  return Either.right({ root, inputs: inputs.right })
}

/** Each entry of the mapping, in file order, sorted into servers, invalid entries and disabled ones. */
const decodeEntries = (root: McpConfigFile.Root, expansion: Expansion, workspace: string) =>
  Effect.gen(function*() {
    const servers: Array<FileEntry> = []
    const invalid: Array<EntryIssue> = []
    const disabled: Array<string> = []
    for (const listed of McpConfigFile.entries(root)) {
      const { entry, name } = listed
      if (listed._tag === "Refused") {
        invalid.push({ entry, server: name, kind: listed.kind, reason: listed.reason })
        continue
      }
      // each entry keeps the secrets of its own values
      const result = yield* decodeEntry(name, listed.value, { ...expansion, secrets: [] }, workspace)
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
    const read = readRoot(text, options.serverKeys)
    if (Either.isLeft(read)) return { _tag: "Error", issue: read.left } as const
    const { inputs, root } = read.right
    const { rootKey } = root
    const path = yield* Path.Path
    const dialect = options.dialect ?? Dialect.detect(options.path, rootKey)
    const workspace = options.workspaceFolder ?? Dialect.workspaceFolder(options.path, path.dirname)
    const resolver: Resolver = yield* makeResolver({
      workspace,
      home: yield* homeDirectory,
      inputs: new Map(inputs.map((input) => [input.id, input]))
    })
    const expansion: Expansion = {
      dialect,
      forms: Dialect.forms[dialect],
      fields: Dialect.expandedFields(dialect),
      resolver,
      secrets: []
    }
    const entries = yield* decodeEntries(root, expansion, workspace)
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
