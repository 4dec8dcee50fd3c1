/**
 * The stdio transport: an SDK `Transport` over a server process, with what the SDK's own `StdioClientTransport`
 * does not have:
 *
 * - the server runs detached, in a process group of its own (so wrappers such as `npx` or `uvx` cannot leave
 *   their grandchildren behind), and the group is what is signalled, or the tree with `taskkill /T` on Windows;
 * - the close ladder: end of input, then SIGTERM to the group, then SIGKILL, each step after a grace period;
 * - a line reader that bounds each message (`maxMessageBytes`): an oversized line is dropped, not the connection;
 * - stderr as lines of at most 8 KiB, for the logger;
 * - the group registered with `ProcessGroups` while it runs, so that a host that exits without closing its
 *   scopes (`process.exit()`, a fatal signal) takes its servers along.
 *
 * The process is spawned with `node:child_process`, as `@effect/platform-node`'s `CommandExecutor` does it
 * (detached on POSIX, exactly the given environment, the working directory checked first), and its pipes are
 * Node's own streams: a message is one `stdin.write` and one `'data'` event, as in the SDK's transport. Through
 * the executor's `Stream`/`Sink` (a mailbox, a channel executor per chunk) an SDK client's warm call cost about
 * twice the CPU of the same call over the SDK's transport and allocated more; over these streams it costs what the
 * SDK's does (figures: docs/benchmarks.md, "Measurements behind choices in the code"). The lifetime is
 * still the connection's `Scope` (`acquireRelease`, and the ladder as its finalizer).
 *
 * @internal
 */
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/client"
import type { JSONRPCMessage, MessageExtraInfo, Transport } from "@modelcontextprotocol/client"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as PlatformError from "effect/PlatformError"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import { finished } from "node:stream"
import type { Readable } from "node:stream"
import type * as ProcessGroups from "../ProcessGroups.js"

/** @internal */
export interface Options {
  /** the server's name, for the close ladder's log lines */
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** the complete environment of the child: nothing of this process's own is added */
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string | undefined
  /** how long each step of the close ladder waits: after the end of input, and after SIGTERM */
  readonly closeTimeout: Duration.Duration
  /** The longest message (one line of stdout) accepted, in bytes; a longer one is dropped. */
  readonly maxMessageBytes: number
  /** Called when a message over `maxMessageBytes` was dropped (its id is unknown: it was never read). */
  readonly onOversized: () => void
  /**
   * Each line the server writes to stderr. A line longer than 8 KiB is cut there (`truncated`), and the rest
   * of it is dropped: what reaches a log is bounded, and a secret that spans the cut is never split between
   * two pieces that the scrubber would see apart.
   */
  readonly onStderrLine: (line: string, truncated: boolean) => Effect.Effect<void>
  /** where the server's group is registered while any member of it runs */
  readonly processGroups: ProcessGroups.ProcessGroups["Service"]
}

/** @internal */
export interface StdioTransport extends Transport {
  /** the process id of the server, which is also its process group id */
  readonly pid: number
  /** how the server process ended (`exited with code 3`, `was killed by SIGKILL`), once it has */
  readonly exitStatus: string | undefined
  /**
   * The lines of stderr that say why the server ended, once read to its end: the first that reads as an error
   * (`Error: Cannot find module …`, `ModuleNotFoundError: …`), else the last few (at most `STDERR_TAIL`), each as
   * `onStderrLine` got it. A stack's frames and a runtime's banner after the error say less than the error.
   */
  readonly stderrReason: Effect.Effect<ReadonlyArray<{ readonly line: string; readonly truncated: boolean }>>
  /** The close ladder; also what `close()` runs. Runs once, however often it is asked for. */
  readonly shutdown: Effect.Effect<void>
}

const POLL = "20 millis"
// SIGKILL cannot be ignored, but its delivery takes a moment: this bounds only a process stuck in the kernel,
// and the wait for the last output of the pipes
const REAP = "1 second"
const MAX_STDERR_LINE = 8_192
// what a failed start says of the server's own words when none reads as an error: its last lines
const STDERR_TAIL = 3
// `Error: …`, `TypeError [ERR_X]: …`, `ModuleNotFoundError: …`, `error: …`: a line that says what went wrong
const ERROR_LINE = /^\s*(?:Uncaught\s+)?[\w.$]*(?:error|exception)(?:\s*\[[\w-]+\])?:\s*\S/i

