/**
 * What the tests of this package share, on Effect 4: one configuration file in memory (a `FileSystem` whose every
 * file has `text`), log lines as text (logfmt) or as level, message and annotations, a `ConfigProvider` over a
 * record, a temporary folder for a scope.
 */
import * as ByteSize from "effect/ByteSize"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import type * as PlatformError from "effect/PlatformError"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"

/** A file's (or folder's) `stat`, with what a test sets and nothing else. */
export const fileInfo = (options: {
  readonly size: number
  readonly type?: FileSystem.File.Type | undefined
  readonly mtime?: Option.Option<Date> | undefined
}): FileSystem.File.Info => ({
  type: options.type ?? "File",
  mtime: options.mtime ?? Option.some(new Date(1_700_000_000_000)),
  atime: Option.none(),
  birthtime: Option.none(),
  dev: 0n,
  ino: Option.none(),
  mode: 0o644,
  nlink: Option.none(),
  uid: Option.none(),
  gid: Option.none(),
  rdev: Option.none(),
  size: ByteSize.bytes(options.size),
  blksize: Option.none(),
  blocks: Option.none()
})

/** Log lines as logfmt text, written into `lines`, at `minimum` and above. */
export const logfmtLayer = (lines: Array<string>, minimum: LogLevel.LogLevel = "Info"): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.layer([Logger.map(Logger.formatLogFmt, (line) => void lines.push(line))]),
    Layer.succeed(References.MinimumLogLevel, minimum)
  )

/**
 * One configuration file in memory: the layer, and the log lines written while it is in use (debug included).
 * `read` answers reads (every path gets `text` by default), for a test of other files (an `envFile`) or of a
 * failing read.
 */
export const virtualFile = (
  text: string,
  read: (path: string) => Effect.Effect<string, PlatformError.PlatformError> = () => Effect.succeed(text)
): { readonly layer: Layer.Layer<FileSystem.FileSystem | Path.Path>; readonly lines: Array<string> } => {
  const lines: Array<string> = []
  const layer = Layer.mergeAll(
    FileSystem.layerNoop({
      stat: () => Effect.succeed(fileInfo({ size: text.length })),
      readFileString: read
    }),
    Path.layer,
    logfmtLayer(lines, "Debug")
  )
  return { layer, lines }
}

/** A log line as a test reads it: its level (`WARN`, `INFO`, ...), its text and its annotations. */
export interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

/** The log lines, at `minimum` and above. */
export const captureLogs = (minimum: LogLevel.LogLevel = "Info") => {
  const lines: Array<LogLine> = []
  const logger = Logger.make(({ fiber, logLevel, message }) => {
    lines.push({
      level: logLevel.toUpperCase(),
      message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    })
  })
  return {
    lines,
    layer: Layer.mergeAll(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel, minimum))
  }
}

/** Variables for `${VAR}`: a `ConfigProvider` over `env` (empty values kept, as a shell has them). */
export const withEnv = (env: Readonly<Record<string, string>>) =>
  Effect.provideService(
    ConfigProvider.ConfigProvider,
    ConfigProvider.fromEnv({ env: { ...env }, preserveEmptyStrings: true })
  )

/** A new folder under the system's temporary folder (its real path), removed with the scope. */
export const tempDir = (prefix: string = "zett-"): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => Fs.realpathSync(Fs.mkdtempSync(NodePath.join(Os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

/** A tracer that keeps every span it makes (the built-in tracer's spans, so their attributes are recorded). */
export const recordingTracer: Effect.Effect<{ readonly spans: Array<Tracer.Span>; readonly tracer: Tracer.Tracer }> =
  Effect.sync(() => {
    const spans: Array<Tracer.Span> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = Tracer.nativeTracer.span(options)
        spans.push(span)
        return span
      }
    })
    return { spans, tracer }
  })
