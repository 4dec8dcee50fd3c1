/**
 * A fake Bedrock runtime on 127.0.0.1 (node:http): it answers each request with a scripted reply (JSON or a
 * ConverseStream answer in AWS's binary event-stream encoding) and records what it received; the Model on
 * `AmazonBedrockLanguageModel` against it; waits on real time while the test's clock is a `TestClock`; the logs a
 * test reads. The 3 line's `@zett/testing/FakeProvider` and `ModelProbes`, as far as these tests use them, on
 * Effect 4.
 */
import type { Model } from "@zett/agent"
import { AiModel } from "@zett/ai"
import { AmazonBedrockClient, AmazonBedrockLanguageModel } from "@zett/ai-amazon-bedrock"
import { type FakeProvider, KEY, type Reply } from "@zett/testing-core/FakeProvider"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Zlib from "node:zlib"

export * from "@zett/testing-core/FakeProvider"

export interface StreamScript {
  readonly text?: ReadonlyArray<string>
  readonly calls?: ReadonlyArray<{ readonly id: string; readonly name: string; readonly pieces: ReadonlyArray<string> }>
  readonly usage?: { readonly input: number; readonly output: number; readonly cached?: number }
}

/** The events of a ConverseStream answer: messageStart, a text block, toolUse blocks, messageStop, metadata. */
export const bedrockEvents = (options: StreamScript): Array<{ readonly type: string; readonly payload: unknown }> => {
  const events: Array<{ type: string; payload: unknown }> = [{ type: "messageStart", payload: { role: "assistant" } }]
  let index = 0
  if (options.text !== undefined) {
    for (const text of options.text) {
      events.push({ type: "contentBlockDelta", payload: { contentBlockIndex: index, delta: { text } } })
    }
    events.push({ type: "contentBlockStop", payload: { contentBlockIndex: index } })
    index++
  }
  for (const call of options.calls ?? []) {
    events.push({
      type: "contentBlockStart",
      payload: { contentBlockIndex: index, start: { toolUse: { toolUseId: call.id, name: call.name } } }
    })
    for (const input of call.pieces) {
      events.push({ type: "contentBlockDelta", payload: { contentBlockIndex: index, delta: { toolUse: { input } } } })
    }
    events.push({ type: "contentBlockStop", payload: { contentBlockIndex: index } })
    index++
  }
  events.push({
    type: "messageStop",
    payload: { stopReason: (options.calls ?? []).length > 0 ? "tool_use" : "end_turn" }
  })
  events.push({
    type: "metadata",
    payload: {
      usage: {
        inputTokens: options.usage?.input ?? 0,
        outputTokens: options.usage?.output ?? 0,
        totalTokens: (options.usage?.input ?? 0) + (options.usage?.output ?? 0),
        ...(options.usage?.cached !== undefined ? { cacheReadInputTokens: options.usage.cached } : {})
      },
      metrics: { latencyMs: 100 }
    }
  })
  return events
}

/** One message of AWS's event-stream encoding, with its CRCs, as Bedrock sends it. */
export const eventStreamMessage = (headers: Record<string, string>, payload: unknown): Buffer => {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const n = Buffer.from(name, "utf8")
      const v = Buffer.from(value, "utf8")
      const head = Buffer.alloc(1 + n.length + 1 + 2)
      head.writeUInt8(n.length, 0)
      n.copy(head, 1)
      head.writeUInt8(7, 1 + n.length)
      head.writeUInt16BE(v.length, 2 + n.length)
      return Buffer.concat([head, v])
    })
  )
  const body = Buffer.from(JSON.stringify(payload), "utf8")
  const total = 12 + headerBytes.length + body.length + 4
  const prelude = Buffer.alloc(8)
  prelude.writeUInt32BE(total, 0)
  prelude.writeUInt32BE(headerBytes.length, 4)
  const preludeCrc = Buffer.alloc(4)
  preludeCrc.writeUInt32BE(Zlib.crc32(prelude), 0)
  const withoutCrc = Buffer.concat([prelude, preludeCrc, headerBytes, body])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(Zlib.crc32(withoutCrc), 0)
  return Buffer.concat([withoutCrc, crc])
}

/** A ConverseStream answer; `split` cuts the bytes in pieces of that size, so messages arrive across reads. */
export const bedrockStream = (
  events: ReadonlyArray<{ readonly type: string; readonly payload: unknown }>,
  options: { readonly split?: number } = {}
): Reply =>
async (res) => {
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" })
  const bytes = Buffer.concat(
    events.map(({ payload, type }) =>
      eventStreamMessage(
        { ":event-type": type, ":content-type": "application/json", ":message-type": "event" },
        payload
      )
    )
  )
  const size = options.split ?? bytes.length
  for (let at = 0; at < bytes.length; at += size) {
    res.write(bytes.subarray(at, at + size))
    await new Promise((resolve) => setImmediate(resolve))
  }
  res.end()
}

const key = Redacted.make(KEY)

/** The Model on Bedrock's Converse API (a Bedrock API key) against the fake provider. */
export const bedrockModel = (
  provider: FakeProvider,
  options: Omit<AiModel.Options, "provider"> = {}
): Layer.Layer<Model.Model> =>
  AiModel.layer({ ...options, provider: "bedrock", redact: [...(options.redact ?? []), key] }).pipe(
    Layer.provide(AmazonBedrockLanguageModel.layer({ model: "anthropic.claude-3-5-haiku-20241022-v1:0" })),
    Layer.provide(AmazonBedrockClient.layer({ apiKey: key, apiUrl: provider.url })),
    Layer.provide(FetchHttpClient.layer)
  )
