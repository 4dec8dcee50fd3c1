/**
 * Where OAuth tokens, client registrations and the state of a login in progress are kept: an entry per MCP
 * server URL (the protected resource), and in it the credentials of each authorization server by its issuer.
 * `layerMemory` for tests and short-lived hosts, `layerFile` for `~/.zett/auth/` (`RedisTokenStore` of
 * `@zett/mcp-redis` for a fleet of processes that share its tokens and refresh each once); a host may supply its own.
 *
 * @since 1.0.0
 */
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/client"
import * as JsonDepth from "@zett/common/JsonDepth"
import { McpTokenStoreError } from "@zett/mcp/McpError"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Crypto from "node:crypto"
import * as Os from "node:os"
import * as KeyedLock from "./internal/keyedLock.js"

/**
 * What one authorization server issued for a server: its client registration and tokens. JSON-serializable;
 * `tokens.expires_at` is epoch milliseconds, computed from `expires_in` when the tokens were saved;
 * `tokens.dpop_jkt` is the thumbprint (RFC 7638) of the DPoP key a `token_type: "DPoP"` token is bound to.
 *
 * @since 1.0.0
 * @category models
 */
export interface Credentials {
  readonly tokens?: OAuthTokens & { readonly expires_at?: number; readonly dpop_jkt?: string }
  readonly clientInformation?: OAuthClientInformationFull
}

/**
 * The private DPoP key of an entry (RFC 9449), as a JWK with its JWS algorithm: made once, the first time a
 * DPoP-bound token is asked for, and kept with the tokens bound to it so that every process sharing the store
 * presents them with the same key. A secret, as the tokens are.
 *
 * @since 1.0.0
 * @category models
 */
export interface DpopKey {
  readonly alg: string
  readonly jwk: Readonly<Record<string, unknown>>
}

/**
 * What is kept for one server: the credentials of each authorization server, by issuer (credentials are
 * bound to the server that issued them, and never shown to another), the issuer the server uses now, and a
 * login in progress. JSON-serializable.
 *
 * @since 1.0.0
 * @category models
 */
export interface Entry {
  readonly credentials?: Readonly<Record<string, Credentials>>
  /** The issuer of the authorization server the server named last: its credentials are the ones in use. */
  readonly issuer?: string
  readonly codeVerifier?: string
  /** The SDK's `OAuthDiscoveryState`, so a refresh needs no discovery. */
  readonly discoveryState?: unknown
  /** The DPoP key of the server's credentials; an entry of older code has none until one is needed. */
  readonly dpopKey?: DpopKey
}

/**
 * The credentials of `issuer`, by default those in use (of the entry's current issuer).
 *
 * @since 1.0.0
 * @category utils
 */
export const current = (entry: Entry, issuer: string | undefined = entry.issuer): Credentials =>
  issuer === undefined ? {} : entry.credentials?.[issuer] ?? {}

/**
 * `entry` with the credentials of `issuer` changed by `f`, and `issuer` the one in use.
 *
 * @since 1.0.0
 * @category utils
 */
export const updateCredentials = (
  entry: Entry,
  issuer: string,
  f: (credentials: Credentials) => Credentials
): Entry => ({
  ...entry,
  issuer,
  credentials: { ...entry.credentials, [issuer]: f(entry.credentials?.[issuer] ?? {}) }
})

/**
 * `entry` without any tokens (the registrations are kept): what a new login starts from.
 *
 * @since 1.0.0
 * @category utils
 */
export const withoutTokens = (entry: Entry): Entry => {
  const { codeVerifier: _, credentials, ...rest } = entry
  if (credentials === undefined) return rest
  return {
    ...rest,
    credentials: Object.fromEntries(
      Object.entries(credentials).map(([issuer, { tokens: __, ...kept }]) => [issuer, kept])
    )
  }
}

export {
  /**
   * A store that could not be read or written (`McpError.McpTokenStoreError` of `@zett/mcp`). The description
   * names the operation and the system error, never a value that was stored.
   *
   * @since 1.0.0
   * @category errors
   */
  McpTokenStoreError
} from "@zett/mcp/McpError"

