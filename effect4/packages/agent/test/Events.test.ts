/**
 * A tool publishes events (`ToolProgress`) to the `onEvent` hooks of its request through the run context.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Extension, Tool } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { agentWith } from "./utils.js"

/** A tool that says whether its request is observed, and publishes one report of progress. */
const reporting = (seen: Array<boolean>) =>
  Tool.dynamic("work", {
    description: "works",
    parameters: { type: "object" },
    handler: (_args, call, context) =>
      Effect.gen(function*() {
        seen.push(context.observed)
        yield* context.publish({
          _tag: "ToolProgress",
          runId: context.runId,
          toolCallId: call.id,
          tool: call.name,
          progress: 1,
          total: 2
        })
        return "done"
      })
  })

describe("events", () => {
  it.effect("context.publish reaches every onEvent hook in order, before the tool's result is appended", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const seen: Array<boolean> = []
      const listener = (name: string): Extension.Extension => ({
        name,
        onEvent: (_context, event) =>
          Effect.sync(() =>
            void log.push(
              `${name}: ${
                event._tag === "ToolProgress" ? `${event.tool} ${event.progress}/${event.total}` : event._tag
              }`
            )
          ),
        afterTool: (_context, call) => Effect.sync(() => void log.push(`${name}: afterTool ${call.name}`))
      })
      const agent = yield* agentWith([{ toolCalls: [{ id: "t1", name: "work" }] }, { text: "ok" }], {
        tools: [reporting(seen)],
        extensions: [listener("a"), listener("b")]
      })
      yield* agent.run("go")
      assert.deepStrictEqual(seen, [true])
      assert.deepStrictEqual(log, ["a: work 1/2", "b: work 1/2", "a: afterTool work", "b: afterTool work"])
    }))

  it.effect("without an onEvent hook the request is not observed, and publishing does nothing", () =>
    Effect.gen(function*() {
      const seen: Array<boolean> = []
      const agent = yield* agentWith([{ toolCalls: [{ name: "work" }] }, { text: "ok" }], { tools: [reporting(seen)] })
      const reply = yield* agent.run("go")
      assert.deepStrictEqual(seen, [false])
      assert.strictEqual(reply.content, "ok")
    }))

  it.effect("an onEvent hook that fails is logged; the tool and the run go on", () =>
    Effect.gen(function*() {
      const logs: Array<string> = []
      const failing: Extension.Extension<string> = { name: "failing", onEvent: () => Effect.fail("observer down") }
      const agent = yield* agentWith([
        { toolCalls: [{ name: "work" }] },
        (request) => ({ text: JSON.stringify(request.messages.at(-1)) })
      ], {
        tools: [reporting([])],
        extensions: [failing]
      })
      const reply = yield* agent.run("go").pipe(
        Effect.provide(Logger.layer([Logger.make(({ message }) => void logs.push(String(message)))]))
      )
      assert.include(reply.content, "\"status\":\"ok\"")
      assert.include(logs, "an onEvent hook failed on ToolProgress")
    }))
})
