/**
 * The reason a server could not be reached names what happened underneath `fetch failed`: the errno of the
 * cause chain (also inside an `AggregateError`, one attempt per address), else the innermost cause's own
 * message (`bad port`: fetch refuses some ports before connecting). A cause chain that loops ends. The 3 line's
 * ConnectReasons.test.ts, every assertion kept.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory, McpServerConfig } from "@zett/mcp"
import { NodeMcpClientFactory } from "@zett/mcp-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Errors from "../src/internal/errors.js"
import * as Processes from "./utils/processes.js"

const connectError = (url: string) =>
  McpClientFactory.McpClientFactory.pipe(
    Effect.flatMap((factory) => Effect.scoped(factory.connect(McpServerConfig.http({ name: "nobody", url })))),
    Effect.provide(NodeMcpClientFactory.layer().pipe(Layer.provide(NodeServices.layer))),
    Effect.flip
  )

const refused = (address: string) =>
  Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: "ECONNREFUSED" })

describe("the reason of a server that cannot be reached", () => {
  it.live("a refused port, on 127.0.0.1 and on localhost: fetch failed (ECONNREFUSED)", () =>
    Effect.gen(function*() {
      const port = yield* Processes.freePort
      for (const host of ["127.0.0.1", "localhost"]) {
        const error = yield* connectError(`http://${host}:${port}/mcp`)
        assert.strictEqual(error.description, "fetch failed (ECONNREFUSED)", host)
        assert.strictEqual(error.reason, "Network", host)
      }
    }))

  it.live("a port fetch refuses to use: fetch failed (bad port)", () =>
    Effect.gen(function*() {
      const error = yield* connectError("http://127.0.0.1:6000/mcp")
      assert.strictEqual(error.description, "fetch failed (bad port)")
    }))

  it("an errno inside an AggregateError is found; a cause chain that loops ends", () => {
    const aggregate = new TypeError("fetch failed", {
      cause: new AggregateError([refused("::1:8080"), refused("127.0.0.1:8080")], "all attempts failed")
    })
    const fromAggregate = Errors.connectError({ server: "s", cause: aggregate })
    assert.strictEqual(fromAggregate.description, "fetch failed (ECONNREFUSED)")
    assert.strictEqual(fromAggregate.reason, "Network")

    const looping = new Error("fetch failed")
    const middle = new Error("socket hang up", { cause: looping })
    Object.defineProperty(looping, "cause", { value: middle })
    assert.match(Errors.connectError({ server: "s", cause: looping }).description, /^fetch failed/)
  })
})