/**
 * A token store. The key is a server URL as `normalizeKey` gives it.
 *
 * @since 1.0.0
 * @category models
 */
export interface Service {
  readonly get: (key: string) => Effect.Effect<Option.Option<Entry>, McpTokenStoreError>
  readonly set: (key: string, entry: Entry) => Effect.Effect<void, McpTokenStoreError>
  readonly remove: (key: string) => Effect.Effect<void, McpTokenStoreError>
  readonly keys: Effect.Effect<ReadonlyArray<string>, McpTokenStoreError>
  /** Single flight for a refresh: an in-process semaphore per key for memory/file; a distributed lock elsewhere. */
  readonly withLock: <A, E, R>(
    key: string,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | McpTokenStoreError, R>
}

const memory = (): Service => {
  const entries = new Map<string, string>()
  return {
    get: (key) =>
      Effect.sync(() => Option.map(Option.fromUndefinedOr(entries.get(key)), (text) => JSON.parse(text) as Entry)),
    set: (key, entry) => Effect.sync(() => void entries.set(key, JSON.stringify(entry))),
    remove: (key) => Effect.sync(() => void entries.delete(key)),
    keys: Effect.sync(() => [...entries.keys()]),
    withLock: KeyedLock.makeUnsafe()
  }
}

/**
 * The store the factory, `McpAuthorization` and `zett auth` use. Unless one is provided (`layerFile`, a Redis
 * store), it is the process's own store in memory: tokens obtained in this process, lost when it ends.
 *
 * @since 1.0.0
 * @category tags
 */
export const McpTokenStore: Context.Reference<Service> = Context.Reference<Service>("@zett/mcp-auth/McpTokenStore", {
  defaultValue: memory
})

/**
 * The key of a server URL: scheme, host, port and path, without user info, query or fragment (a query may
 * carry a secret, and keys are listed by `zett auth status`), and without a trailing `/`.
 *
 * @since 1.0.0
 * @category utils
 */
export const normalizeKey = (url: string | URL): string => {
  const parsed = new URL(url)
  const path = parsed.pathname.length > 1 && parsed.pathname.endsWith("/")
    ? parsed.pathname.slice(0, -1)
    : parsed.pathname
  return `${parsed.protocol}//${parsed.host}${path === "/" ? "" : path}`
}

/**
 * Reads and updates one entry, as a small helper over `get` and `set`.
 *
 * @since 1.0.0
 * @category utils
 */
export const modify = (
  store: Service,
  key: string,
  f: (entry: Entry) => Entry
): Effect.Effect<void, McpTokenStoreError> =>
  Effect.flatMap(store.get(key), (entry) => store.set(key, f(Option.getOrElse(entry, () => ({})))))

/**
 * A store in memory: entries are copied in and out (as JSON), so a caller's later change to an object does
 * not reach the store.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeMemory: Effect.Effect<Service> = Effect.sync(memory)

/**
 * @since 1.0.0
 * @category layers
 */
export const layerMemory: Layer.Layer<never> = Layer.effect(McpTokenStore)(makeMemory)

// -----------------------------------------------------------------------------
// files
// -----------------------------------------------------------------------------

// A stored entry is JSON from a disk or from another writer: every field Zett or the SDK reads is typed, unknown
// ones are kept (the entry read is the parsed JSON itself, which the schema only checks: the SDK may add fields)
// within a depth that nothing overflows on.
// The discovery state is checked by the provider that reads it.
const Tokens = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  id_token: Schema.optionalKey(Schema.String),
  refresh_token: Schema.optionalKey(Schema.String),
  scope: Schema.optionalKey(Schema.String),
  expires_in: Schema.optionalKey(Schema.Number),
  expires_at: Schema.optionalKey(Schema.Number),
  issuer: Schema.optionalKey(Schema.String),
  dpop_jkt: Schema.optionalKey(Schema.String)
})
const ClientInformation = Schema.Struct({
  client_id: Schema.String,
  client_secret: Schema.optionalKey(Schema.String),
  redirect_uris: Schema.optionalKey(Schema.Array(Schema.String)),
  token_endpoint_auth_method: Schema.optionalKey(Schema.String),
  issuer: Schema.optionalKey(Schema.String)
})
const StoredCredentials = Schema.Struct({
  tokens: Schema.optionalKey(Tokens),
  clientInformation: Schema.optionalKey(ClientInformation)
})
const DiscoveryState = Schema.Record(Schema.String, Schema.Unknown)
const StoredDpopKey = Schema.Struct({
  alg: Schema.String,
  jwk: Schema.Record(Schema.String, Schema.Unknown)
})
const StoredEntry = Schema.Struct({
  credentials: Schema.optionalKey(Schema.Record(Schema.String, StoredCredentials)),
  issuer: Schema.optionalKey(Schema.String),
  codeVerifier: Schema.optionalKey(Schema.String),
  discoveryState: Schema.optionalKey(DiscoveryState),
  dpopKey: Schema.optionalKey(StoredDpopKey),
  // Zett 0.1 kept one set of credentials per server
  tokens: Schema.optionalKey(Tokens),
  clientInformation: Schema.optionalKey(ClientInformation)
})

