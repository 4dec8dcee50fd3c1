/**
 * `AiModel` under the agent: the agent, not `effect/ai`, runs the provider's tool calls, with every hook, on a
 * scripted `LanguageModel.make` that records what the provider would be sent.
 */
import { assert, describe, it } from "@effect/vitest"
import { Agent, type Extension, Message, type Model, Tool } from "@zett/agent"
import { AiError } from "effect/ai"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { calls, modelOn, text, usage } from "./utils.js"

// An MCP tool as the agent holds it: a runtime JSON Schema, arguments passed through to the handler.
const readFile = (log: Array<unknown>) =>
  Tool.dynamic("fs__read_file", {
    description: "Reads a file",
    parameters: {
      type: "object",
      properties: { path: { type: "string" }, head: { type: "integer", minimum: 1 } },
      required: ["path"],
      additionalProperties: false
    },
    handler: (args) => Effect.sync(() => (log.push(args), { text: "hello from the file" }))
  })

const hooks = (log: Array<string>): Extension.Extension => ({
  name: "hooks",
  onModelRequest: (_context, request, next): Stream.Stream<Model.ModelEvent, Model.ModelError> =>
    next(request).pipe(Stream.tap((event) => Effect.sync(() => void log.push(`event:${event._tag}`)))),
  beforeTool: (_context, call) => Effect.sync(() => void log.push(`beforeTool:${call.name}`)),
  onToolCall: (_context, call, next) =>
    Effect.andThen(Effect.sync(() => void log.push(`onToolCall:${call.name}`)), next(call)),
  afterTool: (_context, call, result) => Effect.sync(() => void log.push(`afterTool:${call.name}:${result.status}`))
})

describe("AiModel under the agent (A13)", () => {
  it.effect("the agent, not @effect/ai, runs the provider's tool call: every hook sees it, the result goes back", () =>
    Effect.gen(function*() {
      const { layer, seen } = modelOn([
        calls({ id: "call_1", name: "fs__read_file", params: { path: "/tmp/x" } }),
        {
          parts: [
            { type: "text-delta", id: "t", delta: "The file says " },
            { type: "text-delta", id: "t", delta: "hello." },
            { type: "finish", reason: "stop", usage: usage(30, 5) }
          ]
        }
      ])
      const args: Array<unknown> = []
      const log: Array<string> = []
      const agent = yield* Agent.make({ tools: [readFile(args)], extensions: [hooks(log)] }).pipe(Effect.provide(layer))
      const reply = yield* agent.run("What is in /tmp/x?")
      assert.strictEqual(reply.content, "The file says hello.")
      assert.deepStrictEqual(reply.usage, new Message.Usage({ inputTokens: 30, outputTokens: 5 }))
      assert.deepStrictEqual(args, [{ path: "/tmp/x" }])
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
      assert.strictEqual(seen.length, 2)
      assert.deepStrictEqual(seen[0]!.tools[0]!.parameters, readFile([]).parameters)
      const last = seen[1]!.prompt.content.slice(-2).map((message) =>
        typeof message.content === "string"
          ? message.content
          : message.content.map((part) =>
            part.type === "tool-call"
              ? [part.type, part.id, part.name, part.params]
              : part.type === "tool-result"
              ? [part.type, part.id, part.isFailure, part.result]
              : part.type
          )
      )
      assert.deepStrictEqual(last, [
        [["tool-call", "call_1", "fs__read_file", { path: "/tmp/x" }]],
        [["tool-result", "call_1", false, { text: "hello from the file" }]]
      ])
    }))

  it.effect("a call of an unknown tool and a call with broken JSON reach the model as TOOL_FAILED; hooks run; the run goes on", () =>
    Effect.gen(function*() {
      const { layer, seen } = modelOn([
        calls({ id: "toolu_1", name: "fs__raed_file", params: { path: "/tmp/x" } }),
        {
          parts: [{ type: "tool-params-start", id: "toolu_2", name: "fs__read_file" }],
          fail: AiError.make({
            module: "FakeProvider",
            method: "streamText",
            reason: new AiError.InvalidOutputError({
              description: "Failed to securely parse tool call parameters for tool 'fs__read_file':\n" +
                "Parameters: {\"path\": \"/tmp/x\",}"
            })
          })
        },
        calls({ id: "toolu_3", name: "fs__read_file", params: { path: "/tmp/x" } }),
        text("It says hello.")
      ])
      const args: Array<unknown> = []
      const log: Array<string> = []
      const agent = yield* Agent.make({ tools: [readFile(args)], extensions: [hooks(log)] }).pipe(Effect.provide(layer))
      const reply = yield* agent.run("What is in /tmp/x?")
      assert.strictEqual(reply.content, "It says hello.")
      assert.deepStrictEqual(args, [{ path: "/tmp/x" }])
      const lastToolResult = (n: number) => {
        const message = seen[n]!.prompt.content.at(-1)!
        const part = typeof message.content === "string" ? undefined : message.content[0]
        return part?.type === "tool-result" ? { id: part.id, isError: part.isFailure, content: part.result } : part
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

  it.effect("a model that keeps sending broken calls is stopped by maxTurns", () =>
    Effect.gen(function*() {
      const { layer, seen } = modelOn([{
        parts: [{ type: "tool-params-start", id: "call_1", name: "fs__read_file" }],
        fail: AiError.make({
          module: "FakeProvider",
          method: "streamText",
          reason: new AiError.InvalidOutputError({
            description:
              "Failed to securely parse tool call parameters for tool 'fs__read_file':\nParameters: {\"path\""
          })
        })
      }])
      const agent = yield* Agent.make({ tools: [readFile([])], maxTurns: 3 }).pipe(Effect.provide(layer))
      const error = yield* Effect.flip(agent.run("read it"))
      assert.strictEqual(error._tag, "MaxTurnsExceeded")
      assert.strictEqual(seen.length, 3)
    }))
})
