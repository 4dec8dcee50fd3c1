import { assert, describe, it } from "@effect/vitest"
import { Agent, Message, type Model, ScriptedModel, Tool } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const add = Tool.make("math__add", {
  description: "Adds two numbers",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  handler: ({ a, b }) => Effect.succeed(a + b)
})
const subtract = Tool.make("math__subtract", {
  description: "Subtracts",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  handler: ({ a, b }) => Effect.succeed(a - b)
})

const toolResults = (request: Model.ModelRequest) =>
  request.messages.filter((m): m is Message.ToolMessage => m._tag === "ToolMessage").map((m) => ({
    status: m.status,
    content: m.content
  }))

describe("tool-call repair", () => {
  it.effect("unknown tools name the closest tools, unreadable arguments say why; hooks see both", () =>
    Effect.gen(function*() {
      const seen: Array<ReturnType<typeof toolResults>> = []
      const hooks: Array<string> = []
      const model = ScriptedModel.layer([
        {
          toolCalls: [
            { name: "add", arguments: { a: 1, b: 2 } },
            {
              name: "math__add",
              arguments: "{\"a\": 1,",
              invalidArguments: "invalid JSON at position 8: unexpected end"
            }
          ]
        },
        (
          request
        ) => (seen.push(toolResults(request)), { toolCalls: [{ name: "math__add", arguments: { a: 1, b: 2 } }] }),
        (
          request
        ) => (seen.push(toolResults(request)),
          { text: "3", usage: { inputTokens: 7, outputTokens: 1, cachedInputTokens: 5 } })
      ])
      const agent = yield* Agent.make({
        tools: [subtract, add],
        extensions: [{
          name: "log",
          beforeTool: (_c, call) => Effect.sync(() => void hooks.push(`before:${call.name}`)),
          onToolCall: (_c, call, next) =>
            Effect.andThen(Effect.sync(() => void hooks.push(`on:${call.name}`)), next(call)),
          afterTool: (_c, call, result) => Effect.sync(() => void hooks.push(`after:${call.name}:${result.status}`))
        }]
      }).pipe(Effect.provide(model))
      const reply = yield* agent.run("1 + 2?")
      assert.strictEqual(reply.content, "3")
      assert.deepStrictEqual(seen[0], [
        {
          status: "TOOL_FAILED",
          content: {
            error: {
              type: "UnknownTool",
              message: "there is no tool named \"add\"; the closest names are math__add, math__subtract"
            }
          }
        },
        {
          status: "TOOL_FAILED",
          content: {
            error: {
              type: "InvalidArguments",
              message: "the arguments of math__add could not be read (invalid JSON at position 8: unexpected end); " +
                "call it again with the arguments as one JSON object"
            }
          }
        }
      ])
      assert.deepStrictEqual(seen[1]!.at(-1), { status: "ok", content: 3 })
      assert.deepStrictEqual(hooks, [
        "before:add",
        "on:add",
        "after:add:TOOL_FAILED",
        "before:math__add",
        "on:math__add",
        "after:math__add:TOOL_FAILED",
        "before:math__add",
        "on:math__add",
        "after:math__add:ok"
      ])
    }))

  it.effect("with no tools at all, an unknown tool says so", () =>
    Effect.gen(function*() {
      let seen: ReturnType<typeof toolResults> = []
      const model = ScriptedModel.layer([
        { toolCalls: [{ name: "search" }] },
        (request) => (seen = toolResults(request), { text: "sorry" })
      ])
      const agent = yield* Agent.make().pipe(Effect.provide(model))
      yield* agent.run("find it")
      assert.deepStrictEqual(seen, [{
        status: "TOOL_FAILED",
        content: {
          error: { type: "UnknownTool", message: "there is no tool named \"search\"; no tools are available" }
        }
      }])
    }))

  it.effect("the run's result carries the usage of every turn (input, output, cached)", () =>
    Effect.gen(function*() {
      const model = ScriptedModel.layer([
        { toolCalls: [{ name: "math__add", arguments: { a: 1, b: 2 } }], usage: { inputTokens: 10, outputTokens: 4 } },
        { text: "3", usage: { inputTokens: 20, outputTokens: 2, cachedInputTokens: 10 } }
      ])
      const agent = yield* Agent.make({ tools: [add] }).pipe(Effect.provide(model))
      const reply = yield* agent.run("1 + 2?")
      assert.deepStrictEqual(
        reply.usage,
        new Message.Usage({ inputTokens: 20, outputTokens: 2, cachedInputTokens: 10 })
      )
      assert.deepStrictEqual(
        reply.runUsage,
        new Message.Usage({ inputTokens: 30, outputTokens: 6, cachedInputTokens: 10 })
      )
    }))
})
