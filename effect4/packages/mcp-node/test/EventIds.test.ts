/**
 * The event ids Zett reads from a Streamable HTTP response stream must be the ones the SDK resumes from: the SDK
 * reads the stream with eventsource-parser and resumes from the id of the last event it dispatched. These
 * tests hold the reader to that parser, on hand-picked streams and on random ones cut into random chunks (Effect
 * 4's own property testing, `it.prop` on schemas, where the 3 line used fast-check).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { createParser } from "eventsource-parser"
import { EventIds } from "../src/internal/httpFetch.js"

/** The id the SDK resumes from after reading `text`: that of the last dispatched event with a non-empty id. */
const sdkLastId = (text: string): string | undefined => {
  let last: string | undefined
  const parser = createParser({
    onEvent: (event) => {
      if (event.id) last = event.id
    }
  })
  // the SDK's decoder drops a byte order mark
  parser.feed(text.startsWith("\uFEFF") ? text.slice(1) : text)
  return last
}

const readIds = (chunks: ReadonlyArray<Buffer>): string | undefined => {
  const ids = new EventIds()
  for (const chunk of chunks) ids.feed(chunk)
  return ids.last
}

/** `bytes` cut at `cuts` (byte offsets). */
const cut = (bytes: Buffer, cuts: ReadonlyArray<number>): Array<Buffer> => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Array<Buffer> = []
  let from = 0
  for (const point of points) {
    out.push(bytes.subarray(from, point))
    from = point
  }
  out.push(bytes.subarray(from))
  return out
}

describe("EventIds", () => {
  it("counts an event's id once a blank line ends the event, and not for an event the stream cut off", () => {
    assert.strictEqual(readIds([Buffer.from("id: e1\ndata: {\"a\":1}\n\n")]), "e1")
    assert.strictEqual(readIds([Buffer.from("id: e1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"res")]), undefined)
    assert.strictEqual(readIds([Buffer.from("id: e1\ndata: {}\n")]), undefined)
    assert.strictEqual(readIds([Buffer.from("id: e1\ndata: {}\n\nid: e2\ndata: {\"jsonrpc\"")]), "e1")
  })

  it("needs a data line, a non-empty id without NUL, and takes no id from an earlier event", () => {
    assert.strictEqual(readIds([Buffer.from("id: e1\n\n")]), undefined)
    assert.strictEqual(readIds([Buffer.from("id:\ndata: x\n\n")]), undefined)
    assert.strictEqual(readIds([Buffer.from("id: e1\ndata: x\n\nid: a\u0000b\ndata: y\n\n")]), "e1")
    assert.strictEqual(readIds([Buffer.from("id: e1\ndata: x\n\ndata: y\n\n")]), "e1")
    assert.strictEqual(readIds([Buffer.from("id: e1\nid: e2\ndata\n\n")]), "e2")
    assert.strictEqual(readIds([Buffer.from("idx: e1\ndata: x\n\n")]), undefined)
  })

  it("reads CR, LF and CRLF line ends across chunks, as the SDK's parser does", () => {
    assert.strictEqual(readIds([Buffer.from("id: e1\r\ndata: x\r"), Buffer.from("\n\r\n")]), "e1")
    assert.strictEqual(readIds([Buffer.from("id: e1\rdata: x\r\r")]), sdkLastId("id: e1\rdata: x\r\r"))
    assert.strictEqual(
      readIds([Buffer.from("i"), Buffer.from("d: e"), Buffer.from("1\nda"), Buffer.from("ta: x\n\n")]),
      "e1"
    )
  })

  const line = Schema.Literals([
    "id: e1",
    "id: e2",
    "id:e3",
    "id",
    "id:",
    "id: \u00e9t\u00e9",
    "id: a\u0000b",
    "ids: e4",
    "data: {}",
    "data:x",
    "data",
    "dat",
    "data : x",
    ": comment",
    "event: message",
    "retry: 10",
    "",
    ""
  ])
  const end = Schema.Literals(["\n", "\r", "\r\n"])
  it.prop(
    "agrees with the SDK's parser on random streams cut into random chunks",
    [
      Schema.Boolean,
      Schema.Array(Schema.Tuple([line, end])).check(Schema.isMaxLength(30)),
      Schema.Boolean,
      Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 400 }))).check(Schema.isMaxLength(10))
    ],
    ([bom, lines, cutLast, cuts]) => {
      let text = (bom ? "\uFEFF" : "") + lines.map(([l, e]) => l + e).join("")
      // a stream may also end inside a line
      if (cutLast && text.length > 0) text = text.slice(0, -1)
      assert.strictEqual(readIds(cut(Buffer.from(text, "utf8"), cuts)), sdkLastId(text), JSON.stringify(text))
    },
    { arbitrary: { runs: 2_000 } }
  )
})
