/**
 * The log lines of an effect as logfmt text (`level=WARN ... message="..."`), as the 3 line's Redis tests read them
 * through `Logger.logfmtLogger`.
 */
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as References from "effect/References"

export const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.map(Logger.formatLogFmt, (line) => void lines.push(line))
  return { lines, layer: Layer.merge(Logger.layer([logger]), Layer.succeed(References.MinimumLogLevel)("Info")) }
}
