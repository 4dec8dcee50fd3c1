/**
 * The child processes of this process, read from the process table (/proc on Linux, `ps` elsewhere).
 *
 * @internal
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"

/** @internal */
export interface ProcessInfo {
  readonly pid: number
  readonly ppid: number
  /** one letter as in ps: R running, S sleeping, Z zombie, ... */
  readonly state: string
  readonly command: string
}

const fromProc = (): Array<ProcessInfo> => {
  const out: Array<ProcessInfo> = []
  for (const entry of Fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = Fs.readFileSync(`/proc/${entry}/stat`, "latin1")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      let command = ""
      try {
        command = Fs.readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0").join(" ").trim()
      } catch {
        // gone meanwhile
      }
      out.push({ pid: Number(entry), state: fields[0]!, ppid: Number(fields[1]), command })
    } catch {
      // the process ended while we were reading
    }
  }
  return out
}

const fromPs = (): Array<ProcessInfo> => {
  try {
    return ChildProcess.execFileSync("ps", ["-A", "-o", "pid=,ppid=,stat=,args="], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => {
        const [pid, ppid, stat, ...args] = line.trim().split(/\s+/)
        return { pid: Number(pid), ppid: Number(ppid), state: stat![0]!, command: args.join(" ") }
      })
  } catch {
    return []
  }
}

/** @internal */
export const list = (): Array<ProcessInfo> => (Fs.existsSync("/proc/self/stat") ? fromProc() : fromPs())

/** A zombie has exited; it only waits for its parent to reap it. */
const isLive = (p: ProcessInfo): boolean => p.state !== "Z" && p.state !== "X"

/** The live children of this process whose command line contains `marker`. @internal */
export const liveChildren = (marker: string): Array<ProcessInfo> =>
  list().filter((p) => p.ppid === process.pid && isLive(p) && p.command.includes(marker))

/** The live processes among `pids`. @internal */
export const livePids = (pids: Iterable<number>): Array<ProcessInfo> => {
  const wanted = new Set(pids)
  return list().filter((p) => wanted.has(p.pid) && isLive(p))
}
