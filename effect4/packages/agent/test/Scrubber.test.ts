/**
 * What the agent's Scrubber adds to `@zett/common`'s patterns (tested there, once for both lines): `Redacted`
 * values, and the process's held secrets as a reference.
 */
import { assert, describe, it } from "@effect/vitest"
import { Scrubber } from "@zett/agent"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"

describe("Scrubber", () => {
  it("a Redacted secret is scrubbed in every form, as the plain value is (B2)", () => {
    const token = "tok-ABCDEFGH12/+="
    const scrubber = Scrubber.make([Redacted.make(`Bearer ${token}`), "plain-secret-1"])
    assert.strictEqual(scrubber.scrub(`token ${token} is revoked`), "token <redacted> is revoked")
    assert.strictEqual(scrubber.scrub(`a ${encodeURIComponent(token)} b plain-secret-1`), "a <redacted> b <redacted>")
    assert.strictEqual(Scrubber.replacement, "<redacted>")
    assert.strictEqual(Scrubber.minLength, 4)
    assert.isTrue(Scrubber.none.isEmpty)
  })

  it("held secrets take Redacted values, and a scrubber extended with them finds one added after it was made", () => {
    const held = Scrubber.makeSecrets()
    const scrubber = held.extend(Scrubber.make([Redacted.make("own-secret-1")]))
    held.add([Redacted.make("redacted-token-3"), "later-token-2"])
    assert.strictEqual(
      scrubber.scrub("own-secret-1 later-token-2 redacted-token-3"),
      "<redacted> <redacted> <redacted>"
    )
    assert.strictEqual(held.scrubber.scrub("redacted-token-3"), "<redacted>")
  })

  it("HeldSecrets is one set for the process unless one is provided", () => {
    const a = Scrubber.makeSecrets()
    const held = Effect.service(Scrubber.HeldSecrets)
    assert.strictEqual(Effect.runSync(held), Effect.runSync(held))
    assert.strictEqual(Effect.runSync(Effect.provideService(held, Scrubber.HeldSecrets, a)), a)
  })
})
