/**
 * What the tests ask of the processes they start: a process in a group of its own for the length of a scope (under
 * the lifeline both lines share, `packages/testing/servers/lifeline.mjs`, so that none outlives the test runner), the
 * Node arguments of a child that runs a fixture from the TypeScript sources, and which of some pids still run.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { pathToFileURL } from "node:url"

const lifeline = Path.resolve(import.meta.dirname, "../../../../../packages/testing/servers/lifeline.mjs")

const signalGroup = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

/** A process `spawnScoped` started that exited before its output matched `ready`. */
export class ExitedBeforeReady extends Data.TaggedError("ExitedBeforeReady")<{ readonly message: string }> {}

/** Sends `signal` to the group of a process `spawnScoped` started. */
export const signal = (pid: number, name: NodeJS.Signals): void => signalGroup(pid, name)

/**
 * Starts `command` in a group of its own until its stdout or stderr matches `ready`; closing the scope kills the
 * group. `pid` is the group's (its lifeline's).
 */
export const spawnScoped = (options: {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly ready: RegExp
}): Effect.Effect<{ readonly pid: number; readonly output: () => string }, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ readonly child: ChildProcess.ChildProcess; readonly output: () => string }, Error>((resume) => {
      const child = ChildProcess.spawn(process.execPath, [lifeline, options.command, ...options.args], {
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
        env: { ...process.env, ...options.env, ZETT_LIFELINE_PID: String(process.ppid) }
      }) // the lifeline's pipe must not keep this process alive by itself
      ;(child.stdin as unknown as { unref?: () => void }).unref?.()
      let output = ""
      let settled = false
      const settle = (effect: Effect.Effect<{ child: ChildProcess.ChildProcess; output: () => string }, Error>) => {
        if (settled) return
        settled = true
        resume(effect)
      }
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8")
        if (options.ready.test(output)) settle(Effect.succeed({ child, output: () => output }))
      }
      child.stdout!.on("data", onData)
      child.stderr!.on("data", onData)
      child.once("error", (error) => settle(Effect.fail(error)))
      child.once("exit", (code) =>
        settle(
          Effect.fail(
            new ExitedBeforeReady({ message: `${options.command} exited with ${code} before it was ready:\n${output}` })
          )
        ))
      return Effect.sync(() => {
        if (child.pid !== undefined) {
          signalGroup(child.pid, "SIGKILL")
        }
      })
    }),
    ({ child }) =>
      Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          return resume(Effect.void)
        }
        child.once("exit", () => resume(Effect.void))
        signalGroup(child.pid!, "SIGKILL")
      })
  ).pipe(Effect.map(({ child, output }) => ({ pid: child.pid!, output })))

/**
 * The Node arguments of a child that imports the packages from their TypeScript sources: the source condition,
 * Node 22's own TypeScript transform and the resolve hook of `@zett/mcp`'s tests (`.js` imports to `.ts`).
 */
export const nodeArgs: ReadonlyArray<string> = [
  "--conditions=@zett/source",
  "--experimental-transform-types",
  "--no-warnings=ExperimentalWarning",
  "--import",
  pathToFileURL(Path.join(import.meta.dirname, "..", "..", "..", "testing-core", "src", "sourceHooks.mjs")).href
]

/** Whether `check` holds within `within` ms (polled every 20 ms): for what another process reports asynchronously. */
export const eventually = (check: () => boolean, within: number = 3_000): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    const deadline = Date.now() + within
    const poll: Effect.Effect<boolean> = Effect.suspend(() =>
      check() ? Effect.succeed(true) : Date.now() >= deadline ? Effect.succeed(false) : Effect.andThen(
        Effect.sleep("20 millis"),
        poll
      )
    )
    return poll
  })

/** The pids among `pids` of a process that runs (not a zombie), read from /proc. */
export const livePids = (pids: Iterable<number>): Array<number> =>
  Array.from(pids).filter((pid) => {
    try {
      const stat = Fs.readFileSync(`/proc/${pid}/stat`, "utf8")
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
      return state !== "Z" && state !== "X"
    } catch {
      return false
    }
  })
