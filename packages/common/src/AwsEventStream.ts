/**
 * AWS's binary event-stream encoding (`application/vnd.amazon.eventstream`), read: the messages of a streamed
 * answer (Bedrock's `converse-stream`) as its bytes arrive. What both lines' `@zett/ai-amazon-bedrock` read its
 * answers with.
 *
 * @since 0.1.0
 */

/**
 * One message of the stream: its string headers (`:event-type`, `:message-type`, ...) and its payload.
 *
 * @since 0.1.0
 * @category models
 */
export interface EventMessage {
  readonly headers: Record<string, string>
  readonly payload: Uint8Array
}

const decoder = new TextDecoder()

// the size of each header value type with no length of its own: true, false, byte, short, int, long, timestamp, uuid
const fixedSizes: Record<number, number> = { 0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16 }

/**
 * A reader of one stream: fed the bytes as they arrive, it returns the messages they complete and keeps the rest
 * for the next call. A message is a 12-byte prelude (total length, headers length, CRC), the headers (name length,
 * name, type; type 7, a string with a 2-byte length, is kept, the others are skipped by their size), the payload
 * and a 4-byte CRC. The CRCs are not checked: TLS already protects the bytes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFramer = (): (chunk: Uint8Array) => Array<EventMessage> => {
  let buffer = new Uint8Array(0)
  return (chunk) => {
    const joined = new Uint8Array(buffer.length + chunk.length)
    joined.set(buffer)
    joined.set(chunk, buffer.length)
    buffer = joined
    const out: Array<EventMessage> = []
    while (buffer.length >= 12) {
      const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength)
      const total = view.getUint32(0)
      const headersLength = view.getUint32(4)
      if (buffer.length < total) break
      const headers: Record<string, string> = {}
      let at = 12
      const end = 12 + headersLength
      while (at < end) {
        const nameLength = view.getUint8(at)
        const name = decoder.decode(buffer.subarray(at + 1, at + 1 + nameLength))
        at += 1 + nameLength
        const type = view.getUint8(at)
        at += 1
        if (type === 6 || type === 7) {
          const length = view.getUint16(at)
          if (type === 7) headers[name] = decoder.decode(buffer.subarray(at + 2, at + 2 + length))
          at += 2 + length
        } else {
          at += fixedSizes[type] ?? 0
        }
      }
      out.push({ headers, payload: buffer.slice(end, total - 4) })
      buffer = buffer.slice(total)
    }
    return out
  }
}
