/**
 * Where the MCP servers come from: an explicit list, a configuration file (`mcp.json`, by default `~/.zett/mcp.json`),
 * or both. The file is checked again at the start of every request and re-read only when it changed, so an unchanged
 * file costs a stat per request; a file that turns invalid while running keeps the last valid list, so one bad edit
 * does not take every server away.
 *
 * @since 1.0.0
 */
import { McpConfigError } from "@zett/mcp/McpError"
import type { McpServerConfig } from "@zett/mcp/McpServerConfig"
import * as McpServers from "@zett/mcp/McpServers"
import type { Skipped, Snapshot } from "@zett/mcp/McpServers"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import * as Internal from "./internal/config.js"

/**
 * The options of `@zett/mcp` that concern configuration, with their defaults.
 *
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** Servers given in code. With `servers` and no `configPath`, no file is looked up. */
  readonly servers?: ReadonlyArray<McpServerConfig> | undefined
  /** A configuration file; relative paths resolve against the working directory. */
  readonly configPath?: string | undefined
  /**
   * The accepted root keys of the file (default `defaultServerKeys`: `servers`, `mcpServers`, `context_servers`);
   * a file uses exactly one, since two would leave it unclear which list is meant.
   */
  readonly serverKeys?: ReadonlyArray<string> | undefined
  /** One invalid entry makes the whole file invalid (default `true`); when false it is logged and skipped. */
  readonly strictConfig?: boolean | undefined
  /**
   * What `${workspaceFolder}` stands for. By default: the folder above `.vscode/` or `.cursor/` for a file in one
   * of them, otherwise the file's own folder.
   */
  readonly workspaceFolder?: string | undefined
}

/**
 * The root keys accepted by default: `servers` (VS Code), `mcpServers` (Claude Desktop and Code, Cursor,
 * Windsurf, Cline, Gemini CLI) and `context_servers` (Zed).
 *
 * @since 1.0.0
 * @category constants
 */
export const defaultServerKeys: ReadonlyArray<string> = ["servers", "mcpServers", "context_servers"]

/**
 * The home directory: `HOME` (or `USERPROFILE`) from the `ConfigProvider`, so tests can point it at a temporary
 * directory, falling back to the operating system's answer.
 *
 * @since 1.0.0
 * @category constructors
 */
export const homeDirectory: Effect.Effect<string> = Internal.homeDirectory

/**
 * The file used when neither `servers` nor `configPath` is given: `~/.zett/mcp.json`, loaded only if it exists.
 *
 * @since 1.0.0
 * @category constructors
 */
export const defaultPath: Effect.Effect<string, never, Path.Path> = Effect.gen(function*() {
  const path = yield* Path.Path
  return path.join(yield* homeDirectory, ".zett", "mcp.json")
})

// What identifies one version of the file without reading it, so an unchanged file is not read again.
type Signature =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Present"; readonly mtime: number | undefined; readonly size: bigint }

const sameSignature = (a: Signature, b: Signature): boolean =>
  a._tag === b._tag &&
  (a._tag === "Missing" ||
    // the tags are equal here; this check only narrows b's type
    (b._tag === "Present" && a.mtime !== undefined && a.mtime === b.mtime && a.size === b.size))

interface FileLoad {
  readonly servers: ReadonlyArray<Internal.FileEntry>
  readonly skipped: ReadonlyArray<Skipped>
}

const emptyLoad: FileLoad = { servers: [], skipped: [] }

const unreadable = (path: string, error: PlatformError.PlatformError) =>
  new McpConfigError({
    path,
    reason: "Unreadable",
    description: error.reason._tag === "BadArgument"
      ? "cannot read the file"
      : `cannot read the file (${error.reason._tag})`
  })

const statFile = (fs: FileSystem.FileSystem, path: string): Effect.Effect<Signature, McpConfigError> =>
  fs.stat(path).pipe(
    Effect.flatMap((info): Effect.Effect<Signature, McpConfigError> =>
      info.type === "Directory"
        ? Effect.fail(
          new McpConfigError({ path, reason: "Unreadable", description: "is a directory, expected a JSON file" })
        )
        : Effect.succeed({
          _tag: "Present",
          mtime: Option.getOrUndefined(Option.map(info.mtime, (date) => date.getTime())),
          size: info.size
        })
    ),
    Effect.catchTag("PlatformError", (error) =>
      error.reason._tag === "NotFound"
        ? Effect.succeed<Signature>({ _tag: "Missing" })
        : Effect.fail(unreadable(path, error)))
  )

interface Settings {
  readonly serverKeys: ReadonlyArray<string>
  readonly strict: boolean
  readonly workspaceFolder: string | undefined
}

