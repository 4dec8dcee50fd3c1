import { assert, describe, it } from "@effect/vitest"
import { Agent, type Extension, Message, type Model, Tool } from "@zett/agent"
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
      assert.deepStrictEqual(reply.usage, new Message.Usage({ inputTokens: 30, outputTokens: 5, cachedInputTokens: 0 }))
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

  it.scoped("a call of an unknown tool and a call with broken JSON reach the model as TOOL_FAILED; hooks run; the run goes on", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(anthropicEvents({ calls: [{ id: "toolu_1", name: "fs__raed_file", pieces: ["{\"path\":\"/tmp/x\"}"] }] })),
        sse(
          anthropicEvents({
            calls: [{ id: "toolu_2", name: "fs__read_file", pieces: ["{\"path\": ", "\"/tmp/x\",}"] }]
          })
        ),
        sse(anthropicEvents({ calls: [{ id: "toolu_3", name: "fs__read_file", pieces: ["{\"path\": \"/tmp/x\"}"] }] })),
        sse(anthropicEvents({ text: ["It says hello."] }))
      ])
      const calls: Array<unknown> = []
      const log: Array<string> = []
      const context = yield* Layer.build(anthropicModel(provider))
      const agent = yield* Agent.make({ tools: [readFile(calls)], extensions: [hooks(log)] }).pipe(
        Effect.provide(context)
      )
      const reply = yield* agent.run("What is in /tmp/x?")
      assert.strictEqual(reply.content, "It says hello.")
      assert.deepStrictEqual(calls, [{ path: "/tmp/x" }])
      const lastToolResult = (n: number) => {
        const messages: Array<any> = provider.requests[n]!.body.messages
        const result = messages.at(-1).content.find((block: any) => block.type === "tool_result")
        return { id: result.tool_use_id, isError: result.is_error, content: JSON.parse(result.content) }
      }
      assert.deepStrictEqual(lastToolResult(1), {
        id: "toolu_1",
        isError: true,
        content: {
          error: {
            type: "UnknownTool",
            message: "there is no tool named \"fs__raed_file\"; the closest names are fs__read_file"
          }
        }
      })
      assert.deepStrictEqual(lastToolResult(2), {
        id: "toolu_2",
        isError: true,
        content: {
          error: {
            type: "InvalidArguments",
            message:
              "the arguments of fs__read_file could not be read (invalid JSON at position 18: Expected double-quoted " +
              "property name); call it again with the arguments as one JSON object"
          }
        }
      })
      assert.deepStrictEqual(log.filter((line) => !line.startsWith("event:")), [
        "beforeTool:fs__raed_file",
        "onToolCall:fs__raed_file",
        "afterTool:fs__raed_file:TOOL_FAILED",
        "beforeTool:fs__read_file",
        "onToolCall:fs__read_file",
        "afterTool:fs__read_file:TOOL_FAILED",
        "beforeTool:fs__read_file",
        "onToolCall:fs__read_file",
        "afterTool:fs__read_file:ok"
      ])
    }))

  it.scoped("a model that keeps sending broken calls is stopped by maxTurns", () =>
    Effect.gen(function*() {
      const provider = yield* fakeProvider([
        sse(openAiEvents({ calls: [{ id: "call_1", name: "fs__read_file", pieces: ["{\"path\""] }] }))
      ])
      const context = yield* Layer.build(openAiModel(provider))
      const agent = yield* Agent.make({ tools: [readFile([])], maxTurns: 3 }).pipe(Effect.provide(context))
      const error = yield* Effect.flip(agent.run("read it"))
      assert.strictEqual(error._tag, "MaxTurnsExceeded")
      assert.strictEqual(provider.requests.length, 3)
    }))
})
