import { assert, describe, it } from "@effect/vitest"
import { Agent, Message, ScriptedModel, Tool } from "@zett/agent"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"

describe("steering", () => {
  it.effect("a message steered during a tool batch skips the calls not yet started and opens the next turn (A7)", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const proceed = yield* Deferred.make<void>()
      const ran: Array<string> = []
      const atAfterTurn: Array<ReadonlyArray<string>> = []
      let secondRequest: ReadonlyArray<Message.Message> = []
      const step = Tool.dynamic("step", {
        description: "one step",
        parameters: { type: "object" },
        handler: (_args, call) =>
          Effect.gen(function*() {
            ran.push(call.id)
            if (call.id === "a") {
              yield* Deferred.succeed(started, undefined)
              yield* Deferred.await(proceed)
            }
            return call.id
          })
      })
      const agent = yield* Agent.make({
        tools: [step],
        extensions: [{
          name: "observer",
          afterTurn: (context) =>
            Effect.map(
              context.messages,
              (ms) =>
                void atAfterTurn.push(ms.map((m) => m._tag === "ToolMessage" ? `${m.toolCallId}:${m.status}` : m._tag))
            )
        }]
      }).pipe(Effect.provide(ScriptedModel.layer([
        { toolCalls: [{ id: "a", name: "step" }, { id: "b", name: "step" }, { id: "c", name: "step" }] },
        (request) => (secondRequest = request.messages, { text: "changed course" })
      ])))
      assert.isFalse(yield* agent.steer("nobody listens"))
      const fiber = yield* Effect.forkChild(agent.run("do three steps"))
      yield* Deferred.await(started)
      assert.isTrue(yield* agent.steer("stop, do something else"))
      yield* Deferred.succeed(proceed, undefined)
      const reply = yield* Fiber.join(fiber)
      assert.strictEqual(reply.content, "changed course")
      assert.deepStrictEqual(ran, ["a"])
      assert.deepStrictEqual(atAfterTurn[0], [
        "UserMessage",
        "AssistantMessage",
        "a:ok",
        "b:skipped",
        "c:skipped",
        "UserMessage"
      ])
      assert.deepStrictEqual(secondRequest.at(-1), Message.user("stop, do something else"))
      // the model is told why a call did not run
      assert.deepStrictEqual(
        secondRequest.flatMap((m) => m._tag === "ToolMessage" && m.status === "skipped" ? [m.content] : []),
        Array(2).fill({ skipped: "a new user message arrived before this call started" })
      )
      assert.strictEqual(atAfterTurn.length, 2)
    }))
})
