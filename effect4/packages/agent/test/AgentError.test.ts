/**
 * The agent's error family: every public error of `@zett/agent` carries `AgentError.TypeId` and says its kind in a
 * literal `reason`, each met here where a user meets it (building an agent, a run, a compaction, a tool).
 */
import { assert, describe, it } from "@effect/vitest"
import { AgentError, type Extension, Message, Model, Tool } from "@zett/agent"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { agentWith, recorder } from "./utils.js"

/** What the failing hooks here fail with: any typed error of an extension. */
class Broken extends Data.TaggedError("Broken")<{ readonly message: string }> {}

const failing = (name: string, hooks: Partial<Extension.Extension<Error>>): Extension.Extension<Error> => ({
  name,
  ...hooks
})

const check = (error: unknown, tag: string, reason: string, message: string) => {
  assert.isTrue(AgentError.isAgentError(error), tag)
  const e = error as AgentError.Any
  assert.strictEqual(e._tag, tag)
  assert.strictEqual(e[AgentError.TypeId], AgentError.TypeId, tag)
  assert.strictEqual(e.reason, reason, tag)
  assert.include(e.message, message, tag)
}

describe("AgentError", () => {
  it.effect("building an agent, a run, a compaction and a tool fail with errors of the family, each with its kind", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      check(
        yield* Effect.flip(agentWith([], { extensions: [recorder("same", log), recorder("same", log)] })),
        "DuplicateExtension",
        "DuplicateName",
        "\"same\""
      )

      const looping = yield* agentWith([{ toolCalls: [{ name: "missing" }] }], { maxTurns: 2 })
      const calling = yield* agentWith([{ toolCalls: [{ name: "missing" }] }, { toolCalls: [{ name: "missing" }] }], {
        maxTurns: 1
      })
      check(yield* Effect.flip(calling.run("go")), "MaxTurnsExceeded", "MaxTurns", "within 1 turns")
      check(yield* Effect.flip(looping.run("go")), "ModelError", "ScriptEnded", "no step for request 2")

      const hook = yield* agentWith([{ text: "hi" }], {
        extensions: [failing("broken", { beforeRun: () => Effect.fail(new Broken({ message: "no" })) })]
      })
      check(yield* Effect.flip(hook.run("go")), "ExtensionError", "Hook", "extension broken failed in beforeRun")

      const request = yield* agentWith([{ text: "hi" }], {
        extensions: [failing("lazy", { request: () => Effect.fail(new Broken({ message: "no" })) })]
      })
      check(yield* Effect.flip(request.run("go")), "ExtensionError", "Request", "extension lazy failed in request")

      const compaction = yield* agentWith([], {
        compaction: { shouldCompact: () => false, compact: () => Effect.fail(new Broken({ message: "full" })) }
      })
      check(
        yield* Effect.flip(compaction.compact),
        "ExtensionError",
        "Compaction",
        "extension compaction failed in compact"
      )

      const add = Tool.make("add", {
        description: "adds",
        parameters: Schema.Struct({ a: Schema.Number }),
        handler: ({ a }) => Effect.succeed(a)
      })
      const call = new Message.ToolCall({ id: "c", name: "add", arguments: { a: "x" } })
      const context = {} as Parameters<Tool.Tool["handle"]>[2]
      check(
        yield* Effect.flip(add.handle({ a: "x" }, call, context)),
        "ToolError",
        "InvalidArguments",
        "invalid arguments for add"
      )
    }))

  it("a ModelError says its kind in reason and its text in description, which its message words", () => {
    const error = new Model.ModelError({ reason: "Http", description: "openai answered HTTP 500" })
    check(error, "ModelError", "Http", "model request failed: openai answered HTTP 500")
    assert.strictEqual(error.description, "openai answered HTTP 500")
  })

  it("isAgentError refuses what is not of the family: an Error, an object with a reason", () => {
    assert.isFalse(AgentError.isAgentError(new Error("x")))
    assert.isFalse(AgentError.isAgentError({ _tag: "ToolError", reason: "Timeout" }))
  })
})