/**
 * An entry of Zett 0.1 (one set of credentials per server) as the credentials of their issuer: the one that
 * stamped them (SDK v2 stamps both), else the authorization server of the discovery state kept with them.
 * Credentials of no known authorization server are dropped (a login gets new ones): they must not be shown to
 * whichever server asks first.
 */
const fromStored = (stored: typeof StoredEntry.Type): Entry => {
  const { clientInformation, tokens, ...rest } = stored
  // the schema checks what Zett and the SDK read; the rest of a stored client is the SDK's own
  const entry = rest as Entry
  if (tokens === undefined && clientInformation === undefined) return entry
  const state = entry.discoveryState as
    | {
      readonly authorizationServerMetadata?: { readonly issuer?: unknown }
      readonly authorizationServerUrl?: unknown
    }
    | undefined
  const discovered = state?.authorizationServerMetadata?.issuer ?? state?.authorizationServerUrl
  const issuer = tokens?.issuer ?? clientInformation?.issuer ??
    (typeof discovered === "string" ? discovered : undefined)
  if (issuer === undefined) return entry
  return updateCredentials(entry, issuer, (credentials) => ({
    ...credentials,
    ...(tokens !== undefined ? { tokens: tokens as NonNullable<Credentials["tokens"]> } : {}),
    ...(clientInformation !== undefined ? { clientInformation: clientInformation as OAuthClientInformationFull } : {})
  }))
}
const StoredFile = Schema.Struct({ key: Schema.String, entry: StoredEntry })

/** Deeper than anything Zett writes: an authorization server's answers are refused past half of it. */
const maxStoredDepth = 64

// Schema 4 strips or refuses excess properties when it decodes; the entry kept is the parsed JSON, checked
const decodeBounded = <S extends Schema.Top>(schema: S) => {
  const is = Schema.is(schema)
  return (text: string): Option.Option<S["Type"]> => {
    if (JsonDepth.deeperThan(text, maxStoredDepth)) return Option.none()
    try {
      const value: unknown = JSON.parse(text)
      return is(value) ? Option.some(value) : Option.none()
    } catch {
      return Option.none()
    }
  }
}
const decodeFile = decodeBounded(StoredFile)
const decodeStored = (text: string) =>
  Option.map(decodeFile(text), (file) => ({ key: file.key, entry: fromStored(file.entry) }))

/**
 * An entry as a store keeps it (JSON), decoded and checked: `Option.none()` for text that is not an entry or
 * nests deeper than anything Zett writes. An entry of Zett 0.1 reads as the credentials of its issuer. For stores
 * of other kinds (`@zett/mcp-redis`).
 *
 * @since 1.0.0
 * @category utils
 */
export const decodeEntry = (text: string): Option.Option<Entry> =>
  Option.map(decodeBounded(StoredEntry)(text), fromStored)

