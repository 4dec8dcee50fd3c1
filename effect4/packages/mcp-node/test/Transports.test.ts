/**
 * The close ladder of a stdio server (internal/commandTransport): end of input, then SIGTERM to its process group,
 * then SIGKILL, each step after `closeTimeout`. The 3 line's `the close ladder of a stdio server` tests of
 * Transports.test.ts, every assertion kept, against the shared fault server; its HTTP test is in
 * Transports.http.test.ts.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import { captureLogs } from "@zett/testing-core/CapturedLogs"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Crypto from "node:crypto"
import { stdioFault, withMarker } from "./utils/faults.js"

const sigterm = "the server process did not exit after the end of its input: SIGTERM"
const sigkill = "the server process did not exit after SIGTERM: SIGKILL"

/**
 * Connects to the fault server, checks that `McpClient.pid` is the server's own pid, and closes the connection;
 * then returns every log line (debug included) and the processes of the server still alive.
 */
const connectAndClose = (
  faults: ReadonlyArray<string>,
  extra: ReadonlyArray<string>,
  closeTimeout: Duration.Input
) =>
  Effect.gen(function*() {
    const marker = Crypto.randomUUID()
    const logs = captureLogs("Debug")
    yield* Effect.scoped(Effect.gen(function*() {
      const factory = yield* McpClientFactory.McpClientFactory
      const client = yield* factory.connect(stdioFault("ladder", marker, faults, extra))
      const report = yield* client.callTool("report", {})
      assert.strictEqual(client.pid, (report.structuredContent as { readonly pid: number }).pid)
      assert.strictEqual(withMarker(marker).length, 1)
    })).pipe(
      Effect.provide(
        NodeMcpClientFactory.layer({ closeTimeout }).pipe(
          Layer.provide(NodeServices.layer),
          Layer.provideMerge(logs.layer)
        )
      )
    )
    const server = logs.lines.filter((line) => line.annotations["mcp.server"] === "ladder")
    return { messages: server.map((line) => line.message), left: withMarker(marker) }
  })

describe("the close ladder of a stdio server", () => {
  it.live("a server that exits at the end of its input gets no signal", () =>
    Effect.gen(function*() {
      const { left, messages } = yield* connectAndClose(["linger"], ["--linger=100"], "10 seconds")
      assert.include(messages, "stdin ended, lingering")
      assert.notInclude(messages, "got SIGTERM")
      assert.notInclude(messages, sigterm)
      assert.deepStrictEqual(left, [])
    }))

  it.live("a server that outlives the end of its input is ended by SIGTERM, without SIGKILL", () =>
    Effect.gen(function*() {
      const { left, messages } = yield* connectAndClose(["linger"], ["--linger=600000"], "200 millis")
      assert.includeMembers(messages, ["stdin ended, lingering", sigterm, "got SIGTERM"])
      assert.isBelow(messages.indexOf(sigterm), messages.indexOf("got SIGTERM"))
      assert.notInclude(messages, sigkill)
      assert.deepStrictEqual(left, [])
    }))

  it.live("a server that ignores SIGTERM is SIGKILLed", () =>
    Effect.gen(function*() {
      const { left, messages } = yield* connectAndClose(["stubborn"], [], "200 millis")
      assert.includeMembers(messages, ["ignoring the end of stdin", sigterm, "ignoring SIGTERM", sigkill])
      assert.deepStrictEqual(left, [])
    }))

  // The ladder waits in wall-clock time: with the TestClock of `it.effect`, nobody advances it, and a ladder on
  // the caller's clock would wait for ever.
  it.effect("a TestClock in the caller does not hold a closing server open", () =>
    Effect.gen(function*() {
      const { left, messages } = yield* connectAndClose(["stubborn"], [], "200 millis")
      assert.include(messages, sigkill)
      assert.deepStrictEqual(left, [])
    }))
})
