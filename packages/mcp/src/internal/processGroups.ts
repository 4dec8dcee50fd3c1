/**
 * Process groups of the stdio servers this process started: a registry of live groups, a synchronous
 * `exit` hook that kills them (a host calling `process.exit()` orphans nothing), the same on a fatal
 * SIGINT/SIGTERM/SIGHUP that nobody else handles, and a liveness check
 * that does not count zombies (an orphaned zombie is dead even when nobody reaps it).
 *
 * @internal
 */
import * as Fs from "node:fs"

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

/** @internal */
export const register = (pgid: number): void => {
  if (!hookInstalled) {
    hookInstalled = true
    process.on("exit", killAllSync)
    if (process.platform !== "win32") for (const sig of fatalSignals) process.prependListener(sig, onSignal)
  }
  live.add(pgid)
}

/** @internal */
export const unregister = (pgid: number): void => {
  live.delete(pgid)
}

/** @internal */
export const registered = (): ReadonlySet<number> => live

/** @internal */
export const signal = (pgid: number, sig: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, sig)
  } catch {
    // ESRCH: the group is empty
  }
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

const isLinux = process.platform === "linux"

/**
 * Whether any member of the group still runs. Zombies do not count.
 *
 * @internal
 */
export const isAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  return isLinux ? hasLiveMemberLinux(pgid) : true
}
