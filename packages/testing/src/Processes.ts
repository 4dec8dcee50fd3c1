/**
 * Test helpers around the process table: which processes run (by pid, process group, command), and a
 * child process started for the length of a scope (for servers a test talks to over the network).
 */
import { FixtureError } from "@zett/testing-core/FixtureError"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

export interface ProcessInfo {
  readonly pid: number
  readonly ppid: number
  readonly pgid: number
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
      out.push({ pid: Number(entry), state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]), command })
    } catch {
      // the process ended while we were reading
    }
  }
  return out
}

const fromPs = (): Array<ProcessInfo> =>
  ChildProcess.execFileSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [pid, ppid, pgid, stat, ...args] = line.trim().split(/\s+/)
      return { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), state: stat![0]!, command: args.join(" ") }
    })

/** Every process of the machine, read from /proc (Linux) or `ps`. */
export const list = (): Array<ProcessInfo> => (Fs.existsSync("/proc/self/stat") ? fromProc() : fromPs())

/** A zombie has exited; it only waits for a parent to reap it (orphans may wait forever under some inits). */
export const isLive = (p: ProcessInfo): boolean => p.state !== "Z" && p.state !== "X"

/** The live processes among `pids`. */
export const livePids = (pids: Iterable<number>): Array<ProcessInfo> => {
  const wanted = new Set(pids)
  return list().filter((p) => wanted.has(p.pid) && isLive(p))
}

/** The live members of a process group. */
export const liveInGroup = (pgid: number): Array<ProcessInfo> => list().filter((p) => p.pgid === pgid && isLive(p))

/** One process by pid, zombie or not. */
export const find = (pid: number): ProcessInfo | undefined => list().find((p) => p.pid === pid)

/** The live processes whose command line contains `marker`. */
export const liveWithCommand = (marker: string): Array<ProcessInfo> =>
  list().filter((p) => isLive(p) && p.command.includes(marker))

/**
 * The environment a process was started with, from /proc (Linux): what a server really received, whatever
 * it chooses to show of it.
 */
export const environ = (pid: number): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const pair of Fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const at = pair.indexOf("=")
    if (at > 0) out[pair.slice(0, at)] = pair.slice(at + 1)
  }
  return out
}

/** The live processes started by this one (its children), e.g. the stdio servers of a request. */
export const liveChildren = (): Array<ProcessInfo> => list().filter((p) => p.ppid === process.pid && isLive(p))

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export const freePort: Effect.Effect<number> = Effect.async<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as Net.AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

export interface ScopedProcess {
  readonly pid: number
  /** stdout and stderr so far */
  readonly output: () => string
}

const lifeline = Path.join(Path.dirname(fileURLToPath(import.meta.url)), "..", "servers", "lifeline.mjs")

/**
 * Starts a process for the length of the scope, in a group of its own, and waits until its stdout or
 * stderr matches `ready`. Closing the scope SIGKILLs the group and waits for the process to be reaped. The
 * process runs under a lifeline (servers/lifeline.mjs) whose stdin is a pipe from this process: when this
 * process dies, even of SIGKILL, the pipe ends and the lifeline ends the group, so no fixture outlives the
 * test runner. `pid` is the lifeline's, which is also the group's id.
 */
export const spawnScoped = (options: {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly ready: RegExp
}): Effect.Effect<ScopedProcess, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<ScopedProcess & { readonly child: ChildProcess.ChildProcess }, Error>((resume) => {
      const child = ChildProcess.spawn(process.execPath, [lifeline, options.command, ...options.args], {
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
        // the runner of this test process (a vitest worker's parent): the lifeline ends the group when it is gone
        env: { ...process.env, ...options.env, ZETT_LIFELINE_PID: String(process.ppid) }
      }) // the lifeline's pipe must not keep this process alive by itself
      ;(child.stdin as unknown as { unref?: () => void }).unref?.()
      let output = ""
      let settled = false
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        if (!settled && options.ready.test(output)) {
          settled = true
          resume(Effect.succeed({ pid: child.pid!, output: () => output, child }))
        }
      }
      child.stdout!.on("data", onData)
      child.stderr!.on("data", onData)
      child.once("error", (error) => {
        if (!settled) {
          settled = true
          resume(Effect.fail(error))
        }
      })
      child.once("exit", (code) => {
        if (!settled) {
          settled = true
          resume(
            Effect.fail(
              new FixtureError({ message: `${options.command} exited with ${code} before it was ready:\n${output}` })
            )
          )
        }
      })
      return Effect.sync(() => {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      })
    }),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        try {
          process.kill(-child.pid!, "SIGKILL")
        } catch {
          // already gone
        }
      }).pipe(
        // the leader's exit is reported before the other members of its group have finished dying: a test that
        // checks for leftovers right after the close must find none (on a wall clock, whatever the test's)
        Effect.zipRight(awaitGone([], child.pid!, 5_000)),
        Effect.withClock(Clock.make()),
        Effect.asVoid
      )
  ).pipe(Effect.map(({ output, pid }) => ({ pid, output })))

/**
 * The live processes among `pids` and in group `pgid`, once none is left or after `within` (default 10 s).
 * For processes killed by someone else (an exit hook): the kernel delivers a SIGKILL asynchronously, and a busy
 * machine may take seconds to reap them.
 */
export const awaitGone = (
  pids: ReadonlyArray<number>,
  pgid: number,
  within: number = 10_000
): Effect.Effect<Array<ProcessInfo>> =>
  Effect.gen(function*() {
    const deadline = Date.now() + within
    while (true) {
      const left = [...livePids(pids), ...liveInGroup(pgid)]
      if (left.length === 0 || Date.now() >= deadline) return left
      yield* Effect.sleep("20 millis")
    }
  })

/** Whether `check` holds within `within` ms (polled): for what another process reports asynchronously. */
export const eventually = (check: () => boolean, within: number = 10_000): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const deadline = Date.now() + within
    while (!check()) {
      if (Date.now() >= deadline) return false
      yield* Effect.sleep("20 millis")
    }
    return true
  })
