/**
 * The log lines of an effect, as a test reads them (the 3 line's `@zett/testing-core/CapturedLogs` on Effect 4's logger).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"

export interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

const levels = ["Trace", "Debug", "Info", "Warn", "Error", "Fatal"]

/**
 * A logger that keeps every line at `minimum` or above (default `Info`), its level upper-cased as Effect 3 labelled
 * it (`WARN`).
 */
export const captureLogs = (minimum: "Trace" | "Debug" | "Info" | "Warn" = "Info") => {
  const lines: Array<LogLine> = []
  const logger = Logger.make(({ fiber, logLevel, message }) =>
    levels.indexOf(logLevel) < levels.indexOf(minimum) ? undefined : void lines.push({
      level: logLevel.toUpperCase(),
      message: (Array.isArray(message) ? message : [message]).map(String).join(" "),
      annotations: { ...fiber.getRef(References.CurrentLogAnnotations) }
    })
  )
  // Effect 4 drops a line below the fiber's MinimumLogLevel (Info by default) before any logger sees it
  return {
    lines,
    layer: Layer.merge(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel)(minimum))
  }
}

/** `self`, with what it logged: each line's level, text and `mcp.server` annotation. */
export const logged = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const { layer, lines } = captureLogs()
    const value = yield* Effect.provide(self, layer)
    return [
      value,
      lines.map((line) => ({ level: line.level, text: line.message, server: line.annotations["mcp.server"] }))
    ] as const
  })

/**
 * `captureLogs("Debug")`, and a wait for a line that contains a text (the 3 line's `makeLogCapture` of the driver's
 * tests): for what a server writes to its stderr, which reaches the logger asynchronously.
 */
export const makeLogCapture = () => {
  const waiters: Array<{ readonly text: string; readonly resume: () => void }> = []
  const captured = captureLogs("Debug")
  const lines = captured.lines
  const push = lines.push.bind(lines)
  lines.push = (...added: Array<LogLine>) => {
    const n = push(...added)
    for (const line of added) {
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (line.message.includes(waiters[i]!.text)) waiters.splice(i, 1)[0]!.resume()
      }
    }
    return n
  }
  const waitFor = (text: string) =>
    Effect.callback<void>((resume) => {
      if (lines.some((line) => line.message.includes(text))) return resume(Effect.void)
      waiters.push({ text, resume: () => resume(Effect.void) })
    })
  return { lines, layer: captured.layer, waitFor }
}
