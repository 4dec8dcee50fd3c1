/**
 * The log lines of an effect, as a test reads them: level, message and annotations.
 */
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

export interface LogLine {
  readonly level: string
  readonly message: string
  readonly annotations: Record<string, unknown>
}

export const captureLogs = (minimum: LogLevel.LogLevel = LogLevel.Info) => {
  const lines: Array<LogLine> = []
  const logger = Logger.make(({ annotations, logLevel, message }) => {
    const text = (Array.isArray(message) ? message : [message]).map(String).join(" ")
    lines.push({
      level: logLevel.label,
      message: text,
      annotations: Object.fromEntries(HashMap.toEntries(annotations))
    })
  })
  return { lines, layer: Layer.merge(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(minimum)) }
}

/** `self`, with what it logged at info or above: each line's level, text and `mcp.server` annotation. */
export const logged = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const { layer, lines } = captureLogs()
    const value = yield* Effect.provide(self, layer)
    return [
      value,
      lines.map((line) => ({ level: line.level, text: line.message, server: line.annotations["mcp.server"] }))
    ] as const
  })
