/**
 * A temporary folder for the length of a scope (the 3 line's `@zett/testing-core/TempDir`): removed when the scope closes,
 * whether the test passed, failed or was interrupted.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** A new folder under the system's temporary folder (its real path), removed with the scope. */
export const make = (prefix: string = "zett-"): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => Fs.realpathSync(Fs.mkdtempSync(Path.join(Os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
