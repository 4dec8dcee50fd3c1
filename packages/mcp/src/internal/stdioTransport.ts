/**
 * A stdio client transport that owns the server's whole process tree. The server starts in a process
 * group of its own, so wrappers such as `npx` or `uvx` cannot leave their grandchildren behind: closing
 * ends stdin, waits, then signals the group (SIGTERM, later SIGKILL) and resolves once the child is reaped.
 *
 * @internal
 */
import type { ChildProcess } from "node:child_process"
import * as ChildProcessNode from "node:child_process"
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js"
import * as ProcessGroups from "./processGroups.js"

/** @internal */
export interface StdioTransportOptions {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** the complete environment of the child (already merged with the default one) */
  readonly env: Readonly<Record<string, string>>
  readonly cwd?: string | undefined
  /** ms to wait after the end of stdin before SIGTERM */
  readonly closeTimeout: number
  /** ms to wait after SIGTERM before SIGKILL */
  readonly killTimeout: number
  /**
   * Each line the server writes to stderr. A line longer than 8 KiB is cut there (`truncated`), and the rest
   * of it is dropped: what reaches a log is bounded, and a secret that spans the cut is never split between
   * two pieces that the scrubber would see apart.
   */
  readonly onStderrLine?: ((line: string, truncated: boolean) => void) | undefined
  /** The longest message (one line of stdout) accepted, in bytes; a longer one is dropped. */
  readonly maxMessageBytes: number
  /** Called when a message over `maxMessageBytes` was dropped (its id is unknown: it was never read). */
  readonly onOversized?: (() => void) | undefined
}

const POLL_MS = 20
const REAP_MS = 1_000
const MAX_STDERR_LINE = 8_192

// The timers of a close are kept referenced: while a close waits for a process group, nothing else may keep
// the event loop alive (a plain script awaiting its reply), and an unreferenced timer would let Node exit in the
// middle of it. Each is bounded and cleared, so a finished host waits no longer than the close bound.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const within = (promise: Promise<void>, ms: number): Promise<void> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    promise,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms)
    })
  ]).finally(() => clearTimeout(timer))
}

