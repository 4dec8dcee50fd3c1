/**
 * Running the real `zett` (from its sources) as a child process: piped, or on a pseudo-terminal made by
 * `script(1)` of util-linux. The environment holds PATH and HOME (a test's own folder) and what a test adds.
 */
import * as Source from "@zett/testing-core/Source"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const node = process.execPath

const environment = (home: string, env: Readonly<Record<string, string>>) => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  ...env
})

/** `zett ...args` with piped output; with `closeStdin`, standard input ends at once. */
export const piped = (
  args: ReadonlyArray<string>,
  home: string,
  env: Readonly<Record<string, string>> = {},
  options: { readonly closeStdin?: boolean } = {}
): Effect.Effect<Run> =>
  Effect.async<Run>((resume) => {
    const child = ChildProcess.execFile(
      node,
      [...Source.zettArgs, ...args],
      { cwd: Source.root, timeout: 100_000, env: environment(home, env) },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resume(Effect.succeed({ code, stdout, stderr }))
      }
    )
    if (options.closeStdin === true) child.stdin?.end()
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/**
 * `zett ...args` on a pseudo-terminal: standard output and error both reach it, recorded as `stdout`.
 * `onOutput` sees everything printed so far each time more comes, and may type keys.
 */
export const onTerminal = (
  args: ReadonlyArray<string>,
  home: string,
  env: Readonly<Record<string, string>> = {},
  onOutput?: (printed: string, type: (keys: string) => void) => void
): Effect.Effect<Run> =>
  Effect.async<Run>((resume) => {
    const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`
    const command = [node, ...Source.zettArgs, ...args].map(quote).join(" ")
    const child = ChildProcess.spawn("script", ["-qefc", command, "/dev/null"], {
      cwd: Source.root,
      env: { ...environment(home, env), TERM: "xterm" }
    })
    let stdout = ""
    const type = (keys: string) => void child.stdin.write(keys)
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      onOutput?.(stdout, type)
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), 100_000)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, stdout, stderr: "" }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Terminal output without its escape sequences. */

export const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "")
