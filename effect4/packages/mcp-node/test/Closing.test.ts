/**
 * Closing N stubborn stdio servers (fault server `stubborn`: they ignore the end of input and SIGTERM)
 * takes the time of one, pooled or not. Real processes, so no TestClock: each server records, when its SIGTERM
 * arrives, which of the others are still running; closed one after another, a later server would get its
 * SIGTERM only after an earlier one was SIGKILLed. Kept out of the unit suites that mutation testing runs.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { Agent, ScriptedModel } from "@zett/agent"
import { McpExtension } from "@zett/mcp"
import * as TempDir from "@zett/testing-core/TempDir"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Crypto from "node:crypto"
import * as Path from "node:path"
import * as Faults from "./utils/faults.js"
import * as McpLayers from "./utils/mcpLayers.js"

/**
 * Five servers that ignore the end of their input (and SIGTERM) discovered in one request, with or without
 * the pool; what each server recorded of its own end once the layer has closed, and what was alive between
 * the request and the layer's close.
 */
const closeFiveStubborn = (pool: boolean) =>
  Effect.gen(function*() {
    const dir = yield* TempDir.make("zett-close-")
    const record = Path.join(dir, "record.jsonl")
    const marker = Crypto.randomUUID()
    const servers = Array.from(
      { length: 5 },
      (_, i) => Faults.stdioFault(`mule${i}`, marker, ["stubborn"], [`--record=${record}`])
    )
    const layer = Agent.layer({ extensions: [McpExtension.McpExtension] }).pipe(
      Layer.provide(McpLayers.layer({
        servers,
        connectTimeout: "20 seconds",
        ...(pool ? { connectionPool: { idleTimeToLive: "1 hour" } } : {})
      })),
      // each step of the close ladder (end of input, SIGTERM) waits 1 s: one after another, the second server
      // would get its SIGTERM only after the first was SIGKILLed
      Layer.provide(Faults.factoryLayer({}, { closeTimeout: "1 second" })),
      Layer.provide(NodeServices.layer),
      Layer.provide(ScriptedModel.layer([{ text: "done" }]))
    )
    const aliveBetween = yield* Effect.gen(function*() {
      yield* Agent.run("go")
      return Faults.withMarker(marker).length
    }).pipe(Effect.provide(layer))
    return { aliveBetween, entries: Faults.readRecord(record), left: Faults.withMarker(marker) }
  })

/** Every server received its SIGTERM while all five were still running: none was SIGKILLed before. */
const assertClosedAtOnce = (report: Effect.Success<ReturnType<typeof closeFiveStubborn>>) => {
  const ready = report.entries.filter((e) => e.event === "ready").map((e) => e.pid)
  const terms = report.entries.filter((e) => e.event === "SIGTERM")
  assert.strictEqual(ready.length, 5)
  assert.sameMembers(terms.map((e) => e.pid), ready, "every server received SIGTERM")
  for (const term of terms) assert.sameMembers([...term.alive!], ready, `alive when ${term.pid} got SIGTERM`)
  assert.deepStrictEqual(report.left, [], "no server is left")
}

describe("closing stubborn servers", { concurrent: false }, () => {
  it.live("closing the layer closes the pool's 5 stubborn servers at once", () =>
    Effect.gen(function*() {
      const report = yield* closeFiveStubborn(true)
      assert.strictEqual(report.aliveBetween, 5, "the pool keeps the connections after the request")
      assertClosedAtOnce(report)
    }))

  it.live(
    "the end of a request closes its 5 stubborn servers at once (default mode)",
    () =>
      Effect.gen(function*() {
        const report = yield* closeFiveStubborn(false)
        assert.strictEqual(report.aliveBetween, 0, "the request closed its connections")
        assertClosedAtOnce(report)
      })
  )
})
