/**
 * A spinner line on standard error while something runs, and a progress bar for a tool that reports progress,
 * shown only when standard error is a terminal: piped or redirected output gets none of it (no escape codes,
 * no carriage returns).
 *
 * @since 0.1.0
 */
import type { Extension } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { inert } from "./internal/inert.js"
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

/** A status for the one line it is drawn on: inert, its newlines and tabs as spaces. */
const oneLine = (text: string) => inert(text).replace(/[\n\t]/g, " ")

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
 * Who draws on one output's terminal: the spinners running, and how many prompts hold it. A prompt and a spinner
 * run in fibers that share nothing but the `Output` (a server's request arrives through the SDK, in a fiber of
 * its own), so the state is kept per `Output`.
 */
interface Screen {
  spinners: number
  prompts: number
  /** A tool's progress bar (`extension`) is on the line. */
  bar: boolean
}

const screens = new WeakMap<Output["Type"], Screen>()

const screenOf = (output: Output["Type"]): Screen => {
  const known = screens.get(output)
  if (known !== undefined) return known
  const screen: Screen = { spinners: 0, prompts: 0, bar: false }
  screens.set(output, screen)
  return screen
}

/**
 * Runs `f` with a spinner showing `initial` (then whatever `f` sets) every 80 ms, and erases it when `f`
 * ends, however it ends. Without a terminal, `f` runs with a status that does nothing. While a prompt holds
 * the terminal (`prompting`), no frame is drawn.
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
    const screen = screenOf(output)
    return Effect.scoped(Effect.gen(function*() {
      const text = yield* Ref.make(initial)
      const draw = (frame: number) =>
        Effect.flatMap(Ref.get(text), (current) =>
          Effect.suspend(() => {
            // checked when the frame is written: a prompt that began since is not drawn over
            if (screen.prompts > 0) return Effect.void
            const width = Math.max(10, output.columns - 3)
            // a tool's progress message is the server's text; one line, inert
            const shown = clip(oneLine(current), width)
            return output.stderr(`${clearLine}${frames[frame % frames.length]} ${shown}`)
          }))
      const spin = Effect.gen(function*() {
        for (let frame = 0;; frame++) {
          yield* draw(frame)
          yield* Effect.sleep("80 millis")
        }
      })
      yield* Effect.acquireRelease(
        Effect.suspend(() => {
          screen.spinners++
          return screen.prompts > 0 ? Effect.void : output.stderr(hideCursor)
        }),
        () =>
          Effect.suspend(() => {
            screen.spinners--
            return screen.prompts > 0 ? Effect.void : output.stderr(`${clearLine}${showCursor}`)
          })
      )
      // released first (finalizers run in reverse), so the line is erased after the last frame
      yield* Effect.forkScoped(spin)
      return yield* f({ set: (next) => Ref.set(text, next) })
    }))
  })

/**
 * Runs `self`, a prompt, with the terminal to itself: a spinner on the same output pauses (its line erased, the
 * cursor shown) for as long as `self` runs and comes back after it, however it ends; a tool's progress bar
 * (`extension`) is erased and drawn again by the next report after it. Without a terminal it is `self`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const prompting = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Output> =>
  Effect.flatMap(Output, (output) => {
    if (!output.interactive) return self
    const screen = screenOf(output)
    return Effect.acquireUseRelease(
      Effect.suspend(() => {
        screen.prompts++
        if (screen.prompts > 1 || (screen.spinners === 0 && !screen.bar)) return Effect.void
        // the bar is drawn again by the tool's next report
        screen.bar = false
        return output.stderr(`${clearLine}${showCursor}`)
      }),
      () => self,
      () =>
        Effect.suspend(() => {
          screen.prompts--
          // the next frame draws the line again
          return screen.prompts === 0 && screen.spinners > 0 ? output.stderr(hideCursor) : Effect.void
        })
    )
  })

/**
 * One progress report as a bar: `[██████░░░░░░░░░░░░░░] 3/10 30% message`; a report without a total is its
 * count and message alone.
 *
 * @since 0.1.0
 * @category utils
 */
export const bar = (
  report: { readonly progress: number; readonly total?: number | undefined; readonly message?: string | undefined },
  width: number = 20
): string => {
  const message = report.message === undefined || report.message === "" ? "" : ` ${report.message}`
  const total = report.total
  if (total === undefined || !(total > 0)) return `${report.progress}${message}`
  const ratio = Math.min(1, Math.max(0, report.progress / total))
  const filled = Math.round(ratio * width)
  return `[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${report.progress}/${total} ${
    Math.floor(ratio * 100)
  }%${message}`
}

/**
 * A tool that runs as a task on its server, as one line: `build: task 6f1c… working (step 2 of 5)`.
 *
 * @since 0.1.0
 * @category utils
 */
export const taskLine = (
  task: {
    readonly tool: string
    readonly taskId: string
    readonly status: string
    readonly message?: string | undefined
  }
): string =>
  `${task.tool}: task ${task.taskId} ${task.status}${
    task.message === undefined || task.message === "" ? "" : ` (${task.message})`
  }`

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultName = "progress"

/**
 * An extension that draws a tool's progress (`ToolProgress` events) as a bar on standard error while the tool
 * runs, and the status of a tool that runs as a task on its server (`ToolTask` events, as `taskLine`), and erases
 * them before the tool's result is shown. Register it before the transcript, so the bar is gone
 * when the transcript prints the result. Without a terminal it has no hooks at all, so no event is even made.
 *
 * @since 0.1.0
 * @category constructors
 */
export const extension = (
  options?: { readonly name?: string | undefined }
): Effect.Effect<Extension.Extension, never, Output> =>
  Effect.map(Output, (output): Extension.Extension => {
    const name = options?.name ?? defaultName
    if (!output.interactive) return { name }
    const screen = screenOf(output)
    return {
      name,
      onEvent: (_context, event) =>
        Effect.suspend(() => {
          // a report that comes while a prompt holds the terminal is not drawn over it
          if ((event._tag !== "ToolProgress" && event._tag !== "ToolTask") || screen.prompts > 0) return Effect.void
          screen.bar = true
          const width = Math.max(10, output.columns - 1)
          const text = event._tag === "ToolProgress" ? `${event.tool} ${bar(event)}` : taskLine(event)
          return output.stderr(`${clearLine}${clip(oneLine(text), width)}`)
        }),
      afterTool: () =>
        Effect.suspend(() => {
          if (!screen.bar) return Effect.void
          screen.bar = false
          return output.stderr(clearLine)
        })
    }
  })
