/**
 * How much of a server's chatter reaches standard error in one command: the first few log lines of each server
 * (its log notifications, its stderr, what zett logs about it) and the first few of its requests to the user
 * (with the lines about them: a sampling request refused);
 * the rest are counted and summed up in one line per server when the command ends ("… 19,990 more log messages
 * from MCP server s"). Only the terminal printer is limited: another logger (an exporter) gets every message,
 * and `--json` output has none of this.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { inert } from "./inert.js"

/** Log lines and requests shown per server and command, before the rest are counted instead. */
export const defaultLimit = 10

export type Kind = "log" | "request"

export interface Service {
  /** Counts one line of `kind` from `server`: true while it is among the first `limit`, to be shown. */
  readonly admit: (server: string, kind: Kind) => boolean
  /** The summary lines of what was held back since the last call (each count is said once). */
  readonly flush: () => ReadonlyArray<string>
}

export class Chatter extends Context.Tag("@zett/cli/Chatter")<Chatter, Service>() {}

const count = (n: number) => n.toLocaleString("en-US")

export const make = (limit: number = defaultLimit): Service => {
  const seen = new Map<string, number>()
  const held = new Map<string, number>()
  return {
    admit: (server, kind) => {
      const key = `${kind}\u0000${server}`
      const n = (seen.get(key) ?? 0) + 1
      seen.set(key, n)
      if (n <= limit) return true
      held.set(key, (held.get(key) ?? 0) + 1)
      return false
    },
    flush: () => {
      const lines: Array<string> = []
      for (const [key, n] of held) {
        const [kind, name] = key.split("\u0000") as [Kind, string]
        const server = inert(name)
        lines.push(
          kind === "log"
            ? `… ${count(n)} more log ${n === 1 ? "message" : "messages"} from MCP server ${server} (not shown)`
            : `… ${count(n)} more ${n === 1 ? "request" : "requests"} from MCP server ${server} declined without asking`
        )
      }
      held.clear()
      return lines
    }
  }
}

/** Writes the summary lines of the `Chatter` in context, if any, with `write`. */
export const summarize = <R>(write: (line: string) => Effect.Effect<void, never, R>): Effect.Effect<void, never, R> =>
  Effect.flatMap(
    Effect.serviceOption(Chatter),
    (chatter) => chatter._tag === "None" ? Effect.void : Effect.forEach(chatter.value.flush(), write, { discard: true })
  )
