/**
 * The MCP extension over a configuration file: a malformed file fails the extension's layer with its
 * `McpConfigError` (strict), or loads without its invalid entries (lenient). The extension's own logic on fake
 * servers: packages/mcp/test/McpExtension.test.ts.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { McpClientFactory } from "@zett/mcp"
import { fakeFactory } from "@zett/testing/FakeMcp"
import * as McpLayers from "@zett/testing/McpLayers"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Path from "node:path"

describe("McpExtension", () => {
  it.effect("McpExtension.layer fails with the McpConfigError of a malformed file; nothing is swallowed (C8)", () =>
    Effect.gen(function*() {
      const { factory } = fakeFactory({})
      const configPath = Path.join(import.meta.dirname, "fixtures", "config", "invalid-entries.json")
      for (
        const layer of [
          McpLayers.layerNode({ configPath, clientFactory: factory }),
          McpLayers.layer({ configPath }).pipe(
            Layer.provide(Layer.succeed(McpClientFactory.McpClientFactory, factory)),
            Layer.provide(NodeContext.layer)
          )
        ]
      ) {
        const error = yield* Effect.flip(Layer.build(layer).pipe(Effect.scoped))
        assert.strictEqual(error._tag, "McpConfigError")
        assert.match(error.message, /invalid-entries\.json: servers\.docs\.url: expected a URL, got 42/)
      }
      // lenient: the same file loads, the invalid entry skipped
      yield* Layer.build(McpLayers.layerNode({ configPath, clientFactory: factory, strictConfig: false })).pipe(
        Effect.scoped
      )
    }))
})