const readFile = (
  fs: FileSystem.FileSystem,
  path: string,
  settings: Settings
): Effect.Effect<FileLoad, McpConfigError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const text = yield* fs.readFileString(path).pipe(
      Effect.catchTag("PlatformError", (error) =>
        // Deleted between the stat and the read: the same as a missing file.
        error.reason._tag === "NotFound"
          ? Effect.succeed(undefined)
          : Effect.fail(unreadable(path, error)))
    )
    if (text === undefined) return emptyLoad
    const decoded = yield* Internal.decode(text, {
      path,
      serverKeys: settings.serverKeys,
      workspaceFolder: settings.workspaceFolder
    })
    if (decoded._tag === "Error") {
      return yield* new McpConfigError({
        path,
        ...(decoded.issue.entry !== undefined ? { entry: decoded.issue.entry } : {}),
        reason: "Malformed",
        description: decoded.issue.reason
      })
    }
    const { disabled, invalid, servers } = decoded.file
    if (disabled.length > 0) {
      yield* Effect.logDebug(`${path}: disabled entries left out: ${disabled.join(", ")}`)
    }
    if (settings.strict && invalid.length > 0) {
      const first = invalid[0]!
      const more = invalid.length - 1
      return yield* new McpConfigError({
        path,
        entry: first.entry,
        reason: first.kind,
        description: more === 0
          ? first.reason
          : `${first.reason} (and ${more} more invalid ${more === 1 ? "entry" : "entries"})`
      })
    }
    const skipped = invalid.map(({ entry, reason, server }): Skipped => ({ entry, server, reason }))
    for (const { entry, reason } of skipped) yield* Effect.logWarning(`${path}: ${entry}: ${reason} (entry skipped)`)
    return { servers, skipped }
  }).pipe(Effect.annotateLogs("mcp.config.path", path))

/**
 * Merges the file's servers (first) with the explicit ones and rejects a name given in both, since a name must identify
 * one server: in strict mode the file is invalid, in lenient mode the file's entry is skipped.
 */
const merge = (
  path: string,
  file: FileLoad,
  explicit: ReadonlyArray<McpServerConfig>,
  strict: boolean
): Effect.Effect<Snapshot, McpConfigError> =>
  Effect.gen(function*() {
    const explicitNames = new Set(explicit.map((server) => server.name))
    const servers: Array<McpServerConfig> = []
    const skipped: Array<Skipped> = [...file.skipped]
    for (const { entry, server } of file.servers) {
      if (!explicitNames.has(server.name)) {
        servers.push(server)
        continue
      }
      const reason = "duplicate server name: also given in the servers option"
      if (strict) return yield* new McpConfigError({ path, entry, reason: "DuplicateName", description: reason })
      yield* Effect.logWarning(`${path}: ${entry}: ${reason} (entry skipped)`)
      skipped.push({ entry, server: server.name, reason })
    }
    return { path, servers: yield* McpServers.distinctPrefixes(path, [...servers, ...explicit]), skipped }
  })

const load = (
  fs: FileSystem.FileSystem,
  path: string,
  signature: Signature,
  settings: Settings,
  explicit: ReadonlyArray<McpServerConfig>
): Effect.Effect<Snapshot, McpConfigError, FileSystem.FileSystem | Path.Path> =>
  (signature._tag === "Missing" ? Effect.succeed(emptyLoad) : readFile(fs, path, settings))
    .pipe(Effect.flatMap((file) => merge(path, file, explicit, settings.strict)))

/**
 * Loads one configuration file on its own, e.g. for tools and tests. A missing file gives no servers.
 *
 * @since 1.0.0
 * @category constructors
 */
export const fromFile = (
  path: string,
  options?: {
    readonly strict?: boolean | undefined
    readonly serverKeys?: ReadonlyArray<string> | undefined
    readonly workspaceFolder?: string | undefined
  }
): Effect.Effect<Snapshot, McpConfigError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const absolute = (yield* Path.Path).resolve(path)
    const signature = yield* statFile(fs, absolute)
    return yield* load(fs, absolute, signature, {
      serverKeys: options?.serverKeys ?? defaultServerKeys,
      strict: options?.strict ?? true,
      workspaceFolder: options?.workspaceFolder
    }, [])
  }).pipe(Effect.withSpan("McpConfiguration.fromFile"))

/**
 * Merges the snapshots of several files in order: a later file wins on a server name, with a warning, and
 * names that map to one tool prefix are told apart. The result names the files in `path`, comma-separated.
 *
 * @since 1.0.0
 * @category constructors
 */
