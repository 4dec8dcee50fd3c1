/**
 * The version check of both lines' installed entries: the caret ranges of the 3 line's `peerDependencies` and the
 * tilde ranges of the 4 line's (the packages on Effect 4's unstable modules pin a minor). The refusal itself, in an
 * app next to the other line's Effect, is tested by each line's `@zett/agent` (`test/EffectVersion.test.ts`).
 */
import * as EffectVersion from "@zett/common/EffectVersion"
import { assert, describe, it } from "vitest"

describe("EffectVersion", () => {
  it("a tilde range admits the later patches of its minor only; a pre-release of that minor counts", () => {
    assert.isTrue(EffectVersion.satisfies("~4.1.5", "4.1.5"))
    assert.isTrue(EffectVersion.satisfies("~4.1.5", "4.1.12"))
    assert.isTrue(EffectVersion.satisfies("~4.1.5", "4.1.6-beta.0"))
    assert.isFalse(EffectVersion.satisfies("~4.1.5", "4.1.4"))
    assert.isFalse(EffectVersion.satisfies("~4.1.5", "4.2.0"))
    assert.isFalse(EffectVersion.satisfies("~4.1.5", "3.22.4"))
    assert.isFalse(EffectVersion.satisfies("~4.1.5", "5.1.5"))
  })

  it("a caret range admits the later releases of its major; anything else is no range", () => {
    assert.isTrue(EffectVersion.satisfies("^4.1.0", "4.7.0"))
    assert.isFalse(EffectVersion.satisfies("^4.1.0", "3.22.4"))
    assert.isFalse(EffectVersion.satisfies(">=4.1.0", "4.1.5"))
    assert.isFalse(EffectVersion.satisfies("4.1.5", "4.1.5"))
  })

  it("the refusal names the package, the range, the version found and where", () => {
    assert.strictEqual(
      EffectVersion.message("@zett/agent", "^4.1.0", { version: "3.22.4", path: "/app/node_modules/effect" }),
      "@zett/agent needs effect ^4.1.0; found effect 3.22.4 at /app/node_modules/effect. " +
        "Install effect@\"^4.1.0\" and the @effect/* packages of that line."
    )
  })
})
