/**
 * The fault-injecting MCP server both lines share (`packages/testing/servers/faulty-server.mjs`, one fault per
 * `--fault=<name>`) over Streamable HTTP, for the length of a scope: the 3 line's `httpFault` of
 * `@zett/testing/Faults`, on Effect 4.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as Path from "node:path"

const faultyServer = Path.join(import.meta.dirname, "..", "..", "..", "..", "..", "packages", "testing", "servers", "faulty-server.mjs")

/** Starts the fault server over Streamable HTTP for the length of the scope; its `/mcp` URL. */
export const httpFault = (
  marker: string,
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string> = []
): Effect.Effect<string, Error, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.callback<{ readonly child: ChildProcess.ChildProcess; readonly url: string }, Error>((resume) => {
        const child = ChildProcess.spawn(
          process.execPath,
          [faultyServer, "--http", "--port=0", ...faults.map((f) => `--fault=${f}`), ...extra],
          { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ZETT_TEST_MARKER: marker } }
        )
        let output = ""
        let settled = false
        const onData = (chunk: Buffer) => {
          output += chunk.toString("utf8")
          const ready = /listening on (\S+)/.exec(output)
          if (!settled && ready !== null) {
            settled = true
            resume(Effect.succeed({ child, url: ready[1]! }))
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
            resume(Effect.fail(new Error(`the fault server exited with ${code} before it was ready:\n${output}`)))
          }
        })
        return Effect.sync(() => child.kill("SIGKILL"))
      }),
      ({ child }) =>
        Effect.callback<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          child.once("exit", () => resume(Effect.void))
          child.kill("SIGKILL")
        })
    ),
    ({ url }) => url
  )
