import { AwsEventStream } from "@zett/common"
import * as Zlib from "node:zlib"
import { assert, describe, it } from "vitest"

type Header = readonly [name: string, type: number, value: Buffer]

const string = (name: string, value: string): Header => {
  const bytes = Buffer.from(value, "utf8")
  const length = Buffer.alloc(2)
  length.writeUInt16BE(bytes.length)
  return [name, 7, Buffer.concat([length, bytes])]
}

/** One message as AWS encodes it, with both CRCs. */
const message = (headers: ReadonlyArray<Header>, payload: string): Buffer => {
  const headerBytes = Buffer.concat(headers.map(([name, type, value]) => {
    const n = Buffer.from(name, "utf8")
    return Buffer.concat([Buffer.from([n.length]), n, Buffer.from([type]), value])
  }))
  const body = Buffer.from(payload, "utf8")
  const prelude = Buffer.alloc(8)
  prelude.writeUInt32BE(12 + headerBytes.length + body.length + 4, 0)
  prelude.writeUInt32BE(headerBytes.length, 4)
  const preludeCrc = Buffer.alloc(4)
  preludeCrc.writeUInt32BE(Zlib.crc32(prelude))
  const withoutCrc = Buffer.concat([prelude, preludeCrc, headerBytes, body])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(Zlib.crc32(withoutCrc))
  return Buffer.concat([withoutCrc, crc])
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

describe("AwsEventStream.makeFramer", () => {
  const first = message([string(":event-type", "contentBlockDelta"), string(":message-type", "event")], "{\"a\":1}")
  const second = message([string(":event-type", "messageStop")], "{\"stopReason\":\"end_turn\"}")
  const bytes = Buffer.concat([first, second])

  it("reads every message of a stream however its bytes are cut, each when its last byte arrives", () => {
    for (const size of [1, 5, 12, first.length - 1, first.length, first.length + 3, bytes.length]) {
      const read = AwsEventStream.makeFramer()
      const seen: Array<{ readonly after: number; readonly type: string; readonly payload: string }> = []
      for (let at = 0; at < bytes.length; at += size) {
        const end = Math.min(at + size, bytes.length)
        for (const m of read(bytes.subarray(at, end))) {
          seen.push({ after: end, type: m.headers[":event-type"]!, payload: text(m.payload) })
        }
      }
      assert.deepStrictEqual(seen.map(({ payload, type }) => [type, payload]), [
        ["contentBlockDelta", "{\"a\":1}"],
        ["messageStop", "{\"stopReason\":\"end_turn\"}"]
      ], `pieces of ${size}`)
      assert.isAtLeast(seen[0]!.after, first.length, `pieces of ${size}`)
      assert.isBelow(seen[0]!.after, first.length + size, `pieces of ${size}`)
      assert.strictEqual(seen[1]!.after, bytes.length, `pieces of ${size}`)
    }
  })

  it("keeps the string headers and skips the others by their size", () => {
    const int32 = Buffer.alloc(4)
    int32.writeInt32BE(-7)
    const blob = Buffer.from([0, 3, 1, 2, 3])
    const read = AwsEventStream.makeFramer()
    const [only, ...rest] = read(message([
      ["flag", 0, Buffer.alloc(0)],
      ["count", 4, int32],
      ["bytes", 6, blob],
      ["id", 9, Buffer.alloc(16, 0xab)],
      string(":exception-type", "throttlingException"),
      ["at", 8, Buffer.alloc(8)],
      string(":message-type", "exception")
    ], "{\"message\":\"slow down\"}"))
    assert.deepStrictEqual(rest, [])
    assert.deepStrictEqual(only!.headers, { ":exception-type": "throttlingException", ":message-type": "exception" })
    assert.strictEqual(text(only!.payload), "{\"message\":\"slow down\"}")
  })

  it("returns nothing for bytes that end inside a prelude, and each reader keeps its own", () => {
    const one = AwsEventStream.makeFramer()
    const other = AwsEventStream.makeFramer()
    assert.deepStrictEqual(one(first.subarray(0, 7)), [])
    assert.deepStrictEqual(other(second).map((m) => m.headers), [{ ":event-type": "messageStop" }])
    assert.deepStrictEqual(one(first.subarray(7)).map((m) => text(m.payload)), ["{\"a\":1}"])
  })
})
