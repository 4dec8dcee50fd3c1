/**
 * The SHA-256 behind tool names' suffixes and cache keys is written out (this package depends on nothing, so both
 * lines can list it): it must agree with Node's on any text, across block boundaries and for any code point.
 */
import * as fc from "fast-check"
import { createHash } from "node:crypto"
import { assert, describe, it } from "vitest"
import { sha256Hex } from "../src/internal/sha256.js"

const reference = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

describe("internal sha256", () => {
  it("agrees with Node's on the lengths around a block's end (55, 56, 63, 64 bytes and their multiples)", () => {
    for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000]) {
      assert.strictEqual(sha256Hex("a".repeat(length)), reference("a".repeat(length)), String(length))
    }
    // the empty string's digest, as FIPS 180-4 gives it
    assert.strictEqual(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  })

  it("agrees with Node's on any text, astral characters and lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => {
        assert.strictEqual(sha256Hex(text), reference(text))
      }),
      { numRuns: 2_000 }
    )
  })
})