/** A started child: its pipes, and its exit (`code`, or the `signal` that ended it) once it has happened. */
interface Child {
  readonly handle: ChildProcess.ChildProcessWithoutNullStreams
  readonly pid: number
  readonly exited: Deferred.Deferred<void>
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
}

/**
 * stderr, read from the start (a server blocked on a full stderr pipe would never answer). Its lines go to the
 * logger in order, one after the other; a logger that fails does not stop the reading. `done` when the pipe has
 * ended and its lines are logged; `reason`: its first line that reads as an error, else its last lines.
 */
const readStderr = (
  stderr: Readable,
  options: Options,
  runPromise: (effect: Effect.Effect<void>) => Promise<void>
) => {
  let logged = Promise.resolve()
  const tail: Array<{ readonly line: string; readonly truncated: boolean }> = []
  let error: { readonly line: string; readonly truncated: boolean } | undefined
  const log = (line: string, truncated: boolean) => {
    if (line.trim() !== "") {
      tail.push({ line, truncated })
      if (tail.length > STDERR_TAIL) tail.shift()
      if (error === undefined && ERROR_LINE.test(line)) error = { line, truncated }
    }
    const effect = Effect.catchCause(options.onStderrLine(line, truncated), () => Effect.void)
    logged = logged.then(() => runPromise(effect)).catch(() => {})
  }
  const lines = new StderrLines(log)
  stderr.setEncoding("utf8")
  stderr.on("data", (text: string) => lines.push(text))
  const done = new Promise<void>((resolve) =>
    finished(stderr, () => {
      lines.end()
      resolve(logged)
    })
  )
  return { done, reason: () => error === undefined ? tail : [error] }
}

/**
 * Starts the server in the current scope. Closing the scope runs the close ladder; `close()` from the SDK runs
 * the same one.
 *
 * Longer than 80 lines on purpose: it is one transport over one process, whose state (the pipes, the SDK's
 * handlers, whether it started, is closing or has closed) its parts share, as the SDK's own `StdioClientTransport`
 * is one class; stderr (`readStderr`) and the spawn are apart.
 *
 * @internal
 */