/** @internal */
export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined

  private child: ChildProcess | undefined
  private leaderExited = false
  private exited: Promise<void> = Promise.resolve()
  private closing: Promise<void> | undefined
  private closeFired = false
  // stdout: the pieces of the line being read (kept apart, so a large message is copied once, not per chunk)
  private lineChunks: Array<Buffer> = []
  private lineBytes = 0
  /** the rest of an oversized line is being dropped, up to its newline */
  private lineSkipping = false
  private stderrTail = ""
  /** the rest of a line that was cut is being dropped, up to its newline */
  private stderrSkipping = false
  constructor(readonly options: StdioTransportOptions) {}

  /** how the server process ended (`exited with code 3`, `was killed by SIGKILL`), once it has */
  exitStatus: string | undefined = undefined

  /** the process id of the server, which is also its process group id */
  get pid(): number | undefined {
    return this.child?.pid
  }

  start(): Promise<void> {
    if (this.child !== undefined || this.closing !== undefined) {
      return Promise.reject(new Error("StdioTransport already started"))
    }
    const { args, command, cwd, env } = this.options
    return new Promise<void>((resolve, reject) => {
      let child: ChildProcess
      try {
        child = ChildProcessNode.spawn(command, args as Array<string>, {
          detached: true,
          stdio: ["pipe", "pipe", "pipe"],
          shell: false,
          windowsHide: true,
          env,
          ...(cwd !== undefined ? { cwd } : {})
        })
      } catch (error) {
        reject(error)
        return
      }
      this.child = child
      let spawned = false
      let markExited!: () => void
      this.exited = new Promise<void>((resolve) => {
        markExited = resolve
      })
      child.once("spawn", () => {
        spawned = true
        ProcessGroups.register(child.pid!)
        resolve()
      })
      child.once("error", (error) => {
        if (!spawned) {
          this.leaderExited = true
          markExited()
          reject(error)
        }
        this.onerror?.(error)
      })
      child.once("exit", (code, signal) => {
        this.exitStatus = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`
        this.leaderExited = true
        markExited()
        // a pgid stays reserved while any member exists; once none runs, forget it
        if (child.pid !== undefined && !ProcessGroups.isAlive(child.pid)) ProcessGroups.unregister(child.pid)
      })
      child.once("close", () => this.fireClose())
      child.stdin!.on("error", (error) => this.onerror?.(error))
      child.stdout!.on("error", (error) => this.onerror?.(error))
      child.stdout!.on("data", (chunk: Buffer) => this.stdoutData(chunk))
      const stderr = child.stderr!
      stderr.setEncoding("utf8")
      stderr.on("error", () => {})
      stderr.on("data", (text: string) => this.stderrData(text))
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin
    if (stdin == null || this.closing !== undefined || !stdin.writable) {
      return Promise.reject(new Error("Not connected"))
    }
    if (stdin.write(serializeMessage(message))) return Promise.resolve()
    return new Promise<void>((resolve) => stdin.once("drain", resolve))
  }

  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.shutdown()
    return this.closing
  }

  private stdoutData(chunk: Buffer) {
    const max = this.options.maxMessageBytes
    let start = 0
    while (start <= chunk.length) {
      const newline = chunk.indexOf(10, start)
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline)
      if (this.lineSkipping) {
        if (newline !== -1) this.lineSkipping = false
      } else if (this.lineBytes + piece.length > max) {
        // the message is dropped, not the connection: later messages still arrive
        this.lineChunks = []
        this.lineBytes = 0
        this.lineSkipping = newline === -1
        this.options.onOversized?.()
      } else if (newline === -1) {
        if (piece.length > 0) {
          this.lineChunks.push(piece)
          this.lineBytes += piece.length
        }
      } else {
        const line = this.lineBytes === 0 ? piece : Buffer.concat([...this.lineChunks, piece])
        this.lineChunks = []
        this.lineBytes = 0
        this.deliver(line)
      }
      if (newline === -1) return
      start = newline + 1
    }
  }

  private deliver(line: Buffer) {
    const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length
    if (end === 0) return
    const text = line.toString("utf8", 0, end)
    let message: JSONRPCMessage
    try {
      message = deserializeMessage(text)
    } catch (error) {
      this.onerror?.(error as Error)
      return
    }
    this.onmessage?.(message)
  }

  private stderrData(text: string) {
    const onLine = this.options.onStderrLine
    if (onLine === undefined) return
    let buffer = this.stderrTail + text
    let newline = buffer.indexOf("\n")
    while (newline !== -1) {
      if (this.stderrSkipping) {
        this.stderrSkipping = false
      } else {
        const end = newline > 0 && buffer.charCodeAt(newline - 1) === 13 ? newline - 1 : newline
        if (end > MAX_STDERR_LINE) onLine(buffer.slice(0, MAX_STDERR_LINE), true)
        else onLine(buffer.slice(0, end), false)
      }
      buffer = buffer.slice(newline + 1)
      newline = buffer.indexOf("\n")
    }
    if (this.stderrSkipping) {
      buffer = ""
    } else if (buffer.length > MAX_STDERR_LINE) {
      onLine(buffer.slice(0, MAX_STDERR_LINE), true)
      this.stderrSkipping = true
      buffer = ""
    }
    this.stderrTail = buffer
  }

  private flushStderr() {
    if (this.stderrTail.length > 0) {
      const line = this.stderrTail
      this.stderrTail = ""
      this.options.onStderrLine?.(line, false)
    }
  }

  private fireClose() {
    if (this.closeFired) return
    this.closeFired = true
    this.onclose?.()
  }

  /** waits until the leader is reaped and no member of its group runs, at most until `deadline` */
  private async settled(pgid: number, deadline: number): Promise<boolean> {
    if (!this.leaderExited) {
      const remaining = deadline - Date.now()
      if (remaining > 0) await within(this.exited, remaining)
      if (!this.leaderExited) return false
    }
    while (ProcessGroups.isAlive(pgid)) {
      const remaining = deadline - Date.now()
      if (remaining <= 0) return false
      await sleep(Math.min(POLL_MS, remaining))
    }
    return true
  }

  private async shutdown(): Promise<void> {
    const child = this.child
    const pgid = child?.pid
    if (child !== undefined && pgid !== undefined) {
      try {
        child.stdin?.end()
      } catch {
        // the pipe is already broken: the signals below still apply
      }
      const { closeTimeout, killTimeout } = this.options
      if (!(await this.settled(pgid, Date.now() + closeTimeout))) {
        ProcessGroups.signal(pgid, "SIGTERM")
        if (!(await this.settled(pgid, Date.now() + killTimeout))) {
          ProcessGroups.signal(pgid, "SIGKILL")
          // SIGKILL cannot be ignored, but its delivery takes a moment; the bound only guards against a
          // process stuck in the kernel
          await this.settled(pgid, Date.now() + REAP_MS)
        }
      }
      ProcessGroups.unregister(pgid)
      child.stdout?.destroy()
      child.stderr?.destroy()
    }
    this.flushStderr()
    this.lineChunks = []
    this.fireClose()
  }
}
