/**
 * The stdio transport: an SDK `Transport` over a process started with `@effect/platform`'s `Command`. The
 * `CommandExecutor` starts the server detached, in a process group of its own (so wrappers such as `npx` or
 * `uvx` cannot leave their grandchildren behind), and kills the group, or the tree with `taskkill /T` on
 * Windows. What it does not have is added here:
 *
 * - the close ladder: end of input, then SIGTERM to the group, then SIGKILL, each step after a grace period;
 * - a line reader that bounds each message (`maxMessageBytes`): an oversized line is dropped, not the connection;
 * - stderr as lines of at most 8 KiB, for the logger;
 * - an exit hook, so that a host that exits without closing its scopes (`process.exit()`, a fatal signal)
 *   takes its servers along.
 *
 * @internal
 */
import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type { PlatformError } from "@effect/platform/Error"
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Mailbox from "effect/Mailbox"
import * as Runtime from "effect/Runtime"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"

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
}

/** @internal */
export interface StdioTransport extends Transport {
  /** the process id of the server, which is also its process group id */
  readonly pid: number
  /** how the server process ended (`exited with code 3`, `was killed by SIGKILL`), once it has */
  readonly exitStatus: string | undefined
  /** The close ladder; also what `close()` runs. Runs once, however often it is asked for. */
  readonly shutdown: Effect.Effect<void>
}

const POLL = "20 millis"
// SIGKILL cannot be ignored, but its delivery takes a moment: this bounds only a process stuck in the kernel,
// and the wait for the last output of the pipes
const REAP = "1 second"
const MAX_STDERR_LINE = 8_192

/**
 * Starts the server in the current scope. Closing the scope runs the close ladder; `close()` from the SDK runs
 * the same one.
 *
 * @internal
 */
export const make = (
  options: Options
): Effect.Effect<StdioTransport, PlatformError, CommandExecutor.CommandExecutor | Scope.Scope> =>
  Effect.gen(function*() {
    const executor = yield* CommandExecutor.CommandExecutor
    const runtime = yield* Effect.runtime<never>()
    const child = yield* executor.start(commandOf(options))
    const pid = child.pid
    register(pid)

    let onclose: (() => void) | undefined
    let onerror: ((error: Error) => void) | undefined
    let onmessage: ((message: JSONRPCMessage, extra?: MessageExtraInfo) => void) | undefined
    let started = false
    let closing = false
    let closeFired = false
    let exitStatus: string | undefined
    const fireClose = () => {
      closing = true
      if (closeFired) return
      closeFired = true
      onclose?.()
    }
    const reportError = (error: unknown) => Effect.sync(() => onerror?.(error instanceof Error ? error : new Error(String(error))))

    // Reading starts with `start()`: the SDK sets its handlers first.
    const reading = yield* Effect.makeLatch(false)
    const lines = new LineReader(options.maxMessageBytes, options.onOversized, (line) => {
      let message: JSONRPCMessage
      try {
        message = deserializeMessage(line)
      } catch (error) {
        onerror?.(error as Error)
        return
      }
      onmessage?.(message)
    })
    const stdout = yield* reading.whenOpen(
      Stream.runForEachChunk(child.stdout, (chunk) =>
        Effect.sync(() => {
          for (const bytes of chunk) lines.push(bytes)
        }))
    ).pipe(Effect.catchAll(reportError), Effect.forkScoped)
    const stderr = yield* stderrLines(child.stderr, options.onStderrLine).pipe(
      Effect.catchAll(() => Effect.void),
      Effect.forkScoped
    )
    // Messages are written in order by one fiber; ending the mailbox ends the server's input.
    const input = yield* Mailbox.make<Uint8Array>()
    const writer = yield* Mailbox.toStream(input).pipe(
      Stream.run(child.stdin),
      Effect.catchAll(reportError),
      Effect.forkScoped
    )
    // The connection is closed for the SDK once the server has exited and all of its output is read (Node's
    // `close` event, which the SDK's own transport uses).
    yield* Effect.exit(child.exitCode).pipe(
      Effect.tap((exit) =>
        Effect.sync(() => {
          exitStatus = Exit.match(exit, {
            onSuccess: (code) => `exited with code ${code}`,
            onFailure: () => `was killed by ${signalOf(exit)}`
          })
          // a pgid stays reserved while any member runs; once none does, the exit hook forgets it
          if (!groupAlive(pid)) unregister(pid)
        })
      ),
      Effect.zipRight(Fiber.await(stdout)),
      Effect.zipRight(Effect.sync(fireClose)),
      Effect.forkScoped
    )

    const groupGone = Effect.ignore(child.exitCode).pipe(
      Effect.zipRight(Effect.repeat(Effect.sync(() => groupAlive(pid)), {
        while: (alive) => alive,
        schedule: Schedule.spaced(POLL)
      }))
    )
    // Each step is raced in a fiber of its own (`timeoutOption`), made interruptible there: the ladder also runs
    // as the finalizer of an interrupted fiber, where it must run to its end, not be cut short.
    const within = (self: Effect.Effect<unknown>, duration: Duration.DurationInput) =>
      Effect.map(Effect.timeoutOption(Effect.interruptible(self), duration), (done) => done._tag === "Some")
    const signal = (sig: CommandExecutor.Signal) => child.kill(sig).pipe(Effect.ignore, Effect.zipRight(groupGone))
    const ladder = Effect.gen(function*() {
      closing = true
      // output that nobody asked for yet (a connect cut short before `start()`) is still drained
      reading.unsafeOpen()
      input.unsafeDone(Exit.void)
      if (!(yield* within(groupGone, options.closeTimeout))) {
        yield* Effect.logDebug("the server process did not exit after the end of its input: SIGTERM")
        if (!(yield* within(signal("SIGTERM"), options.closeTimeout))) {
          yield* Effect.logDebug("the server process did not exit after SIGTERM: SIGKILL")
          yield* within(signal("SIGKILL"), REAP)
        }
      }
      // What the server wrote before it ended still reaches its reader (and the logger). The writer ends too, by
      // itself: a write still pending on a dead pipe fails while the writer listens for the pipe's errors
      // (interrupted, it would leave that error to nobody, and an unhandled `error` event ends the host).
      yield* within(Fiber.awaitAll([stdout, stderr, writer]), REAP)
      unregister(pid)
      fireClose()
    }).pipe(
      // a process lives in wall-clock time: a TestClock in the caller must not hold it open
      Effect.withClock(Clock.make()),
      Effect.annotateLogs({ "mcp.server": options.name, "mcp.pid": pid })
    )
    const shutdown = yield* Effect.cached(ladder)
    yield* Effect.addFinalizer(() => shutdown)
    const runPromise = Runtime.runPromise(runtime)

    const transport: StdioTransport = {
      pid,
      get exitStatus() {
        return exitStatus
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
        reading.unsafeOpen()
        return Promise.resolve()
      },
      send: (message) => {
        if (closing || !input.unsafeOffer(Buffer.from(serializeMessage(message), "utf8"))) {
          return Promise.reject(new Error("Not connected"))
        }
        return Promise.resolve()
      },
      close: () => runPromise(shutdown)
    }
    return transport
  })