export const combine = (snapshots: ReadonlyArray<Snapshot>): Effect.Effect<Snapshot> =>
  Effect.gen(function*() {
    const byName = new Map<string, { readonly server: McpServerConfig; readonly path: string | undefined }>()
    for (const snapshot of snapshots) {
      for (const server of snapshot.servers) {
        const earlier = byName.get(server.name)
        if (earlier !== undefined) {
          yield* Effect.logWarning(
            `${snapshot.path ?? "servers option"}: the server ${JSON.stringify(server.name)} is also configured in ` +
              `${earlier.path ?? "the servers option"}; the later entry is used`
          )
          byName.delete(server.name)
        }
        byName.set(server.name, { server, path: snapshot.path })
      }
    }
    const paths = snapshots.flatMap((snapshot) => (snapshot.path === undefined ? [] : [snapshot.path]))
    const path = paths.length === 0 ? undefined : paths.join(", ")
    return {
      path,
      servers: yield* McpServers.distinctPrefixes(
        path ?? "servers option",
        Array.from(byName.values(), (entry) => entry.server)
      ),
      skipped: snapshots.flatMap((snapshot) => snapshot.skipped)
    }
  })

/**
 * Builds the service. Fails with `McpConfigError` when the file (or the explicit list) is malformed, so a bad
 * configuration shows when the layer is built, not in a request.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: Options = {}) {
  const fs = yield* FileSystem.FileSystem
  const pathService = yield* Path.Path
  const explicit = options.servers ?? []
  yield* McpServers.checkNames(explicit)
  const settings: Settings = {
    serverKeys: options.serverKeys ?? defaultServerKeys,
    strict: options.strictConfig ?? true,
    workspaceFolder: options.workspaceFolder
  }
  // the file is re-read (and its variables expanded again) with the services the configuration was built with
  const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
  const path = options.configPath !== undefined
    ? pathService.resolve(options.configPath)
    : options.servers !== undefined
    ? undefined
    : yield* defaultPath

  if (path === undefined) {
    const servers = yield* McpServers.distinctPrefixes("servers option", explicit)
    const snapshot: Snapshot = { path, servers, skipped: [] }
    return McpServers.McpServers.of({ path, servers, skipped: [], current: Effect.succeed(snapshot) })
  }

  let signature = yield* statFile(fs, path)
  // A file the caller named that is not there is most often a wrong path: one line says so instead of an
  // empty list in silence. The default file is not named by anyone, and having none is the usual case.
  if (signature._tag === "Missing" && options.configPath !== undefined) {
    yield* Effect.logInfo(`${path}: no such configuration file; no servers from it until it exists`).pipe(
      Effect.annotateLogs("mcp.config.path", path)
    )
  }
  let snapshot = yield* load(fs, path, signature, settings, explicit)

  const refresh = Effect.gen(function*() {
    const next = yield* statFile(fs, path)
    if (sameSignature(signature, next)) return snapshot
    const loaded = yield* Effect.result(Effect.provideContext(load(fs, path, next, settings, explicit), context))
    // Taken before the read, so an edit made during the read changes it again and is picked up next time;
    // stored only once the read is over (an interrupted read is retried); stored for an invalid version too,
    // so that it is reported once rather than on every request.
    signature = next
    if (Result.isFailure(loaded)) return yield* Effect.fail(loaded.failure)
    // a file missing before too has the same signature: it was there
    if (next._tag === "Missing") {
      yield* Effect.logInfo(`${path}: configuration file removed; using no servers from it`)
    }
    snapshot = loaded.success
    return snapshot
  }).pipe(
    Effect.catch((error) =>
      Effect.as(Effect.logWarning(`${error.message}; keeping the last valid configuration`), snapshot)
    ),
    // `current` never fails (it runs at the start of every request): even a bug here keeps the last list.
    Effect.catchDefect((defect) =>
      Effect.as(
        Effect.logWarning(`${path}: cannot check the configuration; keeping the last valid configuration`, defect),
        snapshot
      )
    ),
    Effect.annotateLogs("mcp.config.path", path)
  )

  // One check at a time, so that concurrent requests do not read the same edit twice.
  const semaphore = yield* Semaphore.make(1)
  const current = semaphore.withPermits(1)(refresh).pipe(
    Effect.withSpan("McpConfiguration.current", { attributes: { "mcp.config.path": path } })
  )

  return McpServers.McpServers.of({
    path,
    get servers() {
      return snapshot.servers
    },
    get skipped() {
      return snapshot.skipped
    },
    current
  })
})

/**
 * The servers of the configuration (`McpServers`), reading files through `FileSystem` and `Path` (provide
 * `NodeServices.layer` of `@effect/platform-node`).
 *
 * @since 1.0.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<McpServers.McpServers, McpConfigError, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(McpServers.McpServers, make(options))