const homeDirectory: Effect.Effect<string> = Config.NonEmptyString("HOME").pipe(
  Config.orElse(() => Config.NonEmptyString("USERPROFILE")),
  Effect.orElseSucceed(() => Os.homedir())
)

const isNotFound = (error: PlatformError.PlatformError) => error.reason._tag === "NotFound"

// the system error's kind (`PermissionDenied`, ...), as the 3 line's `SystemError` reason read
const reasonOf = (error: PlatformError.PlatformError) =>
  error.reason._tag === "BadArgument" ? "" : ` (${error.reason._tag})`

/**
 * @since 1.0.0
 * @category models
 */
export interface FileOptions {
  /** The folder of the files (default `~/.zett/auth`, from `HOME`). */
  readonly directory?: string | undefined
}

/**
 * What the functions of a file store share, made once by `makeFile`: the file system and path services in context
 * and the folder of the files.
 */
interface Files {
  readonly fs: FileSystem.FileSystem
  readonly path: Path.Path
  readonly directory: string
}

const fileOf = (files: Files, key: string) =>
  files.path.join(files.directory, `${Crypto.createHash("sha256").update(key).digest("hex").slice(0, 40)}.json`)

const failure = (files: Files, key: string | undefined, what: string) => (error: PlatformError.PlatformError) =>
  new McpTokenStoreError({
    ...(key !== undefined ? { key } : {}),
    reason: "Unavailable",
    description: `cannot ${what} ${files.directory}${reasonOf(error)}`
  })

