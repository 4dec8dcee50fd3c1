/**
 * A spinner line on standard error while something runs, shown only when standard error is a terminal: piped
 * or redirected output gets none of it (no escape codes, no carriage returns).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { clip } from "./internal/width.js"
import { Output } from "./Output.js"

/**
 * The frames of the spinner.
 *
 * @since 0.1.0
 * @category constants
 */
export const frames: ReadonlyArray<string> = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/** Erase the current line and return to its start. */
const clearLine = "\r\u001b[2K"
const hideCursor = "\u001b[?25l"
const showCursor = "\u001b[?25h"

/**
 * A status line the running effect may update.
 *
 * @since 0.1.0
 * @category models
 */
export interface Status {
  readonly set: (text: string) => Effect.Effect<void>
}

/**
 * Runs `f` with a spinner showing `initial` (then whatever `f` sets) every 80 ms, and erases it when `f`
 * ends, however it ends. Without a terminal, `f` runs with a status that does nothing.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withSpinner = <A, E, R>(
  initial: string,
  f: (status: Status) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Output> =>
  Effect.flatMap(Output, (output) => {
    if (!output.interactive) return f({ set: () => Effect.void })
    return Effect.scoped(Effect.gen(function*() {
      const text = yield* Ref.make(initial)
      const draw = (frame: number) =>
        Effect.flatMap(Ref.get(text), (current) => {
          const width = Math.max(10, output.columns - 3)
          const shown = clip(current, width)
          return output.stderr(`${clearLine}${frames[frame % frames.length]} ${shown}`)
        })
      const spin = Effect.gen(function*() {
        for (let frame = 0;; frame++) {
          yield* draw(frame)
          yield* Effect.sleep("80 millis")
        }
      })
      yield* Effect.acquireRelease(output.stderr(hideCursor), () => output.stderr(`${clearLine}${showCursor}`))
      // released first (finalizers run in reverse), so the line is erased after the last frame
      yield* Effect.forkScoped(spin)
      return yield* f({ set: (next) => Ref.set(text, next) })
    }))
  })
