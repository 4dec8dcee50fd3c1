import { assert, describe, it } from "@effect/vitest"
import { Agent, type Extension, Message, Model, Tool } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { anthropicEvents, anthropicModel, fakeProvider, openAiEvents, openAiModel, sse } from "./utils.js"

// An MCP tool as the agent holds it: a runtime JSON Schema, arguments passed through to the handler.
const readFile = (calls: Array<unknown>) =>
  Tool.dynamic("fs__read_file", {
    description: "Reads a file",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, head: { type: "integer", minimum: 1 } },
      required: ["path"],
      additionalProperties: false
    },
    handler: (args) => Effect.sync(() => (calls.push(args), { text: "hello from the file" }))
  })

const hooks = (log: Array<string>): Extension.Extension => ({
  name: "hooks",
  onModelRequest: (_context, request, next): Stream.Stream<Model.ModelEvent, Model.ModelError> =>
    next(request).pipe(Stream.tap((event) => Effect.sync(() => void log.push(`event:${event._tag}`)))),
  beforeTool: (_context, call) => Effect.sync(() => void log.push(`beforeTool:${call.name}`)),
  onToolCall: (_context, call, next) =>
    Effect.zipRight(Effect.sync(() => void log.push(`onToolCall:${call.name}`)), next(call)),
  afterTool: (_context, call, result) => Effect.sync(() => void log.push(`afterTool:${call.name}:${result.status}`))
})

describe("AiModel under the agent (A13)", () => {
  it.scoped("the agent, not @effect/ai, runs the provider's tool call: every hook sees it, the result goes back", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(openAiEvents({ calls: [{ id: "call_1", name: "fs__read_file", pieces: ["{\"path\":", "\"/tmp/x\"}"] }] })),
        sse(openAiEvents({ text: ["The file says ", "hello."], usage: { input: 30, output: 5 } }))
      ])
      const calls: Array<unknown> = []
      const log: Array<string> = []
      const context = yield* Layer.build(openAiModel(provider))
      const agent = yield* Agent.make({ tools: [readFile(calls)], extensions: [hooks(log)] }).pipe(
        Effect.provide(context)
      )
      const reply = yield* agent.run("What is in /tmp/x?")
      assert.strictEqual(reply.content, "The file says hello.")
      assert.deepStrictEqual(reply.usage, new Message.Usage({ inputTokens: 30, outputTokens: 5 }))
      assert.deepStrictEqual(calls, [{ path: "/tmp/x" }])
      assert.deepStrictEqual(log, [
        "event:ToolCall",
        "event:Finish",
        "beforeTool:fs__read_file",
        "onToolCall:fs__read_file",
        "afterTool:fs__read_file:ok",
        "event:TextDelta",
        "event:TextDelta",
        "event:Finish"
      ])
      assert.strictEqual(provider.requests.length, 2)
      assert.deepStrictEqual(provider.requests[0]!.body.tools[0].parameters, readFile([]).parameters)
      assert.deepStrictEqual(provider.requests[1]!.body.input.slice(-2), [
        { type: "function_call", call_id: "call_1", name: "fs__read_file", arguments: "{\"path\":\"/tmp/x\"}" },
        { type: "function_call_output", call_id: "call_1", output: "{\"text\":\"hello from the file\"}" }
      ])
    }))

  it.scoped("a call to a tool the agent does not offer fails the model request with a readable reason", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({ calls: [{ id: "toolu_9", name: "fs__delete_everything", pieces: ["{}"] }] }))
      ])
      const context = yield* Layer.build(anthropicModel(provider))
      const agent = yield* Agent.make({ tools: [readFile([])] }).pipe(Effect.provide(context))
      const error = yield* Effect.flip(agent.run("clean up"))
      assert.strictEqual(error._tag, "ModelError")
      assert.strictEqual(
        (error as Model.ModelError).reason,
        "anthropic: the model called \"fs__delete_everything\", a tool that was not offered"
      )
    }))
})
