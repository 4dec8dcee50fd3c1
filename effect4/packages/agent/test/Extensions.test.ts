import { assert, describe, it } from "@effect/vitest"
import { Agent, Message, MessageAccumulator, ScriptedModel, Tool, ToolGuidelines } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

describe("ready-made extensions", () => {
  it.effect("the message accumulator keeps the conversation across runs of one agent (A12)", () =>
    Effect.gen(function*() {
      const seen: Array<ReadonlyArray<Message.Message>> = []
      const memory = MessageAccumulator.make()
      const agent = yield* Agent.make({ extensions: [memory] }).pipe(Effect.provide(ScriptedModel.layer([
        (request) => (seen.push(request.messages), { text: "Hi Ada." }),
        (request) => (seen.push(request.messages), { text: "You are Ada." })
      ])))
      yield* agent.run("I am Ada.")
      yield* agent.run("Who am I?")
      assert.deepStrictEqual(seen[1]!.map((m) => [m._tag, m.content]), [
        ["UserMessage", "I am Ada."],
        ["AssistantMessage", "Hi Ada."],
        ["UserMessage", "Who am I?"]
      ])
      assert.strictEqual((yield* memory.messages).length, 4)
    }))

  it.effect("a failed run leaves the memory as it was (A12)", () =>
    Effect.gen(function*() {
      const memory = MessageAccumulator.make()
      const agent = yield* Agent.make({ extensions: [memory] }).pipe(
        Effect.provide(ScriptedModel.layer([{ text: "one" }]))
      )
      yield* agent.run("first")
      yield* Effect.flip(agent.run("second"))
      assert.deepStrictEqual((yield* memory.messages).map((m) => m.content), ["first", "one"])
    }))

  it.effect("tool guidelines are added to the system message, except for tools that opt out (A12)", () =>
    Effect.gen(function*() {
      let system: Message.Message | undefined
      const local = Tool.make("lookup", {
        description: "Looks a word up",
        guidelines: "Use for single words only.",
        parameters: Schema.Struct({ word: Schema.String }),
        handler: ({ word }) => Effect.succeed(word)
      })
      const plain = Tool.dynamic("plain", {
        description: "Does plain things",
        parameters: { type: "object" },
        handler: Effect.succeed
      })
      const remote = Tool.dynamic("srv__remote", {
        description: "A remote tool",
        guidelines: false,
        parameters: { type: "object" },
        handler: Effect.succeed
      })
      const agent = yield* Agent.make({
        tools: [local, plain, remote],
        systemPrompt: "Be brief.",
        extensions: [ToolGuidelines.make()]
      })
        .pipe(Effect.provide(ScriptedModel.layer([(request) => (system = request.messages[0], { text: "ok" })])))
      yield* agent.run("hi")
      assert.deepStrictEqual(
        system,
        Message.system(
          "Be brief.\n\nTool guidelines:\n- lookup: Use for single words only.\n- plain: Does plain things"
        )
      )
    }))
})