export const make = (options: Options): Effect.Effect<StdioTransport, PlatformError.PlatformError, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const runPromise = Effect.runPromiseWith(context)
    const child = yield* Effect.acquireRelease(spawn(options), release)
    const { handle, pid } = child
    const { stderr, stdin, stdout } = handle
    const unregister = yield* options.processGroups.register(pid)

    let onclose: (() => void) | undefined
    let onerror: ((error: Error) => void) | undefined
    let onmessage: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined
    let started = false
    let reading = false
    let closing = false
    let closeFired = false
    let stdoutEnded = false
    const fireClose = () => {
      closing = true
      if (closeFired) return
      closeFired = true
      onclose?.()
    }
    const reportError = (error: unknown) => onerror?.(error instanceof Error ? error : new Error(String(error)))

    // A write to a dead pipe fails here, never as an unhandled `error` event (which would end the host).
    stdin.on("error", reportError)
    stdout.on("error", reportError)

    const lines = new LineReader(options.maxMessageBytes, options.onOversized, (line) => {
      // as in the SDK's transport, a bad line or a throwing handler is reported, and reading goes on
      try {
        onmessage?.(deserializeMessage(line))
      } catch (error) {
        reportError(error)
      }
    })
    // Reading starts with `start()`: the SDK sets its handlers first. Until then stdout is paused.
    const startReading = () => {
      if (reading) return
      reading = true
      stdout.on("data", (chunk: Buffer) => lines.push(chunk))
    }

    const stderrRead = readStderr(stderr, options, runPromise)

    // The connection is closed for the SDK once the server has exited and all of its output is read (Node's
    // `close` event, which the SDK's own transport uses).
    const maybeFireClose = () => {
      if (child.exit !== undefined && stdoutEnded) fireClose()
    }
    const stdoutDone = new Promise<void>((resolve) =>
      finished(stdout, () => {
        stdoutEnded = true
        maybeFireClose()
        resolve()
      })
    )
    const stderrDone = stderrRead.done
    const stdinDone = new Promise<void>((resolve) => finished(stdin, () => resolve()))
    const onExit = () => {
      // a pgid stays reserved while any member runs; once none does, the exit hooks must forget it
      if (!groupAlive(pid)) Effect.runSync(unregister)
      maybeFireClose()
    }
    // the server may have exited already, between its `spawn` event and now
    if (child.exit !== undefined) onExit()
    else handle.once("exit", onExit)

    const groupGone = Deferred.await(child.exited).pipe(
      Effect.andThen(Effect.repeat(Effect.sync(() => groupAlive(pid)), {
        while: (alive) => alive,
        schedule: Schedule.spaced(POLL)
      }))
    )
    const within = (self: Effect.Effect<unknown>, duration: Duration.Input) =>
      Effect.map(Effect.timeoutOption(self, duration), (done) => done._tag === "Some")
    const signal = (sig: NodeJS.Signals) => Effect.andThen(killGroup(child, sig), groupGone)
    const ladder = Effect.gen(function*() {
      closing = true
      // output that nobody asked for yet (a connect cut short before `start()`) is still drained
      startReading()
      if (!stdin.destroyed && !stdin.writableEnded) stdin.end()
      if (!(yield* within(groupGone, options.closeTimeout))) {
        yield* Effect.logDebug("the server process did not exit after the end of its input: SIGTERM")
        if (!(yield* within(signal("SIGTERM"), options.closeTimeout))) {
          yield* Effect.logDebug("the server process did not exit after SIGTERM: SIGKILL")
          yield* within(signal("SIGKILL"), REAP)
        }
      }
      // What the server wrote before it ended still reaches its reader (and the logger); a write still pending
      // on the dead pipe fails into stdin's `error` listener.
      yield* within(Effect.promise(() => Promise.all([stdoutDone, stderrDone, stdinDone])), REAP)
      yield* unregister
      fireClose()
    }).pipe(
      // a process lives in wall-clock time: a TestClock in the caller must not hold it open
      Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()),
      Effect.annotateLogs({ "mcp.server": options.name, "mcp.pid": pid })
    )
    // The ladder runs in a fiber of its own, started by its first caller and joined by every caller. It is mostly
    // run as the finalizer of an interrupted request, and an interrupted fiber signals its children even while it
    // is uninterruptible: a step timed in a child of that fiber ended at once with the interruption, so the close
    // returned with the server still running, and every later `close()` (the SDK does not await it) rejected.
    let closer: Fiber.Fiber<void> | undefined
    const shutdown = Effect.suspend(() => Fiber.join(closer ??= Effect.runForkWith(context)(ladder)))
    yield* Effect.addFinalizer(() => shutdown)

    const transport: StdioTransport = {
      pid,
      // the end of stderr comes with the process's exit; a member of its group that keeps the pipe is not waited for
      stderrReason: Effect.map(
        Effect.timeout(Effect.promise(() => stderrDone), "100 millis").pipe(Effect.ignore),
        stderrRead.reason
      ),
      get exitStatus() {
        const exit = child.exit
        if (exit === undefined) return undefined
        return exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal ?? "a signal"}`
      },
      shutdown,
      get onclose() {
        return onclose
      },
      set onclose(f) {
        onclose = f
      },
      get onerror() {
        return onerror
      },
      set onerror(f) {
        onerror = f
      },
      get onmessage() {
        return onmessage
      },
      set onmessage(f) {
        onmessage = f as typeof onmessage
      },
      start: () => {
        if (started) return Promise.reject(new Error("StdioTransport already started"))
        started = true
        startReading()
        return Promise.resolve()
      },
      send: (message) => {
        // a pipe the server closed is no connection either: waiting for its `drain` would never end
        if (closing || stdin.destroyed || stdin.writableEnded) return Promise.reject(new Error("Not connected"))
        if (stdin.write(serializeMessage(message))) return Promise.resolve()
        // backpressure, as in the SDK's transport; a pipe that closes meanwhile ends the wait too
        return new Promise((resolve) => {
          const done = () => {
            stdin.off("drain", done)
            stdin.off("close", done)
            resolve()
          }
          stdin.on("drain", done)
          stdin.on("close", done)
        })
      },
      close: () => runPromise(shutdown)
    }
    return transport
  })

/**
 * Spawns the server, never through a shell, with exactly `options.env`, detached on POSIX so that it leads a
 * process group of its own. A missing working directory is reported as such (`spawn` would blame the command).
 */
const spawn = (options: Options): Effect.Effect<Child, PlatformError.PlatformError> =>
  Effect.andThen(
    options.cwd === undefined ? Effect.void : access(options.cwd),
    Effect.flatMap(Deferred.make<void>(), (exited) =>
      Effect.callback<Child, PlatformError.PlatformError>((resume) => {
        let handle: ChildProcess.ChildProcessWithoutNullStreams
        try {
          handle = ChildProcess.spawn(options.command, options.args, {
            stdio: ["pipe", "pipe", "pipe"],
            cwd: options.cwd,
            env: options.env,
            detached: process.platform !== "win32"
          })
        } catch (error) {
          resume(Effect.fail(systemError("Command", "spawn", options.command, error)))
          return
        }
        let spawned = false
        let exit: Child["exit"]
        // these stay: a later `error` (a failed kill, a broken pipe before `make` listens) must not be unhandled
        const ignore = () => {}
        handle.stdin.on("error", ignore)
        handle.stdout.on("error", ignore)
        handle.stderr.on("error", ignore)
        handle.on("error", (error) => {
          if (!spawned) resume(Effect.fail(systemError("Command", "spawn", options.command, error)))
        })
        handle.once("exit", (code, signal) => {
          exit = { code, signal }
          Deferred.doneUnsafe(exited, Effect.void)
        })
        handle.once("spawn", () => {
          spawned = true
          resume(Effect.succeed({
            handle,
            pid: handle.pid!,
            exited,
            get exit() {
              return exit
            }
          }))
        })
        return Effect.sync(() => {
          handle.kill("SIGTERM")
        })
      }))
  )

/** The executor's release, after the ladder has run: a leader still running, or a failed one's group, is ended. */
const release = (child: Child): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (child.exit === undefined) {
      return killGroup(child, "SIGTERM").pipe(
        Effect.andThen(Effect.timeout(Deferred.await(child.exited), REAP)),
        Effect.ignore
      )
    }
    return child.exit.code !== 0 && child.exit.code !== null ? killGroup(child, "SIGTERM") : Effect.void
  })

/** Signals the group (the tree on Windows); the leader alone if the group cannot be. Errors are of no use here. */
const killGroup = (child: Child, sig: NodeJS.Signals): Effect.Effect<void> =>
  process.platform === "win32"
    ? Effect.callback<void>((resume) => {
      ChildProcess.exec(`taskkill /pid ${child.pid} /T /F`, (error) => {
        if (error !== null) killLeader(child, sig)
        resume(Effect.void)
      })
    })
    : Effect.sync(() => {
      try {
        process.kill(-child.pid, sig)
      } catch {
        killLeader(child, sig)
      }
    })

const killLeader = (child: Child, sig: NodeJS.Signals) => {
  try {
    child.handle.kill(sig)
  } catch {
    // already gone
  }
}

const access = (path: string): Effect.Effect<void, PlatformError.PlatformError> =>
  Effect.callback<void, PlatformError.PlatformError>((resume) => {
    Fs.access(
      path,
      (error) => resume(error === null ? Effect.void : Effect.fail(systemError("FileSystem", "access", path, error)))
    )
  })

/** The executor's error: `startFailure` (in `McpClientFactory`) reads the errno `code` of its cause. */
const systemError = (
  module: "Command" | "FileSystem",
  method: string,
  path: string,
  error: unknown
): PlatformError.PlatformError => {
  const cause: NodeJS.ErrnoException = error instanceof Error ? error : new Error(String(error))
  return PlatformError.systemError({
    _tag: reasons[cause.code ?? ""] ?? "Unknown",
    module,
    method,
    pathOrDescriptor: path,
    ...(cause.syscall !== undefined ? { syscall: cause.syscall } : {}),
    description: cause.message,
    cause
  })
}

const reasons: Record<string, PlatformError.SystemErrorTag> = {
  ENOENT: "NotFound",
  EACCES: "PermissionDenied",
  EEXIST: "AlreadyExists",
  EISDIR: "BadResource",
  ENOTDIR: "BadResource",
  EBUSY: "Busy",
  ELOOP: "BadResource"
}

/**
 * Cuts stderr text into lines of at most 8 KiB (the rest of a long line is dropped up to its newline). The last
 * line without a newline is passed on at the end.
 */
class StderrLines {
  private tail = ""
  private skipping = false
  constructor(private readonly onLine: (line: string, truncated: boolean) => void) {}

  push(text: string) {
    let buffer = this.tail + text
    let newline = buffer.indexOf("\n")
    while (newline !== -1) {
      if (this.skipping) {
        this.skipping = false
      } else {
        const end = newline > 0 && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline
        if (end > MAX_STDERR_LINE) this.onLine(buffer.slice(0, MAX_STDERR_LINE), true)
        else this.onLine(buffer.slice(0, end), false)
      }
      buffer = buffer.slice(newline + 1)
      newline = buffer.indexOf("\n")
    }
    if (this.skipping) {
      buffer = ""
    } else if (buffer.length > MAX_STDERR_LINE) {
      this.onLine(buffer.slice(0, MAX_STDERR_LINE), true)
      this.skipping = true
      buffer = ""
    }
    this.tail = buffer
  }

  end() {
    if (this.tail.length > 0) this.onLine(this.tail, false)
    this.tail = ""
  }
}

/**
 * Splits stdout into lines (JSON-RPC messages). The pieces of a line are kept apart until its newline, so a
 * large message is copied once, not once per chunk; a line over `max` bytes is dropped and reading goes on.
 */
class LineReader {
  private chunks: Array<Uint8Array> = []
  private bytes = 0
  /** the rest of an oversized line is being dropped, up to its newline */
  private skipping = false
  constructor(
    private readonly max: number,
    private readonly onOversized: () => void,
    private readonly onLine: (line: string) => void
  ) {}

  push(chunk: Uint8Array) {
    const view = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let start = 0
    while (start <= view.length) {
      const newline = view.indexOf(10, start)
      const piece = view.subarray(start, newline === -1 ? view.length : newline)
      if (this.skipping) {
        if (newline !== -1) this.skipping = false
      } else if (this.bytes + piece.length > this.max) {
        // the message is dropped, not the connection: later messages still arrive
        this.chunks = []
        this.bytes = 0
        this.skipping = newline === -1
        this.onOversized()
      } else if (newline === -1) {
        if (piece.length > 0) {
          this.chunks.push(piece)
          this.bytes += piece.length
        }
      } else {
        const line = this.bytes === 0 ? piece : Buffer.concat([...this.chunks, piece])
        this.chunks = []
        this.bytes = 0
        const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length
        if (end > 0) this.onLine(line.toString("utf8", 0, end))
      }
      if (newline === -1) return
      start = newline + 1
    }
  }
}

const isLinux = process.platform === "linux"

/**
 * Whether any member of the group still runs. Zombies do not count: an orphaned zombie is dead even when its
 * new parent never reaps it (containers whose init does not). On Windows there are no groups: the executor
 * ends the tree with `taskkill /T`, and the leader's exit is what is awaited.
 */
const groupAlive = (pgid: number): boolean => {
  if (process.platform === "win32") return false
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  return isLinux ? hasLiveMemberLinux(pgid) : true
}

const hasLiveMemberLinux = (pgid: number): boolean => {
  let entries: Array<string>
  try {
    entries = Fs.readdirSync("/proc")
  } catch {
    return true
  }
  for (const entry of entries) {
    const code = entry.charCodeAt(0)
    if (code < 48 || code > 57) continue
    let stat: string
    try {
      stat = Fs.readFileSync(`/proc/${entry}/stat`, "latin1")
    } catch {
      continue
    }
    // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3)
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true
  }
  return false
}
