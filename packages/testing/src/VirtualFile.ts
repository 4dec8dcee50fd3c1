/**
 * One configuration file in memory: a `FileSystem` whose every file has `text`, and a `Path`, with every log
 * line kept. For property tests that load thousands of files without touching the disk.
 */
import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"

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
  dev: 0,
  ino: Option.none(),
  mode: 0o644,
  nlink: Option.none(),
  uid: Option.none(),
  gid: Option.none(),
  rdev: Option.none(),
  size: FileSystem.Size(options.size),
  blksize: Option.none(),
  blocks: Option.none()
})

const info = (size: number): FileSystem.File.Info => fileInfo({ size })

/**
 * The layer, and the log lines written while it is in use. `read` answers reads (every path gets `text` by
 * default), for a test of other files (an `envFile`) or of a failing read.
 */
export const make = (
  text: string,
  read: (path: string) => Effect.Effect<string, PlatformError> = () => Effect.succeed(text)
): { readonly layer: Layer.Layer<FileSystem.FileSystem | Path.Path>; readonly lines: Array<string> } => {
  const lines: Array<string> = []
  const layer = Layer.mergeAll(
    FileSystem.layerNoop({
      stat: () => Effect.succeed(info(text.length)),
      readFileString: read
    }),
    Path.layer,
    Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void lines.push(line)))
  )
  return { layer, lines }
}
