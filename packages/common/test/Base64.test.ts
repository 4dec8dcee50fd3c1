/**
 * The scrubber's base64 (on the runtime's `btoa` and `atob`) writes and refuses exactly as Effect's `Encoding`
 * does, which is what the 3 line's scrubber and its tests were written against.
 */
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as fc from "fast-check"
import { assert, describe, it } from "vitest"
import * as Base64 from "../src/internal/base64.js"

const effectDecode = (text: string) => Either.getOrUndefined(Encoding.decodeBase64(text))
const effectDecodeUrl = (text: string) => Either.getOrUndefined(Encoding.decodeBase64Url(text))

// texts near base64: its alphabets, padding, line breaks and a few characters neither alphabet has
const nearBase64 = fc.string({
  unit: fc.constantFrom(..."AQgw09+/-_==\n\r .*".split("")),
  maxLength: 24
})

describe("internal base64", () => {
  it("encodes as Effect's Encoding does, padded and URL-safe, for any bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
      assert.strictEqual(Base64.encode(bytes), Encoding.encodeBase64(bytes))
      assert.strictEqual(Base64.encodeUrl(bytes), Encoding.encodeBase64Url(bytes))
    }))
  })

  it("decodes and refuses as Effect's Encoding does (padding, characters, line breaks)", () => {
    fc.assert(
      fc.property(nearBase64, (text) => {
        assert.deepStrictEqual(Base64.decode(text), effectDecode(text), JSON.stringify(text))
        assert.deepStrictEqual(Base64.decodeUrl(text), effectDecodeUrl(text), JSON.stringify(text))
      }),
      { numRuns: 5_000 }
    )
    for (const text of ["YQ==", "YQ", "Y Q==", "Y=Q=", "YQ===", "YWJj\nZA==", "", "-_8", "Zm9v"]) {
      assert.deepStrictEqual(Base64.decode(text), effectDecode(text), text)
      assert.deepStrictEqual(Base64.decodeUrl(text), effectDecodeUrl(text), text)
    }
  })
})
