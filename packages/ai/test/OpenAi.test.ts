import { assert, describe, it } from "@effect/vitest"
import { Message, Model } from "@zett/agent"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { inspect } from "node:util"
import {
  buildModel,
  captureLogs,
  eventually,
  fakeProvider,
  gate,
  json,
  KEY,
  openAiEvents,
  openAiModel,
  pendingSleep,
  sse
} from "./utils.js"

const request = (
  messages: ReadonlyArray<Message.Message> = [Message.user("Hi")],
  tools: Model.ModelRequest["tools"] = []
): Model.ModelRequest => ({ messages, tools, serverTools: [] })

const collect = (request: Model.ModelRequest) =>
  Effect.flatMap(Model.Model, (model) => Stream.runCollect(model.stream(request))).pipe(Effect.map(Chunk.toArray))

// An MCP-style schema with the features strict-mode rewriting or a Schema round trip would change.
const mcpSchema = {
  type: "object",
  properties: {
    path: { type: "string", description: "File to read" },
    range: { $ref: "#/$defs/Range" },
    encoding: { anyOf: [{ type: "string", enum: ["utf8", "base64"] }, { type: "null" }], default: null }
  },
  required: ["path"],
  additionalProperties: false,
  $defs: { Range: { type: "object", properties: { start: { type: "integer", minimum: 0 } } } }
}

describe("AiModel on @effect/ai-openai (Responses API)", () => {
  it.scoped("streams text deltas as they arrive and reports usage at the finish", () =>
    Effect.gen(function*() {
      const seenFirstDelta = gate<"client" | "timeout">()
      setTimeout(() => seenFirstDelta.open("timeout"), 3000).unref()
      const provider = yield* fakeProvider([
        sse(openAiEvents({ text: ["Hel", "lo ", "world"], usage: { input: 12, output: 3 } }), {
          // the rest of the answer waits until the client has seen the first delta
          hold: { before: 4, until: seenFirstDelta.promise }
        })
      ])
      const model = yield* buildModel(openAiModel(provider))
      const events = yield* model.stream(request()).pipe(
        Stream.tap((event) => Effect.sync(() => event._tag === "TextDelta" && seenFirstDelta.open("client"))),
        Stream.runCollect,
        Effect.map(Chunk.toArray)
      )
      assert.strictEqual(yield* Effect.promise(() => seenFirstDelta.promise), "client")
      assert.deepStrictEqual(events, [
        Model.textDelta("Hel"),
        Model.textDelta("lo "),
        Model.textDelta("world"),
        Model.finish("stop", new Message.Usage({ inputTokens: 12, outputTokens: 3 }))
      ])
      assert.strictEqual(provider.requests[0]!.url, "/v1/responses")
    }))
})