// a folder or file that others may read or write is made private before the first use, with a warning; one that
// cannot be (another user's) is not used
const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, "0")}`
const tighten = (files: Files, target: string, mode: number, wanted: number) =>
  (mode & 0o077) === 0 ? Effect.void : files.fs.chmod(target, wanted).pipe(
    Effect.mapError((error) =>
      new McpTokenStoreError({
        reason: "Insecure",
        description: `cannot make ${target} private: its mode is ${octal(mode)}, and changing it failed (${
          error.reason._tag === "BadArgument" ? error.message : error.reason._tag
        })`
      })
    ),
    Effect.andThen(
      Effect.logWarning(
        `token store: ${target} had mode ${octal(mode)}, open to other users: changed to ${octal(wanted)}`
      )
    )
  )

/** `true` once the folder and its token files are private; `false` while there is no folder, for the next look. */
const checkModes = (files: Files): Effect.Effect<boolean, McpTokenStoreError> =>
  Effect.gen(function*() {
    const { directory, fs, path } = files
    // a folder not there yet is made 0700 by the first write; one that cannot be looked at fails the operation
    const info = yield* Effect.option(fs.stat(directory))
    if (Option.isNone(info)) return false
    yield* tighten(files, directory, info.value.mode, 0o700)
    for (const name of yield* fs.readDirectory(directory)) {
      if (!name.endsWith(".json")) continue
      const file = path.join(directory, name)
      const mode = yield* fs.stat(file).pipe(
        Effect.map((info) => info.mode),
        Effect.catchIf(isNotFound, () => Effect.succeed(0))
      )
      yield* tighten(files, file, mode, 0o600)
    }
    return true
  }).pipe(Effect.catchTag("PlatformError", failure(files, undefined, "check the mode of")))

/** What every operation of a store runs first: `checkModes`, one at a time, until the folder is private. */
const modeCheck = (files: Files): Effect.Effect<Effect.Effect<void, McpTokenStoreError>> =>
  Effect.map(Semaphore.make(1), (guard) => {
    let isPrivate = false
    const check = guard.withPermit(Effect.suspend(() => {
      if (isPrivate) return Effect.void
      return Effect.map(checkModes(files), (checked) => {
        if (checked) isPrivate = true
      })
    }))
    return Effect.suspend(() => (isPrivate ? Effect.void : check))
  })

const readFile = (files: Files, file: string) =>
  files.fs.readFileString(file).pipe(
    Effect.map(Option.some),
    Effect.catchIf(isNotFound, () => Effect.succeedNone)
  )

const read = (files: Files, file: string) =>
  Effect.flatMap(
    readFile(files, file),
    (text): Effect.Effect<Option.Option<{ readonly key: string; readonly entry: Entry }>> => {
      if (Option.isNone(text)) return Effect.succeedNone
      const decoded = decodeStored(text.value)
      return Option.isSome(decoded)
        ? Effect.succeed(decoded)
        : Effect.as(Effect.logWarning(`token store: ignoring ${file}: not a valid token file`), Option.none())
    }
  )

const get = (files: Files, key: string) =>
  read(files, fileOf(files, key)).pipe(
    Effect.map(Option.filter((stored) => stored.key === key)),
    Effect.map(Option.map((stored) => stored.entry)),
    Effect.mapError(failure(files, key, "read in"))
  )

const set = (files: Files, key: string, entry: Entry) =>
  Effect.gen(function*() {
    const { directory, fs } = files
    yield* fs.makeDirectory(directory, { recursive: true, mode: 0o700 })
    const file = fileOf(files, key)
    const temporary = `${file}.${Crypto.randomBytes(6).toString("hex")}.tmp`
    yield* fs.writeFileString(temporary, JSON.stringify({ key, entry }), { mode: 0o600 })
    // the mode of `writeFile` applies only to a new file, and a umask may narrow it: set it outright
    yield* fs.chmod(temporary, 0o600)
    yield* fs.rename(temporary, file).pipe(Effect.tapError(() => Effect.ignore(fs.remove(temporary))))
  }).pipe(Effect.mapError(failure(files, key, "write in")))

const remove = (files: Files, key: string) =>
  files.fs.remove(fileOf(files, key)).pipe(
    Effect.catchIf(isNotFound, () => Effect.void),
    Effect.mapError(failure(files, key, "remove from"))
  )

const keys = (files: Files) =>
  Effect.gen(function*() {
    const names = yield* files.fs.readDirectory(files.directory).pipe(
      Effect.catchIf(isNotFound, () => Effect.succeed([]))
    )
    const out: Array<string> = []
    for (const name of names.filter((name) => name.endsWith(".json")).sort()) {
      const stored = yield* read(files, files.path.join(files.directory, name))
      if (Option.isSome(stored)) out.push(stored.value.key)
    }
    return out
  }).pipe(Effect.mapError(failure(files, undefined, "list")))

/**
 * A store of one file per server URL under `directory`: the file name is a hash of the key, the content
 * `{ key, entry }` as JSON, mode 0600 in a folder of mode 0700. A write goes to a temporary file that is then
 * renamed over the old one, so a reader never sees half a file. A file that cannot be decoded (or nests deeper
 * than anything Zett writes) is treated as absent, with a warning. An existing folder or token file that other
 * users may read or write is made private (0700, 0600) on first use, with a warning naming the mode it had;
 * when that fails (the folder is another user's), every operation fails with `McpTokenStoreError`. The lock is
 * per process.
 *
 * @since 1.0.0
 * @category constructors
 */
export const makeFile = Effect.fnUntraced(function*(options?: FileOptions) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const files: Files = {
    fs,
    path,
    directory: options?.directory ?? path.join(yield* homeDirectory, ".zett", "auth")
  }
  const lock = yield* KeyedLock.make
  const makePrivate = yield* modeCheck(files)
  return identity<Service>({
    get: (key) => Effect.andThen(makePrivate, get(files, key)),
    set: (key, entry) => Effect.andThen(makePrivate, set(files, key, entry)),
    remove: (key) => Effect.andThen(makePrivate, remove(files, key)),
    keys: Effect.andThen(makePrivate, keys(files)),
    withLock: lock
  })
})

/**
 * @since 1.0.0
 * @category layers
 */
export const layerFile = (
  options?: FileOptions
): Layer.Layer<never, never, FileSystem.FileSystem | Path.Path> => Layer.effect(McpTokenStore)(makeFile(options))