/**
 * The command: never through a shell, with exactly `options.env`. `extendEnv` (platform 0.97) stops the merge
 * of this process's environment; before it, the executor always merged it, and a variable set to `undefined`
 * is how it is left out there (Node drops it). `env` is called data-first: in 0.96 it takes no options, and a
 * data-last call with two arguments would be read as data-first.
 */
const commandOf = (options: Options): Command.Command => {
  const hidden: Record<string, string | undefined> = {}
  for (const key of Object.keys(process.env)) hidden[key] = undefined
  const command = Command.env(Command.make(options.command, ...options.args), { ...hidden, ...options.env }, {
    extendEnv: false
  })
  return options.cwd === undefined ? command : Command.workingDirectory(command, options.cwd)
}

/** The signal named by the executor's failure for a process that a signal ended. */
const signalOf = (exit: Exit.Exit<unknown, PlatformError>): string => {
  if (Exit.isFailure(exit)) {
    const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
    const match = error?._tag === "SystemError" ? /signal: (\w+)$/.exec(error.description ?? "") : null
    if (match !== null) return match[1]!
  }
  return "a signal"
}

/**
 * The lines of a stream of stderr text, each cut at 8 KiB (the rest of a long line is dropped up to its
 * newline). The last line without a newline is passed on when the stream ends.
 */
const stderrLines = (
  stream: Stream.Stream<Uint8Array, PlatformError>,
  onLine: (line: string, truncated: boolean) => Effect.Effect<void>
): Effect.Effect<void, PlatformError> =>
  Effect.suspend(() => {
    let tail = ""
    let skipping = false
    // a logger that fails must not stop the reading: the server would block on a full pipe
    const emit = (out: Array<Effect.Effect<void>>, line: string, truncated: boolean) =>
      out.push(Effect.catchAllCause(onLine(line, truncated), () => Effect.void))
    return stream.pipe(
      Stream.decodeText(),
      Stream.runForEach((text) => {
        const out: Array<Effect.Effect<void>> = []
        let buffer = tail + text
        let newline = buffer.indexOf("\n")
        while (newline !== -1) {
          if (skipping) {
            skipping = false
          } else {
            const end = newline > 0 && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline
            if (end > MAX_STDERR_LINE) emit(out, buffer.slice(0, MAX_STDERR_LINE), true)
            else emit(out, buffer.slice(0, end), false)
          }
          buffer = buffer.slice(newline + 1)
          newline = buffer.indexOf("\n")
        }
        if (skipping) {
          buffer = ""
        } else if (buffer.length > MAX_STDERR_LINE) {
          emit(out, buffer.slice(0, MAX_STDERR_LINE), true)
          skipping = true
          buffer = ""
        }
        tail = buffer
        return Effect.all(out, { discard: true })
      }),
      Effect.zipRight(Effect.suspend(() => (tail.length > 0 ? onLine(tail, false) : Effect.void)))
    )
  })

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

// The exit hook. Scope finalizers do not run when the host calls `process.exit()` or dies of a signal that
// nobody handles; the groups still running are then SIGKILLed synchronously, so no server outlives its host.

const live = new Set<number>()
let hookInstalled = false

const killAllSync = () => {
  for (const pgid of live) {
    try {
      process.kill(-pgid, "SIGKILL")
    } catch {
      // already gone
    }
  }
  live.clear()
}

// A server in a group of its own no longer gets the terminal's Ctrl-C. When a signal is about to kill this
// process (nobody else listens for it), take the groups along and die of the same signal.
const fatalSignals: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP"]

// This listener goes first (prepended): a handler that removes itself when called, as `NodeRuntime.runMain`'s
// does, must still count as the application's, or the groups would be killed under its closing scopes.
const onSignal = (sig: NodeJS.Signals) => {
  if (process.listenerCount(sig) > 1) return // the application handles it, and closes its scopes
  killAllSync()
  for (const s of fatalSignals) process.removeListener(s, onSignal)
  process.kill(process.pid, sig)
}

const register = (pgid: number): void => {
  if (!hookInstalled) {
    hookInstalled = true
    process.on("exit", killAllSync)
    if (process.platform !== "win32") {
      for (const sig of fatalSignals) process.prependListener(sig, onSignal)
    }
  }
  live.add(pgid)
}

const unregister = (pgid: number): void => {
  live.delete(pgid)
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
