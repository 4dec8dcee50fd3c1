/**
 * Probes for the tests of a model provider: what a test waits for (a reply held back, a condition, a retry's
 * sleep on the TestClock), and what the code under test logged and traced.
 */
import * as Message from "@zett/agent/Message"
import * as Model from "@zett/agent/Model"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as Tracer from "effect/Tracer"
import { inspect } from "node:util"

/** A key shaped like a provider's, for tests that look for it where it must not be. */
export const KEY = "sk-test-0123456789abcdefSECRET"

/** A promise with its resolver, to hold a reply until the test has seen something. */
export const gate = <A = void>() => {
  let open!: (a: A) => void
  const promise = new Promise<A>((resolve) => (open = resolve))
  return { promise, open }
}

const tick = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 5)))

/** Waits (on real time: the work is IO) until `condition` holds; fails after about 5 seconds. */
export const eventually = (condition: () => boolean, what: string): Effect.Effect<void> => {
  const loop = (n: number): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (condition()) return Effect.void
      if (n > 1000) return Effect.dieMessage(`timed out waiting for ${what}`)
      return Effect.zipRight(tick, loop(n + 1))
    })
  return loop(0)
}

/** Waits until a fiber sleeps on the TestClock (a retry delay), then returns the pending wake-up times. */
export const pendingSleep: Effect.Effect<ReadonlyArray<number>> = Effect.suspend(() => {
  const loop = (n: number): Effect.Effect<ReadonlyArray<number>> =>
    Effect.flatMap(TestClock.sleeps(), (sleeps) => {
      if (sleeps.length > 0) return Effect.succeed(Array.from(sleeps))
      if (n > 1000) return Effect.dieMessage("timed out waiting for a retry delay")
      return Effect.zipRight(tick, Effect.suspend(() => loop(n + 1)))
    })
  return loop(0)
})

/**
 * Every span the code under test opens. `text` is what an exporter records (attributes, events, the pretty
 * failure); `failure` is the raw error a span ended with, for a deeper look.
 */
export const captureSpans = () => {
  const spans: Array<{ readonly name: string; readonly text: () => string; readonly failure: () => unknown }> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const attributes = new Map<string, unknown>()
      const events: Array<unknown> = []
      let status: Tracer.SpanStatus = { _tag: "Started", startTime }
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId: `span${spans.length}`,
        traceId: "trace",
        parent,
        context,
        get status() {
          return status
        },
        attributes,
        links,
        sampled: true,
        kind,
        end: (endTime, exit) => void (status = { _tag: "Ended", startTime, endTime, exit }),
        attribute: (key, value) => void attributes.set(key, value),
        event: (name, _time, attributes) => void events.push({ name, attributes }),
        addLinks: () => {}
      }
      const failed = () => status._tag === "Ended" && Exit.isFailure(status.exit) ? status.exit.cause : undefined
      spans.push({
        name,
        text: () => {
          const cause = failed()
          return inspect({ name, attributes, events, failure: cause && Cause.pretty(cause) }, { depth: 20 })
        },
        failure: () => {
          const cause = failed()
          return cause && Cause.squash(cause)
        }
      })
      return span
    },
    context: (f) => f()
  })
  return { spans, tracer }
}

/** Every log line at every level, rendered with its annotations and cause. */
export const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ annotations, cause, logLevel, message }) => {
    lines.push(
      [logLevel.label, inspect(message, { depth: 10 }), inspect(annotations, { depth: 10 }), Cause.pretty(cause)]
        .join(" ")
    )
  })
  const layer = Layer.merge(Logger.add(logger), Logger.minimumLogLevel(LogLevel.All))
  return { lines, layer }
}

/** Builds a model layer in the test's scope (the HTTP client lives as long as the scope). */
export const buildModel = <E>(layer: Layer.Layer<Model.Model, E>): Effect.Effect<Model.Model["Type"], E, Scope.Scope> =>
  Layer.build(layer).pipe(Effect.map(Context.get(Model.Model)))

/** Two tools a provider's request is offered. */
export const tools: Model.ModelRequest["tools"] = [
  {
    name: "fs__read_file",
    description: "Reads a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
  },
  { name: "math__add", description: "Adds", parameters: { type: "object", properties: { a: { type: "number" } } } }
]

/** A model request: the messages (one user message by default) and the tools offered (none by default). */
export const request = (
  messages: ReadonlyArray<Message.Message> = [Message.user("Hi")],
  offered: Model.ModelRequest["tools"] = []
): Model.ModelRequest => ({ messages, tools: offered, serverTools: [] })
